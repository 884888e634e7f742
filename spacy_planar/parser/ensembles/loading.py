"""How an ensemble's members are loaded: each member's transition parsers with the ensemble's
beam (a beam whose k best parses vote where the members hold parsers of different kinds, which are
reparsed). A member reads each Doc's words and sentences in its own vocab
(``io.doc_trees.words_copy``)."""
from __future__ import annotations

from pathlib import Path
from typing import Dict, Optional, Union

from spacy_planar.defaults import KBEST_BEAM
from spacy_planar.io.pipelines import of_factory, parser_kind, pipeline_components


def ensemble_beam(names) -> Optional[Dict]:
    """The transition parsers' beam in an ensemble of the pipelines ``names``: where they hold
    parsers of different kinds (reparsed), a beam of ``KBEST_BEAM`` whose k best parses vote;
    else None (their own)."""
    return {"beam_width": KBEST_BEAM} if len({parser_kind(name) for name in names}) > 1 else None


def beam_config(path: Union[str, Path], beam: Optional[Dict]) -> Dict:
    """``spacy.load``'s config overrides that give every planar_parser of the pipeline at
    ``path`` the settings ``beam`` (none where ``beam`` is None)."""
    ours = of_factory(pipeline_components(path), "planar_parser") if beam else []
    return {"components": {name: dict(beam) for name in ours}}
