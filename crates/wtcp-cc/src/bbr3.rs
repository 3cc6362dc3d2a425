//! BBRv3: BBR congestion control as the IETF specifies it.
//!
//! N. Cardwell, I. Swett, J. Beshay (eds.), "BBR Congestion Control", Internet-Draft
//! draft-ietf-ccwg-bbr-06, IETF CCWG, 6 July 2026 (experimental; the newest revision
//! available here: the tag `draft-ietf-ccwg-bbr-06` of github.com/ietf-wg-ccwg/draft-ietf-ccwg-bbr;
//! the editor's copy after it, to 3 August 2026, changes wording only and adds a paragraph
//! making §5.1-§5.6 normative). "L<n>" is line n of the tag's text rendering
//! (draft-ietf-ccwg-bbr-06/draft-ietf-ccwg-bbr.txt, 4488 lines). Where the draft leaves room,
//! Google's BBRv3 Linux code (github google/bbr, net/ipv4/tcp_bbr.c; "Linux v3") was read.
//!
//! BBR.max_bw is the largest delivery-rate sample of the current and the previous ProbeBW
//! cycle and BBR.min_rtt the smallest RTT of 10 s; BBR.bw = min(max_bw, bw_shortterm). The
//! flow paces at pacing_gain * BBR.bw * 0.99 and bounds cwnd by BBR.max_inflight =
//! cwnd_gain * BDP + extra_acked (the ACK-aggregation estimate), then by the long-term bound
//! inflight_longterm (Linux: inflight_hi, learnt when a bandwidth probe meets more than 2 %
//! loss) and the short-term bounds inflight_shortterm / bw_shortterm (Linux: inflight_lo /
//! bw_lo, cut by Beta = 0.7 in each round with loss outside probing, reset when a probe
//! starts). States: Startup (pacing gain 4 ln 2, until three rounds without 25 % more delivery
//! rate or a round of fast recovery with more than 2 % loss), Drain (0.5), ProbeBW cycling
//! DOWN (0.9) -> CRUISE (1.0, 15 % headroom below inflight_longterm) -> REFILL (1.0, one
//! round) -> UP (1.25, cwnd gain 2.25) with the next probe after a randomized 2-3 s or
//! min(BDP in segments, 63) rounds, and ProbeRTT (cwnd 0.5 BDP for 200 ms and a round when no
//! lower RTT was seen for 5 s).
//!
//! Deviations and ambiguities resolved:
//! - Inputs. Delivery-rate samples are the sender's (`AckSample::rate`, the engine's
//!   `tcp/rate.rs`); an ACK without one (nothing delivered, or an interval shorter than the
//!   minimum RTT, L1342 "if (RS.interval <  C.min_rtt) return") counts no round, updates no
//!   filter and reports no RS.lost / RS.tx_in_flight. RS.rtt is `AckSample::rtt` (the oldest
//!   segment the ACK covers, or the timestamp echo), not "the data packet with the latest
//!   transmission time" (L2938). C.inflight is the sender's RFC 6675 pipe (`Ctx::pipe`) after
//!   the ACK, except in the ProbeBW phase tests (IsTimeToCruise, IsTimeToGoDown), where it is
//!   the pipe before the ACK (pipe + DeliveredData), as Linux v3 (`rs->prior_in_flight`).
//!   RS.lost counts a segment when the sender retransmits it (`tcp/rate.rs` header; the
//!   sender's `transmit`), not when it is "marked as lost" (C.lost, L338): with SACK and
//!   pacing a retransmission can wait for room in the pipe or for the pacer, so
//!   IsInflightTooHigh() (and the loss proxy below) sees such a loss late, by that wait.
//! - RS.newly_acked (L365 "cumulatively or selectively acknowledged ... DeliveredData"): cwnd
//!   grows by `AckSample::delivered_bytes` (without SACK a duplicate ACK delivers nothing, and
//!   the sender inflates the window itself). SetCwnd() runs on every ACK (L1751-1754), but on
//!   an ACK that delivers nothing (RS.newly_acked = 0) only UpdateMaxInflight() and the two
//!   bounds BoundCwndForProbeRTT() and BoundCwndForModel() (L3705-3706) apply: the growth line
//!   (whose min() with BBR.max_inflight would cut cwnd on a duplicate ACK without SACK) and
//!   the MinPipeCwnd floor (which would lift the one segment an RTO leaves) are skipped, as
//!   the draft runs them "on each ACK that acknowledges 'RS.newly_acked' packets" (L3694).
//!   The extra_acked estimator and the inflight_longterm probe counter count the growth of
//!   C.delivered (`delivered_total`), in which, without SACK, each duplicate ACK counts a
//!   segment (L1531 "can be extended to estimate approximate delivery rates using duplicate
//!   ACKs"); `model_acked = "delivered_data"` counts DeliveredData instead. Measured on
//!   cellular-trace (no SACK): with DeliveredData the cumulative ACK that ended a recovery
//!   acknowledged 2.13 MB at once, extra_acked reached 1.7 MB and cwnd 2 MB, 3680 queue drops,
//!   6.86 Mb/s; with C.delivered, 1373 drops and 7.94 Mb/s.
//! - Per-packet loss (L1758 "On every packet loss event where the transport protocol marks some
//!   packet P as lost, the BBR algorithm calls HandleLostPacket(P)"): the sender reports neither
//!   each lost segment nor RS.newly_lost. NoteLoss() runs on `on_loss` (fast retransmit,
//!   timeout) and, as a proxy, on an ACK whose sample's RS.lost exceeds that of the last sample
//!   compared, of data sent no earlier: each counts C.lost from its own send, C.lost at the
//!   later send is no smaller, so the excess is a loss since the ACK of the last one
//!   (C.delivered at the send orders the samples: two segments sent between the same two
//!   ACKs count as sent together, and a sample of the earlier one can note an old loss again
//!   if a retransmission left between them). The proxy misses losses, and not rarely: after a
//!   batch of losses the samples of data sent before it carry its count, those of data sent
//!   after it do not, so a new loss is not noted while a later-sent sample's RS.lost stays at
//!   or below the last one compared (RS.lost 5000, then a sample sent after that batch with
//!   RS.lost 1000: one new loss, not noted). Any new loss within about one RTT after a larger
//!   batch can be missed. That undercounts the loss events of BBRStartupFullLossCnt (the
//!   Startup exit on loss comes later or not at all) and can leave a loss round without
//!   BBR.is_loss_in_round, skipping its Beta cut of bw_shortterm / inflight_shortterm. The
//!   inputs allow no exact count: RS.lost is relative to C.lost at each sample's send, which
//!   the algorithm never sees. The segment a fast retransmit or an RTO resends is counted in
//!   RS.lost just after `on_loss`, which notes it: the proxy adds one SMSS to the count it
//!   compares with, so that a later sample notes only further losses. IsInflightTooHigh() is
//!   tested on every ACK's sample while BBR.is_bw_probe_sample (Linux v3
//!   `bbr_adapt_upper_bounds`), and HandleInflightTooHigh() takes RS.tx_in_flight of the
//!   delivered segment: InflightAtLoss(P) has no lost packet to work on, and L3143-3146 note
//!   that this tx_in_flight can be "considerably smaller than the tx_in_flight of the lost
//!   packet itself" after delayed loss marking (RACK), underestimating inflight_longterm.
//! - Startup exit on loss (§5.3.1.3, L1868-1906). Never while BBR.max_bw is 0: a first flight
//!   whose first segment was lost is acknowledged by duplicate ACKs only, which carry no rate
//!   sample, so BBR.bdp would be 0 and inflight_longterm would cap cwnd at MinPipeCwnd; the
//!   criteria are there so that "the full bottleneck bandwidth has been measured" (L1904-1905).
//!   With SACK it is checked at the end of each loss round: "At least BBRStartupFullLossCnt=6
//!   discontiguous sequence ranges lost in that round trip" (L1884-1885) counts the loss
//!   events of the round, the fast retransmit and each ACK that noted a new loss (Linux v3
//!   `loss_events_in_round`, which counts the ACK that marks the first loss); "in fast
//!   recovery for at least one full packet-timed round trip" (L1878-1879) holds when the
//!   round-ending ACK delivers data sent after the fast retransmit; the loss rate (L1881-1882)
//!   is IsInflightTooHigh() on that ACK's sample. C.has_selective_acks (L322) is inferred from
//!   duplicate ACKs (one that delivers DeliveredData is SACK; one that credits C.delivered
//!   alone is not; SACK until told otherwise). Without SACK, "any packet loss is detected
//!   during fast recovery" (L1887-1890) is read as a loss noted after the fast retransmit (the
//!   loss that started the recovery is not one detected during it; such a connection "can
//!   only detect one packet loss per round trip", L1888), on any ACK, or a full round in
//!   recovery: an ACK of data sent after the fast retransmit, which in a NewReno recovery is
//!   the partial ACK of the retransmission, itself the detection of a further loss (RFC 6582
//!   §3.2 step 5). The ACK that ends a recovery is processed after `on_recovery_exit`, so a
//!   recovery that repaired a single loss does not end Startup. The exit sets
//!   BBR.full_bw_reached (not BBR.full_bw_now, which test case A.2, L4167, also expects set)
//!   and inflight_longterm = max(BBR.bdp, BBR.inflight_latest) (L1896-1899), at least
//!   BBR.MinPipeCwnd.
//! - inflight_longterm is never set below BBR.MinPipeCwnd, "the minimal C.cwnd value BBR
//!   targets" (L459-461), the floor of cwnd (L3704) and of every volume cap (L3739): a lower
//!   bound could not be applied to cwnd, and would only change the tests that compare C.cwnd
//!   or C.inflight with it (IsTimeToGoDown(), ProbeInflightLongtermUpward()). It applies
//!   where a loss sets it: the Startup exit
//!   (L1896-1899; Linux v3 takes `bbr_inflight(max_bw, 1)`, "with quantization budget", which
//!   is at least 4 packets) and HandleInflightTooHigh() (L3129-3130; Linux v3 has no floor).
//! - C.is_cwnd_limited (L348 "fully utilized C.cwnd at any point in the last packet-timed round
//!   trip"): an ACK before which the pipe was within one segment of cwnd, in this round or the
//!   last.
//! - Gains: the pseudocode of the ProbeBW states sets none; they are the table of §5.6.1
//!   (L3402-3426) on each state change. DOWN 0.9 (Linux v3: 91/100), Drain 0.5 (Linux v3:
//!   1/2.885), Startup 4 ln 2 (Linux v3: 277/100 + 1/256). Volume caps follow BoundCwndForModel()
//!   (L3728-3740): Drain is capped by inflight_shortterm only, where the table (L3409) lists
//!   inflight_longterm too.
//! - Inflight(1.0) in CheckDrainDone (L1937) uses BBR.bw; IsTimeToCruise uses
//!   Inflight(BBR.max_bw, 1.0) (L2407) as written. BBR.bdp is always BBR.bw * BBR.min_rtt
//!   (L505), the initial window before an RTT sample. Volumes are bytes, not rounded to segments
//!   (Linux rounds packets up).
//! - IsRenoCoexistenceProbeTime (L2309 "reno_rounds = TargetInflight()"): TargetInflight() is
//!   a volume; it is counted in segments as rounds (L2220 "T_reno = min(reno_bdp,
//!   T_reno_bound) round trips").
//! - PickProbeWait (L2303, L2306: random_int_between(0, 1), 2 + random_float_between(0.0,
//!   1.0) s): drawn from SplitMix64 seeded by the `seed` parameter, so a run is deterministic;
//!   flows with the same seed draw the same waits (give each flow its own to desynchronize
//!   them; the effect on fairness is untested).
//! - OnInit (L1687-1689) sets BBR.min_rtt = C.srtt but not BBR.probe_rtt_min_delay or its
//!   stamp, which would start ProbeRTT at once in a flow starting after 5 s: both start as
//!   BBR.min_rtt and now (Linux v3). The min_rtt filter takes a strictly lower sample
//!   (L2609 "<"; Linux "<=").
//! - CheckFullBWReached (L1853) compares the round-ending ACK's RS.delivery_rate with
//!   BBR.full_bw, as written (Linux v3 resets the count on any ACK with 25 % more, counting at
//!   round starts). EnterDrain (L1918) keeps the congestion signals (Linux v3 resets them).
//! - Send quantum and offload budget (§5.6.3, §5.5.8.1): C.send_quantum = pacing rate * 1 ms
//!   within [2 SMSS, 64 KB]; the sender sends single segments, so it serves only
//!   BBR.offload_budget = `offload_quanta` (3, L3008) * send_quantum, a floor of
//!   BBR.max_inflight (0 omits it, as `bbr`). No TSO autosizing.
//! - extra_acked (§5.5.9): an exact windowed maximum over 10 rounds (1 in Startup, L3046-3047,
//!   L3082-3091), timed by `Ctx::now`; each update drops the samples outside the window it
//!   uses, so a sample that has left Startup's one-round window does not come back when the
//!   window grows to 10 rounds at BBR.full_bw_reached. Only C.cwnd bounds a sample (L3081).
//!   Linux v3 also caps what cwnd adds at 100 ms of BBR.bw: `extra_acked_max_ms` (0, the
//!   draft, by default).
//! - Recovery (§5.6.4.4, L3603-3662): fast recovery saves the window and the model
//!   (OnEnterFastRecovery, SaveCwnd() L3655) and leaves cwnd alone; the draft (since its first
//!   CCWG revision) and Linux v3 have no packet conservation; `packet_conservation = true`
//!   applies v1's rule (cwnd = pipe + delivered for one round). Its end restores the window
//!   (`on_recovery_exit`, RestoreCwnd() L3643) before the ending ACK is processed and bounded
//!   (`on_recovery_exit_ack`). An RTO sets cwnd to one segment ("C.inflight + 1": go-back-N
//!   leaves nothing counted in flight) and the window is restored when SND.UNA passes the
//!   SND.MAX of the RTO. Linux v3 also, on an RTO outside
//!   probing, sets an unset inflight_lo to max(cwnd, saved cwnd): `rto_inflight_shortterm`
//!   (off, the draft). ssthresh is not BBR's: it reports the saved window at a loss and the BDP
//!   at Drain (Linux); nothing reads it (a paced flow gets no PRR).
//! - Spurious recovery (§5.5.11): only a timeout F-RTO finds spurious reaches the algorithm
//!   (`on_spurious_timeout`, HandleSpuriousLossDetection()); there is no DSACK undo of a fast
//!   recovery.
//! - Restart from idle (§5.4, L1723 "OnTransmit(): HandleRestartFromIdle()") is not
//!   implemented: there is no per-transmit hook and the sender's app-limited state is not
//!   visible; BBR.idle_restart stays false.
//! - A probe's loss bound applies "if (!RS.is_app_limited)" (L3128), as written; test case A.6
//!   (L4230) expects it "regardless of the application-limited state".
//! - ECN: -06 "does not specify a specific response" (L867) yet requires that "the congestion
//!   controller response MUST treat any CE marks as congestion" (L871). With `ecn = false`
//!   (default, as Linux v3 ships it) marks are ignored, so a flow with `tcp.ecn` does not meet
//!   that MUST. `ecn = true` applies Linux v3's response, reading `AckSample::marked`: the bytes
//!   an ACK with the echo delivers count as CE-delivered; once a round, ecn_alpha += 1/16 of
//!   (marked fraction of the round - ecn_alpha) from 1.0; a round with marks outside probing cuts
//!   inflight_shortterm to (1 - ecn_alpha/3); a probe whose flight had more than half its bytes
//!   marked is too high (the marks of the last 64 marked ACKs); two rounds of Startup at half or
//!   more end it; marks without loss in a ProbeBW cycle send DOWN or CRUISE straight to REFILL
//!   with a larger first step (Linux `ecn_reprobe_gain`). Marks count only once BBR.min_rtt
//!   has been at most `ecn_max_rtt_ms` (5 ms by default; from then to the end of the flow, as
//!   Linux v3's `ecn_eligible`): on a path whose minimum RTT is above that, most paths outside
//!   a data centre, `ecn = true` ignores every mark too and does not meet the MUST of L871
//!   either; only `ecn_max_rtt_ms = 0` (any RTT) answers all marks. Linux reads accurate
//!   per-packet CE counts from shallow-threshold (L4S-style) marking; the engine's default
//!   `tcp.ecn_echo = "per_packet"` echoes a mark on the ACK of each CE segment (covering its
//!   delayed-ACK partner), `"latched"` (RFC 3168) on every ACK until CWR, which overstates the
//!   fraction; untested against Linux.
//!
//! Measured with the engine's runner (`target/release/wtcp-bench scenarios/NAME.toml
//! flows.0.cc='"bbr3"' metrics.delays=true`; cellular-trace with its two trace paths given
//! absolute, `links.1.ab.capacity.trace=...`), goodput, mean SRTT, RTT p95, bottleneck queue
//! drops, against `bbr` and `cubic` (bbr3 measured again after the review's fixes; bbr and
//! cubic are unchanged):
//! - two-hop-wireless (1 % random loss, 50 kB windows): bbr3 1.752 Mb/s, 43.1 ms, 68.7 ms, 0;
//!   bbr 1.758, 33.2, 37.0, 0; cubic 1.802, 65.0, 111.7, 0. Before the fixes bbr3 spent 52 %
//!   of the time from 35 s in DOWN, 32 % in UP, 5 % in CRUISE: with a BDP of about 6.5
//!   segments the Reno-coexistence bound starts a probe every 6-7 rounds (whether that
//!   accounts for the higher SRTT than bbr's is untested).
//! - reference-simple2 without loss (`links.1.ab.loss.rate=0`; 100-packet queue, 1 MB
//!   windows): bbr3 1.833, 37.0, 50.1, 0; bbr 1.866, 32.4, 37.0, 0; cubic 1.833, 251.7, 400.6,
//!   417. As shipped (1 % loss, no SACK, no timestamps): bbr3 1.603, 58.6, 72.9, 171 (before
//!   the Startup exit without SACK changed: 1.694, 74.2, 76.0, 487); bbr 1.519, 80.3, 43.8,
//!   401; cubic 1.847, 62.7, 108.5, 0.
//! - cellular-trace (200-packet buffer, LTE-like capacity trace, no SACK): bbr3 7.942, 251.1,
//!   392.2, 1373; bbr 7.877, 148.3, 316.7, 0; cubic 7.838, 199.3, 388.0, 456. With
//!   `tcp.sack=true`: bbr3 8.549, 245.9, 392.2, 55; cubic 9.359, 327.6, 438.3, 1341; bbr the
//!   same. There BBR.max_bw averaged 15.9 Mb/s (5-120 s) against 8.5 Mb/s delivered; whether
//!   the two-cycle window of the filter (v1: 10 rounds) is why bbr3 queues more is untested.
//! - The engine test path (2 Mb/s, 100-packet queue) with 5 % random loss and SACK: bbr3 1.424
//!   Mb/s, time-averaged cwnd 7.66 kB, bbr 1.629 Mb/s and 13.79 kB, cubic 0.788 Mb/s (before
//!   the fixes; its test still holds).
//!
//! Options, on cellular-trace without SACK: `packet_conservation = true` 8.400 Mb/s, 250.6 ms,
//! 396.4 ms, 676 drops. `extra_acked_max_ms = 100`, `offload_quanta = 0` and
//! `rto_inflight_shortterm = true` changed none of the results of two-hop-wireless and
//! cellular-trace (with or without SACK) before the fixes.

use std::f64::consts::LN_2;

use serde::Deserialize;

use crate::api::{AckSample, CongestionControl, Ctx, Loss, Time, Verdict, Window, NS_PER_SEC};
use crate::filters::WindowedExtreme;
use crate::registry::{AlgorithmInfo, ParamInfo, Range, MAX_GAIN, MAX_SECONDS, MAX_SEGMENTS};

const PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "startup_pacing_gain",
        unit: "ratio",
        default: "2.772588722239781",
        doc: "BBR.StartupPacingGain, 4 ln 2 (draft §2.5; Linux v3: 277/100 + 1/256)",
        range: Range::above(1.0, MAX_GAIN),
    },
    ParamInfo {
        name: "drain_pacing_gain",
        unit: "ratio",
        default: "0.5",
        doc: "BBR.DrainPacingGain (draft §2.5: 0.5; Linux v3: 1000/2885)",
        range: Range::above(0.0, 1.0),
    },
    ParamInfo {
        name: "cwnd_gain",
        unit: "ratio",
        default: "2.0",
        doc: "BBR.DefaultCwndGain: cwnd gain over the BDP in Startup, Drain and ProbeBW except UP (draft §2.6)",
        range: Range::above(0.0, MAX_GAIN),
    },
    ParamInfo {
        name: "probe_down_pacing_gain",
        unit: "ratio",
        default: "0.9",
        doc: "pacing gain of ProbeBW_DOWN (draft §5.3.3.1: 0.90; Linux v3: 91/100)",
        range: Range::above(0.0, 1.0),
    },
    ParamInfo {
        name: "probe_up_pacing_gain",
        unit: "ratio",
        default: "1.25",
        doc: "pacing gain of ProbeBW_UP (draft §5.3.3.5)",
        range: Range::above(1.0, MAX_GAIN),
    },
    ParamInfo {
        name: "probe_up_cwnd_gain",
        unit: "ratio",
        default: "2.25",
        doc: "cwnd gain of ProbeBW_UP (draft §5.3.3.5)",
        range: Range::above(0.0, MAX_GAIN),
    },
    ParamInfo {
        name: "full_bw_threshold",
        unit: "ratio",
        default: "1.25",
        doc: "delivery-rate growth per round that restarts the full-pipe count (draft §5.3.1.2)",
        range: Range::above(1.0, MAX_GAIN),
    },
    ParamInfo {
        name: "full_bw_rounds",
        unit: "rounds",
        default: "3",
        doc: "non-app-limited rounds without that growth that fill the pipe (draft §5.3.1.2)",
        range: Range::at_least(1.0),
    },
    ParamInfo {
        name: "startup_full_loss_count",
        unit: "events",
        default: "6",
        doc: "BBRStartupFullLossCnt: loss events in a round of fast recovery that (with the loss rate) end Startup (draft §5.3.1.3)",
        range: Range::at_least(1.0),
    },
    ParamInfo {
        name: "loss_thresh",
        unit: "ratio",
        default: "0.02",
        doc: "BBR.LossThresh: lost / in flight above which inflight was too high (draft §2.8)",
        range: Range::open(0.0, 1.0),
    },
    ParamInfo {
        name: "beta",
        unit: "ratio",
        default: "0.7",
        doc: "BBR.Beta: multiplicative decrease per loss round of the short-term model, and floor of inflight_longterm as a fraction of TargetInflight (draft §2.8)",
        range: Range::open(0.0, 1.0),
    },
    ParamInfo {
        name: "headroom",
        unit: "ratio",
        default: "0.15",
        doc: "BBR.Headroom: fraction of inflight_longterm left free in ProbeBW_CRUISE and ProbeRTT (draft §2.8)",
        range: Range::below(0.0, 1.0),
    },
    ParamInfo {
        name: "min_pipe_cwnd_segments",
        unit: "segments",
        default: "4.0",
        doc: "BBR.MinPipeCwnd: the cwnd floor (draft §2.8: 4 * C.SMSS)",
        range: Range::closed(1.0, MAX_SEGMENTS),
    },
    ParamInfo {
        name: "pacing_margin_percent",
        unit: "%",
        default: "1.0",
        doc: "BBR.PacingMarginPercent: pacing below BBR.bw (draft §2.5, §5.6.2)",
        range: Range::below(0.0, 100.0),
    },
    ParamInfo {
        name: "min_rtt_window_s",
        unit: "s",
        default: "10.0",
        doc: "BBR.MinRTTFilterLen (draft §2.16.1)",
        range: Range::above(0.0, MAX_SECONDS),
    },
    ParamInfo {
        name: "probe_rtt_interval_s",
        unit: "s",
        default: "5.0",
        doc: "BBR.ProbeRTTInterval: ProbeRTT when no lower RTT was seen for this long (draft §2.16.2)",
        range: Range::above(0.0, MAX_SECONDS),
    },
    ParamInfo {
        name: "probe_rtt_ms",
        unit: "ms",
        default: "200.0",
        doc: "BBR.ProbeRTTDuration: time at the ProbeRTT window, and at least one round (draft §2.16.2)",
        range: Range::closed(0.0, MAX_SECONDS * 1e3),
    },
    ParamInfo {
        name: "probe_rtt_cwnd_gain",
        unit: "ratio",
        default: "0.5",
        doc: "BBR.ProbeRTTCwndGain: the ProbeRTT window as a fraction of the BDP (draft §2.16.2)",
        range: Range::above(0.0, 1.0),
    },
    ParamInfo {
        name: "probe_wait_base_s",
        unit: "s",
        default: "2.0",
        doc: "fixed part of BBR.bw_probe_wait, the wall-clock wait before the next ProbeBW_REFILL (draft §5.3.3.8.3: 2)",
        range: Range::closed(0.0, MAX_SECONDS),
    },
    ParamInfo {
        name: "probe_wait_rand_s",
        unit: "s",
        default: "1.0",
        doc: "random part of BBR.bw_probe_wait, uniform in [0, this) from the seeded generator (draft: random_float_between(0.0, 1.0))",
        range: Range::closed(0.0, MAX_SECONDS),
    },
    ParamInfo {
        name: "probe_max_rounds",
        unit: "rounds",
        default: "63",
        doc: "bound of the Reno-coexistence wait, min(TargetInflight in segments, this) rounds (draft §5.3.3.8.3: 63)",
        range: Range::at_least(1.0),
    },
    ParamInfo {
        name: "model_acked",
        unit: "delivered|delivered_data",
        default: "delivered",
        doc: "what RS.newly_acked adds to the extra_acked and inflight_longterm-probe counters: the growth of C.delivered (a duplicate ACK without SACK counts a segment, §4.1.3.5.1), or the ACK's DeliveredData (AckSample::delivered_bytes); cwnd growth always uses DeliveredData",
        range: Range::Any,
    },
    ParamInfo {
        name: "extra_acked_max_ms",
        unit: "ms",
        default: "0.0",
        doc: "cap of the BBR.extra_acked added to BBR.max_inflight, as BBR.bw times this (0: none, the draft's pseudocode, where only C.cwnd bounds it; Linux v3: 100)",
        range: Range::closed(0.0, MAX_SECONDS * 1e3),
    },
    ParamInfo {
        name: "offload_quanta",
        unit: "send quanta",
        default: "3.0",
        doc: "BBR.offload_budget = this * C.send_quantum, a floor of BBR.max_inflight (draft §5.5.8.1 for TCP: 3; 0: no budget, as `bbr`)",
        range: Range::closed(0.0, MAX_GAIN),
    },
    ParamInfo {
        name: "seed",
        unit: "integer",
        default: "1",
        doc: "seed of the generator of the randomized probe wait (0 and 1 extra rounds, 0-1 s); flows with equal seeds draw equal waits",
        range: Range::closed(0.0, 4294967295.0),
    },
    ParamInfo {
        name: "packet_conservation",
        unit: "bool",
        default: "false",
        doc: "packet conservation for the first round of fast recovery, as BBR v1 (`bbr`); the draft and Linux v3 have none",
        range: Range::Any,
    },
    ParamInfo {
        name: "rto_inflight_shortterm",
        unit: "bool",
        default: "false",
        doc: "on an RTO outside bandwidth probing, set an unset inflight_shortterm to max(cwnd, saved cwnd) (Linux v3 bbr_set_state; not in the draft)",
        range: Range::Any,
    },
    ParamInfo {
        name: "ecn",
        unit: "bool",
        default: "false",
        doc: "respond to ECN echoes (AckSample::marked) as Linux v3 does, only after BBR.min_rtt has been <= ecn_max_rtt_ms (5 ms by default), so on most paths marks stay ignored and the draft's MUST (treat CE marks as congestion) is not met even when on; the draft specifies no response; off as Linux ships it",
        range: Range::Any,
    },
    ParamInfo {
        name: "ecn_alpha_gain",
        unit: "ratio",
        default: "0.0625",
        doc: "EWMA gain of ecn_alpha, the per-round fraction of delivered bytes on marked ACKs (Linux v3: 1/16)",
        range: Range::above(0.0, 1.0),
    },
    ParamInfo {
        name: "ecn_factor",
        unit: "ratio",
        default: "0.3333333333333333",
        doc: "a round with marks cuts inflight_shortterm to (1 - ecn_alpha * this) (Linux v3: 1/3)",
        range: Range::closed(0.0, 1.0),
    },
    ParamInfo {
        name: "ecn_thresh",
        unit: "ratio",
        default: "0.5",
        doc: "marked fraction of a flight above which probing went too high, and of a round that counts toward leaving Startup (Linux v3: 1/2)",
        range: Range::above(0.0, 1.0),
    },
    ParamInfo {
        name: "ecn_max_rtt_ms",
        unit: "ms",
        default: "5.0",
        doc: "ECN response only while BBR.min_rtt is at most this (Linux v3: 5 ms, shallow-threshold data-centre ECN); 0: at any RTT",
        range: Range::closed(0.0, MAX_SECONDS * 1e3),
    },
];

pub const BBR3_INFO: AlgorithmInfo = AlgorithmInfo {
    name: "bbr3",
    summary: "Model-based, draft-ietf-ccwg-bbr-06: paces at gain*BBR.bw (max delivery rate over two ProbeBW cycles, bounded by loss) with cwnd from BDP plus ACK aggregation, capped by loss-learnt long- and short-term inflight bounds; Startup, Drain, ProbeBW DOWN/CRUISE/REFILL/UP, ProbeRTT at half the BDP every 5 s.",
    reference: "Cardwell, Swett, Beshay (eds.), BBR Congestion Control, draft-ietf-ccwg-bbr-06 (IETF CCWG, July 2026); Linux tcp_bbr.c v3 (github google/bbr)",
    params: PARAMS,
    // Draft §5.6.4.4: an RTO leaves room for one C.SMSS.
    timeout_collapses_window: true,
    constraints: &[],
};

/// Parameters of BBRv3.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Bbr3Params {
    pub startup_pacing_gain: f64,
    pub drain_pacing_gain: f64,
    pub cwnd_gain: f64,
    pub probe_down_pacing_gain: f64,
    pub probe_up_pacing_gain: f64,
    pub probe_up_cwnd_gain: f64,
    pub full_bw_threshold: f64,
    pub full_bw_rounds: u32,
    pub startup_full_loss_count: u32,
    pub loss_thresh: f64,
    pub beta: f64,
    pub headroom: f64,
    pub min_pipe_cwnd_segments: f64,
    pub pacing_margin_percent: f64,
    pub min_rtt_window_s: f64,
    pub probe_rtt_interval_s: f64,
    pub probe_rtt_ms: f64,
    pub probe_rtt_cwnd_gain: f64,
    pub probe_wait_base_s: f64,
    pub probe_wait_rand_s: f64,
    pub probe_max_rounds: u32,
    pub model_acked: ModelAcked,
    pub extra_acked_max_ms: f64,
    pub offload_quanta: f64,
    pub seed: u32,
    pub packet_conservation: bool,
    pub rto_inflight_shortterm: bool,
    pub ecn: bool,
    pub ecn_alpha_gain: f64,
    pub ecn_factor: f64,
    pub ecn_thresh: f64,
    pub ecn_max_rtt_ms: f64,
}

impl Default for Bbr3Params {
    fn default() -> Self {
        Bbr3Params {
            startup_pacing_gain: 4.0 * LN_2,
            drain_pacing_gain: 0.5,
            cwnd_gain: 2.0,
            probe_down_pacing_gain: 0.9,
            probe_up_pacing_gain: 1.25,
            probe_up_cwnd_gain: 2.25,
            full_bw_threshold: 1.25,
            full_bw_rounds: 3,
            startup_full_loss_count: 6,
            loss_thresh: 0.02,
            beta: 0.7,
            headroom: 0.15,
            min_pipe_cwnd_segments: 4.0,
            pacing_margin_percent: 1.0,
            min_rtt_window_s: 10.0,
            probe_rtt_interval_s: 5.0,
            probe_rtt_ms: 200.0,
            probe_rtt_cwnd_gain: 0.5,
            probe_wait_base_s: 2.0,
            probe_wait_rand_s: 1.0,
            probe_max_rounds: 63,
            model_acked: ModelAcked::Delivered,
            extra_acked_max_ms: 0.0,
            offload_quanta: 3.0,
            seed: 1,
            packet_conservation: false,
            rto_inflight_shortterm: false,
            ecn: false,
            ecn_alpha_gain: 1.0 / 16.0,
            ecn_factor: 1.0 / 3.0,
            ecn_thresh: 0.5,
            ecn_max_rtt_ms: 5.0,
        }
    }
}

/// What RS.newly_acked counts in the model's volume counters (see the header).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelAcked {
    /// The growth of C.delivered (`AckSample::delivered_total`).
    Delivered,
    /// RFC 6937 DeliveredData (`AckSample::delivered_bytes`).
    DeliveredData,
}

pub fn build(p: &Bbr3Params) -> Box<dyn CongestionControl> {
    Box::new(Bbr3::new(*p))
}

/// BBR.ExtraAckedFilterLen: the extra_acked window after Startup, in rounds (draft §2.12).
const EXTRA_ACKED_ROUNDS: u64 = 10;
/// Nominal RTT of the initial pacing rate before any RTT sample (draft §5.6.2: 1 ms).
const NOMINAL_RTT: Time = 1_000_000;
/// C.send_quantum: pacing_rate * 1 ms, between 2 SMSS and 64 KBytes (draft §5.6.3).
const SEND_QUANTUM_TIME: f64 = 1e-3;
const SEND_QUANTUM_MAX: f64 = 65536.0;
/// RaiseInflightLongtermSlope: BBR.bw_probe_up_rounds saturates at 30 (draft §5.3.3.9).
const MAX_PROBE_UP_ROUNDS: u32 = 30;
/// Linux v3 `bbr_full_ecn_cnt`: rounds with a marked fraction >= ecn_thresh that end Startup.
const FULL_ECN_ROUNDS: u32 = 2;
/// Linux v3 `bbr_ecn_reprobe_gain`: after a cycle with marks and no loss, the first round of
/// the next probe raises inflight_longterm by about this fraction of it.
const ECN_REPROBE_GAIN: f64 = 0.5;
/// Marked ACKs remembered for the marked fraction of a flight (ECN only).
const CE_RING: usize = 64;

/// The draft's BBR.state, with the four ProbeBW states (§5.1.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Startup,
    Drain,
    ProbeBwDown,
    ProbeBwCruise,
    ProbeBwRefill,
    ProbeBwUp,
    ProbeRtt,
}

impl State {
    fn number(self) -> f64 {
        match self {
            State::Startup => 0.0,
            State::Drain => 1.0,
            State::ProbeBwDown => 2.0,
            State::ProbeBwCruise => 3.0,
            State::ProbeBwRefill => 4.0,
            State::ProbeBwUp => 5.0,
            State::ProbeRtt => 6.0,
        }
    }
}

/// BBR.ack_phase (§2.14).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AckPhase {
    Init,
    Refilling,
    ProbeStarting,
    ProbeFeedback,
    ProbeStopping,
}

/// BBR.undo_state (§2.15): the state a loss made the flow leave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Undo {
    None,
    Startup,
    ProbeBwUp,
}

/// Loss recovery as the algorithm sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Recovery {
    Open,
    /// Fast recovery: since `C.delivered` was `since` (ends with `on_recovery_exit`).
    Fast { since: u64 },
    /// After an RTO, until SND.UNA reaches `high_seq`.
    Timeout { high_seq: u64 },
}

/// The rate sample RS of one ACK (§2.3), bytes and bytes per second; zeros without a sample.
#[derive(Clone, Copy, Debug, Default)]
struct Rs {
    valid: bool,
    delivery_rate: f64,
    delivered: u64,
    prior_delivered: u64,
    is_app_limited: bool,
    lost: u64,
    tx_in_flight: u64,
    /// RS.newly_acked for cwnd growth: `AckSample::delivered_bytes` (RFC 6937
    /// DeliveredData: without SACK a duplicate ACK delivers nothing).
    newly_acked: u64,
    /// RS.newly_acked for the model's volume counters (parameter `model_acked`): by default
    /// the growth of C.delivered (without SACK each duplicate ACK counts a segment and the
    /// cumulative ACK the rest, §4.1.3.5.1).
    delivered_delta: u64,
}

impl Rs {
    fn of(ack: &AckSample, prior_total: u64, model_acked: ModelAcked) -> Rs {
        let delivered_delta = match model_acked {
            ModelAcked::Delivered => ack.delivered_total.saturating_sub(prior_total),
            ModelAcked::DeliveredData => ack.delivered_bytes,
        };
        let mut rs = Rs { newly_acked: ack.delivered_bytes, delivered_delta, ..Rs::default() };
        if let Some(r) = ack.rate.filter(|r| r.interval > 0) {
            rs.valid = true;
            rs.delivery_rate = r.bytes_per_sec();
            rs.delivered = r.delivered;
            rs.prior_delivered = r.prior_delivered;
            rs.is_app_limited = r.is_app_limited;
            rs.lost = r.lost;
            rs.tx_in_flight = r.tx_in_flight;
        }
        rs
    }
}

/// SplitMix64 (Steele, Lea, Flood 2014): the deterministic source of the draft's random
/// probe wait, seeded by the `seed` parameter.
#[derive(Clone, Copy, Debug)]
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The BBRv3 state machine. Field comments give the draft's names.
#[derive(Clone, Debug)]
pub struct Bbr3 {
    p: Bbr3Params,
    mss: f64,
    /// C.InitialCwnd, bytes.
    init_cwnd: f64,
    /// C.delivered: `AckSample::delivered_total` of the latest ACK.
    delivered: u64,
    state: State,
    pacing_gain: f64,
    cwnd_gain: f64,
    // Rounds (§5.5.1).
    round_count: u64,
    next_round_delivered: u64,
    round_start: bool,
    rounds_since_probe_up: u64,
    // Bandwidth (§5.5.2-5.5.6): max_bw_filter as the previous and current ProbeBW cycle.
    max_bw_prev: f64,
    max_bw_cur: f64,
    cycle_count: u64,
    /// BBR.bw = min(max_bw, bw_shortterm), bytes/s.
    bw: f64,
    /// BBR.bw_shortterm (v2/Linux: bw_lo), bytes/s; infinite when unset.
    bw_shortterm: f64,
    /// BBR.inflight_shortterm (v2/Linux: inflight_lo), bytes; infinite when unset.
    inflight_shortterm: f64,
    /// BBR.inflight_longterm (v2/Linux: inflight_hi), bytes; infinite when unset.
    inflight_longterm: f64,
    // Latest delivery signals (§5.5.10.3).
    bw_latest: f64,
    inflight_latest: f64,
    loss_round_delivered: u64,
    loss_round_start: bool,
    is_loss_in_round: bool,
    /// Loss-noting events in the current loss round (Startup exit, §5.3.1.3).
    loss_events_in_round: u32,
    /// An ACK noted a loss since the latest fast retransmit (Startup exit without SACK).
    loss_noted_in_recovery: bool,
    // Full pipe (§5.3.1.2).
    full_bw: f64,
    full_bw_count: u32,
    full_bw_now: bool,
    full_bw_reached: bool,
    drain_start_round: u64,
    // ProbeBW (§2.14).
    ack_phase: AckPhase,
    is_bw_probe_sample: bool,
    bw_probe_up_acked: f64,
    probe_up_acked_per_inc: f64,
    bw_probe_up_rounds: u32,
    /// BBR.bw_probe_wait, ns.
    bw_probe_wait: Time,
    cycle_stamp: Time,
    prev_probe_too_high: bool,
    prev_probe_precautionary: bool,
    // min_rtt and ProbeRTT (§2.16).
    min_rtt: Option<Time>,
    min_rtt_stamp: Time,
    probe_rtt_min_delay: Option<Time>,
    probe_rtt_min_stamp: Time,
    probe_rtt_expired: bool,
    probe_rtt_done_stamp: Option<Time>,
    probe_rtt_round_done: bool,
    // Aggregation (§5.5.9).
    extra_acked: f64,
    extra_acked_filter: WindowedExtreme<f64>,
    extra_acked_interval_start: Time,
    extra_acked_delivered: f64,
    // Control (§5.6).
    max_inflight: f64,
    send_quantum: f64,
    has_seen_rtt: bool,
    // Recovery and undo (§2.15, §5.6.4.4).
    prior_cwnd: f64,
    recovery: Recovery,
    undo_state: Undo,
    undo_bw_shortterm: f64,
    undo_inflight_shortterm: f64,
    undo_inflight_longterm: f64,
    /// Packet conservation in the first round of fast recovery (parameter, v1's rule).
    conserving: bool,
    /// Bytes the latest ACK delivered (for the cwnd at a fast retransmit with conservation).
    last_acked: u64,
    // What the sender does not report directly.
    /// C.has_selective_acks, inferred from duplicate ACKs.
    has_selective_acks: bool,
    /// The latest-sent rate sample seen: (RS.prior_delivered, RS.lost), for noting losses.
    lost_ref: (u64, u64),
    /// C.is_cwnd_limited, as the window being full before an ACK in this or the last round.
    cwnd_limited_this_round: bool,
    cwnd_limited_last_round: bool,
    // Lower-bound cuts applied (a counter for traces and tests).
    lower_bound_cuts: u64,
    rng: SplitMix64,
    // ECN (parameter `ecn`, Linux v3's response).
    ecn_eligible: bool,
    ecn_alpha: f64,
    ecn_in_round: bool,
    ecn_in_cycle: bool,
    loss_in_cycle: bool,
    startup_ecn_rounds: u32,
    ce_delivered: u64,
    alpha_last_delivered: u64,
    alpha_last_ce: u64,
    /// Marked ACKs: (C.delivered after the ACK, bytes it delivered), newest at `ce_head - 1`.
    ce_ring: [(u64, u64); CE_RING],
    ce_head: usize,
    ce_len: usize,
}

impl Bbr3 {
    pub fn new(p: Bbr3Params) -> Self {
        Bbr3 {
            p,
            mss: 0.0,
            init_cwnd: 0.0,
            delivered: 0,
            state: State::Startup,
            pacing_gain: p.startup_pacing_gain,
            cwnd_gain: p.cwnd_gain,
            round_count: 0,
            next_round_delivered: 0,
            round_start: false,
            rounds_since_probe_up: 0,
            max_bw_prev: 0.0,
            max_bw_cur: 0.0,
            cycle_count: 0,
            bw: 0.0,
            bw_shortterm: f64::INFINITY,
            inflight_shortterm: f64::INFINITY,
            inflight_longterm: f64::INFINITY,
            bw_latest: 0.0,
            inflight_latest: 0.0,
            loss_round_delivered: 0,
            loss_round_start: false,
            is_loss_in_round: false,
            loss_events_in_round: 0,
            loss_noted_in_recovery: false,
            full_bw: 0.0,
            full_bw_count: 0,
            full_bw_now: false,
            full_bw_reached: false,
            drain_start_round: 0,
            ack_phase: AckPhase::Init,
            is_bw_probe_sample: false,
            bw_probe_up_acked: 0.0,
            probe_up_acked_per_inc: f64::INFINITY,
            bw_probe_up_rounds: 0,
            bw_probe_wait: 0,
            cycle_stamp: 0,
            prev_probe_too_high: false,
            prev_probe_precautionary: false,
            min_rtt: None,
            min_rtt_stamp: 0,
            probe_rtt_min_delay: None,
            probe_rtt_min_stamp: 0,
            probe_rtt_expired: false,
            probe_rtt_done_stamp: None,
            probe_rtt_round_done: false,
            extra_acked: 0.0,
            extra_acked_filter: WindowedExtreme::max(),
            extra_acked_interval_start: 0,
            extra_acked_delivered: 0.0,
            max_inflight: 0.0,
            send_quantum: 0.0,
            has_seen_rtt: false,
            prior_cwnd: 0.0,
            recovery: Recovery::Open,
            undo_state: Undo::None,
            undo_bw_shortterm: 0.0,
            undo_inflight_shortterm: 0.0,
            undo_inflight_longterm: 0.0,
            conserving: false,
            last_acked: 0,
            has_selective_acks: true,
            lost_ref: (0, 0),
            cwnd_limited_this_round: false,
            cwnd_limited_last_round: false,
            lower_bound_cuts: 0,
            rng: SplitMix64(u64::from(p.seed)),
            ecn_eligible: false,
            ecn_alpha: 1.0,
            ecn_in_round: false,
            ecn_in_cycle: false,
            loss_in_cycle: false,
            startup_ecn_rounds: 0,
            ce_delivered: 0,
            alpha_last_delivered: 0,
            alpha_last_ce: 0,
            ce_ring: [(0, 0); CE_RING],
            ce_head: 0,
            ce_len: 0,
        }
    }

    // ---- model quantities ----

    /// BBR.max_bw: the larger of the current and the previous ProbeBW cycle's maxima.
    fn max_bw(&self) -> f64 {
        self.max_bw_prev.max(self.max_bw_cur)
    }

    fn min_pipe_cwnd(&self) -> f64 {
        self.p.min_pipe_cwnd_segments * self.mss
    }

    /// BBR.bdp = BBR.bw * BBR.min_rtt (bytes), `None` before an RTT sample.
    fn bdp_of(&self, bw: f64) -> Option<f64> {
        self.min_rtt.map(|r| bw * r as f64 / NS_PER_SEC)
    }

    /// BDPMultiple(gain) with bandwidth `bw`: C.InitialCwnd before an RTT sample.
    fn bdp_multiple(&self, bw: f64, gain: f64) -> f64 {
        self.bdp_of(bw).map_or(self.init_cwnd, |bdp| gain * bdp)
    }

    /// BBR.offload_budget (§5.5.8.1).
    fn offload_budget(&self) -> f64 {
        self.p.offload_quanta * self.send_quantum
    }

    /// QuantizationBudget(inflight_cap) (§5.6.4.2).
    fn quantization_budget(&self, cap: f64) -> f64 {
        let mut cap = cap.max(self.offload_budget()).max(self.min_pipe_cwnd());
        if self.state == State::ProbeBwUp {
            cap += 2.0 * self.mss;
        }
        cap
    }

    /// Inflight(bw, gain) (§5.6.4.2).
    fn inflight(&self, bw: f64, gain: f64) -> f64 {
        self.quantization_budget(self.bdp_multiple(bw, gain))
    }

    /// TargetInflight() = min(BBR.bdp, C.cwnd) (§5.3.3.8.3).
    fn target_inflight(&self, w: &Window) -> f64 {
        self.bdp_of(self.bw).unwrap_or(self.init_cwnd).min(w.cwnd)
    }

    /// InflightWithHeadroom() (§5.3.3.9).
    fn inflight_with_headroom(&self) -> f64 {
        if self.inflight_longterm.is_infinite() {
            return f64::INFINITY;
        }
        let headroom = self.mss.max(self.p.headroom * self.inflight_longterm);
        (self.inflight_longterm - headroom).max(self.min_pipe_cwnd())
    }

    /// ProbeRTTCwnd() (§5.6.4.5).
    fn probe_rtt_cwnd(&self) -> f64 {
        self.bdp_multiple(self.bw, self.p.probe_rtt_cwnd_gain).max(self.min_pipe_cwnd())
    }

    fn is_in_probe_bw(&self) -> bool {
        matches!(self.state, State::ProbeBwDown | State::ProbeBwCruise | State::ProbeBwRefill | State::ProbeBwUp)
    }

    /// IsProbingBW() (§5.3.3.9).
    fn is_probing_bw(&self) -> bool {
        matches!(self.state, State::Startup | State::ProbeBwRefill | State::ProbeBwUp)
    }

    fn in_loss_recovery(&self) -> bool {
        self.recovery != Recovery::Open
    }

    /// C.is_cwnd_limited.
    fn is_cwnd_limited(&self) -> bool {
        self.cwnd_limited_this_round || self.cwnd_limited_last_round
    }

    /// Enter a state with the gains of the table of §5.6.1.
    fn set_state(&mut self, s: State) {
        self.state = s;
        let p = &self.p;
        (self.pacing_gain, self.cwnd_gain) = match s {
            State::Startup => (p.startup_pacing_gain, p.cwnd_gain),
            State::Drain => (p.drain_pacing_gain, p.cwnd_gain),
            State::ProbeBwDown => (p.probe_down_pacing_gain, p.cwnd_gain),
            State::ProbeBwCruise | State::ProbeBwRefill => (1.0, p.cwnd_gain),
            State::ProbeBwUp => (p.probe_up_pacing_gain, p.probe_up_cwnd_gain),
            State::ProbeRtt => (1.0, p.probe_rtt_cwnd_gain),
        };
    }

    // ---- rounds, congestion signals, lower bounds (§5.5.1, §5.5.10.3) ----

    /// StartRound().
    fn start_round(&mut self) {
        self.next_round_delivered = self.delivered;
    }

    /// UpdateLatestDeliverySignals().
    fn update_latest_delivery_signals(&mut self, rs: &Rs) {
        self.loss_round_start = false;
        if !rs.valid {
            return;
        }
        self.bw_latest = self.bw_latest.max(rs.delivery_rate);
        self.inflight_latest = self.inflight_latest.max(rs.delivered as f64);
        if rs.prior_delivered >= self.loss_round_delivered {
            self.loss_round_delivered = self.delivered;
            self.loss_round_start = true;
        }
    }

    /// AdvanceLatestDeliverySignals().
    fn advance_latest_delivery_signals(&mut self, rs: &Rs) {
        if self.loss_round_start {
            self.bw_latest = rs.delivery_rate;
            self.inflight_latest = rs.delivered as f64;
        }
    }

    /// ResetCongestionSignals().
    fn reset_congestion_signals(&mut self) {
        self.is_loss_in_round = false;
        self.bw_latest = 0.0;
        self.inflight_latest = 0.0;
        self.ecn_in_round = false;
        self.ecn_in_cycle = false;
        self.loss_in_cycle = false;
    }

    /// ResetShortTermModel().
    fn reset_short_term_model(&mut self) {
        self.bw_shortterm = f64::INFINITY;
        self.inflight_shortterm = f64::INFINITY;
    }

    /// UpdateCongestionSignals(): UpdateMaxBw() (with UpdateRound()), then the per-round
    /// response to congestion.
    fn update_congestion_signals(&mut self, rs: &Rs, w: &Window) {
        self.update_max_bw(rs);
        if self.round_start {
            self.update_ecn_alpha();
        }
        if !self.loss_round_start {
            return;
        }
        self.adapt_lower_bounds_from_congestion(w);
        self.is_loss_in_round = false;
        self.ecn_in_round = false;
    }

    /// UpdateMaxBw() and UpdateRound().
    fn update_max_bw(&mut self, rs: &Rs) {
        self.round_start = false;
        if !rs.valid {
            return;
        }
        if rs.prior_delivered >= self.next_round_delivered {
            self.start_round();
            self.round_count += 1;
            self.rounds_since_probe_up += 1;
            self.round_start = true;
            self.cwnd_limited_last_round = self.cwnd_limited_this_round;
            self.cwnd_limited_this_round = false;
            self.conserving = false;
        }
        if rs.delivery_rate > 0.0 && (rs.delivery_rate >= self.max_bw() || !rs.is_app_limited) {
            self.max_bw_cur = self.max_bw_cur.max(rs.delivery_rate);
        }
    }

    /// AdvanceMaxBwFilter().
    fn advance_max_bw_filter(&mut self) {
        self.cycle_count += 1;
        self.max_bw_prev = self.max_bw_cur;
        self.max_bw_cur = 0.0;
    }

    /// AdaptLowerBoundsFromCongestion(), with Linux v3's ECN cut when `ecn` is on.
    fn adapt_lower_bounds_from_congestion(&mut self, w: &Window) {
        if self.is_probing_bw() {
            return;
        }
        let mut ecn_cap = f64::INFINITY;
        if self.ecn_eligible && self.ecn_in_round && self.p.ecn_factor > 0.0 {
            if self.inflight_shortterm.is_infinite() {
                self.inflight_shortterm = w.cwnd;
            }
            ecn_cap = self.inflight_shortterm * (1.0 - self.ecn_alpha * self.p.ecn_factor);
            self.lower_bound_cuts += 1;
        }
        if self.is_loss_in_round {
            // InitLowerBounds().
            if self.bw_shortterm.is_infinite() {
                self.bw_shortterm = self.max_bw();
            }
            if self.inflight_shortterm.is_infinite() {
                self.inflight_shortterm = w.cwnd;
            }
            // LossLowerBounds().
            self.bw_shortterm = self.bw_latest.max(self.p.beta * self.bw_shortterm);
            self.inflight_shortterm = self.inflight_latest.max(self.p.beta * self.inflight_shortterm);
            self.lower_bound_cuts += 1;
        }
        self.inflight_shortterm = self.inflight_shortterm.min(ecn_cap);
    }

    /// BoundBWForModel().
    fn bound_bw_for_model(&mut self) {
        self.bw = self.max_bw().min(self.bw_shortterm);
    }

    // ---- losses (§5.5.10, §5.5.11) ----

    /// SaveCwnd() (§5.6.4.4).
    fn save_cwnd(&mut self, w: &Window) {
        if !self.in_loss_recovery() && self.state != State::ProbeRtt {
            self.prior_cwnd = w.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(w.cwnd);
        }
    }

    /// RestoreCwnd().
    fn restore_cwnd(&self, w: &mut Window) {
        w.cwnd = w.cwnd.max(self.prior_cwnd);
    }

    /// SaveStateUponLoss() (§5.5.11.1).
    fn save_state_upon_loss(&mut self, w: &Window) {
        self.save_cwnd(w);
        self.undo_state = Undo::None;
        self.undo_bw_shortterm = self.bw_shortterm;
        self.undo_inflight_shortterm = self.inflight_shortterm;
        self.undo_inflight_longterm = self.inflight_longterm;
    }

    /// NoteLoss() (§5.5.10.2); `event` counts it among the round's loss events.
    fn note_loss(&mut self, w: &Window, event: bool) {
        if !self.is_loss_in_round {
            self.loss_round_delivered = self.delivered;
            self.save_state_upon_loss(w);
        }
        self.is_loss_in_round = true;
        self.loss_in_cycle = true;
        if event {
            self.loss_events_in_round = self.loss_events_in_round.saturating_add(1);
        }
    }

    /// IsInflightTooHigh() (§5.5.10.2), with Linux v3's marked-fraction test when `ecn` is on.
    fn is_inflight_too_high(&self, rs: &Rs) -> bool {
        if rs.lost as f64 > rs.tx_in_flight as f64 * self.p.loss_thresh || (rs.lost > 0 && !self.has_selective_acks) {
            return true;
        }
        if self.ecn_eligible && rs.valid && rs.delivered > 0 {
            return self.ce_since(rs.prior_delivered) as f64 > self.p.ecn_thresh * rs.delivered as f64;
        }
        false
    }

    /// Set BBR.inflight_longterm from a loss, at least BBR.MinPipeCwnd (see the header).
    fn set_inflight_longterm(&mut self, v: f64) {
        self.inflight_longterm = v.max(self.min_pipe_cwnd());
    }

    /// HandleInflightTooHigh() (§5.5.10.2).
    fn handle_inflight_too_high(&mut self, rs: &Rs, w: &Window, now: Time) {
        self.prev_probe_too_high = true;
        self.is_bw_probe_sample = false;
        if !rs.is_app_limited {
            self.set_inflight_longterm((rs.tx_in_flight as f64).max(self.target_inflight(w) * self.p.beta));
        }
        if self.state == State::ProbeBwUp {
            self.undo_state = Undo::ProbeBwUp;
            self.start_probe_bw_down(now);
        }
    }

    /// What the sender reports of losses on this ACK: a sample of data sent no earlier than
    /// the last one compared whose lost count grew means a loss was marked since that ACK
    /// (a proxy that misses losses: see the header).
    fn observe_losses(&mut self, rs: &Rs, w: &Window) {
        if !rs.valid || rs.prior_delivered < self.lost_ref.0 {
            return;
        }
        let grew = rs.lost > self.lost_ref.1;
        self.lost_ref = (rs.prior_delivered, rs.lost);
        if grew {
            self.note_loss(w, true);
            if matches!(self.recovery, Recovery::Fast { .. }) {
                self.loss_noted_in_recovery = true;
            }
        }
    }

    // ---- Startup and Drain (§5.3.1, §5.3.2) ----

    /// EnterStartup().
    fn enter_startup(&mut self) {
        self.set_state(State::Startup);
    }

    /// ResetFullBW().
    fn reset_full_bw(&mut self) {
        self.full_bw = 0.0;
        self.full_bw_count = 0;
        self.full_bw_now = false;
    }

    /// CheckFullBWReached().
    fn check_full_bw_reached(&mut self, rs: &Rs) {
        if self.full_bw_now || !self.round_start || rs.is_app_limited {
            return;
        }
        if rs.delivery_rate >= self.full_bw * self.p.full_bw_threshold {
            self.reset_full_bw();
            self.full_bw = rs.delivery_rate;
            return;
        }
        self.full_bw_count += 1;
        self.full_bw_now = self.full_bw_count >= self.p.full_bw_rounds;
        if self.full_bw_now {
            self.full_bw_reached = true;
        }
    }

    /// CheckStartupHighLoss() (§5.3.1.3): with SACK at the end of each loss round, without
    /// it on every ACK; never before a bandwidth sample (see the header).
    fn check_startup_high_loss(&mut self, rs: &Rs) {
        if self.state == State::Startup && !self.full_bw_reached && self.max_bw() > 0.0 {
            let exit = match self.recovery {
                Recovery::Fast { since } if self.has_selective_acks => {
                    self.loss_round_start
                        && rs.prior_delivered >= since
                        && self.loss_events_in_round >= self.p.startup_full_loss_count
                        && self.is_inflight_too_high(rs)
                }
                // A loss noted after the fast retransmit, or a full round in recovery.
                Recovery::Fast { since } => self.loss_noted_in_recovery || (rs.valid && rs.prior_delivered >= since),
                _ => false,
            };
            if exit {
                self.undo_state = Undo::Startup;
                self.full_bw_reached = true;
                let bdp = self.bdp_of(self.bw).unwrap_or(self.init_cwnd);
                self.set_inflight_longterm(bdp.max(self.inflight_latest));
            }
        }
        if self.loss_round_start {
            self.loss_events_in_round = 0;
        }
    }

    /// CheckStartupDone().
    fn check_startup_done(&mut self, rs: &Rs, w: &mut Window) {
        self.check_startup_high_loss(rs);
        if self.state == State::Startup && self.full_bw_reached {
            self.enter_drain(w);
        }
    }

    /// EnterDrain(); ssthresh reports the BDP (informational, as Linux).
    fn enter_drain(&mut self, w: &mut Window) {
        self.set_state(State::Drain);
        self.drain_start_round = self.round_count;
        w.ssthresh = self.inflight(self.bw, 1.0);
    }

    /// CheckDrainDone().
    fn check_drain_done(&mut self, cx: &Ctx) {
        if self.state == State::Drain
            && ((cx.pipe as f64) <= self.inflight(self.bw, 1.0) || self.round_count > self.drain_start_round + 3)
        {
            self.enter_probe_bw(cx.now);
        }
    }

    // ---- ProbeBW (§5.3.3) ----

    /// EnterProbeBW().
    fn enter_probe_bw(&mut self, now: Time) {
        self.cwnd_gain = self.p.cwnd_gain;
        self.start_probe_bw_down(now);
    }

    /// PickProbeWait() from the seeded generator.
    fn pick_probe_wait(&mut self) {
        self.rounds_since_probe_up = self.rng.next_u64() & 1;
        let wait_s = self.p.probe_wait_base_s + self.p.probe_wait_rand_s * self.rng.next_f64();
        self.bw_probe_wait = (wait_s * NS_PER_SEC) as Time;
    }

    /// StartProbeBW_DOWN().
    fn start_probe_bw_down(&mut self, now: Time) {
        self.reset_congestion_signals();
        self.probe_up_acked_per_inc = f64::INFINITY;
        self.pick_probe_wait();
        self.cycle_stamp = now;
        self.ack_phase = AckPhase::ProbeStopping;
        self.start_round();
        self.set_state(State::ProbeBwDown);
    }

    /// StartProbeBW_CRUISE().
    fn start_probe_bw_cruise(&mut self) {
        self.set_state(State::ProbeBwCruise);
    }

    /// StartProbeBW_REFILL(); `probe_up_rounds` is 0 but after Linux's ECN reprobe.
    fn start_probe_bw_refill(&mut self, probe_up_rounds: u32) {
        self.reset_short_term_model();
        self.bw_probe_up_rounds = probe_up_rounds;
        self.bw_probe_up_acked = 0.0;
        self.prev_probe_precautionary = false;
        self.ack_phase = AckPhase::Refilling;
        self.start_round();
        self.set_state(State::ProbeBwRefill);
    }

    /// StartProbeBW_UP().
    fn start_probe_bw_up(&mut self, rs: &Rs, w: &Window) {
        self.ack_phase = AckPhase::ProbeStarting;
        self.start_round();
        self.reset_full_bw();
        self.full_bw = rs.delivery_rate;
        self.set_state(State::ProbeBwUp);
        self.raise_inflight_longterm_slope(w);
    }

    /// UpdateProbeBWCyclePhase(); `inflight` is C.inflight before this ACK.
    fn update_probe_bw_cycle_phase(&mut self, rs: &Rs, w: &Window, cx: &Ctx, inflight: f64) {
        if !self.full_bw_reached || rs.newly_acked == 0 {
            return;
        }
        if self.adapt_long_term_model(rs, w, cx.now) {
            return;
        }
        let state = self.state;
        match state {
            State::ProbeBwDown => {
                if self.is_time_to_probe_bw(w, cx.now) {
                    return;
                }
                if self.is_time_to_cruise(inflight) {
                    self.start_probe_bw_cruise();
                }
            }
            State::ProbeBwCruise => {
                self.is_time_to_probe_bw(w, cx.now);
            }
            // After one round of REFILL, start UP.
            State::ProbeBwRefill if self.round_start => {
                self.is_bw_probe_sample = true;
                self.start_probe_bw_up(rs, w);
            }
            State::ProbeBwUp if self.is_time_to_go_down(rs, w, inflight) => {
                self.prev_probe_too_high = false; // no high loss (yet)
                self.start_probe_bw_down(cx.now);
            }
            _ => {}
        }
    }

    /// IsTimeToProbeBW(), with Linux v3's ECN reprobe first when `ecn` is on.
    fn is_time_to_probe_bw(&mut self, w: &Window, now: Time) -> bool {
        if self.ecn_eligible && self.ecn_in_cycle && !self.loss_in_cycle && self.recovery == Recovery::Open {
            let segments = (self.inflight_longterm / self.mss).min(f64::from(u32::MAX));
            let target = (segments * ECN_REPROBE_GAIN).max(1.0);
            self.start_probe_bw_refill((target.log2().floor() as u32).min(MAX_PROBE_UP_ROUNDS));
            return true;
        }
        if now > self.cycle_stamp.saturating_add(self.bw_probe_wait) || self.is_reno_coexistence_probe_time(w) {
            self.start_probe_bw_refill(0);
            return true;
        }
        false
    }

    /// IsRenoCoexistenceProbeTime(): TargetInflight() counted in segments as rounds.
    fn is_reno_coexistence_probe_time(&self, w: &Window) -> bool {
        let reno_rounds = self.target_inflight(w) / self.mss;
        let rounds = reno_rounds.min(f64::from(self.p.probe_max_rounds));
        self.rounds_since_probe_up as f64 >= rounds
    }

    /// IsTimeToCruise().
    fn is_time_to_cruise(&self, inflight: f64) -> bool {
        if inflight > self.inflight_with_headroom() {
            return false;
        }
        inflight <= self.inflight(self.max_bw(), 1.0)
    }

    /// IsTimeToGoDown().
    fn is_time_to_go_down(&mut self, rs: &Rs, w: &Window, inflight: f64) -> bool {
        if self.prev_probe_too_high && inflight >= self.inflight_longterm {
            self.prev_probe_precautionary = true;
            return true;
        }
        if self.is_cwnd_limited() && w.cwnd >= self.inflight_longterm {
            self.reset_full_bw();
            self.full_bw = rs.delivery_rate;
        } else if self.full_bw_now {
            return true;
        }
        false
    }

    /// RaiseInflightLongtermSlope().
    fn raise_inflight_longterm_slope(&mut self, w: &Window) {
        let growth_this_round = f64::from(1u32 << self.bw_probe_up_rounds);
        self.bw_probe_up_rounds = (self.bw_probe_up_rounds + 1).min(MAX_PROBE_UP_ROUNDS);
        self.probe_up_acked_per_inc = (w.cwnd / growth_this_round).max(self.mss);
    }

    /// ProbeInflightLongtermUpward().
    fn probe_inflight_longterm_upward(&mut self, rs: &Rs, w: &Window) {
        if !self.is_cwnd_limited() || w.cwnd < self.inflight_longterm {
            return;
        }
        self.bw_probe_up_acked += rs.delivered_delta as f64;
        if self.bw_probe_up_acked >= self.probe_up_acked_per_inc {
            let delta = (self.bw_probe_up_acked / self.probe_up_acked_per_inc).floor();
            self.bw_probe_up_acked -= delta * self.probe_up_acked_per_inc;
            self.inflight_longterm += delta * self.mss;
        }
        if self.round_start {
            self.raise_inflight_longterm_slope(w);
        }
    }

    /// AdaptLongTermModel(); true if it decided a state transition. A rate sample of the
    /// probe that says inflight was too high is handled here (see the header).
    fn adapt_long_term_model(&mut self, rs: &Rs, w: &Window, now: Time) -> bool {
        if self.ack_phase == AckPhase::ProbeStarting && self.round_start {
            self.ack_phase = AckPhase::ProbeFeedback;
        }
        if self.ack_phase == AckPhase::ProbeStopping && self.round_start {
            self.is_bw_probe_sample = false;
            self.ack_phase = AckPhase::Init;
            if self.is_in_probe_bw() && !rs.is_app_limited {
                self.advance_max_bw_filter();
            }
            if self.is_in_probe_bw() && self.prev_probe_precautionary && !self.prev_probe_too_high {
                self.start_probe_bw_refill(0);
                return true;
            }
        }
        if self.is_inflight_too_high(rs) {
            if self.is_bw_probe_sample {
                self.handle_inflight_too_high(rs, w, now);
            }
            return false;
        }
        if self.inflight_longterm.is_infinite() {
            return false;
        }
        if rs.tx_in_flight as f64 > self.inflight_longterm {
            self.inflight_longterm = rs.tx_in_flight as f64;
        }
        if self.state == State::ProbeBwUp {
            self.probe_inflight_longterm_upward(rs, w);
        }
        false
    }

    // ---- min_rtt and ProbeRTT (§5.3.4) ----

    /// UpdateMinRTT().
    fn update_min_rtt(&mut self, ack: &AckSample, now: Time) {
        let interval = (self.p.probe_rtt_interval_s * NS_PER_SEC) as Time;
        self.probe_rtt_expired = now > self.probe_rtt_min_stamp.saturating_add(interval);
        if let Some(rtt) = ack.rtt {
            if self.probe_rtt_min_delay.is_none_or(|d| rtt < d) || self.probe_rtt_expired {
                self.probe_rtt_min_delay = Some(rtt);
                self.probe_rtt_min_stamp = now;
            }
        }
        let window = (self.p.min_rtt_window_s * NS_PER_SEC) as Time;
        let min_rtt_expired = now > self.min_rtt_stamp.saturating_add(window);
        if let Some(d) = self.probe_rtt_min_delay {
            if self.min_rtt.is_none_or(|m| d < m) || min_rtt_expired {
                self.min_rtt = Some(d);
                self.min_rtt_stamp = self.probe_rtt_min_stamp;
            }
        }
    }

    /// CheckProbeRTT() (BBR.idle_restart is never set: see the header).
    fn check_probe_rtt(&mut self, w: &mut Window, cx: &mut Ctx) {
        if self.state != State::ProbeRtt && self.probe_rtt_expired {
            self.set_state(State::ProbeRtt);
            self.save_cwnd(w);
            self.probe_rtt_done_stamp = None;
            self.ack_phase = AckPhase::ProbeStopping;
            self.start_round();
        }
        if self.state == State::ProbeRtt {
            self.handle_probe_rtt(w, cx);
        }
    }

    /// HandleProbeRTT().
    fn handle_probe_rtt(&mut self, w: &mut Window, cx: &mut Ctx) {
        cx.mark_app_limited();
        match self.probe_rtt_done_stamp {
            None if (cx.pipe as f64) <= self.probe_rtt_cwnd() => {
                self.probe_rtt_done_stamp = Some(cx.now + (self.p.probe_rtt_ms * 1e6) as Time);
                self.probe_rtt_round_done = false;
                self.start_round();
            }
            None => {}
            Some(_) => {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done {
                    self.check_probe_rtt_done(w, cx.now);
                }
            }
        }
    }

    /// CheckProbeRTTDone().
    fn check_probe_rtt_done(&mut self, w: &mut Window, now: Time) {
        if self.probe_rtt_done_stamp.is_some_and(|d| now > d) {
            self.probe_rtt_min_stamp = now;
            self.restore_cwnd(w);
            self.exit_probe_rtt(now);
        }
    }

    /// ExitProbeRTT().
    fn exit_probe_rtt(&mut self, now: Time) {
        self.reset_short_term_model();
        if self.full_bw_reached {
            self.start_probe_bw_down(now);
            self.start_probe_bw_cruise();
        } else {
            self.enter_startup();
        }
    }

    // ---- aggregation, pacing, quantum, cwnd (§5.5.9, §5.6) ----

    /// UpdateACKAggregation().
    fn update_ack_aggregation(&mut self, rs: &Rs, w: &Window, now: Time) {
        let interval = now.saturating_sub(self.extra_acked_interval_start) as f64 / NS_PER_SEC;
        let mut expected = self.bw * interval;
        if self.extra_acked_delivered <= expected {
            self.extra_acked_delivered = 0.0;
            self.extra_acked_interval_start = now;
            expected = 0.0;
        }
        self.extra_acked_delivered += rs.delivered_delta as f64;
        let extra = (self.extra_acked_delivered - expected).min(w.cwnd);
        let window = if self.full_bw_reached { EXTRA_ACKED_ROUNDS } else { 1 };
        self.extra_acked = self.extra_acked_filter.update(self.round_count, extra, window);
    }

    /// InitPacingRate(): StartupPacingGain * InitialCwnd / (SRTT or 1 ms).
    fn init_pacing_rate(&self, w: &mut Window, rtt: Time) {
        let nominal = self.init_cwnd * NS_PER_SEC / rtt.max(1) as f64;
        w.pacing_rate = Some(self.p.startup_pacing_gain * nominal);
    }

    /// SetPacingRate().
    fn set_pacing_rate(&mut self, w: &mut Window, cx: &Ctx) {
        if !self.has_seen_rtt {
            if let Some(srtt) = cx.rtt.srtt() {
                self.init_pacing_rate(w, srtt);
                self.has_seen_rtt = true;
            }
        }
        let rate = self.pacing_gain * self.bw * (100.0 - self.p.pacing_margin_percent) / 100.0;
        if rate > 0.0 && (self.full_bw_reached || w.pacing_rate.is_none_or(|r| rate > r)) {
            w.pacing_rate = Some(rate);
        }
    }

    /// SetSendQuantum().
    fn set_send_quantum(&mut self, w: &Window) {
        let rate = w.pacing_rate.unwrap_or(0.0);
        self.send_quantum = (rate * SEND_QUANTUM_TIME).min(SEND_QUANTUM_MAX).max(2.0 * self.mss);
    }

    /// UpdateMaxInflight().
    fn update_max_inflight(&mut self) {
        let mut extra = self.extra_acked;
        if self.p.extra_acked_max_ms > 0.0 {
            // Linux v3 bbr_ack_aggregation_cwnd: at most BBR.bw x 100 ms.
            extra = extra.min(self.bw * self.p.extra_acked_max_ms / 1e3);
        }
        let cap = self.bdp_multiple(self.bw, self.cwnd_gain) + extra;
        self.max_inflight = self.quantization_budget(cap);
    }

    /// SetCwnd() (§5.6.4.6): the growth step (and the MinPipeCwnd floor) on ACKs that
    /// deliver data, the ProbeRTT and model bounds on every ACK (see the header).
    fn set_cwnd(&mut self, rs: &Rs, w: &mut Window, cx: &Ctx) {
        self.update_max_inflight();
        if rs.newly_acked > 0 {
            let acked = rs.newly_acked as f64;
            if self.conserving && matches!(self.recovery, Recovery::Fast { .. }) {
                // Packet conservation (parameter): in flight plus what this ACK delivered.
                w.cwnd = w.cwnd.max(cx.pipe as f64 + acked);
            } else if self.full_bw_reached {
                w.cwnd = (w.cwnd + acked).min(self.max_inflight);
            } else if w.cwnd < self.max_inflight || (self.delivered as f64) < self.init_cwnd {
                w.cwnd += acked;
            }
            w.cwnd = w.cwnd.max(self.min_pipe_cwnd());
        }
        self.bound_cwnd_for_probe_rtt(w);
        self.bound_cwnd_for_model(w);
    }

    /// BoundCwndForProbeRTT().
    fn bound_cwnd_for_probe_rtt(&self, w: &mut Window) {
        if self.state == State::ProbeRtt {
            w.cwnd = w.cwnd.min(self.probe_rtt_cwnd());
        }
    }

    /// BoundCwndForModel().
    fn bound_cwnd_for_model(&self, w: &mut Window) {
        let mut cap = f64::INFINITY;
        if self.is_in_probe_bw() && self.state != State::ProbeBwCruise {
            cap = self.inflight_longterm;
        } else if matches!(self.state, State::ProbeRtt | State::ProbeBwCruise) {
            cap = self.inflight_with_headroom();
        }
        cap = cap.min(self.inflight_shortterm).max(self.min_pipe_cwnd());
        w.cwnd = w.cwnd.min(cap);
    }

    // ---- ECN (parameter `ecn`: Linux v3's response) ----

    /// Marked bytes delivered after `C.delivered` was `since` (the ring's memory).
    fn ce_since(&self, since: u64) -> u64 {
        let mut sum = 0;
        for i in 0..self.ce_len {
            let (at, bytes) = self.ce_ring[(self.ce_head + CE_RING - 1 - i) % CE_RING];
            if at <= since {
                break;
            }
            sum += bytes;
        }
        sum
    }

    fn observe_ecn(&mut self, ack: &AckSample) {
        if !self.p.ecn {
            return;
        }
        if !self.ecn_eligible {
            let max_rtt = (self.p.ecn_max_rtt_ms * 1e6) as Time;
            self.ecn_eligible = self.p.ecn_max_rtt_ms == 0.0 || self.min_rtt.is_some_and(|m| m <= max_rtt);
        }
        if ack.marked && self.ecn_eligible {
            self.ecn_in_round = true;
            if ack.delivered_bytes > 0 {
                self.ce_delivered += ack.delivered_bytes;
                self.ce_ring[self.ce_head] = (self.delivered, ack.delivered_bytes);
                self.ce_head = (self.ce_head + 1) % CE_RING;
                self.ce_len = (self.ce_len + 1).min(CE_RING);
            }
        }
    }

    /// Once per round: ecn_alpha and the Startup exit on marks (Linux v3).
    fn update_ecn_alpha(&mut self) {
        if !self.ecn_eligible {
            return;
        }
        let delivered = self.delivered.saturating_sub(self.alpha_last_delivered);
        if delivered == 0 {
            return;
        }
        let ratio = self.ce_delivered.saturating_sub(self.alpha_last_ce) as f64 / delivered as f64;
        let g = self.p.ecn_alpha_gain;
        self.ecn_alpha = ((1.0 - g) * self.ecn_alpha + g * ratio).min(1.0);
        self.alpha_last_delivered = self.delivered;
        self.alpha_last_ce = self.ce_delivered;
        if !self.full_bw_reached {
            self.startup_ecn_rounds = if ratio >= self.p.ecn_thresh { self.startup_ecn_rounds + 1 } else { 0 };
            if self.startup_ecn_rounds >= FULL_ECN_ROUNDS {
                self.full_bw_reached = true;
                let bdp = self.inflight(self.max_bw(), 1.0);
                self.inflight_longterm = bdp.max(self.inflight_latest);
            }
        }
    }

    // ---- per-ACK bookkeeping of what the sender does not report ----

    /// C.has_selective_acks from duplicate ACKs: with SACK one that delivers data reports
    /// SACKed bytes; without it the sender credits a segment to C.delivered alone.
    fn observe_sack(&mut self, ack: &AckSample, prior_total: u64) {
        if !ack.dup {
            return;
        }
        if ack.delivered_bytes > 0 {
            self.has_selective_acks = true;
        } else if ack.delivered_total > prior_total {
            self.has_selective_acks = false;
        }
    }
}

impl CongestionControl for Bbr3 {
    fn name(&self) -> &'static str {
        "bbr3"
    }

    /// OnInit() (§5.2.1).
    fn init(&mut self, w: &mut Window, cx: &mut Ctx) {
        self.mss = cx.mss_f();
        self.init_cwnd = w.cwnd;
        self.min_rtt = cx.rtt.srtt();
        self.min_rtt_stamp = cx.now;
        self.probe_rtt_min_delay = self.min_rtt;
        self.probe_rtt_min_stamp = cx.now;
        self.extra_acked_interval_start = cx.now;
        self.send_quantum = 2.0 * self.mss;
        match cx.rtt.srtt() {
            Some(srtt) => {
                self.init_pacing_rate(w, srtt);
                self.has_seen_rtt = true;
            }
            None => self.init_pacing_rate(w, NOMINAL_RTT),
        }
        self.enter_startup();
    }

    /// UpdateOnACK() (§5.2.3).
    fn on_ack(&mut self, ack: &AckSample, w: &mut Window, cx: &mut Ctx) {
        self.mss = cx.mss_f();
        let prior_total = self.delivered;
        self.delivered = ack.delivered_total;
        self.last_acked = ack.delivered_bytes;
        let rs = Rs::of(ack, prior_total, self.p.model_acked);
        // C.inflight before this ACK (Linux rs->prior_in_flight) and whether cwnd was full.
        let prior_inflight = (cx.pipe + ack.delivered_bytes) as f64;
        if prior_inflight + self.mss > w.cwnd {
            self.cwnd_limited_this_round = true;
        }
        self.observe_sack(ack, prior_total);
        self.observe_losses(&rs, w);
        self.observe_ecn(ack);
        if let Recovery::Timeout { high_seq } = self.recovery {
            if ack.delivered_bytes > 0 && cx.snd_una >= high_seq {
                // RTO recovery repaired: RestoreCwnd() (§5.6.4.4).
                self.recovery = Recovery::Open;
                self.restore_cwnd(w);
            }
        }
        // UpdateModelAndState().
        self.update_latest_delivery_signals(&rs);
        self.update_congestion_signals(&rs, w);
        self.update_ack_aggregation(&rs, w, cx.now);
        self.check_full_bw_reached(&rs);
        self.check_startup_done(&rs, w);
        self.check_drain_done(cx);
        self.update_probe_bw_cycle_phase(&rs, w, cx, prior_inflight);
        self.update_min_rtt(ack, cx.now);
        self.check_probe_rtt(w, cx);
        self.advance_latest_delivery_signals(&rs);
        self.bound_bw_for_model();
        // UpdateControlParameters().
        self.set_pacing_rate(w, cx);
        self.set_send_quantum(w);
        self.set_cwnd(&rs, w, cx);
        // Linux v3 (end of bbr_main): marks and losses seen in this ProbeBW cycle.
        self.ecn_in_cycle |= self.ecn_eligible && ack.marked;
        self.loss_in_cycle |= rs.lost > 0;
    }

    fn on_loss(&mut self, loss: Loss, w: &mut Window, cx: &mut Ctx) -> Verdict {
        self.mss = cx.mss_f();
        // OnEnterFastRecovery() / OnEnterRTO(): SaveCwnd(); SaveStateUponLoss(); the
        // segment the sender resends is marked lost (NoteLoss(); a loss event of the round
        // for a fast retransmit, as Linux v3 counts the ACK that marks it). The sender counts
        // that segment in RS.lost when it resends it, just after this hook: the loss proxy
        // takes it as known, so that a later sample notes only further losses.
        self.save_state_upon_loss(w);
        self.note_loss(w, loss == Loss::FastRetransmit);
        self.lost_ref.1 = self.lost_ref.1.saturating_add(u64::from(cx.mss));
        match loss {
            Loss::FastRetransmit => {
                self.loss_noted_in_recovery = false;
                self.recovery = Recovery::Fast { since: self.delivered };
                if self.p.packet_conservation {
                    self.conserving = true;
                    self.start_round();
                    w.cwnd = (cx.pipe + self.last_acked.max(cx.mss.into())) as f64;
                }
            }
            Loss::Timeout { .. } => {
                if self.p.rto_inflight_shortterm && !self.is_probing_bw() && self.inflight_shortterm.is_infinite() {
                    self.inflight_shortterm = w.cwnd.max(self.prior_cwnd);
                }
                self.recovery = Recovery::Timeout { high_seq: cx.snd_max };
                self.conserving = false;
                // C.cwnd = C.inflight + 1: go-back-N leaves nothing counted in flight.
                w.cwnd = self.mss;
            }
        }
        w.ssthresh = self.prior_cwnd;
        Verdict::None
    }

    fn on_recovery_exit(&mut self, w: &mut Window, cx: &mut Ctx) {
        self.mss = cx.mss_f();
        self.recovery = Recovery::Open;
        self.conserving = false;
        self.restore_cwnd(w);
    }

    fn on_recovery_exit_ack(&mut self, ack: &AckSample, w: &mut Window, cx: &mut Ctx) {
        // The ACK is bounded by the model at the end of its processing (§5.6.4.4).
        self.on_ack(ack, w, cx);
    }

    /// HandleSpuriousLossDetection() (§5.5.11.2), for a timeout F-RTO found spurious.
    fn on_spurious_timeout(&mut self, prior: &Window, w: &mut Window, cx: &mut Ctx) {
        self.mss = cx.mss_f();
        self.recovery = Recovery::Open;
        self.restore_cwnd(w);
        w.ssthresh = prior.ssthresh;
        self.is_loss_in_round = false;
        self.reset_full_bw();
        self.bw_shortterm = self.bw_shortterm.max(self.undo_bw_shortterm);
        self.inflight_shortterm = self.inflight_shortterm.max(self.undo_inflight_shortterm);
        self.inflight_longterm = self.inflight_longterm.max(self.undo_inflight_longterm);
        if self.undo_state == Undo::Startup && self.state != State::Startup {
            self.full_bw_reached = false;
            if self.state != State::ProbeRtt {
                self.enter_startup();
            }
        } else if self.undo_state == Undo::ProbeBwUp && self.state != State::ProbeBwUp && self.state != State::ProbeRtt {
            self.start_probe_bw_refill(0);
        }
        self.undo_state = Undo::None;
    }

    fn trace_vars(&self, out: &mut Vec<(&'static str, f64)>) {
        let finite = |v: f64| if v.is_finite() { v } else { f64::NAN };
        out.push(("state", self.state.number()));
        out.push(("pacing_gain", self.pacing_gain));
        out.push(("cwnd_gain", self.cwnd_gain));
        out.push(("max_bw_bytes_per_s", self.max_bw()));
        out.push(("bw_bytes_per_s", self.bw));
        out.push(("bw_shortterm_bytes_per_s", finite(self.bw_shortterm)));
        out.push(("inflight_shortterm_bytes", finite(self.inflight_shortterm)));
        out.push(("inflight_longterm_bytes", finite(self.inflight_longterm)));
        out.push(("min_rtt_s", self.min_rtt.map_or(f64::NAN, |r| r as f64 / NS_PER_SEC)));
        out.push(("bdp_bytes", self.bdp_of(self.bw).unwrap_or(f64::NAN)));
        out.push(("max_inflight_bytes", self.max_inflight));
        out.push(("extra_acked_bytes", self.extra_acked));
        out.push(("send_quantum_bytes", self.send_quantum));
        out.push(("round_count", self.round_count as f64));
        out.push(("full_bw_count", f64::from(self.full_bw_count)));
        out.push(("full_bw_reached", f64::from(u8::from(self.full_bw_reached))));
        out.push(("rounds_since_probe_up", self.rounds_since_probe_up as f64));
        out.push(("bw_probe_wait_s", self.bw_probe_wait as f64 / NS_PER_SEC));
        out.push(("cycle_count", self.cycle_count as f64));
        out.push(("lower_bound_cuts", self.lower_bound_cuts as f64));
        out.push(("prev_probe_too_high", f64::from(u8::from(self.prev_probe_too_high))));
        out.push(("ecn_alpha", self.ecn_alpha));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::RateSample;
    use crate::testing::{approx, var, Harness, MSS};

    const MS: Time = 1_000_000;
    const SEG: u64 = MSS as u64;
    /// The test path: every round takes 100 ms (the RTT samples are 100 ms too).
    const RTT: Time = 100 * MS;
    const STARTUP: f64 = 0.0;
    const DRAIN: f64 = 1.0;
    const DOWN: f64 = 2.0;
    const CRUISE: f64 = 3.0;
    const REFILL: f64 = 4.0;
    const UP: f64 = 5.0;
    const PROBE_RTT: f64 = 6.0;

    fn fresh_with(p: Bbr3Params) -> Harness {
        let mut h = Harness::new(build(&p));
        h.snd_max = 10 * SEG;
        h
    }

    fn fresh() -> Harness {
        fresh_with(Bbr3Params::default())
    }

    fn state(h: &Harness) -> f64 {
        var(h, "state")
    }

    /// A rate sample: `delivered` bytes over `interval`, of data sent when C.delivered was
    /// `prior`, with `lost` bytes lost since and `tx_in_flight` bytes in flight at its send.
    fn sample(delivered: u64, interval: Time, prior: u64, lost: u64, tx_in_flight: u64) -> RateSample {
        RateSample { delivered, interval, prior_delivered: prior, lost, tx_in_flight, ..RateSample::default() }
    }

    /// One ACK `dt` after the previous event that delivers `segs` segments, with the RTT
    /// sample `rtt`, `pipe` segments outstanding at the hook, the rate sample `rs` and
    /// an ECN echo `marked`.
    fn ack_full(h: &mut Harness, segs: u64, dt: Time, rtt: Time, pipe: u64, rs: Option<RateSample>, marked: bool) {
        h.now += dt;
        h.snd_una += segs * SEG;
        h.snd_max = h.snd_una + pipe * SEG;
        h.rtt.on_sample(rtt);
        let s = AckSample {
            ack: h.snd_una,
            acked_bytes: segs * SEG,
            delivered_bytes: segs * SEG,
            rtt: Some(rtt),
            delivered: h.snd_una,
            delivered_total: h.snd_una,
            in_recovery: h.in_recovery,
            marked,
            rate: rs,
            ..AckSample::default()
        };
        h.call(|cc, w, cx| cc.on_ack(&s, w, cx));
    }

    /// One ACK that ends a round: `segs` segments in 100 ms (the sample's rate), sent when
    /// everything before them had been delivered; `pipe` segments left outstanding.
    fn round(h: &mut Harness, segs: u64, pipe: u64) {
        round_lossy(h, segs, pipe, 0, 0);
    }

    fn round_lossy(h: &mut Harness, segs: u64, pipe: u64, lost: u64, tx_in_flight: u64) {
        let prior = h.snd_una;
        ack_full(h, segs, RTT, RTT, pipe, Some(sample(segs * SEG, RTT, prior, lost, tx_in_flight)), false);
    }

    /// The model path: 40 segments per 100 ms round (400 kB/s; BDP 40 segments).
    const PATH_BW: f64 = 400_000.0;
    const PATH_BDP: f64 = 40_000.0;

    /// Startup with rounds of 10, 20 and 40 segments, then a plateau of 40: in Drain after
    /// three rounds without 25 % growth (60 segments in flight keep it from draining).
    fn startup_to_drain(h: &mut Harness) {
        for segs in [10, 20, 40] {
            round(h, segs, 60);
            assert_eq!(state(h), STARTUP);
            assert_eq!(var(h, "full_bw_count"), 0.0);
        }
        for n in 1..=3 {
            assert_eq!(state(h), STARTUP, "Startup before plateau round {n}");
            round(h, 40, 60);
            assert_eq!(var(h, "full_bw_count"), f64::from(n));
        }
        assert_eq!(state(h), DRAIN);
    }

    /// On to ProbeBW_DOWN (10 segments in flight: below one BDP, above it with the ACK's
    /// 40), then CRUISE (the ACK leaves nothing in flight). Returns when DOWN began.
    fn to_cruise(h: &mut Harness) -> Time {
        startup_to_drain(h);
        round(h, 40, 10);
        assert_eq!(state(h), DOWN);
        let down_at = h.now;
        round(h, 40, 0);
        assert_eq!(state(h), CRUISE);
        down_at
    }

    /// Through CRUISE until the randomized wall-clock wait sends the flow to REFILL, then
    /// one round of REFILL into UP.
    fn cruise_to_up(h: &mut Harness, down_at: Time, wait_s: f64) {
        let wait = (wait_s * NS_PER_SEC).round() as Time;
        loop {
            let before = h.now;
            round(h, 40, 0);
            if state(h) == REFILL {
                assert!(h.now - down_at + 1 >= wait && before - down_at <= wait + 1, "REFILL {} ns after DOWN, wait {wait}", h.now - down_at);
                break;
            }
            assert_eq!(state(h), CRUISE);
            assert!(h.now - down_at <= wait + 1);
        }
        round(h, 40, 0);
        assert_eq!(state(h), UP);
    }

    fn assert_gains(h: &Harness, pacing: f64, cwnd: f64) {
        assert_eq!((var(h, "pacing_gain"), var(h, "cwnd_gain")), (pacing, cwnd), "state {}", state(h));
        let bw = var(h, "bw_bytes_per_s");
        assert!(approx(h.w.pacing_rate.unwrap(), pacing * bw * 0.99), "pacing {:?} for gain {pacing} x bw {bw}", h.w.pacing_rate);
    }

    #[test]
    fn startup_exits_to_drain_after_three_rounds_of_less_than_25_percent_growth() {
        let mut h = fresh();
        // Rounds of 10, 20 and 40 segments reset the count; then 45 and 48 (< 1.25 x 40)
        // count, 50 (= 1.25 x 40) is growth again and resets, and 55, 60, 62 (< 62.5) fill it.
        let mut expect = vec![];
        for (segs, count) in [(10, 0), (20, 0), (40, 0), (45, 1), (48, 2), (50, 0), (55, 1), (60, 2)] {
            round(&mut h, segs, 100);
            expect.push(count);
            assert_eq!(var(&h, "full_bw_count"), f64::from(count), "after {segs} segments");
            assert_eq!(state(&h), STARTUP);
            assert_eq!(var(&h, "pacing_gain"), 4.0 * LN_2);
            assert_eq!(var(&h, "cwnd_gain"), 2.0);
        }
        round(&mut h, 62, 100);
        assert_eq!(var(&h, "full_bw_count"), 3.0);
        assert_eq!(var(&h, "full_bw_reached"), 1.0);
        assert_eq!(state(&h), DRAIN);
        // Drain paces at 0.5 x BBR.bw with the 1 % margin; max_bw is the largest sample.
        assert_eq!(var(&h, "max_bw_bytes_per_s"), 62.0 * SEG as f64 / 0.1);
        assert_gains(&h, 0.5, 2.0);
    }

    #[test]
    fn startup_growth_is_the_delivered_bytes_and_pacing_never_falls() {
        let mut h = fresh();
        // The first RTT sample replaces the nominal 1 ms of the initial pacing rate (§5.6.2).
        round(&mut h, 10, 20);
        assert!(approx(h.w.pacing_rate.unwrap(), 4.0 * LN_2 * 10.0 * SEG as f64 / 0.1));
        let mut last_rate = h.w.pacing_rate.unwrap();
        for segs in [20, 40, 80] {
            let before = h.w.cwnd;
            round(&mut h, segs, 2 * segs);
            // Below BBR.max_inflight cwnd grows by RS.newly_acked (§5.6.4.6).
            assert!(before < var(&h, "max_inflight_bytes"));
            assert_eq!(h.w.cwnd, before + (segs * SEG) as f64);
            let rate = h.w.pacing_rate.unwrap();
            assert!(rate >= last_rate);
            assert!(approx(rate, (4.0 * LN_2 * var(&h, "bw_bytes_per_s") * 0.99).max(last_rate)));
            last_rate = rate;
        }
    }

    #[test]
    fn probe_bw_cycles_down_cruise_refill_up_with_the_drafts_gains() {
        let mut h = fresh();
        startup_to_drain(&mut h);
        round(&mut h, 40, 10);
        assert_eq!(state(&h), DOWN);
        assert_gains(&h, 0.9, 2.0);
        let down_at = h.now;
        let wait_s = var(&h, "bw_probe_wait_s");
        assert!((2.0..3.0).contains(&wait_s), "{wait_s}");
        // DOWN -> CRUISE when C.inflight <= the BDP (and no headroom bound is set).
        round(&mut h, 40, 0);
        assert_eq!(state(&h), CRUISE);
        assert_gains(&h, 1.0, 2.0);
        assert_eq!(var(&h, "bw_bytes_per_s"), PATH_BW);
        // CRUISE holds until the randomized wall-clock wait (2-3 s; the Reno bound here is
        // 40 rounds, 4 s) has elapsed since DOWN began; one round of REFILL, then UP.
        cruise_to_up(&mut h, down_at, wait_s);
        assert_gains(&h, 1.25, 2.25);
        // UP ends after three rounds without 25 % more delivery rate: DOWN again.
        for _ in 0..2 {
            round(&mut h, 40, 0);
            assert_eq!(state(&h), UP);
        }
        round(&mut h, 40, 0);
        assert_eq!(state(&h), DOWN);
        assert_gains(&h, 0.9, 2.0);
    }

    #[test]
    fn refill_lasts_one_round_at_gain_one_and_resets_the_short_term_model() {
        let mut h = fresh();
        let down_at = to_cruise(&mut h);
        let wait = var(&h, "bw_probe_wait_s");
        let end = down_at + (wait * NS_PER_SEC) as Time;
        while h.now + 3 * RTT <= end {
            round(&mut h, 40, 0);
        }
        // A loss round in CRUISE sets the short-term model just before REFILL.
        round_lossy(&mut h, 40, 0, SEG, 40 * SEG);
        round(&mut h, 40, 0);
        assert_eq!(state(&h), CRUISE);
        assert!(var(&h, "inflight_shortterm_bytes") > 0.0 && var(&h, "bw_shortterm_bytes_per_s") > 0.0);
        round(&mut h, 40, 0);
        assert_eq!(state(&h), REFILL);
        assert_gains(&h, 1.0, 2.0);
        assert!(var(&h, "inflight_shortterm_bytes").is_nan() && var(&h, "bw_shortterm_bytes_per_s").is_nan());
        round(&mut h, 40, 0);
        assert_eq!(state(&h), UP);
    }

    /// CRUISE, then UP by the wall-clock wait.
    fn to_up() -> Harness {
        let mut h = fresh();
        let down_at = to_cruise(&mut h);
        let wait = var(&h, "bw_probe_wait_s");
        cruise_to_up(&mut h, down_at, wait);
        h
    }

    #[test]
    fn a_probe_with_more_than_2_percent_loss_sets_inflight_longterm_and_goes_down() {
        let mut h = to_up();
        assert!(var(&h, "inflight_longterm_bytes").is_nan(), "not set before any loss");
        // 3 % of the 50 segments in flight when the sample's segment left were lost:
        // inflight_longterm = max(RS.tx_in_flight, Beta * TargetInflight) = 50 segments.
        // (10 segments stay in flight: DOWN holds until inflight leaves the headroom.)
        round_lossy(&mut h, 40, 10, 1500, 50 * SEG);
        assert_eq!(var(&h, "inflight_longterm_bytes"), 50_000.0);
        assert_eq!(state(&h), DOWN);
        assert_eq!(var(&h, "prev_probe_too_high"), 1.0);
    }

    #[test]
    fn the_loss_bound_is_at_least_beta_times_the_target_inflight() {
        let mut h = to_up();
        // 5 % of 20 segments: tx_in_flight (20 000) is below 0.7 x min(BDP, cwnd) = 28 000.
        let target = PATH_BDP.min(h.w.cwnd);
        round_lossy(&mut h, 40, 10, 1000, 20 * SEG);
        assert!(approx(var(&h, "inflight_longterm_bytes"), 0.7 * target), "{}", var(&h, "inflight_longterm_bytes"));
        assert_eq!(state(&h), DOWN);
        // cwnd is capped by inflight_longterm in DOWN.
        assert!(h.w.cwnd <= 0.7 * target + 1e-9);
    }

    #[test]
    fn a_probe_with_less_than_2_percent_loss_keeps_probing_without_a_bound() {
        let mut h = to_up();
        // 1.8 % of 50 segments (900 of 50 000 bytes): below BBR.LossThresh.
        round_lossy(&mut h, 40, 0, 900, 50 * SEG);
        assert!(var(&h, "inflight_longterm_bytes").is_nan());
        assert_eq!(state(&h), UP);
        assert_eq!(var(&h, "prev_probe_too_high"), 0.0);
    }

    #[test]
    fn loss_rounds_outside_probing_cut_bw_and_inflight_shortterm_by_beta() {
        let mut h = fresh();
        to_cruise(&mut h);
        // Slow rounds (10 segments per 100 ms): bw_latest 100 kB/s, inflight_latest 10 kB,
        // both below 0.7 x the model, so the cut is Beta's.
        round(&mut h, 10, 0);
        assert!(var(&h, "bw_shortterm_bytes_per_s").is_nan());
        // A sample whose lost count grew: a loss in this round.
        round_lossy(&mut h, 10, 0, SEG, 40 * SEG);
        assert!(var(&h, "bw_shortterm_bytes_per_s").is_nan(), "the cut waits for the end of the round");
        let cwnd = h.w.cwnd;
        round_lossy(&mut h, 10, 0, SEG, 40 * SEG);
        assert_eq!(state(&h), CRUISE);
        assert!(approx(var(&h, "bw_shortterm_bytes_per_s"), 0.7 * PATH_BW));
        assert!(approx(var(&h, "inflight_shortterm_bytes"), 0.7 * cwnd));
        assert!(approx(var(&h, "bw_bytes_per_s"), 0.7 * PATH_BW), "BBR.bw = min(max_bw, bw_shortterm)");
        assert!(approx(h.w.pacing_rate.unwrap(), 0.7 * PATH_BW * 0.99));
        assert!(h.w.cwnd <= 0.7 * cwnd + 1e-9);
        // A round without a new loss leaves the model alone; the next loss round cuts again.
        round(&mut h, 10, 0);
        assert!(approx(var(&h, "bw_shortterm_bytes_per_s"), 0.7 * PATH_BW));
        round_lossy(&mut h, 10, 0, 2 * SEG, 40 * SEG);
        round_lossy(&mut h, 10, 0, 2 * SEG, 40 * SEG);
        assert!(approx(var(&h, "bw_shortterm_bytes_per_s"), 0.49 * PATH_BW));
        assert!(approx(var(&h, "inflight_shortterm_bytes"), 0.49 * cwnd));
        assert_eq!(var(&h, "lower_bound_cuts"), 2.0);
    }

    #[test]
    fn the_short_term_cut_stops_at_the_latest_delivery() {
        let mut h = fresh();
        to_cruise(&mut h);
        // Rounds of 39 segments per 100 ms with a loss: the path still delivers 390 kB/s,
        // more than 0.7 x 400 kB/s, so bw_shortterm = bw_latest.
        round(&mut h, 39, 0);
        round_lossy(&mut h, 39, 0, SEG, 40 * SEG);
        let cwnd = h.w.cwnd;
        round_lossy(&mut h, 39, 0, SEG, 40 * SEG);
        assert_eq!(var(&h, "bw_shortterm_bytes_per_s"), 390_000.0);
        // inflight_shortterm = max(inflight_latest, Beta x cwnd): here the cwnd's share.
        assert!(approx(var(&h, "inflight_shortterm_bytes"), (0.7 * cwnd).max(39_000.0)));
        assert!(0.7 * cwnd > 39_000.0);
    }

    #[test]
    fn probe_rtt_after_five_seconds_without_a_lower_rtt_holds_half_the_bdp() {
        let mut h = fresh();
        to_cruise(&mut h);
        // The last lower RTT sample (100 ms) came at 0.1 s; rounds go on at the same RTT.
        let mut saved = h.w.cwnd;
        while h.now + RTT <= 5_100 * MS {
            saved = h.w.cwnd;
            round(&mut h, 40, 0);
            assert_ne!(state(&h), PROBE_RTT, "at {} ms", h.now / MS);
        }
        round(&mut h, 40, 0);
        assert!(h.now > 5_100 * MS);
        assert_eq!(state(&h), PROBE_RTT);
        assert_eq!((var(&h, "pacing_gain"), var(&h, "cwnd_gain")), (1.0, 0.5));
        // cwnd = ProbeRTTCwnd() = max(0.5 x BDP, 4 segments) = 20 segments.
        assert!(saved > 0.5 * PATH_BDP);
        assert!(approx(h.w.cwnd, 0.5 * PATH_BDP), "{}", h.w.cwnd);
        // Inflight at the ProbeRTT window: 200 ms and one round later, back to CRUISE with
        // the saved window (BBR.full_bw_reached).
        let entered = h.now;
        while state(&h) == PROBE_RTT {
            round(&mut h, 20, 0);
            assert!(h.now <= entered + 400 * MS);
        }
        assert!(h.now > entered + 200 * MS);
        assert_eq!(state(&h), CRUISE);
        assert!(h.w.cwnd >= saved.min(var(&h, "max_inflight_bytes")), "{} < {saved}", h.w.cwnd);
        assert!(h.w.cwnd > 0.5 * PATH_BDP);
    }

    /// Two Startup rounds (BBR.bw 200 kB/s), then a fast recovery in which each of `events`
    /// ACKs reveals one more lost segment of data sent before it (`each` runs after each),
    /// and the ACK that ends the loss round, with `in_flight` segments in flight.
    fn loss_round_in_recovery(h: &mut Harness, events: u64, in_flight: u64, mut each: impl FnMut(&Harness)) {
        round(h, 10, 20);
        round(h, 20, 40);
        let since = h.snd_una;
        h.loss(Loss::FastRetransmit);
        h.in_recovery = true;
        for i in 1..=events {
            let prior = since - (10 - i) * SEG;
            let rs = sample(h.snd_una + SEG - prior, RTT, prior, i * SEG, in_flight * SEG);
            ack_full(h, 1, 10 * MS, RTT, 40, Some(rs), false);
            each(h);
        }
        let rs = sample(h.snd_una + SEG - since, RTT, since, events * SEG, in_flight * SEG);
        ack_full(h, 1, 10 * MS, RTT, 40, Some(rs), false);
    }

    #[test]
    fn startup_ends_on_six_loss_events_and_2_percent_loss_in_a_round_of_fast_recovery() {
        for events in [5, 6] {
            let mut h = fresh();
            // Segments sent before the recovery, each ACK revealing one more lost segment;
            // the round of recovery ends with 6 segments of the 40 in flight lost (15 %).
            loss_round_in_recovery(&mut h, events, 40, |h| assert_eq!(state(h), STARTUP));
            if events < 6 {
                assert_eq!(state(&h), STARTUP, "{events} loss events do not end Startup");
                continue;
            }
            assert_eq!(state(&h), DRAIN);
            assert_eq!(var(&h, "full_bw_reached"), 1.0);
            // inflight_longterm = max(BBR.bdp, BBR.inflight_latest) = 20 segments here.
            assert_eq!(var(&h, "inflight_longterm_bytes"), var(&h, "bdp_bytes").max(20_000.0));
        }
    }

    #[test]
    fn fast_recovery_keeps_the_window_and_its_exit_restores_it() {
        let mut h = to_up();
        let saved = h.w.cwnd;
        h.dupacks = 3;
        h.loss(Loss::FastRetransmit);
        // The draft's OnEnterFastRecovery only saves the window.
        assert_eq!(h.w.cwnd, saved);
        assert_eq!(h.w.ssthresh, saved);
        h.w.cwnd = 5.0 * SEG as f64; // whatever the recovery left
        h.dupacks = 0;
        h.exit_recovery();
        assert_eq!(h.w.cwnd, saved);
        // With v1's packet conservation: in flight plus what that ACK delivered.
        let mut h = fresh_with(Bbr3Params { packet_conservation: true, ..Bbr3Params::default() });
        round(&mut h, 10, 20);
        round(&mut h, 20, 30);
        h.dupacks = 3;
        let pipe = (h.snd_max.max(h.snd_una + h.w.cwnd as u64) - h.snd_una) - 3 * SEG;
        h.loss(Loss::FastRetransmit);
        assert_eq!(h.w.cwnd, (pipe + 20 * SEG) as f64);
    }

    #[test]
    fn a_timeout_leaves_one_segment_and_the_repair_restores_the_window() {
        let mut h = fresh();
        round(&mut h, 10, 20);
        round(&mut h, 20, 40);
        let saved = h.w.cwnd;
        h.loss(Loss::Timeout { consecutive: 1 });
        assert_eq!(h.w.cwnd, SEG as f64);
        assert_eq!(h.w.ssthresh, saved);
        h.loss(Loss::Timeout { consecutive: 2 });
        assert_eq!(h.w.ssthresh, saved);
        // The ACK that covers everything sent before the RTO.
        let outstanding = (h.snd_max - h.snd_una) / SEG;
        round(&mut h, outstanding, 0);
        assert!(h.w.cwnd >= saved, "{} < {saved}", h.w.cwnd);
    }

    #[test]
    fn the_probe_wait_is_drawn_from_the_seed_and_lies_in_two_to_three_seconds() {
        let wait = |seed: u32| {
            let mut h = fresh_with(Bbr3Params { seed, ..Bbr3Params::default() });
            to_cruise(&mut h);
            var(&h, "bw_probe_wait_s")
        };
        let waits: Vec<f64> = (1..=6).map(wait).collect();
        assert!(waits.iter().all(|w| (2.0..3.0).contains(w)), "{waits:?}");
        assert_eq!(wait(3), waits[2], "same seed, same wait");
        let mut distinct = waits.clone();
        distinct.sort_by(f64::total_cmp);
        distinct.dedup();
        assert_eq!(distinct.len(), waits.len(), "{waits:?}");
    }

    #[test]
    fn ecn_marks_are_ignored_by_default_and_cut_inflight_shortterm_when_enabled() {
        let run = |ecn: bool| {
            let mut h = fresh_with(Bbr3Params { ecn, ecn_max_rtt_ms: 0.0, ..Bbr3Params::default() });
            to_cruise(&mut h);
            let cwnd = h.w.cwnd;
            let prior = h.snd_una;
            // A marked ACK that ends a round: the round's marks are answered at once.
            ack_full(&mut h, 40, RTT, RTT, 0, Some(sample(40 * SEG, RTT, prior, 0, 40 * SEG)), true);
            (cwnd, var(&h, "inflight_shortterm_bytes"), var(&h, "ecn_alpha"), state(&h))
        };
        let (_, off, _, st) = run(false);
        assert!(off.is_nan(), "no response to marks by default");
        assert_eq!(st, CRUISE);
        let (cwnd, on, alpha, _) = run(true);
        assert!(alpha > 0.0 && alpha < 1.0, "{alpha}");
        assert!(approx(on, cwnd * (1.0 - alpha / 3.0)), "{on} vs {cwnd} x (1 - {alpha}/3)");
    }

    #[test]
    fn duplicate_acks_without_delivery_leave_the_model_and_window_alone() {
        let mut h = to_up();
        let before = (h.w.cwnd, state(&h), var(&h, "round_count"));
        for _ in 0..3 {
            h.dup_ack();
        }
        assert_eq!((h.w.cwnd, state(&h), var(&h, "round_count")), before);
    }
    #[test]
    fn without_sack_duplicate_acks_count_in_the_aggregation_estimate_as_delivered_segments() {
        // Recovery without SACK: 100 duplicate ACKs, 3 ms apart (slower than the 2.5 ms a
        // segment takes at 400 kB/s), each credit one segment to C.delivered and deliver
        // no DeliveredData; the cumulative ACK then covers 101 segments.
        let run = |model_acked: ModelAcked| {
            let mut h = fresh_with(Bbr3Params { model_acked, ..Bbr3Params::default() });
            to_cruise(&mut h);
            let before = var(&h, "extra_acked_bytes");
            let mut total = h.snd_una;
            for _ in 0..100 {
                h.now += 3 * MS;
                total += SEG;
                let s = AckSample { ack: h.snd_una, dup: true, delivered: h.snd_una, delivered_total: total, ..AckSample::default() };
                h.call(|cc, w, cx| cc.on_ack(&s, w, cx));
            }
            h.now += 3 * MS;
            h.snd_una += 101 * SEG;
            h.snd_max = h.snd_max.max(h.snd_una);
            let s = AckSample {
                ack: h.snd_una,
                acked_bytes: 101 * SEG,
                delivered_bytes: 101 * SEG,
                delivered: h.snd_una,
                delivered_total: total + SEG,
                ..AckSample::default()
            };
            h.call(|cc, w, cx| cc.on_ack(&s, w, cx));
            (before, var(&h, "extra_acked_bytes"), h.w.cwnd)
        };
        // Counted as they arrived, the duplicates never outpace BBR.bw: the estimate keeps
        // its earlier maximum. Counted at the cumulative ACK, 101 segments arrive at once.
        let (before, spread, _) = run(ModelAcked::Delivered);
        assert_eq!(spread, before);
        let (before, stretch, cwnd) = run(ModelAcked::DeliveredData);
        assert!(before < 101_000.0);
        assert_eq!(stretch, 101_000f64.min(cwnd));
    }

    #[test]
    fn linux_rto_option_sets_inflight_shortterm_from_the_saved_window() {
        for on in [false, true] {
            let mut h = fresh_with(Bbr3Params { rto_inflight_shortterm: on, ..Bbr3Params::default() });
            to_cruise(&mut h);
            let cwnd = h.w.cwnd;
            h.loss(Loss::Timeout { consecutive: 1 });
            let lo = var(&h, "inflight_shortterm_bytes");
            if on {
                assert_eq!(lo, cwnd);
            } else {
                assert!(lo.is_nan(), "the draft leaves it unset");
            }
        }
    }

    // ---- Startup exit on loss (§5.3.1.3) ----

    /// Without SACK: a duplicate ACK 1 ms after the previous event that credits one segment
    /// to C.delivered (`total`) and delivers no DeliveredData (and carries no rate sample).
    fn reno_dup(h: &mut Harness, total: &mut u64) {
        h.now += MS;
        h.dupacks += 1;
        *total += SEG;
        let s = AckSample { ack: h.snd_una, dup: true, delivered: h.snd_una, delivered_total: *total, in_recovery: h.in_recovery, ..AckSample::default() };
        h.call(|cc, w, cx| cc.on_ack(&s, w, cx));
    }

    /// Without SACK: a cumulative ACK of `segs` segments `dt` after the previous event,
    /// `credited` bytes of which the duplicates counted in C.delivered already, with the
    /// rate sample `rs` and no RTT sample (Karn).
    fn reno_cum(h: &mut Harness, segs: u64, dt: Time, total: &mut u64, credited: u64, rs: RateSample) {
        h.now += dt;
        h.snd_una += segs * SEG;
        h.dupacks = 0;
        *total += segs * SEG - credited;
        let s = AckSample {
            ack: h.snd_una,
            acked_bytes: segs * SEG,
            delivered_bytes: segs * SEG,
            delivered: h.snd_una,
            delivered_total: *total,
            in_recovery: h.in_recovery,
            rate: Some(rs),
            ..AckSample::default()
        };
        h.call(|cc, w, cx| cc.on_ack(&s, w, cx));
    }

    /// A flow with the SYN's RTT sample (100 ms) whose first segment of ten is lost, without
    /// SACK: four duplicate ACKs (the fast retransmit after the third), none with a rate
    /// sample. Returns C.delivered.
    fn first_flight_loss_without_sack(h: &mut Harness) -> u64 {
        h.rtt.on_sample(RTT);
        h.call(|cc, w, cx| cc.init(w, cx));
        let mut total = 0;
        for i in 1..=4 {
            reno_dup(h, &mut total);
            if i == 3 {
                h.loss(Loss::FastRetransmit);
                h.in_recovery = true;
            }
            assert_eq!(state(h), STARTUP, "duplicate ACK {i}");
        }
        total
    }

    #[test]
    fn startup_does_not_end_on_loss_before_a_bandwidth_sample() {
        // No rate sample yet: BBR.max_bw = BBR.bdp = 0, and an exit would set
        // inflight_longterm from nothing (L1896-1899, L1902-1905).
        let mut h = fresh();
        let cwnd = h.w.cwnd;
        first_flight_loss_without_sack(&mut h);
        assert_eq!(var(&h, "max_bw_bytes_per_s"), 0.0);
        assert_eq!(var(&h, "full_bw_reached"), 0.0);
        assert!(var(&h, "inflight_longterm_bytes").is_nan());
        assert_eq!(h.w.cwnd, cwnd, "cwnd is not cut to MinPipeCwnd");
        // Whatever else holds: a loss noted in recovery, with or without SACK.
        for sack in [false, true] {
            let mut b = Bbr3::new(Bbr3Params::default());
            b.mss = SEG as f64;
            b.has_selective_acks = sack;
            b.recovery = Recovery::Fast { since: 0 };
            b.loss_noted_in_recovery = true;
            b.loss_round_start = true;
            b.loss_events_in_round = 6;
            let rs = Rs { valid: true, lost: 6 * SEG, tx_in_flight: 10 * SEG, ..Rs::default() };
            b.check_startup_high_loss(&rs);
            assert!(!b.full_bw_reached, "SACK {sack}");
        }
    }

    #[test]
    fn without_sack_a_full_round_of_fast_recovery_ends_startup() {
        let mut h = fresh();
        let mut total = first_flight_loss_without_sack(&mut h);
        // The partial ACK of the retransmission (sent after the fast retransmit, when
        // C.delivered was 3 segments, with 7 in flight): segments 1-5, 4 of them credited by
        // the duplicates, 2 segments delivered in the 100 ms since it left (L1878-1879; in
        // NewReno a partial ACK is a further loss, RFC 6582).
        let rs = sample(2 * SEG, RTT, 3 * SEG, 0, 7 * SEG);
        reno_cum(&mut h, 5, 100 * MS, &mut total, 4 * SEG, rs);
        assert_ne!(state(&h), STARTUP);
        assert_eq!(var(&h, "full_bw_reached"), 1.0);
        // Set at the exit to max(BBR.bdp, BBR.inflight_latest) (0 and 2 segments) raised to
        // BBR.MinPipeCwnd, then to RS.tx_in_flight in ProbeBW_DOWN on the same ACK (L2486).
        assert_eq!(var(&h, "inflight_longterm_bytes"), 7.0 * SEG as f64);
    }

    #[test]
    fn inflight_longterm_set_on_loss_is_at_least_min_pipe_cwnd() {
        // The Startup exit (L1896-1899): max(BBR.bdp, BBR.inflight_latest) = 2 000 bytes.
        let mut b = Bbr3::new(Bbr3Params::default());
        b.mss = SEG as f64;
        b.min_rtt = Some(RTT);
        b.max_bw_cur = 10_000.0;
        b.bw = 10_000.0; // BBR.bdp = 1 000 bytes
        b.inflight_latest = 2_000.0;
        b.has_selective_acks = false;
        b.recovery = Recovery::Fast { since: 0 };
        b.loss_noted_in_recovery = true;
        b.check_startup_high_loss(&Rs::default());
        assert!(b.full_bw_reached);
        assert_eq!(b.inflight_longterm, 4_000.0);
        // HandleInflightTooHigh() (L3129-3130): max(RS.tx_in_flight, 0.7 x min(BBR.bdp,
        // C.cwnd)) = 3 000 bytes.
        b.set_state(State::ProbeBwUp);
        let rs = Rs { valid: true, lost: 1_000, tx_in_flight: 3_000, ..Rs::default() };
        b.handle_inflight_too_high(&rs, &Window::new(4_000.0, f64::INFINITY), 0);
        assert_eq!(b.inflight_longterm, 4_000.0);
        assert_eq!(b.state, State::ProbeBwDown);
    }

    /// Startup with rounds of 10 and 20 segments, then three duplicate ACKs without SACK
    /// and the fast retransmit. Returns C.delivered.
    fn fast_recovery_in_startup_without_sack(h: &mut Harness) -> u64 {
        round(h, 10, 20);
        round(h, 20, 40);
        let mut total = h.snd_una;
        for _ in 0..3 {
            reno_dup(h, &mut total);
        }
        h.loss(Loss::FastRetransmit);
        h.in_recovery = true;
        total
    }

    #[test]
    fn without_sack_a_loss_detected_during_fast_recovery_ends_startup_and_the_one_that_started_it_does_not() {
        let mut h = fresh();
        let mut total = fast_recovery_in_startup_without_sack(&mut h);
        reno_dup(&mut h, &mut total);
        assert_eq!(state(&h), STARTUP, "the loss that started the recovery (L1887-1890)");
        // An ACK of data sent before the fast retransmit whose RS.lost counts only the
        // segment it resent: no further loss.
        let prior = 25 * SEG;
        let rs = sample(total + SEG - prior, RTT, prior, SEG, 40 * SEG);
        reno_cum(&mut h, 1, 10 * MS, &mut total, 0, rs);
        assert_eq!(state(&h), STARTUP, "RS.lost counts only the resent segment");
        // One more lost segment counted: a loss detected during fast recovery.
        let prior = 26 * SEG;
        let rs = sample(total + SEG - prior, RTT, prior, 2 * SEG, 40 * SEG);
        reno_cum(&mut h, 1, 10 * MS, &mut total, 0, rs);
        assert_eq!(state(&h), DRAIN);
        // inflight_longterm = max(BBR.bdp, BBR.inflight_latest) (L1896-1899): the 20-segment
        // round.
        assert_eq!(var(&h, "inflight_longterm_bytes"), var(&h, "bdp_bytes").max(20_000.0));
    }

    #[test]
    fn startup_does_not_end_on_six_loss_events_with_at_most_2_percent_loss() {
        // As `startup_ends_on_six_loss_events_...`, but 6 of 400 segments in flight (1.5 %):
        // the loss rate of the round (L1881-1882) is below BBR.LossThresh.
        let mut h = fresh();
        loss_round_in_recovery(&mut h, 6, 400, |_| {});
        assert_eq!(state(&h), STARTUP);
        assert_eq!(var(&h, "full_bw_reached"), 0.0);
    }

    #[test]
    fn startup_does_not_end_on_six_loss_events_before_a_full_round_of_fast_recovery() {
        // A loss noted before the fast retransmit started the loss round, so it ends (the
        // ACK of data sent after that loss) before one full round in recovery (L1878-1879).
        let mut h = fresh();
        round(&mut h, 10, 20);
        round(&mut h, 20, 40);
        let loss = |h: &mut Harness, prior: u64, lost: u64| {
            let rs = sample(h.snd_una + SEG - prior * SEG, RTT, prior * SEG, lost * SEG, 40 * SEG);
            ack_full(h, 1, 10 * MS, RTT, 40, Some(rs), false);
        };
        loss(&mut h, 25, 1); // a loss (event 1); the loss round ends at 31 segments
        loss(&mut h, 26, 1); // nothing new
        h.loss(Loss::FastRetransmit); // event 2, at 32 segments delivered
        h.in_recovery = true;
        for (prior, lost) in [(27, 3), (28, 4), (29, 5), (30, 6)] {
            loss(&mut h, prior, lost); // events 3-6
            assert_eq!(state(&h), STARTUP);
        }
        // The loss round ends with 6 events and 15 % loss, on data sent before the fast
        // retransmit.
        loss(&mut h, 31, 6);
        assert_eq!(state(&h), STARTUP);
        assert_eq!(var(&h, "full_bw_reached"), 0.0);
    }

    // ---- cwnd on ACKs that deliver nothing (§5.6.4.6) ----

    #[test]
    fn an_ack_that_delivers_nothing_still_applies_the_probe_rtt_and_model_bounds() {
        // BoundCwndForProbeRTT() (L3705): ProbeRTT entered on a duplicate ACK.
        let mut h = fresh();
        to_cruise(&mut h);
        while h.now + RTT <= 5_100 * MS {
            round(&mut h, 40, 0);
        }
        assert!(h.w.cwnd > 0.5 * PATH_BDP);
        h.now = 5_100 * MS;
        h.dup_ack();
        assert_eq!(state(&h), PROBE_RTT);
        assert!(approx(h.w.cwnd, 0.5 * PATH_BDP), "{}", h.w.cwnd);
        // BoundCwndForModel() (L3706): a duplicate ACK without SACK that lowers the pipe
        // to the BDP ends Drain; DOWN caps cwnd at inflight_longterm.
        let mut h = fresh();
        let mut total = fast_recovery_in_startup_without_sack(&mut h);
        let prior = 26 * SEG;
        let rs = sample(total + SEG - prior, RTT, prior, 2 * SEG, 40 * SEG);
        reno_cum(&mut h, 1, 10 * MS, &mut total, 0, rs);
        assert_eq!(state(&h), DRAIN);
        let cap = var(&h, "inflight_longterm_bytes");
        assert!(h.w.cwnd > cap, "{} <= {cap}", h.w.cwnd);
        h.dupacks = ((h.snd_max - h.snd_una) / SEG - 10) as u32;
        reno_dup(&mut h, &mut total);
        assert_eq!(state(&h), DOWN);
        assert_eq!(h.w.cwnd, cap);
    }

    // ---- the extra_acked filter (§5.5.9) ----

    #[test]
    fn extra_acked_remembers_one_round_in_startup_and_a_sample_that_left_it_does_not_return() {
        // L3082-3091: a 1-round window in Startup, 10 rounds after it.
        let mut b = Bbr3::new(Bbr3Params::default());
        b.mss = SEG as f64;
        b.bw = 100_000.0;
        let w = Window::new(1e6, f64::INFINITY);
        let rs = |d: u64| Rs { delivered_delta: d, ..Rs::default() };
        // Round 1: 50 kB at once (nothing expected yet).
        b.round_count = 1;
        b.update_ack_aggregation(&rs(50_000), &w, MS);
        assert_eq!(b.extra_acked, 50_000.0);
        // Round 2 still holds it; by round 3 it has left the window.
        b.round_count = 2;
        b.update_ack_aggregation(&rs(1_000), &w, 1_000 * MS);
        assert_eq!(b.extra_acked, 50_000.0);
        b.round_count = 3;
        b.update_ack_aggregation(&rs(1_000), &w, 2_000 * MS);
        assert_eq!(b.extra_acked, 1_000.0);
        // The pipe is full: the window grows to 10 rounds, without the round-1 sample.
        b.full_bw_reached = true;
        b.round_count = 4;
        b.update_ack_aggregation(&rs(1_000), &w, 4_000 * MS);
        assert_eq!(b.extra_acked, 1_000.0);
        // After Startup a sample counts for 10 rounds.
        b.round_count = 5;
        b.update_ack_aggregation(&rs(30_000), &w, 6_000 * MS);
        for round in 6..=15 {
            b.round_count = round;
            b.update_ack_aggregation(&rs(1_000), &w, (6_000 + 2_000 * (round - 5)) * MS);
            assert_eq!(b.extra_acked, 30_000.0, "round {round}");
        }
        b.round_count = 16;
        b.update_ack_aggregation(&rs(1_000), &w, 30_000 * MS);
        assert_eq!(b.extra_acked, 1_000.0);
    }

    // ---- ProbeBW (§5.3.3) ----

    #[test]
    fn reno_coexistence_starts_refill_after_target_inflight_in_segments_of_rounds() {
        // L2291-2292, L2309: with a BDP of 10 segments (10 per 100 ms round), REFILL comes
        // once BBR.rounds_since_probe_up (0 or 1 at DOWN, L2303) reaches 10, about 1 s after
        // DOWN, before the 2-3 s wall-clock wait. (Counted in bytes, the bound would be 63
        // rounds and the wait would come first.)
        let mut h = fresh();
        while state(&h) == STARTUP {
            round(&mut h, 10, 0);
            assert!(var(&h, "round_count") <= 10.0);
        }
        // Drain, DOWN and CRUISE on the same ACK (nothing in flight).
        assert_eq!(state(&h), CRUISE);
        assert!(approx(var(&h, "bdp_bytes"), 10.0 * SEG as f64));
        let down_at = h.now;
        let start = var(&h, "rounds_since_probe_up") as u64;
        assert!(start <= 1);
        let mut rounds = 0;
        while state(&h) != REFILL {
            round(&mut h, 10, 0);
            rounds += 1;
            assert!(rounds <= 40, "no REFILL after {rounds} rounds");
        }
        assert_eq!(rounds, 10 - start);
        assert!(h.now - down_at < (var(&h, "bw_probe_wait_s") * NS_PER_SEC) as Time);
    }

    #[test]
    fn a_max_bw_sample_expires_after_two_probe_bw_cycle_advances() {
        // L2882-2888, L2908: BBR.max_bw is the maximum over the current and the previous
        // ProbeBW cycle; BBR.cycle_count advances one round after each UP.
        let mut h = fresh();
        to_cruise(&mut h);
        let cycle = var(&h, "cycle_count");
        // A 600 kB/s round in CRUISE (the path gives 400 kB/s otherwise).
        round(&mut h, 60, 0);
        assert_eq!(var(&h, "max_bw_bytes_per_s"), 600_000.0);
        for advance in 1..=2 {
            let mut n = 0;
            while var(&h, "cycle_count") < cycle + f64::from(advance) {
                assert_eq!(var(&h, "max_bw_bytes_per_s"), 600_000.0, "before advance {advance}");
                round(&mut h, 40, 0);
                n += 1;
                assert!(n <= 100, "no advance {advance}");
            }
        }
        assert_eq!(var(&h, "max_bw_bytes_per_s"), PATH_BW);
    }

    #[test]
    fn down_holds_while_inflight_is_above_inflight_longterm_less_the_headroom() {
        // L2405: ProbeBW_DOWN goes to CRUISE only once C.inflight <= inflight_longterm -
        // max(SMSS, 0.15 x inflight_longterm), here 45 000 - 6 750 = 38 250 bytes, below the
        // BDP (40 000) so that the headroom decides.
        let mut h = to_up();
        round_lossy(&mut h, 40, 0, 1500, 45 * SEG);
        assert_eq!(state(&h), DOWN);
        assert_eq!(var(&h, "inflight_longterm_bytes"), 45_000.0);
        for _ in 0..3 {
            round(&mut h, 39, 0); // 39 000 bytes in flight before the ACK
            assert_eq!(state(&h), DOWN);
        }
        round(&mut h, 38, 0);
        assert_eq!(state(&h), CRUISE);
    }

    #[test]
    fn up_raises_inflight_longterm_by_1_2_4_segments_in_its_cwnd_limited_rounds() {
        // L2450-2459 (RaiseInflightLongtermSlope, L2442-2446): in ProbeBW_UP, while the flow
        // is cwnd-limited at inflight_longterm, each round doubles the growth per round.
        let mut h = fresh();
        // inflight_longterm from the Startup exit on loss (as in
        // `startup_ends_on_six_loss_events_...`): 20 segments; BBR.bw 200 kB/s.
        loss_round_in_recovery(&mut h, 6, 40, |_| {});
        assert_eq!(state(&h), DRAIN);
        assert_eq!(var(&h, "inflight_longterm_bytes"), 20_000.0);
        h.exit_recovery();
        round(&mut h, 20, 0);
        assert_eq!(state(&h), DOWN);
        // 17 000 bytes in flight: within the headroom (20 000 - 3 000); CRUISE until REFILL,
        // then UP a round later.
        let mut n = 0;
        while state(&h) != REFILL {
            round(&mut h, 17, 0);
            n += 1;
            assert!(n <= 40);
        }
        round(&mut h, 17, 0);
        assert_eq!(state(&h), UP);
        assert_eq!(h.w.cwnd, 20_000.0);
        // Rounds that deliver the whole window (cwnd-limited, cwnd = inflight_longterm).
        let mut grew = vec![];
        for _ in 0..3 {
            let before = var(&h, "inflight_longterm_bytes");
            assert_eq!(h.w.cwnd, before);
            let segs = h.w.cwnd as u64 / SEG;
            round(&mut h, segs, 0);
            grew.push((var(&h, "inflight_longterm_bytes") - before) / SEG as f64);
        }
        assert_eq!(grew, [1.0, 2.0, 4.0]);
    }

}
