//! Whether a flow is limited by its congestion window (`tcp.cwnd_limited`), the test
//! `Ctx::cwnd_limited` hands the algorithms that grow only while cwnd-limited.
//!
//! - `assumed` (default, RFC 5681, which has no such test): always.
//! - `ns3`: ns-3.44's m_isCwndLimited, written after every data segment sent, new or
//!   resent: cwnd < BytesInFlight + one segment (tcp-socket-base.cc:3336). It holds until
//!   the next send, so a flow held back by the receive window reads false.
//! - `linux`: Linux 6.x's tcp_is_cwnd_limited (include/net/tcp.h) over the memory
//!   tcp_cwnd_validate keeps (net/ipv4/tcp_output.c): at the end of a send pass that sent
//!   new data or found the window full (packets in flight >= cwnd), the state is rewritten
//!   when the window of data it covers is acknowledged (SND.UNA >= cwnd_usage_seq), when
//!   the pass found the window full, or, while not limited, when more is outstanding than
//!   ever in that window; then it holds the verdict, packets_out as max_packets_out and
//!   SND.NXT as cwnd_usage_seq. The flow is limited if that verdict says so, or in slow
//!   start while cwnd < 2 * max_packets_out.
//!
//! "The window" is the one the sender sent under: during PRR recovery PRR's (ns-3's
//! TcpPrrRecovery and Linux's tcp_cwnd_reduction write it into cwnd), else cwnd (with any
//! RFC 5681 inflation).
//!
//! Deviations:
//! - Linux: wtcp ends a send pass where Linux's tcp_write_xmit runs for an ACK, at the
//!   flow's start and after a pacing tick, each time only if unsent data was waiting
//!   (tcp_push_pending_frames), and not after a timeout's retransmission (Linux's
//!   tcp_retransmit_timer does not validate either).
//! - Linux: tcp_cwnd_validate also halves cwnd toward what was used once the flow has gone
//!   an RTO without being cwnd-limited (tcp_cwnd_application_limited, RFC 7661's idea);
//!   not modelled (a bulk flow held by the receive window is unaffected; an application-
//!   limited one keeps its cwnd).
//! - ns-3: the fast retransmit itself is judged against cwnd (then ssthresh), where ns-3's
//!   EnterRecovery first sets cwnd to PRR's first window (tcp-socket-base.cc:1721); the
//!   next send on the same ACK, judged against PRR's window, overwrites it.

use crate::scenario::CwndLimited;

#[derive(Clone, Copy, Debug)]
pub struct CwndUse {
    rule: CwndLimited,
    /// ns-3: the test at the last data segment sent (false before any).
    last_send_full: bool,
    /// Linux: tp->is_cwnd_limited, max_packets_out (bytes), cwnd_usage_seq.
    is_limited: bool,
    max_out: u64,
    usage_seq: u64,
}

impl CwndUse {
    pub fn new(rule: CwndLimited) -> Self {
        CwndUse { rule, last_send_full: false, is_limited: false, max_out: 0, usage_seq: 0 }
    }

    /// Whether the rule needs the end of each send pass (Linux's); the others skip the
    /// pipe's computation there.
    pub fn needs_passes(&self) -> bool {
        self.rule == CwndLimited::Linux
    }

    /// A data segment left with `in_flight` bytes in flight (it included) under `window`.
    pub fn on_send(&mut self, window: f64, in_flight: u64, mss: u64) {
        if self.rule == CwndLimited::Ns3 {
            self.last_send_full = window < (in_flight + mss) as f64;
        }
    }

    /// The end of a send pass (Linux's tcp_write_xmit -> tcp_cwnd_validate): `sent_new`
    /// when it sent new data, `pipe` bytes in flight, `outstanding` = SND.MAX - SND.UNA.
    pub fn on_pass_end(&mut self, sent_new: bool, window: f64, pipe: u64, mss: u64, snd_una: u64, snd_max: u64) {
        if self.rule != CwndLimited::Linux {
            return;
        }
        // tcp_write_xmit: is_cwnd_limited |= tcp_packets_in_flight(tp) >= tcp_snd_cwnd(tp),
        // here: not one more whole segment fits.
        let full = (pipe + mss) as f64 > window;
        if !(sent_new || full) {
            return;
        }
        let outstanding = snd_max - snd_una;
        if snd_una >= self.usage_seq || full || (!self.is_limited && outstanding > self.max_out) {
            self.is_limited = full;
            self.max_out = outstanding;
            self.usage_seq = snd_max;
        }
    }

    /// The verdict the algorithm sees, with the current cwnd and ssthresh.
    pub fn limited(&self, cwnd: f64, ssthresh: f64) -> bool {
        match self.rule {
            CwndLimited::Assumed => true,
            CwndLimited::Ns3 => self.last_send_full,
            // tcp_is_cwnd_limited: "If in slow start, ensure cwnd grows to twice what was ACKed."
            CwndLimited::Linux => self.is_limited || (cwnd < ssthresh && cwnd < 2.0 * self.max_out as f64),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    #[test]
    fn assumed_is_always_limited() {
        let u = CwndUse::new(CwndLimited::Assumed);
        assert!(u.limited(10_000.0, f64::INFINITY));
    }

    #[test]
    fn ns3_reads_the_last_send() {
        let mut u = CwndUse::new(CwndLimited::Ns3);
        assert!(!u.limited(10_000.0, 5_000.0), "false before any send (m_isCwndLimited starts false)");
        u.on_send(10_000.0, 10_000, MSS);
        assert!(u.limited(10_000.0, 5_000.0), "the window is full");
        // Held back by the receive window: 6 segments in flight under a 10-segment cwnd.
        u.on_send(10_000.0, 6_000, MSS);
        assert!(!u.limited(10_000.0, 5_000.0));
        // Less than a segment of room left counts as full (cwnd < inflight + MSS).
        u.on_send(10_500.0, 10_000, MSS);
        assert!(u.limited(10_500.0, 5_000.0));
    }

    #[test]
    fn linux_remembers_a_full_window_until_that_window_is_acknowledged() {
        let mut u = CwndUse::new(CwndLimited::Linux);
        // The initial window, full: limited.
        u.on_pass_end(true, 10_000.0, 10_000, MSS, 0, 10_000);
        assert!(u.limited(10_000.0, 5_000.0));
        // A later pass in the same window that is not full does not clear it.
        u.on_pass_end(true, 20_000.0, 12_000, MSS, 2_000, 14_000);
        assert!(u.limited(20_000.0, 5_000.0));
        // Once SND.UNA passes the window's end, a pass that is not full clears it.
        u.on_pass_end(true, 20_000.0, 12_000, MSS, 10_000, 22_000);
        assert!(!u.limited(20_000.0, 5_000.0));
        // In slow start the flow counts as limited while cwnd < 2 * max_packets_out.
        assert!(u.limited(20_000.0, f64::INFINITY), "cwnd 20 < 2 * 12 outstanding");
        assert!(!u.limited(30_000.0, f64::INFINITY));
    }

    #[test]
    fn linux_skips_a_pass_that_sent_nothing_and_found_room() {
        let mut u = CwndUse::new(CwndLimited::Linux);
        u.on_pass_end(true, 10_000.0, 10_000, MSS, 0, 10_000);
        u.on_pass_end(false, 20_000.0, 5_000, MSS, 10_000, 15_000);
        assert!(u.limited(20_000.0, 5_000.0), "no send, room left: tcp_cwnd_validate is not called");
    }
}
