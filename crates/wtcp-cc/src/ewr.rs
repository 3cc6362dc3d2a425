//! TCP EWR (transmission control for error-prone wireless regions).
//!
//! I. Ryoo and S. Kim, "Transmission Control for Future Internet including Error-prone
//! Wireless Region", Kyung Hee University (venue and year not printed; funded under
//! reference 20090724), §2, Eq. 1-5 and the pseudo-code.
//!
//! The receiver estimates the available bandwidth from data arrivals (Eq. 1-2), computes
//! the optimal window oCwnd = RTTmin * Bw / seg_size (Eq. 3) and advertises it to the
//! sender, which sets cwnd = oCwnd on ACKs of new data outside recovery (rule (b)): no slow start, no ACK-driven
//! additive increase (l. 54 still calls (c)'s "+2" "an additive-increase paradigm"), no
//! fast recovery. On a loss signal (three duplicate ACKs or an RTO) the sender
//! sets ssthresh = oCwnd and, by the Vegas-like backlog x (Eq. 4-5), takes cwnd to oCwnd or
//! adds 2 segments (x < alpha), takes it to oCwnd or keeps it (alpha <= x <= beta) or drops
//! it to one segment (x > beta) (rule (c)); cwnd > ssthresh takes it to oCwnd in the first
//! two cases.
//!
//! Deviations and ambiguities resolved (line numbers of /work/shared/papers/tcp-ewr.txt):
//! - Rule (b), "On ACK reception at the sender: cwnd = oCwnd_n" (l. 58-59), is applied
//!   literally on every ACK of new data (`ack_rule = "ocwnd"`): cwnd follows oCwnd_n up
//!   and down. Only l. 58-59 states the every-ACK rule itself; l. 92 fits a window that
//!   follows oCwnd continuously ("it does not aggressively use the bandwidth but maintain
//!   the optimal congestion window size oCwnd_n"), while l. 52 is said of a connection
//!   restored after bit errors ("the sender immediately adjusts its congestion window
//!   size to the oCwnd_n ... There is no need to employ any kinds of slow start, additive
//!   increase, or fast recovery algorithms") and l. 150 is generic ("designed to adjust
//!   its congestion window optimally"): neither contradicts the reading.
//!   Duplicate ACKs do not apply (b), a reading chosen: l. 58 says "On ACK reception",
//!   which read literally takes duplicates too, so that the fourth one would set cwnd
//!   back to oCwnd_n and undo (c)'s "+2" set on the third ("When 3 DUPACKs are
//!   received", l. 60); here only ACKs of new data do. Rule (c)'s tests
//!   "if (cwnd > ssthresh)" (l. 63, 69) compare oCwnd_n at the last new ACK (cwnd) with
//!   oCwnd_n at the loss signal (ssthresh; the estimate moves with every arrival,
//!   duplicates included), and the window (c) sets holds until the next ACK of new data
//!   (which rule (b) then overrides; the paper says no more); with no ACK between repeated RTOs
//!   from cwnd = oCwnd the pseudo-code alternates oCwnd + 2 and oCwnd while x < alpha at
//!   cwnd = oCwnd ("updated after one RTO rather than after each RTT", l. 83; from alpha
//!   to beta it keeps oCwnd, above beta one segment); after the congestion state it climbs
//!   by 2 (see rule (c) below). The former default, NewReno slow start and congestion
//!   avoidance with cwnd floored at oCwnd and no upper bound, is
//!   `ack_rule = "newreno_floor"`; it contradicts l. 52 and l. 92, and its header's claim
//!   that the receiver window enforced cwnd <= oCwnd was false (the receiver advertised
//!   its free buffer). Measured consequences of the literal rule: it fills a link
//!   because Eq. 1 over back-to-back segments measures the bottleneck rate (a packet
//!   pair): averaging the arrivals over 20 ms or 60 ms instead (an ablation build, not
//!   kept as an option) drops ten flows on `ewr-dumbbell` to the 2-segment floor (2.5 Mb/s of 10; a lone
//!   flow 0.26 Mb/s). It keeps one base-RTT window, and when reverse traffic queues the
//!   ACKs the link is not filled (the mechanism untested; the throughputs measured: a lone flow on `ewr-dumbbell` with its reverse FTP at
//!   0 % loss: 5.7 Mb/s; NewReno 6.7). With delayed ACKs (ns-2's default sink and
//!   `ewr-dumbbell` acknowledge every segment) a lone flow in `two-hop-wireless` at 0 %
//!   loss settles at 54 % of the 2 Mb/s hop (79 % with a 1 ms delayed-ACK timer, 100 %
//!   with an ACK per segment): the segment left waiting for the delayed-ACK timer opens
//!   a gap that Eq. 1 reads as a low rate (the mechanism is untested; the three figures are measured).
//! - oCwnd_n reaches the sender on every ACK from the receiver's own Eq. 1-3
//!   (`ocwnd_source = "receiver"`, carried as `AckSample::adv_cwnd`): "oCwnd_n is used as
//!   a receiver-advertised congestion window size" (l. 44; l. 24's "sending feedback
//!   information to the receiver is not necessary" is about estimating at the receiver). As a congestion window it does not limit
//!   the sender by itself. The paper ignores the receiver's buffer space ("we do not consider
//!   the available buffer space in the receiver", l. 44), read here as never binding: the
//!   flow-control window stays the free buffer (a reading chosen; l. 44 could also mean
//!   oCwnd replaces the advertised window, which would keep (c)'s "cwnd + 2" from acting),
//!   unless
//!   `receiver_caps_window = true` also advertises min(oCwnd, buffer_free) there (then
//!   what is sent, not cwnd, stays within oCwnd after (c)'s "cwnd + 2"). `ocwnd_source = "mirror"` is the former
//!   default: the sender recomputes Eq. 1-3 over the arrival times echoed in the
//!   timestamps (`rx_arrival`, one sample per ACK, d = newly acknowledged bytes,
//!   duplicates counting one segment each, taken off the next cumulative ACK as Linux's
//!   Westwood+ does for an ACK of more than one segment (on a one-segment ACK the code
//!   also takes them off, which Linux does not), not `westwood::net_of_duplicates`'s
//!   each-byte-once rule; this touches only the mirror and the traced `bwe_bytes_per_s`),
//!   with its own RTTmin. The mirror read single samples of 5 and 22 times the bottleneck
//!   rate at 1 % and 5 % loss on `ewr-dumbbell` (oCwnd 149 and 228 segments, bursts that
//!   overflowed the queue by 48 and 150 packets), where a retransmission filled a hole;
//!   that the accounting rule is what makes them is untested (both rules credit such an
//!   ACK alike when the duplicates were fewer than the segments it covers). On these
//!   paths the receiver's per-packet Eq. 1 stays at or below the bottleneck rate by
//!   construction (it times arriving segments; it is not traced, so not measured); a
//!   queue after the bottleneck or reordering could exceed it (untested).
//! - Eq. 1: d_n is the size of the n-th arriving segment (every arrival counts,
//!   retransmissions and out-of-order segments included) and t_n - t_(n-1) the gap to the
//!   previous arrival. The first arrival only sets t_0; the first sample initialises
//!   Eq. 2 (the paper's delta_1 = 0). Arrivals at the same instant are merged into the
//!   next sample, so a zero gap never divides (that sample then reads high: l. 36's
//!   "amount of data currently received" fits crediting them to the interval ending at
//!   their own arrival as well; the effect on the estimate is untested). Eq. 2 uses a constant delta = 0.7
//!   (`delta`): l. 36 calls the filter "time varying coefficient", but l. 40 defines
//!   "delta_n is a constant filter gain. In our simulation, we set delta_n to 0.7 for
//!   n >= 2 and zero for n=1". Consequence (measured, not changed): flows sharing a FIFO
//!   cross it in back-to-back runs, so each estimates (this mechanism is untested)
//!   nearly the bottleneck rate; ten flows on `ewr-dumbbell` at 1 % loss advertise an
//!   oCwnd of 61 segments each (one bandwidth-delay product is 73) while each gets
//!   0.6 Mb/s (5 segments per base RTT), and with rule (b) restoring that window on
//!   every ACK the queue overflows all the time (70 k queue drops in 100 s against
//!   NewReno's 53 drops). Holding each window at its share with the receive buffer
//!   (`tcp.recv_buffer_bytes = 17000`, an ablation run with `--set`) brings the ten flows to 9.3 Mb/s with 1.0 k unnecessary retransmissions.
//! - Loss probability in the arrival rate: l. 36 credits the accuracy of the estimate in
//!   part to "including congestion-related packet loss probability into the packet arrival
//!   rate calculation [6]" (Padhye et al.'s throughput model) but gives no formula and no
//!   term of Eq. 1-3 carries a loss probability. Not implemented: Eq. 1-2 are used as
//!   printed.
//! - RTTmin at the receiver (Eq. 3): the paper says only that its estimation is "a
//!   time-stamp based bandwidth estimation at the receiving TCP rather than at the sending
//!   TCP" (l. 24), not how the receiver knows RTTmin ("minimum measured round-trip time",
//!   l. 44). `receiver_rtt = "timestamps"` (default), the reading that fits l. 24, takes
//!   the smallest arrival - TSecr (RFC 7323;
//!   the echoed ACK left the receiver at TSecr and the segment left the sender after that
//!   ACK arrived, so a sample is never below the RTT; Linux `tcp_rcv_rtt_measure_ts`).
//!   The paper has one RTT_min, in Eq. 3 (l. 42-44), Eq. 4 (l. 48) and x (l. 52); with
//!   the default `ocwnd_source = "receiver"` there are two, a reading chosen: the
//!   receiver's, for Eq. 3 (it computes oCwnd), and the sender's own minimum RTT, for
//!   Eq. 4 and x (rule (c) runs at the sender; below). `"mirror"` uses the sender's for all.
//!   Without timestamps it falls back to the edge probe: `receiver_rtt = "probe"`
//!   measures against the receiver's own advertisements (a byte beyond every right edge
//!   advertised before T cannot arrive before T + RTT; Linux's window-bounded
//!   `tcp_rcv_rtt_measure`). The probe is tight only while the advertised receive window
//!   limits the sender, i.e. with `receiver_caps_window = true`; otherwise its samples are
//!   the time to send a whole receive buffer (the former default, under which the cap
//!   never bound: `receiver_caps_window = true` left a lone flow on `ewr-dumbbell` at
//!   0 % loss at 4.75 Mb/s and ten flows at 1 % loss unchanged). Without timestamps
//!   and without the cap oCwnd doubles (144 segments on `ewr-dumbbell` at 0.1 % loss,
//!   10 k unnecessary retransmissions): run EWR with `tcp.timestamps = true`, as l. 24's
//!   "time-stamp based" estimation at the receiving TCP suggests (the paper does not say
//!   its ns-2 runs turned the option on). `receiver_rtt = "fixed"` uses `receiver_rtt_ms`. Until it has a
//!   bandwidth sample and an RTT the receiver advertises no oCwnd.
//! - Units of Eq. 3: oCwnd is computed in segments (seg_size = the largest segment seen)
//!   and advertised in bytes. oCwnd is floored at `min_ocwnd_segments` = 2 (not in the
//!   paper): with one segment per RTT the arrival rate is one segment per RTT and Eq. 3
//!   would hold the window at one segment forever; two back-to-back segments let the
//!   estimate see the bottleneck rate.
//! - Rule (c) runs on the third duplicate ACK and on every RTO expiry ("When 3 DUPACKs are
//!   received or RTO expires", l. 60); "cwnd = 1" is one segment, "cwnd + 2" two segments.
//!   The congestion state follows the pseudo-code, "cwnd = 1" (l. 79), where the prose says
//!   "When x > beta, it decreases the congestion window size adaptively" (l. 54) and gives
//!   no rule for "adaptively".
//! - Repeated RTOs after the congestion state (kept as the pseudo-code reads): the next RTO
//!   computes x from the one-segment window, x = 1 - RTTmin/SRTT < 1 = alpha (the
//!   paper's default), so with alpha >= 1 it takes the linear-increase state (cwnd <=
//!   ssthresh = oCwnd_n): cwnd = 3 segments, verdict `Wireless`; further RTOs add 2
//!   segments each while x < alpha (3, 5, ...), keep cwnd once x reaches alpha, and set oCwnd_n once cwnd exceeds it. The same holds for an
//!   RTO during an ECN echo's hold (below). The paper states the step per RTO, "the cwnd is
//!   increased by two in the linear increase state because it is updated after one RTO
//!   rather than after each RTT" (l. 83), and nothing that exempts a window the congestion
//!   state has just set; a timeout is scored by the state it takes, not by the one before.
//! - No fast recovery (`fast_recovery = false`): pseudo-code (c) has no fast-recovery
//!   step, and the prose: "There is no need to employ any kinds of slow start, additive
//!   increase, or fast recovery algorithms whenever the connection is recovered" (l. 52). The sender runs `RecoveryStyle::
//!   FastRetransmitOnly`: the third duplicate ACK retransmits the head and applies (c);
//!   the window is not inflated by duplicates nor deflated; there are no partial-ACK
//!   retransmissions, a partial ACK is an ACK of new data (rule (b)), and a further hole
//!   is repaired by another fast retransmit after three new duplicates, or by the RTO.
//!   Every ACK of new data restarts the timer (RFC 6298 §5.3). The former default,
//!   RFC 6582 NewReno recovery with the Impatient timer, is `fast_recovery = true`. Under
//!   it, with the congestion state's cwnd = 1 during recovery, a spurious fast retransmit
//!   appears to feed itself (the counts are measured, the chain is untested): every partial ACK resends a head that is only in flight, the
//!   duplicates return as duplicate ACKs after the full ACK and trigger the next fast
//!   retransmit (a single flow at 0 % loss: 783 spurious fast retransmits and 59 k
//!   unnecessary retransmissions in 100 s, without a single drop after the start).
//! - Eq. 4-5 are computed at the sender, at the loss signal: rule (c), which reads x, runs
//!   there, with the sender's SRTT ("RTT is the smoothed round-trip time measured", l. 52)
//!   and its minimum RTT, and x manages "the sender's congestion window" (l. 52); l. 24's
//!   "calculating the expected and actual bandwidths" follows the receiver's estimation in
//!   one sentence but names no place. x = (expected - actual) * RTTmin =
//!   WindowSize * (1 - RTTmin/SRTT) segments, computed in the second form (an RTTmin of 0
//!   gives x = WindowSize, the limit, where the first is inf * 0).
//! - WindowSize (Eq. 4-5) is cwnd (`window_size = "cwnd"`). The paper does not define it;
//!   it computes the throughputs "similar to Vega and Veno approaches [7]" (l. 46), and
//!   [7], Veno (its equations are not in the paper, which cites it, l. 164), defines "Diff = Expected - Actual = cwnd/BaseRTT - cwnd/RTT" and
//!   "N = Actual * (RTT - BaseRTT) = Diff * BaseRTT" (its Eq. 1, as ns-3's tcp-veno.h
//!   transcribes it), the form of l. 52's "x = D * RTT_min"; Vegas's WindowSize is the
//!   congestion window, which Brakmo and Peterson take as equal to the bytes in transit;
//!   among the seed papers, tcp-taichung.txt l. 25 gives Vegas's "Expected (i.e.,
//!   cwnd/RTTmin) and Actual (i.e., cwnd/RTT)" rates, with cwnd.
//!   `window_size = "flight"` uses min(cwnd, FlightSize), the former default: the data
//!   actually in transit when the receive window or the application holds the sender below
//!   cwnd, where Vegas's assumption fails.
//! - Verdict: the congestion state (x > beta) reports `Congestion`; the linear-increase and
//!   wait-and-see states report `Wireless`, as their response never takes the window below
//!   oCwnd_n (both set cwnd = oCwnd_n when cwnd > ssthresh; of the middle band the paper
//!   says packets "will be lost due to either network congestion or wireless bit errors"
//!   (l. 54); the verdict follows the action).
//! - Before oCwnd exists (the first round trip) cwnd grows as in NewReno's slow start and
//!   a loss gets Reno's response with verdict `None` (not in the paper, which rules out
//!   slow start when the connection is recovered, l. 52, and gives no start-up rule).
//! - ECN echo (not in the paper): "The indication of congestion should be treated just as a
//!   congestion loss in non-ECN-Capable TCP" (RFC 3168 §6.1.2). An ECE states congestion,
//!   so it takes rule (c)'s congestion state directly (ssthresh = oCwnd_n, cwnd = one
//!   segment, verdict `Congestion`) without the backlog test, which only estimates what the
//!   mark states; ssthresh = oCwnd_n may be above the old ssthresh, as in every response of
//!   (c). Departure from the letter of the RFC, which halves: EWR's response to a
//!   congestion loss is (c)'s, not a halving. Before, the ECE went through the backlog
//!   test, and the linear-increase state raised cwnd by 2 segments. At most one reduction
//!   per window of dropped and/or CE packets ("the TCP sender's congestion window should be
//!   reduced only once in response to a series of dropped and/or CE packets from a single
//!   window of data", ibid.): an ECE is answered only once an ACK is above the data
//!   outstanding at the last reduction, by a mark or by a loss whose rule (c) lowered cwnd
//!   (`OncePerWindow::passed`, Linux's "held something *above* high_seq"), as an ACK ending
//!   exactly there can still echo the old mark. A loss answered with cwnd + 2 or a retained
//!   cwnd is no reduction and does not count: the sender sets CWR after every echo, so a
//!   mark ignored then would never be answered (a latched receiver stops echoing at CWR). A
//!   fast retransmit inside a window an ECE answered applies nothing and is scored
//!   `Congestion`; a timeout applies (c) and ends the hold. Reading chosen: any reduction
//!   counts, as RFC 3168 counts it, so (c) trimming cwnd to oCwnd_n (cwnd > ssthresh, in
//!   the linear-increase or wait-and-see state) is the window's one ECN reduction, however
//!   small: a later echo in that window is ignored and the congestion state's one segment
//!   does not follow. Two fast retransmits in one window without a mark are each answered,
//!   as the paper's (c) "When 3 DUPACKs are received" (l. 60) and without fast recovery:
//!   a departure from the RFC's "reduced only once in response to a series of dropped
//!   and/or CE packets from a single window of data", since the second drop lowers cwnd
//!   again when (c) says so. An echo answered in the same window after a loss answered
//!   with cwnd + 2 sets ssthresh = oCwnd_n a second time, which may lower it again: against
//!   the RFC's "should not decrease the slow-start threshold, ssthresh, if it has been
//!   decreased within the last round trip time". "The sending TCP SHOULD NOT increase the
//!   congestion window in response to the receipt of an ECN-Echo ACK packet" (ibid.):
//!   rule (b) does not raise
//!   cwnd on an ACK that carries an ECE, nor on any ACK until one above the window
//!   outstanding at the mark (with `fast_recovery = true`, nor when recovery ends meanwhile
//!   or on an ACK with an ECE); it may lower cwnd to oCwnd_n. Nor does (c) on a fast
//!   retransmit whose triggering ACK (the third duplicate, or with SACK the ACK that
//!   shows the loss) carries an ECE the window no longer answers: cwnd keeps at most its
//!   value before (no "cwnd + 2"); the loss keeps (c)'s verdict and state (a suppressed
//!   "cwnd + 2" is still scored wireless), and only that ACK's mark counts (a mark on an
//!   earlier duplicate of the episode, usually followed by unmarked ones once the sender
//!   sets CWR, does not stop the "+ 2"). The ECE is signalled before
//!   its ACK's oCwnd_n is read, so the response uses the previous ACK's oCwnd_n. Not done:
//!   RFC 3168's reset of the retransmit timer on an ECE with cwnd at one segment
//!   (engine-wide). Ten flows on `ewr-dumbbell` (its reverse FTP included) at 0 % loss
//!   behind a marking RED bottleneck (min_th 5, max_th 15, weight 0.02, ECN and timestamps
//!   on; means of seeds 1-3, 100 s): with the ECE through the backlog test 5.41 Mb/s,
//!   32.7 k unnecessary retransmissions, 59.8 k queue drops; with the congestion state and
//!   every fast retransmit counted as a reduction 5.49 Mb/s, 29.6 k, 57.6 k; as now, before
//!   the cap on a marked fast retransmit, 5.39 Mb/s, 28.6 k, 57.2 k.
//! - Go-back-N after an RTO (the sender's, as ns-2's; F-RTO off): with x <= beta rule (c)
//!   leaves cwnd at oCwnd, oCwnd + 2 or its retained value at the timeout itself, and the
//!   sender resends that much from SND.UNA at once, data the receiver already holds beyond
//!   the hole included; with x > beta it resends one segment and (b) on the first ACK after
//!   it reopens cwnd = oCwnd, resent at once from the new SND.UNA. NewReno's slow start
//!   from one segment resends a few segments per round trip and skips the rest as the
//!   cumulative ACK jumps. Those are EWR's unnecessary retransmissions (96 % of 1.3 k at
//!   1 % loss and 99 % of 6.1 k at 5 % on `ewr-dumbbell`, the rest spurious fast
//!   retransmits); without fast recovery every window with a second loss that three new
//!   duplicates cannot reveal ends in an RTO (44 per 100 s at 1 %, NewReno 16). See
//!   `crates/wtcp-engine/tests/engine/faithful_ewr.rs`.
//! - alpha and beta are in segments: the paper gives them no unit ("alpha=1 and beta=9",
//!   l. 52); x = WindowSize * (1 - RTTmin/RTT) is in WindowSize's unit, and Vegas and Veno,
//!   whose backlog this is, count packets (their own papers', not EWR's, definitions).
//! - Before the sender has an RTT sample (no SRTT or minimum RTT), or with SRTT 0, x is 0:
//!   a loss then takes the linear-increase state (verdict `Wireless`). The paper does not
//!   say; RTTmin and SRTT are the sender's own (`RttEstimator`).
//! - Traced variables: `bwe_bytes_per_s` is the sender's own recomputation of Eq. 1-2 (the
//!   `mirror` source's, kept up to date in every mode) and `rtt_min_s` the sender's RTTmin,
//!   while with `ocwnd_source = "receiver"` `ocwnd_segments` is the receiver's advertised
//!   oCwnd: the three need not satisfy Eq. 3 together. The mirror source, without
//!   timestamps, takes the ACK's arrival at the sender for `rx_arrival`.

use serde::Deserialize;

use crate::api::{
    AckSample, CongestionControl, Ctx, Loss, ReceiverControl, RecoveryStyle, Signal, Time, Verdict,
    Window, NS_PER_SEC,
};
use crate::filters::Ewma;
use crate::registry::{AlgorithmInfo, Order, ParamInfo, Range, MAX_SECONDS, MAX_SEGMENTS};
use crate::reno::{OncePerWindow, Reno, RenoParams};

const PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "delta",
        unit: "ratio",
        default: "0.7",
        doc: "Eq. 2 filter gain delta: weight of the previous estimate (paper: 0.7)",
        // delta = 1 would give the new sample no weight and freeze the estimate at its
        // first sample (`Ewma` takes a gain 1 - delta in (0, 1]).
        range: Range::below(0.0, 1.0),
    },
    ParamInfo {
        name: "alpha",
        unit: "segments",
        default: "1.0",
        doc: "backlog below alpha: linear-increase state (paper: 1)",
        range: Range::closed(0.0, MAX_SEGMENTS),
    },
    ParamInfo {
        name: "beta",
        unit: "segments",
        default: "9.0",
        doc: "backlog above beta: congestion state, cwnd = 1 segment (paper: 9)",
        range: Range::closed(0.0, MAX_SEGMENTS),
    },
    ParamInfo {
        name: "linear_increase_segments",
        unit: "segments",
        default: "2.0",
        doc: "increase per loss event in the linear-increase state (paper: 2)",
        range: Range::above(0.0, MAX_SEGMENTS),
    },
    ParamInfo {
        name: "min_ocwnd_segments",
        unit: "segments",
        default: "2.0",
        doc: "floor of oCwnd (not in the paper; 2 lets back-to-back segments reveal the bottleneck rate)",
        range: Range::closed(1.0, MAX_SEGMENTS),
    },
    ParamInfo {
        name: "window_size",
        unit: "cwnd|flight",
        default: "cwnd",
        doc: "WindowSize of Eq. 4-5: cwnd (Veno's Eq. 1, which the paper cites) or min(cwnd, FlightSize), the data in transit when the receive window or the application limits the sender (the former default)",
        range: Range::Any,
    },
    ParamInfo {
        name: "ocwnd_source",
        unit: "receiver|mirror",
        default: "receiver",
        doc: "oCwnd_n the sender uses: the receiver's own (Eq. 1-3 over its arrivals, carried on each ACK) or the sender's mirror over echoed arrival times (the former default)",
        range: Range::Any,
    },
    ParamInfo {
        name: "ack_rule",
        unit: "ocwnd|newreno_floor",
        default: "ocwnd",
        doc: "rule (b) on an ACK of new data: cwnd = oCwnd (paper); newreno_floor = NewReno growth, never below oCwnd (the former default)",
        range: Range::Any,
    },
    ParamInfo {
        name: "fast_recovery",
        unit: "bool",
        default: "false",
        doc: "run RFC 6582 NewReno fast recovery after a fast retransmit (the former default); off = fast retransmit only (l. 52 rules out fast recovery; the paper does not mention fast retransmit)",
        range: Range::Any,
    },
    ParamInfo {
        name: "receiver_rtt",
        unit: "timestamps|probe|fixed",
        default: "timestamps",
        doc: "RTTmin at the receiver: arrival - TSecr (edge probe without timestamps); the edge probe alone (the former default; tight only when receiver_caps_window binds the sender); or receiver_rtt_ms",
        range: Range::Any,
    },
    ParamInfo {
        name: "receiver_rtt_ms",
        unit: "ms",
        default: "100.0",
        doc: "RTTmin the receiver uses when receiver_rtt = fixed (set it to the path's base RTT)",
        range: Range::above(0.0, MAX_SECONDS * 1e3),
    },
    ParamInfo {
        name: "receiver_caps_window",
        unit: "bool",
        default: "false",
        doc: "the receiver also caps its advertised window at its own oCwnd (l. 44 as flow control; the sender follows oCwnd either way)",
        range: Range::Any,
    },
];

pub const EWR_INFO: AlgorithmInfo = AlgorithmInfo {
    name: "ewr",
    summary: "Receiver estimates bandwidth from arrivals and advertises oCwnd = RTTmin*Bw; the sender sets cwnd = oCwnd on every ACK; on loss (fast retransmit, no fast recovery) ssthresh = oCwnd and a Vegas-like backlog picks +2 segments, hold, or 1 segment.",
    reference: "Ryoo & Kim, Transmission Control for Future Internet including Error-prone Wireless Region (TCP EWR), Kyung Hee University",
    params: PARAMS,
    // Pseudo-code (c): an RTO with a small backlog sets cwnd = oCwnd or cwnd + 2.
    timeout_collapses_window: false,
    constraints: &[Order { low: "alpha", high: "beta", why: "EWR's backlog thresholds \"correspond to having relatively a few and too many data on the route\" (l. 52): below alpha linear increase, above beta congestion" }],
};

/// How the receiver learns the RTTmin of Eq. 3.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReceiverRtt {
    /// Arrival time minus the echoed TSecr (RFC 7323; Linux `tcp_rcv_rtt_measure_ts`);
    /// the edge probe's samples while no segment carries an echo.
    #[default]
    Timestamps,
    /// Measured from arrivals against the receiver's own advertised right edges only.
    Probe,
    /// The configured `receiver_rtt_ms`.
    Fixed,
}

/// Where the sender's oCwnd_n comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OcwndSource {
    /// The receiver's Eq. 1-3, advertised on every ACK (l. 44).
    #[default]
    Receiver,
    /// The sender's mirror of Eq. 1-3 over the arrival times echoed in the timestamps.
    Mirror,
}

/// Rule (b), "On ACK reception at the sender: cwnd = oCwnd_n".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AckRule {
    /// cwnd = oCwnd_n on every ACK of new data (no slow start or additive increase).
    #[default]
    Ocwnd,
    /// NewReno growth (RFC 5681 slow start and congestion avoidance) with cwnd never
    /// below oCwnd_n: the former default, kept for comparison.
    NewrenoFloor,
}

/// WindowSize of Eq. 4-5.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WindowSize {
    /// cwnd, as Veno's Diff = cwnd/BaseRTT - cwnd/RTT (the paper's [7]).
    #[default]
    Cwnd,
    /// min(cwnd, FlightSize): the data in transit when the receive window or the
    /// application holds the sender below cwnd (the former default).
    Flight,
}

/// Parameters of TCP EWR.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EwrParams {
    /// Eq. 2 gain delta in [0, 1): weight of the previous estimate. Paper: 0.7 (0 for the
    /// first sample).
    pub delta: f64,
    /// Backlog threshold alpha in segments ("relatively a few ... data on the route",
    /// l. 52; "too little ... data enroute", l. 24). Paper: 1.
    pub alpha: f64,
    /// Backlog threshold beta in segments ("too many data on the route", l. 52; "too much
    /// data enroute", l. 24). Paper: 9.
    pub beta: f64,
    /// Segments added in the linear-increase state. Paper: 2.
    pub linear_increase_segments: f64,
    /// Floor of oCwnd in segments, at the receiver and in the sender's mirror. Not in
    /// the paper; 2: two back-to-back segments let Eq. 1 see the bottleneck rate, where
    /// one segment per RTT would measure one segment per RTT and keep oCwnd at one.
    pub min_ocwnd_segments: f64,
    /// WindowSize of Eq. 4-5: `cwnd` (Veno, the paper's [7]) or `flight`
    /// (min(cwnd, FlightSize)).
    pub window_size: WindowSize,
    /// Source of the sender's oCwnd_n: `receiver` (advertised on each ACK) or `mirror`.
    pub ocwnd_source: OcwndSource,
    /// Rule (b): `ocwnd` (cwnd = oCwnd_n, paper) or `newreno_floor`.
    pub ack_rule: AckRule,
    /// NewReno fast recovery after a fast retransmit (off: fast retransmit only; l. 52 rules out fast recovery).
    pub fast_recovery: bool,
    /// Receiver's RTTmin: `timestamps`, `probe` (measured) or `fixed`
    /// (`receiver_rtt_ms`). The paper does not say how its receiver knows RTTmin.
    pub receiver_rtt: ReceiverRtt,
    /// RTTmin in milliseconds used by the receiver when `receiver_rtt = fixed`.
    pub receiver_rtt_ms: f64,
    /// The receiver also caps its advertised window at its own oCwnd (off by default,
    /// see the module header).
    pub receiver_caps_window: bool,
}

impl Default for EwrParams {
    fn default() -> Self {
        EwrParams {
            delta: 0.7,
            alpha: 1.0,
            beta: 9.0,
            linear_increase_segments: 2.0,
            min_ocwnd_segments: 2.0,
            window_size: WindowSize::Cwnd,
            ocwnd_source: OcwndSource::Receiver,
            ack_rule: AckRule::Ocwnd,
            fast_recovery: false,
            receiver_rtt: ReceiverRtt::Timestamps,
            receiver_rtt_ms: 100.0,
            receiver_caps_window: false,
        }
    }
}

/// Eq. 1-2: the arrival-rate estimate, shared by the receiver and the sender's mirror.
#[derive(Clone, Copy, Debug)]
struct ArrivalRate {
    /// Eq. 2 with weight 1 - delta on the new sample; the first sample initialises it.
    filter: Ewma,
    /// t_(n-1), ns.
    last: Option<Time>,
    /// Bytes that arrived at the same instant as t_(n-1), carried into the next sample.
    pending: u64,
}

impl ArrivalRate {
    /// `delta` in [0, 1), the range of the `delta` parameter: at 1 the new sample would
    /// have no weight and the estimate would stay at its first sample.
    fn new(delta: f64) -> Self {
        debug_assert!((0.0..1.0).contains(&delta), "delta = {delta}; allowed: 0 <= delta < 1");
        ArrivalRate {
            // Gain 1 - delta in (0, 1], as `Ewma` takes it.
            filter: Ewma::new((1.0 - delta).clamp(f64::EPSILON, 1.0)),
            last: None,
            pending: 0,
        }
    }

    /// `bytes` arrived at `t`.
    fn on_arrival(&mut self, bytes: u64, t: Time) {
        let Some(prev) = self.last else {
            // n = 1: no previous arrival, nothing to divide by.
            self.last = Some(t);
            return;
        };
        let d = self.pending + bytes;
        if t <= prev {
            self.pending = d;
            return;
        }
        // Eq. 1: Bw_sample(n) = d_n / (t_n - t_(n-1)), bytes/s.
        let sample = d as f64 * NS_PER_SEC / (t - prev) as f64;
        // Eq. 2: Bw_est(n) = Bw_est(n-1) * delta + Bw_sample(n) * (1 - delta).
        self.filter.update(sample);
        self.pending = 0;
        self.last = Some(t);
    }

    /// Bw_estimated in bytes/s.
    fn value(&self) -> Option<f64> {
        self.filter.value()
    }
}

/// Eq. 3: oCwnd = RTTmin * Bw_est / seg_size, in segments, with the floor applied after
/// the conversion.
fn ocwnd_segments(rtt_min: Time, bw: f64, seg_size: f64, floor: f64) -> f64 {
    (rtt_min as f64 / NS_PER_SEC * bw / seg_size).max(floor)
}

/// Right edges kept by the RTT probe; when full the newest entry is widened, which only
/// makes later samples larger (never below the true RTT).
const EDGES: usize = 64;

/// The receiver's RTT probe: (time, right edge) of its advertisements, edges increasing.
#[derive(Clone, Debug)]
struct EdgeProbe {
    edges: [(Time, u64); EDGES],
    head: usize,
    len: usize,
    /// The first advertised right edge: data up to it may precede any ACK.
    first_edge: Option<u64>,
    min_rtt: Option<Time>,
}

impl EdgeProbe {
    fn new() -> Self {
        EdgeProbe {
            edges: [(0, 0); EDGES],
            head: 0,
            len: 0,
            first_edge: None,
            min_rtt: None,
        }
    }

    fn last_edge(&self) -> Option<u64> {
        (self.len > 0).then(|| self.edges[(self.head + self.len - 1) % EDGES].1)
    }

    /// An advertisement at `t` allowing the sender up to `edge`.
    fn on_advertise(&mut self, t: Time, edge: u64) {
        let Some(first) = self.first_edge else {
            self.first_edge = Some(edge);
            return;
        };
        if edge <= self.last_edge().unwrap_or(first) {
            return;
        }
        if self.len == EDGES {
            let last = (self.head + self.len - 1) % EDGES;
            self.edges[last].1 = edge;
        } else {
            self.edges[(self.head + self.len) % EDGES] = (t, edge);
            self.len += 1;
        }
    }

    /// New data ending at `end` arrived at `t`.
    fn on_new_data(&mut self, end: u64, t: Time) {
        match self.first_edge {
            Some(first) if end > first => {}
            _ => return,
        }
        while self.len > 0 && self.edges[self.head].1 < end {
            self.head = (self.head + 1) % EDGES;
            self.len -= 1;
        }
        if self.len > 0 {
            // The first advertisement covering `end` was sent at edges[head].0; the data
            // left the sender after that ACK reached it.
            let sample = t.saturating_sub(self.edges[self.head].0);
            if sample > 0 {
                self.min_rtt = Some(self.min_rtt.map_or(sample, |m| m.min(sample)));
            }
        }
    }
}

/// The receiver half: Eq. 1-3 from arrivals; oCwnd advertised beside the receive window
/// (`adv_cwnd`), or as it when `receiver_caps_window` (see the module header).
#[derive(Clone, Debug)]
pub struct EwrReceiver {
    p: EwrParams,
    rate: ArrivalRate,
    /// seg_size of Eq. 3: the largest segment seen, bytes.
    seg_size: u32,
    /// Highest sequence number received + 1.
    highest: u64,
    probe: EdgeProbe,
    /// Smallest arrival - TSecr seen, ns.
    ts_min: Option<Time>,
}

impl EwrReceiver {
    pub fn new(p: EwrParams) -> Self {
        EwrReceiver {
            p,
            rate: ArrivalRate::new(p.delta),
            seg_size: 0,
            highest: 0,
            probe: EdgeProbe::new(),
            ts_min: None,
        }
    }

    /// The RTTmin the receiver uses in Eq. 3, ns.
    pub fn rtt_min(&self) -> Option<Time> {
        match self.p.receiver_rtt {
            ReceiverRtt::Timestamps => self.ts_min.or(self.probe.min_rtt),
            ReceiverRtt::Probe => self.probe.min_rtt,
            ReceiverRtt::Fixed => Some((self.p.receiver_rtt_ms.max(0.0) * 1e6) as Time),
        }
    }

    /// Bw_estimated(n), bytes/s.
    pub fn bandwidth(&self) -> Option<f64> {
        self.rate.value()
    }

    /// oCwnd_n in bytes (Eq. 3 in segments times seg_size).
    pub fn ocwnd_bytes(&self) -> Option<f64> {
        let bw = self.rate.value()?;
        let rtt = self.rtt_min()?;
        let seg = f64::from(self.seg_size.max(1));
        Some(ocwnd_segments(rtt, bw, seg, self.p.min_ocwnd_segments) * seg)
    }
}

impl ReceiverControl for EwrReceiver {
    fn on_segment(&mut self, seq: u64, len: u32, arrival: Time, ts_ecr: Option<Time>) {
        // (a) "When packets successfully arrive at the receiver": Eq. 1-2.
        self.seg_size = self.seg_size.max(len);
        // RTTmin: the echoed ACK left the receiver at TSecr, and this segment left the
        // sender after that ACK arrived, so arrival - TSecr is never below the RTT.
        if let Some(sample) = ts_ecr.map(|e| arrival.saturating_sub(e)).filter(|&d| d > 0) {
            self.ts_min = Some(self.ts_min.map_or(sample, |m| m.min(sample)));
        }
        self.rate.on_arrival(u64::from(len), arrival);
        let end = seq + u64::from(len);
        if end > self.highest {
            self.probe.on_new_data(end, arrival);
            self.highest = end;
        }
    }

    fn advertised_window(&mut self, buffer_free: u64, now: Time) -> u64 {
        // Eq. 3: oCwnd caps the advertised window (by the free buffer) only with
        // `receiver_caps_window`; by default it goes to the sender as `adv_cwnd`.
        let win = match self.ocwnd_bytes() {
            Some(o) if self.p.receiver_caps_window => (o as u64).min(buffer_free),
            _ => buffer_free,
        };
        self.probe
            .on_advertise(now, self.highest.saturating_add(win));
        win
    }

    fn advertised_cwnd(&mut self) -> Option<u64> {
        // l. 44: "oCwnd_n is used as a receiver-advertised congestion window size".
        self.ocwnd_bytes().map(|o| o as u64)
    }
}

/// Which branch of pseudo-code (c) the last loss took (for traces).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EerState {
    /// No loss handled by the EER rules yet.
    None,
    /// x < alpha.
    LinearIncrease,
    /// alpha <= x <= beta.
    WaitAndSee,
    /// x > beta.
    Congestion,
}

/// The sender half of TCP EWR.
#[derive(Clone, Debug)]
pub struct Ewr {
    p: EwrParams,
    /// The sender's mirror of Eq. 1-2 over echoed receiver arrival times.
    rate: ArrivalRate,
    /// Bytes already counted for duplicate ACKs (Westwood+ accounting).
    dup_counted: u64,
    /// The sender's RTTmin and MSS at the last hook (for traces).
    rtt_min: Option<Time>,
    mss: f64,
    /// The receiver's oCwnd_n from the latest ACK that carried one, bytes.
    advertised: Option<f64>,
    /// Backlog x at the last loss, segments.
    last_x: f64,
    state: EerState,
    /// At most one ECN response per window (RFC 3168 §6.1.2).
    ecn: OncePerWindow,
    /// An ECN response's window holds (rule (b) waits) until the data outstanding at the
    /// mark is acknowledged (RFC 3168 §6.1.2).
    ecn_hold: bool,
    /// The ACK being processed carries an ECN echo: set by `on_signal`, which the sender
    /// calls first, restated by `on_ack` from the ACK outside recovery (so that it reaches
    /// the fast retransmit the ACK triggers) and cleared by `on_loss` and
    /// `on_recovery_exit`, which consume it.
    ack_marked: bool,
}

impl Ewr {
    pub fn new(p: EwrParams) -> Self {
        Ewr {
            p,
            rate: ArrivalRate::new(p.delta),
            dup_counted: 0,
            rtt_min: None,
            mss: 0.0,
            advertised: None,
            last_x: 0.0,
            state: EerState::None,
            ecn: OncePerWindow::default(),
            ecn_hold: false,
            ack_marked: false,
        }
    }

    /// Bytes reported delivered by this ACK: a duplicate reports one segment, a new ACK
    /// what it acknowledges minus what duplicates already reported (at least a segment).
    fn delivered_bytes(&mut self, ack: &AckSample, mss: u64) -> u64 {
        if ack.dup {
            self.dup_counted += mss;
            return mss;
        }
        if ack.acked_bytes == 0 {
            return 0;
        }
        if ack.acked_bytes > self.dup_counted {
            let d = ack.acked_bytes - self.dup_counted;
            self.dup_counted = 0;
            d
        } else {
            self.dup_counted -= ack.acked_bytes;
            mss
        }
    }

    /// The oCwnd_n in use, bytes.
    fn ocwnd_bytes(&self) -> Option<f64> {
        match self.p.ocwnd_source {
            OcwndSource::Receiver => self.advertised,
            OcwndSource::Mirror => self.mirror_ocwnd_bytes(),
        }
    }

    /// The mirror's oCwnd in bytes.
    fn mirror_ocwnd_bytes(&self) -> Option<f64> {
        let bw = self.rate.value()?;
        let rtt = self.rtt_min?;
        Some(ocwnd_segments(rtt, bw, self.mss, self.p.min_ocwnd_segments) * self.mss)
    }

    /// Eq. 4-5: backlog x in segments.
    fn backlog(&self, w: &Window, cx: &Ctx) -> f64 {
        let mss = cx.mss_f();
        let (Some(min), Some(srtt)) = (cx.rtt.min_rtt(), cx.rtt.srtt()) else {
            return 0.0;
        };
        if srtt == 0 {
            return 0.0;
        }
        let window = match self.p.window_size {
            WindowSize::Cwnd => w.cwnd,
            WindowSize::Flight => w.cwnd.min(cx.flight_size as f64),
        } / mss;
        // Eq. 4: expected = WindowSize / RTTmin; Eq. 5: actual = WindowSize / RTT;
        // x = D * RTTmin, D = expected - actual, i.e. WindowSize * (1 - RTTmin / RTT),
        // which stays finite when RTTmin is 0 (x = WindowSize).
        window * (1.0 - min as f64 / srtt as f64)
    }

    /// Pseudo-code (c): the enhanced error recovery on a sign of loss.
    fn respond(&mut self, loss: Loss, w: &mut Window, cx: &Ctx) -> Verdict {
        self.refresh(cx);
        let Some(ocwnd) = self.ocwnd_bytes() else {
            Reno::respond(&RenoParams::default(), loss, w, cx);
            return Verdict::None;
        };
        let mss = cx.mss_f();
        let x = self.backlog(w, cx);
        self.last_x = x;
        // Every branch: ssthresh = oCwnd_n.
        w.ssthresh = ocwnd;
        self.state = if x < self.p.alpha {
            if w.cwnd > w.ssthresh {
                w.cwnd = ocwnd;
            } else {
                // Linear increase state: cwnd = cwnd + 2.
                w.cwnd += self.p.linear_increase_segments * mss;
            }
            EerState::LinearIncrease
        } else if x <= self.p.beta {
            if w.cwnd > w.ssthresh {
                w.cwnd = ocwnd;
            }
            // Wait-and-see state: cwnd is retained.
            EerState::WaitAndSee
        } else {
            // Congestion state: cwnd = 1.
            w.cwnd = mss;
            EerState::Congestion
        };
        self.verdict()
    }

    /// The verdict of the state the last response chose.
    fn verdict(&self) -> Verdict {
        match self.state {
            EerState::Congestion => Verdict::Congestion,
            EerState::None => Verdict::None,
            _ => Verdict::Wireless,
        }
    }

    fn refresh(&mut self, cx: &Ctx) {
        self.rtt_min = cx.rtt.min_rtt();
        self.mss = cx.mss_f();
    }
}

impl CongestionControl for Ewr {
    fn name(&self) -> &'static str {
        "ewr"
    }

    fn recovery_style(&self) -> RecoveryStyle {
        // l. 52: "There is no need to employ any kinds of ... fast recovery algorithms".
        if self.p.fast_recovery {
            RecoveryStyle::NewReno
        } else {
            RecoveryStyle::FastRetransmitOnly
        }
    }

    fn init(&mut self, _w: &mut Window, cx: &mut Ctx) {
        self.refresh(cx);
    }

    fn on_ack(&mut self, ack: &AckSample, w: &mut Window, cx: &mut Ctx) {
        self.refresh(cx);
        // Inside recovery no fast retransmit follows this ACK and the one that ends
        // recovery signals its own echo.
        self.ack_marked = ack.marked && !ack.in_recovery;
        if let Some(a) = ack.adv_cwnd {
            self.advertised = Some(a as f64);
        }
        // Mirror of (a): Eq. 1-2 over the receiver's arrival times (ACK times without TS).
        let d = self.delivered_bytes(ack, u64::from(cx.mss));
        if d > 0 {
            self.rate.on_arrival(d, ack.rx_arrival.unwrap_or(cx.now));
        }
        if ack.dup || ack.in_recovery || ack.acked_bytes == 0 {
            return;
        }
        let ocwnd = self.ocwnd_bytes();
        // RFC 3168 §6.1.2: no increase on an ECN-Echo ACK, nor while the response to a mark
        // stands for the window outstanding at the mark; (b) may still lower cwnd.
        if self.ecn_hold && self.ecn.passed(cx) {
            self.ecn_hold = false;
        }
        if self.ecn_hold || ack.marked {
            if let Some(o) = ocwnd {
                w.cwnd = w.cwnd.min(o);
            }
            return;
        }
        match (self.p.ack_rule, ocwnd) {
            // (b) "On ACK reception at the sender: cwnd = oCwnd_n".
            (AckRule::Ocwnd, Some(o)) => w.cwnd = o,
            (AckRule::NewrenoFloor, Some(o)) => {
                Reno::grow(&RenoParams::default(), ack, w, cx.mss_f());
                w.cwnd = w.cwnd.max(o);
            }
            // No estimate yet (the first ACK): NewReno's slow start.
            (_, None) => Reno::grow(&RenoParams::default(), ack, w, cx.mss_f()),
        }
    }

    fn on_loss(&mut self, loss: Loss, w: &mut Window, cx: &mut Ctx) -> Verdict {
        // A fast retransmit answers the ACK that triggered it; a timeout answers no ACK.
        let marked = loss == Loss::FastRetransmit && self.ack_marked;
        self.ack_marked = false;
        if loss == Loss::FastRetransmit && self.ecn_hold && !self.ecn.passed(cx) {
            // RFC 3168 §6.1.2: "reduced only once in response to a series of dropped
            // and/or CE packets from a single window of data": the ECE already answered
            // this window; the hold stands. A mark in the window shows congestion.
            return Verdict::Congestion;
        }
        self.ecn_hold = false;
        let before = w.cwnd;
        let verdict = self.respond(loss, w, cx);
        if marked {
            // "SHOULD NOT increase the congestion window in response to the receipt of an
            // ECN-Echo ACK packet" (RFC 3168 §6.1.2): an echo this window no longer answers
            // (a reduction already did) must not let (c) add 2 segments on its ACK.
            w.cwnd = w.cwnd.min(before);
        }
        if w.cwnd < before {
            // RFC 3168 §6.1.2's "reduced only once ... for dropped and/or CE packets" counts
            // reductions: a loss answered with cwnd + 2 or a retained cwnd leaves a later
            // echo of its window to be answered.
            self.ecn.reduced(cx);
        }
        verdict
    }

    fn on_recovery_exit(&mut self, w: &mut Window, cx: &mut Ctx) {
        // Only with `fast_recovery = true`: (b) on the ACK that ends recovery; while an
        // ECN response holds, or when that ACK carries an echo, only a decrease (RFC 3168
        // §6.1.2).
        self.refresh(cx);
        let target = match (self.p.ack_rule, self.ocwnd_bytes()) {
            (AckRule::Ocwnd, Some(o)) => o,
            (AckRule::NewrenoFloor, Some(o)) => w.cwnd.max(o),
            (_, None) => w.ssthresh,
        };
        let held = (self.ecn_hold && !self.ecn.passed(cx)) || self.ack_marked;
        self.ack_marked = false;
        w.cwnd = if held { target.min(w.cwnd) } else { target };
    }

    fn on_signal(&mut self, signal: Signal, w: &mut Window, cx: &mut Ctx) {
        if signal == Signal::CongestionMark {
            // The ACK that follows (`on_ack`, or `on_recovery_exit` when it ends recovery)
            // carries this echo.
            self.ack_marked = true;
        }
        if signal == Signal::CongestionMark && self.ecn.passed(cx) {
            // RFC 3168 §6.1.2: "treated just as a congestion loss": rule (c)'s congestion
            // state (ssthresh = oCwnd_n, cwnd = 1 segment) without the backlog test, which
            // only guesses what the mark states.
            self.refresh(cx);
            match self.ocwnd_bytes() {
                Some(ocwnd) => {
                    w.ssthresh = ocwnd;
                    w.cwnd = cx.mss_f();
                    self.state = EerState::Congestion;
                }
                None => Reno::respond(&RenoParams::default(), Loss::FastRetransmit, w, cx),
            }
            self.ecn.reduced(cx);
            self.ecn_hold = true;
        }
    }

    fn trace_vars(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("bwe_bytes_per_s", self.rate.value().unwrap_or(f64::NAN)));
        let seg = if self.mss > 0.0 { self.mss } else { f64::NAN };
        out.push((
            "ocwnd_segments",
            self.ocwnd_bytes().map_or(f64::NAN, |o| o / seg),
        ));
        out.push((
            "rtt_min_s",
            self.rtt_min.map_or(f64::NAN, |r| r as f64 / NS_PER_SEC),
        ));
        out.push(("backlog_segments", self.last_x));
        let state = match self.state {
            EerState::None => 0.0,
            EerState::LinearIncrease => 1.0,
            EerState::WaitAndSee => 2.0,
            EerState::Congestion => 3.0,
        };
        out.push(("eer_state", state));
    }
}

pub fn build(p: &EwrParams) -> Box<dyn CongestionControl> {
    Box::new(Ewr::new(*p))
}

pub fn build_receiver(p: &EwrParams) -> Option<Box<dyn ReceiverControl>> {
    Some(Box::new(EwrReceiver::new(*p)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{Harness, MSS};

    const MS: Time = 1_000_000;
    const SEG: f64 = MSS as f64;

    /// A new ACK of one segment with RTT sample `rtt` that carries the receiver's oCwnd
    /// (`adv` segments, `None`: no advertisement yet).
    fn ack_adv(h: &mut Harness, adv: Option<f64>, rtt: Time) {
        ack_adv_marked(h, adv, rtt, false);
    }

    /// `ack_adv`, optionally with an echoed mark, signalled first as the sender does.
    fn ack_adv_marked(h: &mut Harness, adv: Option<f64>, rtt: Time, marked: bool) {
        h.fill_window();
        h.now += rtt;
        h.snd_una += u64::from(MSS);
        h.dupacks = 0;
        h.rtt.on_sample(rtt);
        let s = AckSample {
            ack: h.snd_una,
            acked_bytes: u64::from(MSS),
            rtt: Some(rtt),
            rx_arrival: Some(h.now - rtt / 2),
            delivered: h.snd_una,
            adv_cwnd: adv.map(|a| (a * SEG) as u64),
            marked,
            ..AckSample::default()
        };
        if marked {
            h.signal(Signal::CongestionMark);
        }
        h.call(|cc, w, cx| cc.on_ack(&s, w, cx));
    }

    /// A partial ACK inside recovery, up to the current SND.UNA, carrying the receiver's
    /// oCwnd of `adv` segments.
    fn partial_ack(h: &mut Harness, adv: f64) {
        let s = AckSample {
            ack: h.snd_una,
            acked_bytes: u64::from(MSS),
            in_recovery: true,
            delivered: h.snd_una,
            adv_cwnd: Some((adv * SEG) as u64),
            ..AckSample::default()
        };
        h.call(|cc, w, cx| cc.on_ack(&s, w, cx));
    }

    /// A duplicate ACK carrying the receiver's oCwnd of `adv` segments.
    fn dup_adv(h: &mut Harness, adv: f64) {
        dup_adv_marked(h, adv, false);
    }

    /// `dup_adv`, optionally with an echoed mark, signalled first as the sender does.
    fn dup_adv_marked(h: &mut Harness, adv: f64, marked: bool) {
        h.now += MS;
        h.dupacks += 1;
        let s = AckSample {
            ack: h.snd_una,
            dup: true,
            delivered: h.snd_una,
            adv_cwnd: Some((adv * SEG) as u64),
            marked,
            ..AckSample::default()
        };
        if marked {
            h.signal(Signal::CongestionMark);
        }
        h.call(|cc, w, cx| cc.on_ack(&s, w, cx));
    }

    /// Twenty ACKs with RTT 50 ms advertising `adv` segments: cwnd = adv by rule (b).
    /// `fast_recovery = true`, oCwnd 40 segments, a backlog above beta: the fast
    /// retransmit took the congestion state (rule (c)); 100 ms into the recovery.
    fn recovering_from_the_congestion_state() -> Harness {
        let mut h = primed(EwrParams { fast_recovery: true, ..EwrParams::default() }, 40.0);
        set_backlog(&mut h, &[100 * MS; 12]);
        assert_eq!(h.loss(Loss::FastRetransmit), Verdict::Congestion);
        h.in_recovery = true;
        h.now += 100 * MS;
        h
    }

    fn primed(p: EwrParams, adv: f64) -> Harness {
        let mut h = Harness::new(build(&p));
        for _ in 0..20 {
            ack_adv(&mut h, Some(adv), 50 * MS);
        }
        h
    }

    /// Raise SRTT by `srtt_samples` (RTTmin stays 50 ms), put exactly the window in
    /// flight, and return Eq. 4-5's backlog recomputed: x = W/RTTmin*RTTmin - W/SRTT*RTTmin.
    fn set_backlog(h: &mut Harness, srtt_samples: &[Time]) -> f64 {
        for &r in srtt_samples {
            h.rtt.on_sample(r);
        }
        h.snd_max = h.snd_una;
        h.fill_window();
        let w = h.w.cwnd / SEG;
        let min = h.rtt.min_rtt().unwrap() as f64;
        let srtt = h.rtt.srtt().unwrap() as f64;
        w / min * min - w / srtt * min
    }

    #[test]
    fn receiver_estimate_follows_eq_1_and_2_on_a_hand_made_arrival_sequence() {
        let p = EwrParams { receiver_rtt: ReceiverRtt::Fixed, receiver_rtt_ms: 100.0, ..EwrParams::default() };
        let mut r = EwrReceiver::new(p);
        // Arrivals of 1000 B at 0, 10, 15 and 35 ms.
        for (i, t) in [0, 10, 15, 35].into_iter().enumerate() {
            r.on_segment(i as u64 * 1000, 1000, t * MS, None);
        }
        // Eq. 1: 1000/0.010 = 1e5, 1000/0.005 = 2e5, 1000/0.020 = 5e4 B/s.
        // Eq. 2 (delta 0.7, delta_1 = 0): 1e5, then 0.7*1e5 + 0.3*2e5, then ...
        let e2 = 0.7 * 1e5 + 0.3 * 2e5;
        let e3 = 0.7 * e2 + 0.3 * 5e4;
        let bw = r.bandwidth().unwrap();
        assert!((bw - e3).abs() < 1e-6, "{bw} vs {e3}");
        // Eq. 3: oCwnd = 0.1 s * Bw / 1000 B segments, advertised in bytes on the ACK.
        let ocwnd = 0.1 * e3 / 1000.0 * 1000.0;
        let adv = r.advertised_cwnd().unwrap() as f64;
        assert!((adv - ocwnd).abs() <= 1.0, "{adv} vs {ocwnd}");
    }

    #[test]
    fn receiver_advertises_ocwnd_as_a_congestion_window_and_caps_the_receive_window_only_when_asked() {
        let fixed = EwrParams { receiver_rtt: ReceiverRtt::Fixed, receiver_rtt_ms: 100.0, ..EwrParams::default() };
        let arrivals = |r: &mut EwrReceiver| {
            // 1000 B every 1 ms: Bw = 1e6 B/s, oCwnd = 0.1 s * 1e6 / 1000 = 100 segments.
            for k in 0..10 {
                r.on_segment(k * 1000, 1000, k * MS, None);
            }
        };
        let mut free = EwrReceiver::new(fixed);
        arrivals(&mut free);
        assert_eq!(free.advertised_window(50_000, 10 * MS), 50_000);
        assert_eq!(free.advertised_cwnd(), Some(100_000));
        let mut capped = EwrReceiver::new(EwrParams { receiver_caps_window: true, ..fixed });
        arrivals(&mut capped);
        assert_eq!(capped.advertised_window(150_000, 10 * MS), 100_000);
        assert_eq!(capped.advertised_window(50_000, 10 * MS), 50_000);
    }

    #[test]
    fn receiver_floors_ocwnd_at_two_of_the_largest_segments_seen() {
        // 1000 B every 200 ms with RTTmin 100 ms: Eq. 3 gives 0.1 s * 5e3 B/s / 1000 B =
        // 0.5 segments, floored at min_ocwnd_segments = 2. The first arrival is a 500 B
        // segment: seg_size is the largest seen (1000 B), so the floor is 2000 B.
        let fixed = EwrParams { receiver_rtt: ReceiverRtt::Fixed, receiver_rtt_ms: 100.0, ..EwrParams::default() };
        let slow = |p: EwrParams| {
            let mut r = EwrReceiver::new(p);
            r.on_segment(0, 500, 0, None);
            for k in 1..6u64 {
                r.on_segment(500 + (k - 1) * 1000, 1000, k * 200 * MS, None);
            }
            r
        };
        let mut r = slow(fixed);
        let eq3 = 0.1 * r.bandwidth().unwrap() / 1000.0;
        assert!(eq3 < 1.0, "Eq. 3 = {eq3} segments");
        assert_eq!(r.advertised_cwnd(), Some(2000));
        let mut r = slow(EwrParams { min_ocwnd_segments: 3.0, ..fixed });
        assert_eq!(r.advertised_cwnd(), Some(3000));
    }

    #[test]
    fn receiver_merges_simultaneous_arrivals_and_advertises_nothing_before_an_estimate() {
        let mut r = EwrReceiver::new(EwrParams { receiver_rtt: ReceiverRtt::Fixed, ..EwrParams::default() });
        assert_eq!(r.advertised_window(65_536, 0), 65_536);
        assert_eq!(r.advertised_cwnd(), None);
        r.on_segment(0, 1000, 5 * MS, None);
        r.on_segment(1000, 1000, 5 * MS, None);
        assert_eq!(r.bandwidth(), None);
        assert_eq!(r.advertised_cwnd(), None);
        r.on_segment(2000, 1000, 7 * MS, None);
        // Two segments over the 2 ms gap: 2000 B / 0.002 s.
        assert!((r.bandwidth().unwrap() - 1e6).abs() < 1e-6);
    }

    #[test]
    fn receiver_rtt_from_timestamps_is_the_smallest_arrival_minus_tsecr() {
        let mut r = EwrReceiver::new(EwrParams::default());
        r.on_segment(0, 1000, 10 * MS, None);
        assert_eq!(r.rtt_min(), None, "no echo, no sample");
        // Echoes of ACKs sent at 12 and 20 ms arriving at 75 and 81 ms: 63 and 61 ms.
        r.on_segment(1000, 1000, 75 * MS, Some(12 * MS));
        assert_eq!(r.rtt_min(), Some(63 * MS));
        r.on_segment(2000, 1000, 81 * MS, Some(20 * MS));
        assert_eq!(r.rtt_min(), Some(61 * MS));
        // A segment that waited at the sender (sent long after the echoed ACK) raises nothing.
        r.on_segment(3000, 1000, 200 * MS, Some(20 * MS));
        assert_eq!(r.rtt_min(), Some(61 * MS));
        // Eq. 3 with that RTT: Bw is the Eq. 1-2 filter over the four arrivals.
        let expect = 0.061 * r.bandwidth().unwrap();
        assert!((r.advertised_cwnd().unwrap() as f64 - expect.max(2000.0)).abs() <= 1.0);
    }

    #[test]
    fn receiver_rtt_probe_measures_from_the_first_advertisement_covering_the_data() {
        let mut r = EwrReceiver::new(EwrParams { receiver_rtt: ReceiverRtt::Probe, ..EwrParams::default() });
        // First ACK at 0 ms advertises up to 1000 + 5000: that data may precede any ACK.
        r.on_segment(0, 1000, 0, None);
        assert_eq!(r.advertised_window(5000, 0), 5000);
        r.on_segment(1000, 1000, MS, None);
        // Second advertisement at 1 ms: right edge 2000 + 5000 = 7000.
        r.advertised_window(5000, MS);
        for k in 2..6 {
            r.on_segment(k * 1000, 1000, (k + 1) * MS, None);
        }
        assert_eq!(r.rtt_min(), None, "data within the first edge gives no sample");
        // Bytes 6000..7000 were allowed only by the ACK sent at 1 ms; they arrive at 81 ms.
        r.on_segment(6000, 1000, 81 * MS, None);
        assert_eq!(r.rtt_min(), Some(80 * MS));
        // A retransmission (no new data) is not a sample.
        r.on_segment(3000, 1000, 90 * MS, None);
        assert_eq!(r.rtt_min(), Some(80 * MS));
        // Timestamps echoes are ignored under `probe`.
        r.on_segment(7000, 1000, 95 * MS, Some(90 * MS));
        assert_eq!(r.rtt_min(), Some(80 * MS));
    }

    #[test]
    fn rule_b_sets_cwnd_to_the_advertised_ocwnd_on_every_new_ack_up_and_down() {
        let mut h = Harness::new(build(&EwrParams::default()));
        for adv in [30.0, 55.5, 12.0, 40.0] {
            ack_adv(&mut h, Some(adv), 50 * MS);
            assert_eq!(h.w.cwnd, (adv * SEG).floor(), "no slow start, no additive increase");
        }
        // Duplicate ACKs do not apply (b), whatever they advertise.
        dup_adv(&mut h, 90.0);
        dup_adv(&mut h, 5.0);
        assert_eq!(h.w.cwnd, 40.0 * SEG);
    }

    #[test]
    fn before_any_advertisement_cwnd_slow_starts_and_a_loss_gets_renos_response() {
        let mut h = Harness::new(build(&EwrParams::default()));
        ack_adv(&mut h, None, 50 * MS);
        assert_eq!(h.w.cwnd, 11.0 * SEG, "RFC 5681 slow start from the 10-segment IW");
        h.snd_max = h.snd_una;
        h.fill_window();
        assert_eq!(h.loss(Loss::FastRetransmit), Verdict::None);
        assert_eq!(h.w.ssthresh, 5.5 * SEG);
    }

    #[test]
    fn small_backlog_with_ocwnd_unchanged_is_the_linear_increase_state() {
        // cwnd = oCwnd = 20 at the last ACK; three duplicates still advertise 20.
        let mut h = primed(EwrParams::default(), 20.0);
        let x = set_backlog(&mut h, &[]);
        assert!(x < 1.0, "x = {x}");
        for _ in 0..3 {
            dup_adv(&mut h, 20.0);
        }
        assert_eq!(h.loss(Loss::FastRetransmit), Verdict::Wireless);
        // ssthresh = oCwnd_n; cwnd <= ssthresh: cwnd + 2.
        assert_eq!(h.w.ssthresh, 20.0 * SEG);
        assert_eq!(h.w.cwnd, 22.0 * SEG);
        // The next ACK of new data applies (b) again.
        ack_adv(&mut h, Some(21.0), 50 * MS);
        assert_eq!(h.w.cwnd, 21.0 * SEG);
    }

    #[test]
    fn small_backlog_with_a_lower_ocwnd_takes_cwnd_to_it() {
        let mut h = primed(EwrParams::default(), 50.0);
        assert!(set_backlog(&mut h, &[]) < 1.0);
        dup_adv(&mut h, 35.0);
        assert_eq!(h.loss(Loss::Timeout { consecutive: 1 }), Verdict::Wireless);
        // cwnd (50) > ssthresh = oCwnd_n (35): cwnd = oCwnd_n.
        assert_eq!((h.w.ssthresh, h.w.cwnd), (35.0 * SEG, 35.0 * SEG));
    }

    #[test]
    fn medium_backlog_wait_and_see_retains_cwnd_below_ocwnd_and_cuts_it_above() {
        // SRTT rises towards 100 ms: x = 10 * (1 - 50/SRTT) lies in [alpha, beta] = [1, 9].
        let mut h = primed(EwrParams::default(), 10.0);
        let x = set_backlog(&mut h, &[100 * MS; 12]);
        assert!((1.0..=9.0).contains(&x), "x = {x}");
        dup_adv(&mut h, 14.0);
        assert_eq!(h.loss(Loss::FastRetransmit), Verdict::Wireless);
        assert!((crate::testing::var(&h, "backlog_segments") - x).abs() < 1e-9);
        assert_eq!((h.w.ssthresh, h.w.cwnd), (14.0 * SEG, 10.0 * SEG));
        let mut h = primed(EwrParams::default(), 10.0);
        set_backlog(&mut h, &[100 * MS; 12]);
        dup_adv(&mut h, 7.0);
        h.loss(Loss::FastRetransmit);
        assert_eq!((h.w.ssthresh, h.w.cwnd), (7.0 * SEG, 7.0 * SEG));
    }

    #[test]
    fn large_backlog_congestion_state_drops_to_one_segment_until_the_next_new_ack() {
        let mut h = primed(EwrParams::default(), 40.0);
        let x = set_backlog(&mut h, &[100 * MS; 12]);
        assert!(x > 9.0, "x = {x}");
        assert_eq!(h.loss(Loss::FastRetransmit), Verdict::Congestion);
        assert!((crate::testing::var(&h, "backlog_segments") - x).abs() < 1e-9);
        assert_eq!((h.w.ssthresh, h.w.cwnd), (40.0 * SEG, SEG));
        // Duplicates hold it there (no inflation from the algorithm either).
        dup_adv(&mut h, 40.0);
        assert_eq!(h.w.cwnd, SEG);
        // "the sender immediately adjusts its congestion window size to the oCwnd_n".
        ack_adv(&mut h, Some(38.0), 50 * MS);
        assert_eq!(h.w.cwnd, 38.0 * SEG);
    }

    /// Eq. 4-5 recomputed for a given WindowSize (segments) from the harness's RTTs.
    fn backlog_for(h: &Harness, window: f64) -> f64 {
        let min = h.rtt.min_rtt().unwrap() as f64;
        let srtt = h.rtt.srtt().unwrap() as f64;
        window / min * min - window / srtt * min
    }

    /// The branch of (c) a run took, from the `eer_state` trace variable.
    fn eer_state(h: &Harness) -> f64 {
        crate::testing::var(h, "eer_state")
    }

    #[test]
    fn a_backlog_equal_to_alpha_or_to_beta_is_the_wait_and_see_state() {
        // "When alpha <= x <= beta" (l. 54, 67): both bounds belong to the middle band.
        // The thresholds are set to the very backlog the loss will see.
        let probe = |p: EwrParams| {
            let mut h = primed(p, 10.0);
            let x = set_backlog(&mut h, &[100 * MS; 12]);
            dup_adv(&mut h, 14.0);
            (h, x)
        };
        let (mut h, x) = probe(EwrParams::default());
        h.loss(Loss::FastRetransmit);
        let seen = crate::testing::var(&h, "backlog_segments");
        assert!((seen - x).abs() < 1e-9 && x > 1.0, "x = {x}, seen {seen}");
        for p in [EwrParams { alpha: seen, ..EwrParams::default() }, EwrParams { beta: seen, ..EwrParams::default() }] {
            let (mut h, _) = probe(p);
            assert_eq!(h.loss(Loss::FastRetransmit), Verdict::Wireless);
            assert_eq!(eer_state(&h), 2.0, "wait-and-see");
            // cwnd (10) <= ssthresh (14): retained, neither + 2 nor 1 segment.
            assert_eq!((h.w.ssthresh, h.w.cwnd), (14.0 * SEG, 10.0 * SEG));
        }
        // Just beyond either bound the neighbouring state applies.
        let (mut h, _) = probe(EwrParams { alpha: seen * (1.0 + 1e-12), ..EwrParams::default() });
        h.loss(Loss::FastRetransmit);
        assert_eq!((eer_state(&h), h.w.cwnd), (1.0, 12.0 * SEG), "linear increase: cwnd + 2");
        let (mut h, _) = probe(EwrParams { beta: seen * (1.0 - 1e-12), ..EwrParams::default() });
        assert_eq!(h.loss(Loss::FastRetransmit), Verdict::Congestion);
        assert_eq!(h.w.cwnd, SEG);
    }

    #[test]
    fn window_size_is_cwnd_by_default_and_min_of_cwnd_and_flight_size_as_an_option() {
        // cwnd = oCwnd = 40, but a receive window holds only 10 segments in flight.
        let limited = |p: EwrParams| {
            let mut h = primed(p, 40.0);
            for _ in 0..12 {
                h.rtt.on_sample(100 * MS);
            }
            h.snd_max = h.snd_una + 10 * u64::from(MSS);
            h
        };
        // (`Harness::loss` would fill the window first.)
        let fast_retransmit = |h: &mut Harness| h.call(|cc, w, cx| cc.on_loss(Loss::FastRetransmit, w, cx));
        // Veno's Diff = cwnd/BaseRTT - cwnd/RTT: WindowSize = 40 gives x > beta.
        let mut h = limited(EwrParams::default());
        let x = backlog_for(&h, 40.0);
        assert!(x > 9.0, "x = {x}");
        assert_eq!(fast_retransmit(&mut h), Verdict::Congestion);
        assert!((crate::testing::var(&h, "backlog_segments") - x).abs() < 1e-9);
        // `flight`: WindowSize = min(40, 10) = 10, x within [alpha, beta].
        let flight = EwrParams { window_size: WindowSize::Flight, ..EwrParams::default() };
        let mut h = limited(flight);
        let x = backlog_for(&h, 10.0);
        assert!((1.0..=9.0).contains(&x), "x = {x}");
        assert_eq!(fast_retransmit(&mut h), Verdict::Wireless);
        assert!((crate::testing::var(&h, "backlog_segments") - x).abs() < 1e-9);
        // With more in flight than cwnd (oCwnd fell from 40 to 20 on the last ACK, 39
        // segments still out) `flight` takes cwnd, the smaller.
        let mut h = primed(flight, 40.0);
        ack_adv(&mut h, Some(20.0), 50 * MS);
        for _ in 0..12 {
            h.rtt.on_sample(100 * MS);
        }
        assert_eq!((h.snd_max - h.snd_una) / u64::from(MSS), 39);
        fast_retransmit(&mut h);
        let x = backlog_for(&h, 20.0);
        assert!((crate::testing::var(&h, "backlog_segments") - x).abs() < 1e-9, "x = {x}");
    }

    /// A new ACK like `ack_adv` whose ECE the sender reports first, as it does: the
    /// congestion-mark signal, then the ACK.
    fn ack_marked(h: &mut Harness, adv: f64, rtt: Time) {
        ack_adv_marked(h, Some(adv), rtt, true);
    }

    #[test]
    fn an_ecn_echo_applies_rule_c_and_its_window_holds_until_the_marked_window_is_acked() {
        // RFC 3168 §6.1.2: the mark is "treated just as a congestion loss" (rule (c)'s
        // congestion state), once per window, and cwnd does not grow on the ECE ACKs: (b)
        // waits until an ACK above the data outstanding at the mark.
        let mut h = primed(EwrParams::default(), 40.0);
        set_backlog(&mut h, &[100 * MS; 12]);
        let mark_max = h.snd_max;
        ack_marked(&mut h, 40.0, 100 * MS);
        assert_eq!(eer_state(&h), 3.0, "congestion state");
        assert_eq!((h.w.ssthresh, h.w.cwnd), (40.0 * SEG, SEG), "not undone by (b) on the same ACK");
        // Further ECE ACKs of that window neither respond again nor grow the window.
        h.w.ssthresh = 33.0 * SEG; // a second response would set oCwnd_n = 40
        ack_marked(&mut h, 40.0, 100 * MS);
        assert_eq!((h.w.ssthresh, h.w.cwnd), (33.0 * SEG, SEG));
        while h.snd_una < mark_max {
            ack_adv(&mut h, Some(40.0), 100 * MS);
            assert_eq!(h.w.cwnd, SEG, "snd_una {} of {mark_max}", h.snd_una);
        }
        // The first ACK above the marked window: (b), cwnd = oCwnd_n.
        ack_adv(&mut h, Some(38.0), 100 * MS);
        assert!(h.snd_una > mark_max);
        assert_eq!(h.w.cwnd, 38.0 * SEG);
    }

    #[test]
    fn an_ecn_echo_is_answered_as_congestion_whatever_the_backlog() {
        // No queueing (RTT = RTTmin, x = 0 < alpha): a fast retransmit takes the
        // linear-increase state, cwnd + 2 segments; an ECE states congestion and takes the
        // congestion state, never raising cwnd (RFC 3168 §6.1.2 SHOULD NOT).
        let mut marked = primed(EwrParams::default(), 40.0);
        marked.w.cwnd = 20.0 * SEG;
        ack_marked(&mut marked, 40.0, 50 * MS);
        assert_eq!(eer_state(&marked), 3.0);
        assert_eq!((marked.w.ssthresh, marked.w.cwnd), (40.0 * SEG, SEG));
        let mut lossy = primed(EwrParams::default(), 40.0);
        lossy.w.cwnd = 20.0 * SEG;
        assert_eq!(lossy.loss(Loss::FastRetransmit), Verdict::Wireless);
        assert_eq!(lossy.w.cwnd, 22.0 * SEG);
    }

    #[test]
    fn a_marked_ack_that_acknowledges_everything_does_not_end_its_own_hold() {
        // The ECE comes on an ACK of all outstanding data: recover = SND.UNA, and that ACK
        // is not "above" it, so (b) does not reopen the window on it.
        let mut h = primed(EwrParams { fast_recovery: true, ..EwrParams::default() }, 40.0);
        h.now += 50 * MS;
        h.snd_una += u64::from(MSS);
        h.snd_max = h.snd_una;
        h.rtt.on_sample(50 * MS);
        h.signal(Signal::CongestionMark);
        let s = AckSample {
            ack: h.snd_una,
            acked_bytes: u64::from(MSS),
            rtt: Some(50 * MS),
            delivered: h.snd_una,
            adv_cwnd: Some((60.0 * SEG) as u64),
            marked: true,
            ..AckSample::default()
        };
        h.call(|cc, w, cx| cc.on_ack(&s, w, cx));
        assert_eq!(h.w.cwnd, SEG);
        // A recovery starts, as in the engine, with a fast retransmit (inside the hold:
        // nothing applied), which also ends the marked ACK's own mark; its end at this
        // SND.UNA applies (b) from an unmarked ACK: only the hold can keep the window at one
        // segment there.
        h.loss(Loss::FastRetransmit);
        h.call(|cc, w, cx| cc.on_recovery_exit(w, cx));
        assert_eq!(h.w.cwnd, SEG, "the hold stands at SND.UNA = SND.MAX at the mark");
        ack_adv(&mut h, Some(60.0), 50 * MS);
        assert_eq!(h.w.cwnd, 60.0 * SEG, "the next ACK is above the marked window");
    }

    /// A fast retransmit that reduced the window: x < alpha, cwnd 40 > ssthresh = oCwnd_n
    /// 30, so cwnd = 30 (rule (c), linear-increase state).
    fn reduced_by_a_fast_retransmit() -> Harness {
        let mut h = primed(EwrParams::default(), 40.0);
        dup_adv(&mut h, 30.0);
        assert_eq!(h.loss(Loss::FastRetransmit), Verdict::Wireless);
        assert_eq!((h.w.ssthresh, h.w.cwnd), (30.0 * SEG, 30.0 * SEG));
        h
    }

    #[test]
    fn a_marked_ack_never_raises_the_window_even_when_its_mark_is_not_answered() {
        // A fast retransmit reduced the window (x < alpha, cwnd 40 > ssthresh = oCwnd_n 30:
        // cwnd = 30); an ECE of the same window is not answered again, and its ACK must not
        // apply (b) upwards (oCwnd_n 45).
        let mut h = reduced_by_a_fast_retransmit();
        ack_marked(&mut h, 45.0, 50 * MS);
        assert_eq!((h.w.ssthresh, h.w.cwnd), (30.0 * SEG, 30.0 * SEG));
        // A lower oCwnd_n on a marked ACK still lowers it.
        ack_marked(&mut h, 20.0, 50 * MS);
        assert_eq!(h.w.cwnd, 20.0 * SEG);
    }

    #[test]
    fn a_marked_duplicate_ack_whose_fast_retransmit_would_add_two_segments_does_not_raise_the_window() {
        // Two fast retransmits in one window. The first reduced the window (x < alpha,
        // cwnd 40 > ssthresh = oCwnd_n 30: cwnd = 30), so the echo on the third duplicate
        // ACK of the second is not answered; (c) then finds cwnd 30 <= ssthresh 30 and would
        // add 2 segments on an ECN-Echo ACK ("SHOULD NOT increase", RFC 3168 §6.1.2).
        let mut h = reduced_by_a_fast_retransmit();
        h.dupacks = 0;
        dup_adv(&mut h, 30.0);
        dup_adv(&mut h, 30.0);
        dup_adv_marked(&mut h, 30.0, true);
        assert_eq!(h.loss(Loss::FastRetransmit), Verdict::Wireless);
        assert_eq!((h.w.ssthresh, h.w.cwnd), (30.0 * SEG, 30.0 * SEG));
        // Unmarked, the same second fast retransmit adds 2 segments (l. 66), and a timeout
        // after a marked ACK is no response to that ACK.
        let mut h = primed(EwrParams::default(), 40.0);
        dup_adv(&mut h, 30.0);
        h.loss(Loss::FastRetransmit);
        dup_adv(&mut h, 30.0);
        h.loss(Loss::FastRetransmit);
        assert_eq!(h.w.cwnd, 32.0 * SEG);
        dup_adv_marked(&mut h, 32.0, true);
        h.loss(Loss::Timeout { consecutive: 1 });
        assert_eq!(h.w.cwnd, 34.0 * SEG);
    }

    #[test]
    fn an_ecn_echo_after_a_loss_that_did_not_reduce_the_window_is_answered() {
        // RFC 3168 §6.1.2's once per window counts reductions. A fast retransmit answered
        // with cwnd + 2 (linear increase) or a retained cwnd (wait-and-see) reduced nothing,
        // and the sender sets CWR after the echo either way: the echo of the same window
        // takes the congestion state (ssthresh = oCwnd_n of the previous ACK, 1 segment).
        let mut h = primed(EwrParams::default(), 40.0);
        assert_eq!(h.loss(Loss::FastRetransmit), Verdict::Wireless);
        assert_eq!((h.w.ssthresh, h.w.cwnd), (40.0 * SEG, 42.0 * SEG));
        h.w.ssthresh = 33.0 * SEG; // the congestion state sets oCwnd_n = 40
        ack_marked(&mut h, 45.0, 50 * MS);
        assert_eq!(eer_state(&h), 3.0, "congestion state");
        assert_eq!((h.w.ssthresh, h.w.cwnd), (40.0 * SEG, SEG));
        let mut h = primed(EwrParams::default(), 10.0);
        set_backlog(&mut h, &[100 * MS; 12]);
        dup_adv(&mut h, 14.0);
        assert_eq!(h.loss(Loss::FastRetransmit), Verdict::Wireless);
        assert_eq!((h.w.ssthresh, h.w.cwnd), (14.0 * SEG, 10.0 * SEG), "wait-and-see: retained");
        ack_marked(&mut h, 14.0, 100 * MS);
        assert_eq!((h.w.ssthresh, h.w.cwnd), (14.0 * SEG, SEG));
    }

    #[test]
    fn a_marked_ack_ending_exactly_at_the_reduced_window_is_not_answered() {
        // The congestion state reduced the window with SND.MAX = recover. An ACK up to
        // recover may still echo a mark of that window: not answered; one above it is.
        let mut h = primed(EwrParams::default(), 40.0);
        set_backlog(&mut h, &[100 * MS; 12]);
        assert_eq!(h.loss(Loss::FastRetransmit), Verdict::Congestion);
        let recover = h.snd_max;
        h.w.ssthresh = 33.0 * SEG; // an answer would set oCwnd_n = 40
        h.snd_una = recover - u64::from(MSS);
        ack_marked(&mut h, 40.0, 100 * MS);
        assert_eq!(h.snd_una, recover);
        assert_eq!((h.w.ssthresh, h.w.cwnd), (33.0 * SEG, SEG));
        ack_marked(&mut h, 40.0, 100 * MS);
        assert_eq!((h.w.ssthresh, h.w.cwnd), (40.0 * SEG, SEG), "above recover: answered");
    }

    #[test]
    fn an_ecn_echo_before_any_ocwnd_gets_renos_halving() {
        // The first ACK carries an ECE and no oCwnd_n yet: RFC 3168 §6.1.2's halving,
        // ssthresh = cwnd = FlightSize / 2 (9 segments outstanding after it).
        let mut h = Harness::new(build(&EwrParams::default()));
        ack_adv_marked(&mut h, None, 50 * MS, true);
        assert_eq!(h.snd_max - h.snd_una, 9 * u64::from(MSS));
        assert_eq!((h.w.ssthresh, h.w.cwnd), (4.5 * SEG, 4.5 * SEG));
    }

    #[test]
    fn a_timeout_during_the_ecn_hold_applies_rule_c_and_ends_the_hold() {
        // RFC 3168's once-per-window covers drops and marks of a window; a timeout is
        // answered anyway (rule (c) "when ... RTO expires", l. 60), and (b) resumes on the
        // next ACK of new data.
        let mut h = primed(EwrParams::default(), 40.0);
        set_backlog(&mut h, &[100 * MS; 12]);
        ack_marked(&mut h, 40.0, 100 * MS);
        assert_eq!(h.w.cwnd, SEG);
        h.w.ssthresh = 33.0 * SEG;
        // (c) with cwnd = 1 segment: x < alpha, the linear-increase state, cwnd + 2.
        assert_eq!(h.loss(Loss::Timeout { consecutive: 1 }), Verdict::Wireless);
        assert_eq!((h.w.ssthresh, h.w.cwnd), (40.0 * SEG, 3.0 * SEG), "(c) applied: ssthresh = oCwnd_n");
        ack_adv(&mut h, Some(30.0), 100 * MS);
        assert_eq!(h.w.cwnd, 30.0 * SEG);
    }

    #[test]
    fn a_fast_retransmit_in_a_window_an_ecn_echo_answered_does_not_respond_again() {
        // RFC 3168 §6.1.2: one reduction per window of dropped and/or CE packets. The ECE
        // put cwnd at 1 segment (congestion state); a fast retransmit of the same window
        // leaves window, ssthresh and the hold alone and is scored congestion; one after
        // the window is answered applies (c).
        let mut h = primed(EwrParams::default(), 40.0);
        ack_marked(&mut h, 40.0, 50 * MS);
        let mark_max = h.snd_max;
        assert_eq!((h.w.ssthresh, h.w.cwnd), (40.0 * SEG, SEG));
        h.w.ssthresh = 35.0 * SEG; // what a second (c) would overwrite with oCwnd_n
        assert_eq!(h.loss(Loss::FastRetransmit), Verdict::Congestion);
        assert_eq!((h.w.ssthresh, h.w.cwnd), (35.0 * SEG, SEG));
        ack_adv(&mut h, Some(30.0), 50 * MS);
        assert_eq!(h.w.cwnd, SEG, "the hold stands");
        while h.snd_una <= mark_max {
            ack_adv(&mut h, Some(30.0), 50 * MS);
        }
        assert_eq!(h.w.cwnd, 30.0 * SEG);
        h.loss(Loss::FastRetransmit);
        assert_eq!(h.w.ssthresh, 30.0 * SEG, "a later window's loss applies (c)");
    }

    #[test]
    fn with_fast_recovery_an_ecn_hold_survives_the_end_of_recovery() {
        // `fast_recovery = true`: the ACK that ends recovery applies (b), but not upwards
        // while an ECE's response holds.
        let fast_recovery = EwrParams { fast_recovery: true, ..EwrParams::default() };
        let mut h = primed(fast_recovery, 40.0);
        ack_marked(&mut h, 40.0, 50 * MS);
        assert_eq!(h.w.cwnd, SEG);
        h.loss(Loss::FastRetransmit); // recovery starts (inside the hold: nothing applied)
        h.call(|cc, w, cx| cc.on_recovery_exit(w, cx));
        assert_eq!(h.w.cwnd, SEG);
        // A fast retransmit inside the hold (nothing applied), a recovery whose partial ACK
        // advertises 30 and which ends above the marked window: the hold is over, (b).
        let mut h = primed(fast_recovery, 40.0);
        ack_marked(&mut h, 40.0, 50 * MS);
        let mark_max = h.snd_max;
        assert_eq!(h.loss(Loss::FastRetransmit), Verdict::Congestion);
        h.in_recovery = true;
        h.snd_max = mark_max + 5 * u64::from(MSS);
        h.snd_una = mark_max + u64::from(MSS);
        partial_ack(&mut h, 30.0);
        assert_eq!(h.w.cwnd, SEG, "no (b) inside recovery");
        h.snd_una += u64::from(MSS);
        h.exit_recovery();
        assert_eq!(h.w.cwnd, 30.0 * SEG);
    }

    #[test]
    fn with_fast_recovery_a_marked_ack_ending_recovery_does_not_raise_the_window() {
        // The congestion state's fast retransmit put cwnd at one segment. The full ACK ends
        // exactly at recover and echoes a mark of that window: not answered again (no hold
        // starts), but "The sending TCP SHOULD NOT increase the congestion window in
        // response to the receipt of an ECN-Echo ACK packet" (RFC 3168 §6.1.2), so the end
        // of recovery does not apply (b) upwards on it. The next unmarked ACK does.
        let mut h = recovering_from_the_congestion_state();
        h.snd_una = h.snd_max;
        h.signal(Signal::CongestionMark);
        assert_eq!((h.w.ssthresh, h.w.cwnd), (40.0 * SEG, SEG));
        h.exit_recovery();
        assert_eq!(h.w.cwnd, SEG);
        h.snd_max += 10 * u64::from(MSS);
        ack_adv(&mut h, Some(35.0), 100 * MS);
        assert_eq!(h.w.cwnd, 35.0 * SEG);
    }

    #[test]
    fn with_fast_recovery_the_ack_ending_recovery_applies_rule_b() {
        // `fast_recovery = true`: (c) at the fast retransmit, no (b) on partial ACKs, then
        // cwnd = oCwnd_n (the latest advertisement, 30) when recovery ends, not ssthresh
        // (oCwnd_n at the loss, 40).
        let mut h = recovering_from_the_congestion_state();
        assert_eq!((h.w.ssthresh, h.w.cwnd), (40.0 * SEG, SEG));
        h.snd_una += u64::from(MSS);
        partial_ack(&mut h, 30.0);
        assert_eq!(h.w.cwnd, SEG, "no (b) inside recovery");
        h.exit_recovery();
        assert_eq!(h.w.cwnd, 30.0 * SEG);
    }

    #[test]
    fn repeated_timeouts_alternate_between_ocwnd_plus_two_and_ocwnd() {
        // No ACK between the expiries, so oCwnd_n (10) stays; x < alpha each time.
        let mut h = primed(EwrParams::default(), 10.0);
        set_backlog(&mut h, &[]);
        h.loss(Loss::Timeout { consecutive: 1 });
        // cwnd (10) <= ssthresh (10): "cwnd = cwnd + 2" (l. 66, "after one RTO", l. 83).
        assert_eq!((h.w.ssthresh, h.w.cwnd), (10.0 * SEG, 12.0 * SEG));
        h.loss(Loss::Timeout { consecutive: 2 });
        // cwnd (12) > ssthresh (10): "cwnd = oCwnd_n" (l. 64).
        assert_eq!((h.w.ssthresh, h.w.cwnd), (10.0 * SEG, 10.0 * SEG));
        h.loss(Loss::Timeout { consecutive: 3 });
        assert_eq!(h.w.cwnd, 12.0 * SEG);
    }

    #[test]
    fn repeated_timeouts_after_the_congestion_state_climb_by_two_segments() {
        // The first RTO finds x > beta (cwnd = 1); the next ones compute x from the window
        // (c) left, x = W * (1 - RTTmin/SRTT): below alpha they add 2 segments ("updated
        // after one RTO", l. 83), scored Wireless; from alpha on they retain cwnd.
        let mut h = primed(EwrParams::default(), 40.0);
        set_backlog(&mut h, &[100 * MS; 4]);
        assert!(backlog_for(&h, 40.0) > 9.0 && backlog_for(&h, 3.0) < 1.0 && backlog_for(&h, 5.0) >= 1.0);
        assert_eq!(h.loss(Loss::Timeout { consecutive: 1 }), Verdict::Congestion);
        assert_eq!((h.w.ssthresh, h.w.cwnd), (40.0 * SEG, SEG));
        let mut seen = Vec::new();
        for k in 2..6 {
            seen.push((h.loss(Loss::Timeout { consecutive: k }), h.cwnd_segments(), eer_state(&h)));
        }
        assert_eq!(
            seen,
            [
                (Verdict::Wireless, 3.0, 1.0),
                (Verdict::Wireless, 5.0, 1.0),
                (Verdict::Wireless, 5.0, 2.0),
                (Verdict::Wireless, 5.0, 2.0)
            ]
        );
        assert_eq!(h.w.ssthresh, 40.0 * SEG);
    }

    #[test]
    fn a_zero_minimum_rtt_gives_a_backlog_of_the_whole_window() {
        // x = W * (1 - RTTmin/SRTT) tends to W as RTTmin tends to 0; computed as
        // (W/RTTmin - W/SRTT) * RTTmin it would be inf * 0 = NaN, which no band contains.
        let mut h = primed(EwrParams::default(), 5.0);
        h.rtt.on_sample(0);
        assert_eq!(h.rtt.min_rtt(), Some(0));
        assert_eq!(h.loss(Loss::FastRetransmit), Verdict::Wireless);
        assert_eq!(crate::testing::var(&h, "backlog_segments"), 5.0);
        assert_eq!(eer_state(&h), 2.0, "wait-and-see");
    }

    #[test]
    fn delta_below_one_is_allowed_and_one_is_refused() {
        // delta = 1 gives Eq. 2's new sample no weight: the estimate would stay at its
        // first sample. Checked as a scenario's `cc_params` are (`check_params`).
        struct Delta(f64);
        impl crate::ParamTable for Delta {
            fn get(&self, key: &str) -> Option<crate::ParamValue<'_>> {
                (key == "delta").then_some(crate::ParamValue::Number(self.0))
            }
        }
        for ok in [0.0, 0.7, 0.999] {
            assert_eq!(crate::check_params(&EWR_INFO, &Delta(ok)), Ok(()), "delta = {ok}");
        }
        for bad in [1.0, -0.1] {
            let e = crate::check_params(&EWR_INFO, &Delta(bad)).unwrap_err();
            assert_eq!(e.path, "delta");
            assert!(e.message.contains("0 <= delta < 1"), "{}", e.message);
        }
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "allowed: 0 <= delta < 1")]
    fn the_arrival_rate_refuses_a_delta_of_one() {
        ArrivalRate::new(1.0);
    }

    #[test]
    fn the_sender_forgoes_fast_recovery_unless_asked() {
        let plain = build(&EwrParams::default());
        assert_eq!(plain.recovery_style(), RecoveryStyle::FastRetransmitOnly);
        let with = build(&EwrParams { fast_recovery: true, ..EwrParams::default() });
        assert_eq!(with.recovery_style(), RecoveryStyle::NewReno);
    }

    #[test]
    fn newreno_floor_grows_as_newreno_and_never_below_ocwnd() {
        let p = EwrParams { ack_rule: AckRule::NewrenoFloor, ..EwrParams::default() };
        let mut h = primed(p, 20.0);
        // The first ACK lifts cwnd to oCwnd = 20, the other 19 slow-start from there.
        assert_eq!(h.w.cwnd, 39.0 * SEG);
        h.w.ssthresh = 39.0 * SEG;
        ack_adv(&mut h, Some(20.0), 50 * MS);
        // Congestion avoidance (RFC 5681 eq. 3): cwnd += MSS*MSS/cwnd.
        assert!((h.w.cwnd - (39.0 * SEG + SEG / 39.0)).abs() < 1e-9);
        h.w.cwnd = 5.0 * SEG;
        ack_adv(&mut h, Some(20.0), 50 * MS);
        assert_eq!(h.w.cwnd, 20.0 * SEG);
    }

    #[test]
    fn mirror_source_recomputes_eq_1_to_3_from_echoed_arrival_times() {
        // One-segment ACKs whose data reached the receiver 1 ms apart (1e6 B/s), RTT 50 ms:
        // Eq. 3 gives 0.050 s * 1e6 B/s / 1000 B = 50 segments; the receiver advertises 7.
        let p = EwrParams { ocwnd_source: OcwndSource::Mirror, ..EwrParams::default() };
        let mut h = Harness::new(build(&p));
        for i in 0..20 {
            h.fill_window();
            h.snd_una += u64::from(MSS);
            h.now = i * MS + 25 * MS;
            h.rtt.on_sample(50 * MS);
            let s = AckSample {
                ack: h.snd_una,
                acked_bytes: u64::from(MSS),
                rtt: Some(50 * MS),
                rx_arrival: Some(i * MS),
                delivered: h.snd_una,
                adv_cwnd: Some(7000),
                ..AckSample::default()
            };
            h.call(|cc, w, cx| cc.on_ack(&s, w, cx));
        }
        assert!((crate::testing::var(&h, "bwe_bytes_per_s") - 1e6).abs() < 1e-6);
        assert!((h.w.cwnd - 50.0 * SEG).abs() < 1e-6);
    }
}
