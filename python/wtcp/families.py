"""The families the algorithms are shown in (`wtcp algorithms`, the demo's panels, the
legend order of every figure)."""

from __future__ import annotations

# In legend order.
FAMILIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Loss-based baselines", ("newreno", "reno", "cubic")),
    ("Delay- and model-based", ("vegas", "veno", "bbr")),
    ("Bandwidth estimation and loss differentiation", ("westwood", "westwoodplus", "jersey", "newjersey", "prairie", "jtcp")),
    ("The five papers' schemes", ("taichung", "acc", "clap", "ewr", "njplus", "dynamic")),
    ("Today's baselines", ("c2tcp", "copa", "abc", "bbr3")),
)
OTHER = "Other algorithms"
USER = "Written in Python"


def family_of(name: str, user: bool = False) -> str:
    """The family `name` is shown in: a registered Python class's is `USER`, an algorithm
    of no family's `OTHER`."""
    if user:
        return USER
    return next((family for family, names in FAMILIES if name in names), OTHER)
