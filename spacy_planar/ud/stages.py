"""Training in two stages: the taggers first, then the parser on their output.

UDPipe 1 and Stanza train the parser on the output of a tagger trained
before it; trained together in one ``spacy train``, a parser that reads the
taggers' predictions learns from them while they are still noise (docs/
decisions.md, 2026-11-25). A config asks for the stages by freezing
components that it builds from a factory (``[training] frozen_components``
naming a component with ``factory``, not ``source``): they have nothing to
be frozen at yet, so they are trained first.

- ``first_stage``: the config with only those components, nothing frozen,
  its score weights the components' own (so model-best is the best tagger).
- ``second_stage``: the config with each of them sourced from the first
  stage's pipeline (frozen, as the config says; annotating, if it lists
  them), the rest trained as the config says.

- ``target_stage``: after training on several treebanks, every component
  sourced from that pipeline and trained a few epochs on the target alone
  (docs/decisions.md, 2026-11-28: +0.4 LAS on the Septuagint's dev over the
  several-treebank pipeline it starts from).

Plain config work on Thinc's ``Config``; ``spacy-planar train`` runs the
stages (``cli/train.py``). spaCy's own ``spacy train`` on such a config
trains the parser on untrained taggers, which ``spacy-planar train``
exists to avoid.
"""
from __future__ import annotations

import copy
from pathlib import Path
from typing import List, Optional

from thinc.api import Config


def first_stage_components(config: Config) -> List[str]:
    """The components the config freezes but builds from a factory, in
    pipeline order: what a first stage trains (none: one stage)."""
    frozen = set(config.get("training", {}).get("frozen_components", []))
    components = config.get("components", {})
    return [name for name in config["nlp"]["pipeline"]
            if name in frozen and "factory" in components.get(name, {}) and "source" not in components[name]]


def first_stage(config: Config) -> Optional[Config]:
    """The config of the first stage (None when the config has one stage):
    the components of ``first_stage_components`` alone, none frozen or
    annotating, model-best chosen by every score their factories weigh, all
    weighted alike (UPOS, FEATS and XPOS all reach the parser; spaCy's own
    combination of a morphologizer's and a tagger's weights gives UPOS
    none)."""
    import spacy.pipeline.factories
    from spacy.language import Language

    if hasattr(spacy.pipeline.factories, "register_factories"):  # spaCy 3.8 registers its factories when first used
        spacy.pipeline.factories.register_factories()
    names = first_stage_components(config)
    if not names:
        return None
    stage = copy.deepcopy(config)
    stage["nlp"]["pipeline"] = names
    stage["components"] = {name: stage["components"][name] for name in names}
    stage["training"]["frozen_components"] = []
    stage["training"]["annotating_components"] = []
    import spacy_planar.parser  # noqa: F401  (registers this package's factories, entry points or not)
    import spacy_planar.ud  # noqa: F401

    factories = [stage["components"][name]["factory"] for name in names]
    scores = {key for factory in factories
              for key, weight in Language.get_factory_meta(factory).default_score_weights.items()
              if weight is not None}
    stage["training"]["score_weights"] = {key: round(1 / len(scores), 2) for key in sorted(scores)}
    stage["initialize"]["components"] = {name: settings for name, settings in
                                         stage["initialize"].get("components", {}).items() if name in names}
    return stage


def second_stage(config: Config, first: Path, trained: List[str]) -> Config:
    """The config of the second stage: each of ``first_stage_components``
    sourced from the pipeline at ``first``, where it was ``trained``; one the
    first stage left out (a treebank without that column) is left out here
    too, of the pipeline and of the training lists."""
    names = first_stage_components(config)
    stage = copy.deepcopy(config)
    absent = [name for name in names if name not in trained]
    stage["nlp"]["pipeline"] = [name for name in stage["nlp"]["pipeline"] if name not in absent]
    for key in ("frozen_components", "annotating_components"):
        stage["training"][key] = [name for name in stage["training"][key] if name not in absent]
    for name in names:
        del stage["components"][name]
        if name not in absent:
            stage["components"][name] = {"source": str(first)}
    return stage


def target_stage(trained: Path, epochs: int) -> Config:
    """The config of the target stage: the config of the pipeline at
    ``trained`` (a training on several treebanks) with every component
    sourced from it, ``epochs`` epochs on its target (``paths.train``)
    alone: ``paths.treebanks`` null, no step limit but the epochs."""
    from spacy.util import load_config

    stage = load_config(Path(trained) / "config.cfg", interpolate=False)
    for name in stage["nlp"]["pipeline"]:
        stage["components"][name] = {"source": str(Path(trained).resolve())}
    stage["paths"]["treebanks"] = None
    stage["training"]["max_epochs"] = epochs
    stage["training"]["max_steps"] = 0
    return stage
