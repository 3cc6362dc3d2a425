"""ns-3 as a second engine: the same scenario, run in ns-3 3.44 (its Python wheel through
cppyy), returning the same metrics and `Result`, with `"engine": "ns3"`.

    >>> sc = wtcp.load("scenarios/reference-simple2.toml")
    >>> sc.run(engine="ns3").flows[["name", "goodput_mbps", "timeouts"]]

`translate` maps a scenario to ns-3 objects and refuses what ns-3 cannot reproduce
faithfully (`Ns3TranslationError`, a `ScenarioError`); `run` runs it and collects the
metrics. Install with `pip install 'wtcp[ns3]'`.
"""

from wtcp.ns3.refuse import Ns3TranslationError, Ns3Unavailable
from wtcp.ns3.run import available, run_document
from wtcp.ns3.translate import plan

__all__ = ["Ns3TranslationError", "Ns3Unavailable", "available", "plan", "run_document"]
