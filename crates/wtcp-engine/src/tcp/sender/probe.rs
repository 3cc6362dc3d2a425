//! The sender's side of the tail loss probe (`tcp/tlp.rs`): the probe timeout in the
//! retransmission timer's slot, the probe itself, and what its ACKs mean.

use wtcp_cc::Loss;

use super::{Frto, Sender, SenderIo};
use crate::events::Event;
use crate::packet::Packet;
use crate::tcp::scoreboard::SackUpdate;
use crate::tcp::tlp::{self, AckFacts, TlpAck};
use crate::time::Time;

impl Sender {
    /// Linux's CA_Open: no recovery, no timeout's recovery point ahead (unless F-RTO undid
    /// that timeout), nothing above SND.UNA SACKed or marked lost, the head never
    /// retransmitted (else CA_Disorder).
    fn probe_may_run(&self) -> bool {
        if self.tlp.is_none() || !self.established || self.snd_max <= self.snd_una {
            return false;
        }
        let open = !self.in_recovery && self.frto == Frto::Off && self.past_recovery_point(self.snd_una);
        let disorder = self.sb.as_ref().is_some_and(|sb| sb.sacked().bytes_above(self.snd_una) > 0 || sb.next_lost(self.snd_una).is_some())
            || self.segs.front().is_some_and(|s| s.tx_count > 1);
        open && !disorder
    }

    /// How long until the RTO counted from the head's last transmission (Linux
    /// `tcp_rto_delta_us`); None once it is due.
    fn rto_left_from_head(&self, now: Time) -> Option<Time> {
        let head = self.segs.front()?;
        (head.sent_at + self.rtt.rto()).checked_sub(now).filter(|&d| d > 0)
    }

    /// Arm the PTO in the retransmission timer's slot if the probe may run (Linux
    /// `tcp_schedule_loss_probe`): `advancing_rto` on an ACK of new data, where the RTO
    /// would restart now, else clamped to the RTO from the head's last transmission.
    pub(super) fn schedule_probe(&mut self, advancing_rto: bool, io: &mut SenderIo) -> bool {
        if !self.probe_may_run() {
            return false;
        }
        let segments_out = (self.snd_max - self.snd_una).div_ceil(self.mss);
        let mut timeout = tlp::pto(self.rtt.srtt(), segments_out, self.cfg.rtt.min_rto);
        // An RTO already due leaves the PTO unclamped (Linux's u32 `rto_delta_us`).
        let rto_left = if advancing_rto { Some(self.rtt.rto()) } else { self.rto_left_from_head(io.now) };
        if let Some(left) = rto_left {
            timeout = timeout.min(left);
        }
        // Linux `tcp_reset_xmit_timer`: after the next paced departure.
        if self.win.pacing_rate.is_some() {
            timeout = timeout.saturating_add(self.next_send_at.saturating_sub(io.now));
        }
        self.rto_timer.set(Some(io.now.saturating_add(timeout)), io.ev, Event::Rto { flow: self.flow });
        self.probe_armed = true;
        true
    }

    /// The RTO again in place of an armed PTO, with the deadline from the head's last
    /// transmission (Linux `tcp_rearm_rto` while `icsk_pending` is the probe's).
    fn probe_becomes_rto(&mut self, io: &mut SenderIo) {
        // Linux: at least 1 us (`max_t(int, delta_us, 1)`) when the RTO is already due.
        let at = io.now + self.rto_left_from_head(io.now).unwrap_or(0).max(1_000);
        self.probe_armed = false;
        self.rto_timer.set(Some(at), io.ev, Event::Rto { flow: self.flow });
    }

    /// New data left in a send pass (Linux `tcp_event_new_data_sent`, then
    /// `tcp_schedule_loss_probe` at the end of `tcp_write_xmit`).
    pub(super) fn probe_after_new_data(&mut self, io: &mut SenderIo) {
        if self.tlp.is_some() && !self.schedule_probe(false, io) && self.probe_armed {
            self.probe_becomes_rto(io);
        }
    }

    /// After an ACK: an armed PTO outside the open state is the RTO again.
    pub(super) fn probe_state_check(&mut self, io: &mut SenderIo) {
        if self.probe_armed && !self.probe_may_run() {
            self.probe_becomes_rto(io);
        }
    }

    /// A recovery begins: the episode ends (Linux `tcp_init_cwnd_reduction`) and an armed
    /// PTO becomes the RTO (`tcp_set_xmit_timer` finds CA_Recovery).
    pub(super) fn end_probe_episode(&mut self, io: &mut SenderIo) {
        if let Some(tlp) = self.tlp.as_mut() {
            tlp.reset();
        }
        if self.probe_armed {
            self.probe_becomes_rto(io);
        }
    }

    /// An ECN echo outside a recovery: Linux enters CWR, which ends the episode.
    pub(super) fn probe_on_congestion_mark(&mut self) {
        if let Some(tlp) = self.tlp.as_mut().filter(|_| !self.in_recovery) {
            tlp.reset();
        }
    }

    /// An ACK of new data: the PTO again (with `tcp.tail_loss_probe`), else the RTO (from
    /// now, or from the head's last transmission if a PTO was armed: Linux
    /// `tcp_set_xmit_timer`, `tcp_rearm_rto`; RFC 6298 §5.3 without the probe).
    pub(super) fn rearm_probe_or_rto(&mut self, io: &mut SenderIo) {
        if self.schedule_probe(true, io) {
            return;
        }
        if self.probe_armed {
            self.probe_becomes_rto(io);
        } else {
            self.restart_rto(io);
        }
    }

    /// The PTO fired (Linux `tcp_send_loss_probe`): one segment of new data if the receive
    /// window allows it, else the flight's last segment again; then the RTO from now.
    pub(super) fn on_probe_timeout(&mut self, io: &mut SenderIo) {
        let Some(tlp) = self.tlp.as_ref() else { return };
        if self.snd_una >= self.snd_max {
            return; // nothing outstanding: no timer (Linux `tcp_rearm_rto`)
        }
        if tlp.outstanding() {
            return self.probe_becomes_rto(io);
        }
        let unsent = (self.snd_nxt == self.snd_max && self.snd_max < self.data_end).then(|| self.mss.min(self.data_end - self.snd_max));
        // Linux `tcp_send_head`: the data is in the send buffer; `tcp_snd_wnd_test`: the
        // receive window takes it.
        let in_buffer = unsent.filter(|&len| self.snd_max + len - self.snd_una <= self.cfg.send_buffer_bytes);
        let retrans = match in_buffer {
            Some(len) if self.snd_max + len - self.snd_una <= self.rwnd => {
                if self.pace_blocked(io) {
                    return self.probe_becomes_rto(io);
                }
                self.pace_sent(len, io);
                self.transmit(self.snd_max, len, io);
                self.snd_max += len;
                self.snd_nxt = self.snd_max;
                false
            }
            _ => {
                let seq = (self.snd_max - 1) / self.mss * self.mss;
                self.transmit_copy(seq, self.snd_max - seq, false, io);
                true
            }
        };
        if let Some(tlp) = self.tlp.as_mut() {
            tlp.on_probe(self.snd_nxt, retrans);
        }
        io.counters.loss_probes += 1;
        self.restart_rto(io);
    }

    /// The ACK's first SACK block is a D-SACK of the probe (Linux FLAG_DSACK_TLP).
    pub(super) fn dsack_of_probe(&self, p: &Packet) -> bool {
        let first = p.sack.as_slice().first().copied().filter(|_| p.sack.dsack);
        self.tlp.as_ref().zip(first).is_some_and(|(t, b)| t.is_dsack_of_probe(b, self.mss))
    }

    /// An ACK, before the recovery logic sees it (Linux `tcp_process_tlp_ack`); a repaired
    /// loss is answered once SND.UNA has moved (`probe_repair`).
    pub(super) fn probe_ack(&mut self, p: &Packet, advanced: bool, sacked: Option<SackUpdate>, window_grew: bool, dsack_of_probe: bool) {
        let Some(tlp) = self.tlp.as_mut() else { return };
        let news = sacked.is_some_and(|u| u.newly_sacked > 0) || window_grew;
        self.probe_repair_pending = tlp.on_ack(AckFacts { ack: p.ack, advanced, news, dsack_of_probe }) == TlpAck::Repaired;
    }

    /// The probe repaired a loss: ssthresh by the algorithm and cwnd = ssthresh at once
    /// (Linux: CA_CWR entered and left in one step, after `tcp_clean_rtx_queue` and before
    /// the window grows on the ACK). An algorithm that paces keeps its window (Linux
    /// `tcp_end_cwnd_reduction` leaves a `cong_control` one alone).
    pub(super) fn probe_repair(&mut self, io: &mut SenderIo) {
        if std::mem::take(&mut self.probe_repair_pending) && self.win.pacing_rate.is_none() {
            self.call_cc(io, |cc, w, cx| {
                cc.on_loss(Loss::FastRetransmit, w, cx);
                cc.on_recovery_exit(w, cx);
            });
        }
    }
}
