"""The transition systems, one description each.

A :class:`SystemSpec` says everything the rest of the package needs to know
of a system: its one name (the config's stem, ``spacy-planar.NAME.v1`` in
the registry, ``--system NAME`` on the command line), its class (the
paper's table, ``systems/``), its oracle (``oracles/``), the options a
config gives it and what it supports. ``SYSTEMS``, ``make_system``,
``make_oracle``, the registered ``transition_systems`` functions,
``init-config``'s systems, ``bench oracle`` and ``analyse oracle`` are
derived from ``SPECS``; nothing else lists the systems.

The names are written with underscores (``arc_eager``, ``two_planar``,
``top_down``), as the configs and the registry have them.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Callable, Dict, Sequence, Tuple

from spacy.util import registry

from spacy_planar.defaults import PARSER_FACTORIES, ROOT_LABEL
from spacy_planar.errors import Errors, UnexpectedError, UserError
from spacy_planar.parser.oracles import ArcEagerOracle, Oracle, PlanarOracle, SwapOracle, TopDownOracle, TwoPlanarOracle
from spacy_planar.parser.systems import ArcEager, Planar, Swap, TopDown, TransitionSystem, Tree, TwoPlanar
from spacy_planar.parser.systems.registry import Configured
from spacy_planar.parser.systems.state import States
from spacy_planar.parser.systems.swap import SWAP_ORACLES, check_oracle
from spacy_planar.trees.pseudoproj import check_encoding

# the options' defaults: here only (the registered functions'); the lab's analyse reads them
ENCODING, SWAP_ORACLE, PRED_SIZE = "head+path", "lazy", 5


def arc_eager(encoding: str = ENCODING) -> Configured:
    """Arc-eager (Nivre 2003) on pseudo-projective trees (Nivre & Nilsson 2005),
    with the encoding baseline, head, path or head+path."""
    return Configured(ArcEager, encoding=check_encoding(encoding))


def planar() -> Configured:
    """The planar system (Gómez-Rodríguez & Nivre 2010, section 4)."""
    return Configured(Planar)


def two_planar() -> Configured:
    """The 2-planar system with two stacks and SWITCH (Gómez-Rodríguez & Nivre 2010, section 5)."""
    return Configured(TwoPlanar)


def swap(oracle: str = SWAP_ORACLE) -> Configured:
    """The swap system (Nivre 2009) trained with the eager or the lazy oracle
    (Nivre, Kuhlmann & Hall 2009)."""
    return Configured(Swap, oracle=check_oracle(oracle))


def top_down(encoding: str = ENCODING, pred_size: int = PRED_SIZE) -> Configured:
    """Top-down head-driven parsing (Hayashi et al. 2012) on pseudo-projective
    trees, with weighted prediction: needs the model's arc scorer
    (``arc_width``). ``pred_size``: with a beam, the predictions kept per
    state (section 5.2; 0: all)."""
    return Configured(TopDown, encoding=check_encoding(encoding), pred_size=int(pred_size))


@dataclass(frozen=True)
class SystemSpec:
    """One transition system: ``name``, its ``system`` class and ``oracle``
    class, ``configure`` (the registered function: the config's options ->
    the configured class), ``variants`` (the option sets ``bench oracle``
    and ``lab oracle`` run: swap's two oracles). Every system parses with a beam;
    ``explores`` (a dynamic oracle: training with exploration) and
    ``reads_tags`` (top-down's FIRST lookahead) come from its class."""
    name: str
    system: type
    oracle: type
    configure: Callable[..., Configured]
    variants: Tuple[Tuple[str, Dict], ...] = (("", {}),)

    @property
    def registry_name(self) -> str:
        return f"spacy-planar.{self.name}.v1"

    @property
    def explores(self) -> bool:
        return bool(self.system.dynamic_oracle)

    @property
    def reads_tags(self) -> bool:
        return bool(self.system.reads_tags)

    @property
    def oracles(self) -> Tuple[str, ...]:
        """The oracles its variants choose between (swap's eager and lazy: ``--oracle``), or none."""
        return tuple(options["oracle"] for _, options in self.variants if "oracle" in options)

    @property
    def encoded(self) -> bool:
        """Whether it parses through the pseudo-projective encodings (``--encoding``)."""
        from spacy_planar.parser.systems.base import PseudoProjective

        return issubclass(self.system, PseudoProjective)


SPECS: Tuple[SystemSpec, ...] = (
    SystemSpec("arc_eager", ArcEager, ArcEagerOracle, arc_eager),
    SystemSpec("planar", Planar, PlanarOracle, planar),
    SystemSpec("two_planar", TwoPlanar, TwoPlanarOracle, two_planar),
    SystemSpec("swap", Swap, SwapOracle, swap,
               variants=tuple((f"{o} oracle", {"oracle": o}) for o in SWAP_ORACLES)),
    SystemSpec("top_down", TopDown, TopDownOracle, top_down),
)
# the systems' classes by name
SYSTEMS: Dict[str, type] = {spec.name: spec.system for spec in SPECS}
# the graph-based parser beside them (Dozat & Manning 2017: ``biaffine_parser``, ``parser/graph/component.py``): no
# moves and no oracle, so no SystemSpec; init-config writes its config as a system's (partials/biaffine.partial.cfg)
GRAPH_SYSTEMS: Tuple[str, ...] = ("biaffine",)
# every parser a config can name: the transition systems, then the graph-based
PARSERS: Tuple[str, ...] = (*SYSTEMS, *GRAPH_SYSTEMS)

_BY_CLASS: Dict[type, SystemSpec] = {spec.system: spec for spec in SPECS}

for _spec in SPECS:  # the functions a config's [components.planar_parser.transition_system] names
    registry.transition_systems.register(_spec.registry_name, func=_spec.configure)


def spec_of(name: str) -> SystemSpec:
    """The description of the system ``name``; E070 for no system of that name."""
    for spec in SPECS:
        if spec.name == name:
            return spec
    raise UserError(Errors.E070.format(name=name, options=", ".join(SYSTEMS)))


def make_system(name: str, labels: Sequence[str], root_label: str = ROOT_LABEL, **options) -> TransitionSystem:
    """A transition system by name (``SPECS``) with its options (arc_eager
    and top_down: ``encoding``; swap: ``oracle``), the others as the
    registered function's defaults (``configure``) say; what training
    learned (``features``, ``label_features``, top-down's ``first``) goes to
    the constructor."""
    spec = spec_of(name)
    takes = inspect.signature(spec.configure).parameters
    configured = spec.configure(**{k: v for k, v in options.items() if k in takes})
    return configured(labels, root_label, **{k: v for k, v in options.items() if k not in takes})


def system_for_trees(name: str, trees: Sequence[Tree], root_label: str = ROOT_LABEL, **options) -> TransitionSystem:
    """A system whose labels are those of ``trees`` as the oracle will see them
    (arc_eager: with the pseudo-projective decorations, every one of them)."""
    probe = make_system(name, [], root_label, **options)
    labels = sorted({label for h, l in trees for label in probe.prepare_tree(h, l)[1]})
    return make_system(name, labels, root_label, **options)


def make_oracle(system: TransitionSystem, st: States, trees: Sequence) -> Oracle:
    """The oracle of ``system`` over the batch ``st`` of the gold ``trees``
    (prepared and labelled as ids: ``system.label_tree(system.prepare_tree(...))``)."""
    if type(system) not in _BY_CLASS:
        raise UnexpectedError(Errors.E075.format(system=type(system).__name__))
    return _BY_CLASS[type(system)].oracle(system, st, trees)


__all__ = ["SystemSpec", "SPECS", "SYSTEMS", "GRAPH_SYSTEMS", "PARSERS", "PARSER_FACTORIES", "spec_of", "make_system",
           "system_for_trees", "make_oracle"]
