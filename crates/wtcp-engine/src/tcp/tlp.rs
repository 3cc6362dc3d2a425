//! The tail loss probe (RFC 8985 §7) as Linux sends it, with `tcp.tail_loss_probe`.
//!
//! When the flight's last ACKs are lost or its tail is dropped, no ACK comes to start a
//! fast recovery and only the retransmission timer is left. TLP arms a shorter probe
//! timeout (PTO) instead while the connection is open; when it fires, one segment goes
//! out (new data if the receive window allows, else the last segment again) so that its
//! SACK lets RACK find the loss (with the duplicate-ACK rule a lone SACK is not enough, and
//! the timer still repairs it). A retransmitted probe
//! that turns out to have repaired a loss reduces the window as a fast recovery would.
//!
//! The sender (`sender.rs`, `sender/probe.rs`) owns the timer: as in Linux, the PTO takes
//! the retransmission timer's slot (`icsk_pending == ICSK_TIME_LOSS_PROBE`), so no RTO runs
//! while it is armed; the PTO is clamped to when the RTO would fire (except an RTO already
//! due, and a paced flow's wait for its next departure, which Linux adds after the clamp).
//! This module holds the episode and the timeout's length.
//!
//! Sources (Linux 6.12): tcp_output.c `tcp_schedule_loss_probe` (2883-2930),
//! `tcp_send_loss_probe` (2954-3015); tcp_input.c `tcp_process_tlp_ack` (3878-3908),
//! `tcp_set_xmit_timer` (3310), `tcp_dsack_seen` (FLAG_DSACK_TLP, 1059); include/net/tcp.h
//! `TCP_TIMEOUT_MIN_US` (2 ms), `TCP_TIMEOUT_INIT` (1 s).
//!
//! Deviations and ambiguities resolved:
//! - PTO = 2 SRTT + 2 ms, or 2 SRTT + the minimum RTO with one segment outstanding, 1 s
//!   before any RTT sample (Linux). RFC 8985 §7.2 says 2 SRTT, plus `TLP.max_ack_delay`
//!   with one segment outstanding.
//! - Scheduled, as Linux does, after a send pass that sent new data (clamped to when the
//!   RTO would fire, counted from the head's last transmission) and on an ACK of new data
//!   (clamped to a whole RTO from now), only with SACK and in the open state: not in a
//!   recovery or after a timeout until its recovery point is acknowledged, and not while
//!   anything above SND.UNA is SACKed or marked lost or the head has been retransmitted
//!   (Linux's CA_Disorder; Linux also counts a retransmission still outstanding elsewhere,
//!   `retrans_out`, which outside a recovery or a timeout is rare). Linux moves between
//!   those states only on some ACKs; wtcp tests them whenever it schedules. Linux's CWR
//!   state (an ECN reduction) counts as open, and so does the state after F-RTO found a
//!   timeout spurious (Linux `tcp_try_undo_loss` returns to CA_Open).
//! - Leaving the open state turns an armed PTO into the RTO with the deadline from the
//!   head's last transmission (Linux `tcp_rearm_rto` while the probe is pending). Linux
//!   does that on an ACK that sets FLAG_SET_XMIT_TIMER (one that acknowledges data, or SACKs
//!   data sent before the head's last transmission) and otherwise leaves the PTO armed,
//!   to fire even in CA_Disorder unless RACK's reordering timer takes the slot (it usually
//!   does with RACK, the `linux` profile's loss detection); wtcp converts on every ACK that
//!   leaves the open state. The same RTO replaces an armed PTO when a recovery starts (its
//!   retransmission of the head restarts it from now with `rearm_rto_on_head_retransmit`).
//! - At most one probe per episode (Linux 76be93fc): while a probe is unresolved, a PTO that
//!   fires becomes the RTO with the original deadline. RFC 8985 §7.3's requirement of a
//!   fresh RTT sample before the next probe is not Linux's and is not modelled.
//! - A retransmitted probe is the last segment of the flight (Linux `skb_rb_last`, cut to
//!   one MSS); it is not counted as lost nor in the recovery's retransmissions (Linux
//!   `__tcp_retransmit_skb` without TCPCB_SACKED_RETRANS), but it is a retransmission in
//!   the flow's counters (`tcpi_total_retrans`).
//! - The episode's end (RFC 8985 §7.4): a probe of new data ends it when acknowledged; a
//!   D-SACK of at most one MSS ending at the probe's end, or a duplicate ACK that SACKs
//!   nothing new and moves no window, ends it without a loss; an ACK beyond the probe's end
//!   means the probe repaired a loss. Linux then sets ssthresh by the algorithm and cwnd =
//!   ssthresh at once (CA_CWR entered and left in one step, no PRR); an algorithm with its
//!   own control of the window (BBR: Linux's `tcp_end_cwnd_reduction` returns early for
//!   `cong_control`) keeps its window, and wtcp takes pacing as the sign of one, as it does
//!   for PRR. An ACK that reaches exactly the probe's end leaves the episode open (Linux).
//! - A recovery, a timeout or an ECN echo outside a recovery ends the episode (Linux
//!   `tcp_init_cwnd_reduction` from `tcp_enter_recovery`, `tcp_enter_cwr`; `tcp_enter_loss`).
//!   Linux keeps it when a recovery starts from CA_CWR, and enters CWR only from CA_Open or
//!   CA_Disorder; wtcp has no CWR state and ends it on every echo outside a recovery.
//! - A D-SACK of the probe (FLAG_DSACK_TLP) does not widen RACK's reordering window (Linux
//!   `tcp_dsack_seen`): the duplicate came from the timer, not from reordering.

use crate::time::Time;

/// Linux `TCP_TIMEOUT_MIN_US`: the PTO's floor above 2 SRTT with more than one segment out.
pub const PTO_EXTRA: Time = 2_000_000;
/// Linux `TCP_TIMEOUT_INIT`: the PTO before any RTT sample.
pub const PTO_WITHOUT_RTT: Time = 1_000_000_000;

/// The probe timeout before its clamp to the RTO (Linux `tcp_schedule_loss_probe`).
/// `segments_out`: segments sent and not cumulatively acknowledged.
pub fn pto(srtt: Option<Time>, segments_out: u64, rto_min: Time) -> Time {
    match srtt {
        Some(srtt) if segments_out == 1 => 2 * srtt + rto_min,
        Some(srtt) => 2 * srtt + PTO_EXTRA,
        None => PTO_WITHOUT_RTT,
    }
}

/// What an ACK means for the probe episode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TlpAck {
    /// No episode, or it stays open.
    Nothing,
    /// The episode ended without a loss.
    Ended,
    /// The retransmitted probe repaired a loss: reduce the window.
    Repaired,
}

/// What the sender knows of an ACK, for `Tlp::on_ack`.
#[derive(Clone, Copy, Debug, Default)]
pub struct AckFacts {
    pub ack: u64,
    /// It moved SND.UNA.
    pub advanced: bool,
    /// It SACKed data not SACKed before, or moved the receive window (Linux FLAG_DATA_SACKED
    /// and FLAG_WIN_UPDATE; the ACK carries no data, and a window that only shrinks is no
    /// update here).
    pub news: bool,
    /// Its first block is a D-SACK of at most one MSS ending at the probe's end (Linux
    /// FLAG_DSACK_TLP, `Tlp::is_dsack_of_probe`).
    pub dsack_of_probe: bool,
}

/// The probe episode of one sender (Linux `tlp_high_seq`, `tlp_retrans`).
#[derive(Clone, Debug, Default)]
pub struct Tlp {
    /// SND.NXT when the probe left (RFC 8985 TLP.end_seq); None: no episode.
    high_seq: Option<u64>,
    /// The probe was a retransmission (RFC 8985 TLP.is_retrans).
    retrans: bool,
}

impl Tlp {
    /// A probe is unresolved: no other is sent (Linux `if (tp->tlp_high_seq) goto rearm_timer`).
    pub fn outstanding(&self) -> bool {
        self.high_seq.is_some()
    }

    /// A D-SACK block `(start, end)` reports the probe arriving twice (Linux
    /// `tcp_dsack_seen`: at most one MSS, ending at `tlp_high_seq`).
    pub fn is_dsack_of_probe(&self, (start, end): (u64, u64), mss: u64) -> bool {
        start < end && end - start <= mss && self.high_seq == Some(end)
    }

    /// A probe left; `snd_nxt` after it.
    pub fn on_probe(&mut self, snd_nxt: u64, retrans: bool) {
        self.high_seq = Some(snd_nxt);
        self.retrans = retrans;
    }

    /// A recovery or a timeout began: the episode ends.
    pub fn reset(&mut self) {
        self.high_seq = None;
    }

    /// RFC 8985 §7.4, Linux `tcp_process_tlp_ack`, branch for branch.
    pub fn on_ack(&mut self, a: AckFacts) -> TlpAck {
        let Some(high) = self.high_seq else { return TlpAck::Nothing };
        if a.ack < high {
            return TlpAck::Nothing;
        }
        let verdict = if !self.retrans || a.dsack_of_probe {
            TlpAck::Ended
        } else if a.ack > high {
            TlpAck::Repaired
        } else if !a.advanced && !a.news {
            TlpAck::Ended // both the original and the probe arrived
        } else {
            return TlpAck::Nothing;
        };
        self.high_seq = None;
        verdict
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    #[test]
    fn pto_is_two_srtts_plus_two_ms_or_the_minimum_rto_for_one_segment() {
        assert_eq!(pto(Some(40 * MS), 10, 200 * MS), 82 * MS);
        assert_eq!(pto(Some(40 * MS), 1, 200 * MS), 280 * MS);
        assert_eq!(pto(None, 10, 200 * MS), 1000 * MS);
    }

    fn facts(ack: u64, advanced: bool, news: bool) -> AckFacts {
        AckFacts { ack, advanced, news, dsack_of_probe: false }
    }

    #[test]
    fn a_retransmitted_probe_repaired_a_loss_only_once_an_ack_passes_it() {
        let mut t = Tlp::default();
        t.on_probe(10_000, true);
        assert_eq!(t.on_ack(facts(9_000, true, false)), TlpAck::Nothing);
        // Exactly at the probe's end: Linux cannot tell yet; the episode stays open.
        assert_eq!(t.on_ack(facts(10_000, true, false)), TlpAck::Nothing);
        assert!(t.outstanding());
        assert_eq!(t.on_ack(facts(11_000, true, false)), TlpAck::Repaired);
        assert!(!t.outstanding());
    }

    #[test]
    fn a_dsack_of_the_probe_or_a_pure_duplicate_means_nothing_was_lost() {
        let mut t = Tlp::default();
        t.on_probe(10_000, true);
        assert!(t.is_dsack_of_probe((9_000, 10_000), 1_000));
        assert!(!t.is_dsack_of_probe((8_000, 10_000), 1_000), "more than one MSS");
        assert!(!t.is_dsack_of_probe((5_000, 6_000), 1_000), "another segment");
        assert!(!t.is_dsack_of_probe((10_000, 9_000), 1_000), "an inverted block");
        let d = AckFacts { ack: 10_000, advanced: false, news: false, dsack_of_probe: true };
        assert_eq!(t.on_ack(d), TlpAck::Ended);
        // The D-SACK test comes before the repair test (Linux's order): a D-SACK of the probe
        // on an ACK beyond it is no loss.
        t.on_probe(10_000, true);
        let beyond = AckFacts { ack: 12_000, advanced: true, news: false, dsack_of_probe: true };
        assert_eq!(t.on_ack(beyond), TlpAck::Ended);
        t.on_probe(10_000, true);
        // New SACK information at the probe's end: still open; a pure duplicate: no loss.
        assert_eq!(t.on_ack(facts(10_000, false, true)), TlpAck::Nothing);
        assert_eq!(t.on_ack(facts(10_000, false, false)), TlpAck::Ended);
    }

    #[test]
    fn a_probe_of_new_data_ends_when_acknowledged_without_a_reduction() {
        let mut t = Tlp::default();
        t.on_probe(10_000, false);
        assert_eq!(t.on_ack(facts(12_000, true, false)), TlpAck::Ended);
    }
}
