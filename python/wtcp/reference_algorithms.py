"""Algorithms written in Python that restate built-in ones, line for line: the check that
a Python algorithm goes through the same sender as a Rust one (results bit-identical), the
speed benchmark's subject, and a template to start from. Not registered on import:
`wtcp.register(PyNewReno)`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wtcp.algorithm import Algorithm


HALVE = ("flight_size", "cwnd", "pipe")


def halved(x: float, mss: float) -> float:
    """RFC 5681 eq. 4: ssthresh = max(x/2, 2*SMSS)."""
    return max(x / 2.0, 2.0 * mss)


class PyNewReno(Algorithm):
    """NewReno (RFC 5681 growth, RFC 6582 recovery) as the built-in `newreno` with its
    default growth (crates/wtcp-cc/src/reno.rs: per ACK, no byte counting), its `halve` and
    `ecn` parameters, and one ECN response per window."""

    name = "py_newreno"
    reference = "RFC 5681, RFC 6582; restates crates/wtcp-cc/src/reno.rs"
    recovery_style = "newreno"
    # As the built-in's: what a loss halves (RFC 5681 FlightSize, ns-2/Linux cwnd, ns-3's
    # pipe) and whether ECN echoes are answered.
    params = {"halve": "flight_size", "ecn": True}

    @classmethod
    def check_params(cls, params: Mapping[str, Any]) -> str | None:
        if params["halve"] not in HALVE:
            return f"`halve` is {params['halve']!r}; allowed: {', '.join(map(repr, HALVE))}"
        return None

    def init(self, w: Any, cx: Any) -> None:
        # SND.MAX at the last reduction (RFC 3168 §6.1.2: one response per window).
        self.recover = 0

    def halve_base(self, w: Any, cx: Any) -> float:
        if self.halve == "cwnd":
            return w.cwnd
        return float(cx.pipe if self.halve == "pipe" else cx.flight_size)

    def on_ack(self, ack: Any, w: Any, cx: Any) -> None:
        if ack.dup or ack.in_recovery or ack.acked_bytes == 0:
            return
        mss = float(cx.mss)
        if w.cwnd < w.ssthresh:
            # Slow start (RFC 5681 eq. 2): min(N, SMSS), never past ssthresh.
            step = min(float(ack.acked_bytes), mss)
            room = max(w.ssthresh - w.cwnd, 0.0)
            w.cwnd += step if step <= room else room
            return
        # Congestion avoidance (RFC 5681 eq. 3).
        w.cwnd += mss * mss / max(w.cwnd, mss)

    def on_recovery_exit_growth(self, ack: Any, w: Any, cx: Any) -> None:
        # With `tcp.recovery_exit_growth` (ns-3's IncreaseWindow on the exit ACK).
        self.on_ack(ack, w, cx)

    def on_loss(self, loss: Any, w: Any, cx: Any) -> None:
        mss = float(cx.mss)
        if loss.kind == "fast_retransmit":
            w.ssthresh = halved(self.halve_base(w, cx), mss)
            w.cwnd = w.ssthresh
        else:
            # RFC 5681 §3.1: ssthresh only on the first expiry; cwnd = LW = 1 SMSS.
            if loss.consecutive <= 1:
                w.ssthresh = halved(self.halve_base(w, cx), mss)
            w.cwnd = mss
        self.recover = cx.snd_max

    def on_signal(self, signal: Any, w: Any, cx: Any) -> None:
        # RFC 3168 §6.1.2: halve FlightSize at most once per window, no retransmission.
        if signal.kind == "congestion_mark" and self.ecn and cx.snd_una >= self.recover:
            w.ssthresh = halved(float(cx.flight_size), float(cx.mss))
            w.cwnd = w.ssthresh
            self.recover = cx.snd_max
