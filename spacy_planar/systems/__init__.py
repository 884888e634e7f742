"""Transition systems, one module each, over the shared batched core (state.py)."""
from typing import Sequence

from .arc_eager import ArcEager
from .base import TransitionSystem, oracle_run, random_run
from .planar import Planar
from .swap import Swap
from .two_planar import TwoPlanar

SYSTEMS = {"arc-eager": ArcEager, "planar": Planar, "2-planar": TwoPlanar, "swap": Swap}


def make_system(name: str, labels: Sequence[str], root_label: str = "root", oracle: str = "lazy",
                encoding: str = "head+path") -> TransitionSystem:
    """A transition system by name: arc-eager (with a pseudo-projective
    ``encoding``), planar, 2-planar or swap (``oracle`` eager or lazy)."""
    if name not in SYSTEMS:
        raise ValueError(f"unknown transition system '{name}': expected one of {', '.join(SYSTEMS)}")
    if name == "arc-eager":
        return ArcEager(labels, root_label, encoding=encoding)
    if name == "swap":
        if oracle not in ("eager", "lazy"):
            raise ValueError(f"unknown swap oracle '{oracle}': expected eager or lazy")
        return Swap(labels, root_label, lazy=oracle == "lazy")
    return SYSTEMS[name](labels, root_label)


__all__ = ["ArcEager", "Planar", "TwoPlanar", "Swap", "TransitionSystem", "SYSTEMS", "make_system",
           "oracle_run", "random_run"]


def system_for_trees(name: str, trees, root_label: str = "root", oracle: str = "lazy",
                     encoding: str = "head+path") -> TransitionSystem:
    """A system whose labels are those of ``trees`` as the oracle will see them
    (arc-eager: with the pseudo-projective decorations, every one of them)."""
    probe = make_system(name, [], root_label, oracle, encoding)
    labels = sorted({label for h, l in trees for label in probe.prepare_tree(h, l)[1]})
    return make_system(name, labels, root_label, oracle, encoding)
