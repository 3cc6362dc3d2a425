"""Reproduce the papers: each paper's experiments as sweeps over scenario files shipped in
`wtcp/papers/<paper>/`, figures in the paper's form, published-versus-measured claims and a
loss-classification scorecard.

    >>> from wtcp.reproduce import reproduce_paper, load_paper
    >>> from wtcp.sweep import InlineExecutor
    >>> outcome = reproduce_paper("njplus", Path("out"), InlineExecutor(), quick=True)
"""

from wtcp.reproduce.run import PaperOutcome, all_targets, reproduce_paper
from wtcp.reproduce.spec import Paper, PaperError, load_paper, paper_names

__all__ = ["reproduce_paper", "load_paper", "paper_names", "all_targets", "Paper", "PaperError", "PaperOutcome"]
