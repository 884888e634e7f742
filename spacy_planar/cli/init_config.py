"""``init-config``: a training config from the shared base and one parser's partial.

The planar_parser factory's default config is the recommended parser; each
partial (``spacy_planar/partials/SYSTEM.partial.cfg``) says only what differs from it
(and from base.partial.cfg). A training config is base.partial.cfg merged with the partial
by Thinc's ``Config.merge``, then filled as ``spacy init fill-config`` fills
it: every setting a factory or a registered function has is written out, so
the config says everything it trains with. ``configs/`` in the repository
holds what this writes for each system (tests/test_configs.py checks
them against it).
"""
from __future__ import annotations

import importlib.util
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Tuple

import typer
from thinc.api import Config

from spacy_planar.defaults import LANG
from spacy_planar.cli._app import app, flag, msg, read_config
from spacy_planar.errors import Errors, UserError
from spacy_planar.io.conllu import atomic_output, check_input
from spacy_planar.io.pipelines import config_parser
from spacy_planar.parser.transition.catalog import PARSERS

PARTS = Path(__file__).resolve().parents[1] / "partials"  # NAME.partial.cfg: part of a config, never one
# our systems (a partial config each, named as the system: catalog.PARSERS, the transition systems and the biaffine),
# and the joint pipeline of two (arc-eager and the biaffine on one encoder): the partials each merges, in order
SYSTEM_PARTS = {**{name: [name] for name in PARSERS}, "joint": ["arc_eager", "biaffine", "joint"]}
SYSTEM_CONFIGS = tuple(SYSTEM_PARTS)


TAGGERS = ["morphologizer", "tagger", "lemmatizer"]  # tagging.partial.cfg's, after the tok2vec
RAW_TEXT = ["multiword_tokens", "senter"]  # raw_text.partial.cfg's, before it


def _with_taggers(config: Config, base: Path, raw_text: bool = True) -> None:
    """Put the taggers (``TAGGERS``) right after the tok2vec in ``[nlp]
    pipeline``, and with ``raw_text`` the treebank's words and sentences
    (``RAW_TEXT``) right before it; without (spaCy's own pipeline), no
    lemmatizer (E086 where there is no tok2vec)."""
    pipeline = list(config["nlp"]["pipeline"])
    if "tok2vec" not in pipeline:
        raise UserError(Errors.E086.format(base=base, pipeline=pipeline))
    at = pipeline.index("tok2vec")
    config["nlp"]["pipeline"] = (pipeline[:at] + (RAW_TEXT if raw_text else []) + [pipeline[at]] + TAGGERS
                                 + pipeline[at + 1:])
    if not raw_text:  # spaCy's own pipeline: its init config's taggers, no lemmatizer of ours
        config["nlp"]["pipeline"].remove("lemmatizer")
        del config["components"]["lemmatizer"]
        config["training"]["score_weights"].pop("lemma_acc", None)


def _taggers_first(config: Config) -> None:
    """The taggers trained first (``ud/stages.py``): the tok2vec,
    morphologizer and tagger frozen and annotating, so ``spacy-planar
    train`` trains them in a first stage; the parser gets an encoder of its
    own (a copy of the tok2vec's architecture, its variables pointed at the
    copy) and reads their predictions one feature at a time
    (``spacy-planar.WithMorphology.v1``)."""
    taggers = ["tok2vec", *TAGGERS]
    config["training"]["frozen_components"] = taggers
    config["training"]["annotating_components"] = ["tok2vec", "morphologizer", "tagger"]  # what the parser reads
    parser = config_parser(config["components"])
    here = f"components.{parser}.model.tok2vec.tok2vec"
    encoder = Config().from_str(config.copy().to_str().replace("${components.tok2vec.model", "${" + here),
                                interpolate=False)["components"]["tok2vec"]["model"]
    config["components"][parser]["model"]["tok2vec"] = {
        "@architectures": "spacy-planar.WithMorphology.v1", "width": 64, "rows": 4000, "tok2vec": encoder}


LISTENER = {"@architectures": "spacy-transformers.TransformerListener.v1", "grad_factor": 1.0, "upstream": "*",
            "pooling": {"@layers": "reduce_mean.v1"}}


def _with_transformer(config: Config) -> None:
    """transformer.partial.cfg's ``transformer`` in the tok2vec's place in the
    pipeline, every ``spacy.Tok2VecListener.v1`` replaced by spacy-
    transformers' listener (``LISTENER``); spaCy's pretraining of the
    tok2vec, which has none, left out."""
    del config["components"]["tok2vec"]
    config["nlp"]["pipeline"] = ["transformer" if name == "tok2vec" else name for name in config["nlp"]["pipeline"]]
    config.pop("pretraining", None)
    config["corpora"].pop("pretrain", None)

    def relisten(node: dict) -> None:
        for key, value in node.items():
            if isinstance(value, dict):
                if value.get("@architectures") == "spacy.Tok2VecListener.v1":
                    node[key] = dict(LISTENER)
                else:
                    relisten(value)

    relisten(config["components"])


@dataclass(frozen=True)
class Variant:
    """What ``init-config`` adds to a system's config: the taggers
    (``tagging``), the accurate tier's encoder (``accurate``: accurate.partial.cfg),
    the taggers trained first (``taggers_first``), a pretrained transformer
    as the shared encoder (``transformer``)."""
    tagging: bool = False
    accurate: bool = False
    taggers_first: bool = False
    transformer: bool = False

    def flags(self) -> str:
        return "".join(f" --{name.replace('_', '-')}" for name, on in vars(self).items() if on)


def merged_config(system: str, base: Optional[Path] = None, variant: Variant = Variant()) -> Config:
    """The config of ``system`` (one of ``SYSTEM_CONFIGS``) before filling:
    ``base`` (default: the package's base.partial.cfg) merged with the system's
    partial and, with ``variant.tagging``, the UD pipeline's (tagging.partial.cfg,
    raw_text.partial.cfg: a morphologizer, a tagger and a lemmatizer sharing the
    tok2vec, after it in the pipeline; multiword tokens and the senter before
    it); ``variant.accurate``: accurate.partial.cfg last. ``taggers_first``
    (with ``tagging``): the taggers trained first, the parser reading their
    output (``_taggers_first``); ``transformer``: transformer.partial.cfg's
    encoder for the tok2vec (``_with_transformer``). Variables are left as they are."""
    if system not in SYSTEM_CONFIGS:
        raise UserError(Errors.E080.format(system=system, options=", ".join(SYSTEM_CONFIGS)))
    config, base_path = merge_parts([PARTS / f"{part}.partial.cfg" for part in [*SYSTEM_PARTS[system],
                                                                                 *variant_parts(variant)]], base)
    if variant.tagging:
        _with_taggers(config, base_path, raw_text=True)
    if variant.taggers_first:
        if not variant.tagging or config_parser(config["components"]) is None or variant.transformer:
            raise UserError(Errors.E122.format(system=system))
        _taggers_first(config)
    if variant.transformer:
        if variant.accurate:
            raise UserError(Errors.E135)
        _with_transformer(config)
    return config


def merge_parts(parts: List[Path], base: Optional[Path] = None) -> Tuple[Config, Path]:
    """``base`` (default: the package's base.partial.cfg) merged with each of ``parts`` in
    order (Thinc's ``Config.merge``), and the base's path."""
    base_path = PARTS / "base.partial.cfg" if base is None else Path(base)
    check_input(base_path)
    config = read_config(base_path)
    for part in parts:
        config = config.merge(read_config(part))
    return config, base_path


def variant_parts(variant: Variant, raw_text: bool = True) -> List[str]:
    """The partial configs a variant merges after the system's, in order."""
    ud = (["tagging"] + (["raw_text"] if raw_text else [])) if variant.tagging else []
    return ud + (["accurate"] if variant.accurate else []) + (["transformer"] if variant.transformer else [])


def filled_text(config: Config, lang: str, header: str) -> str:
    """The text of a training config: ``config`` filled by spaCy's ``fill_config``
    (every default written out) for the language ``lang`` (E132 for one spaCy does
    not know), under the comment ``header``."""
    from spacy.cli.init_config import fill_config
    from spacy.util import get_lang_class

    try:
        get_lang_class(lang)
    except ImportError:
        raise UserError(Errors.E132.format(lang=lang)) from None
    config["nlp"]["lang"] = lang
    with tempfile.TemporaryDirectory() as tmp:
        merged, filled = Path(tmp) / "merged.cfg", Path(tmp) / "filled.cfg"
        config.to_disk(merged, interpolate=False)
        fill_config(filled, merged, silent=True)
        text = filled.read_text(encoding="utf-8")
    text = re.sub(r"\n\[pretraining\]\n(?=\n|\[|$)", "\n", text)  # spaCy's empty section: no pretraining here
    return f"# {header}\n{text.rstrip()}\n"


def config_text(system: str, base: Optional[Path] = None, variant: Variant = Variant(), lang: str = LANG) -> str:
    """The text of the training config of ``system`` (``merged_config``,
    ``filled_text``). A transformer config needs spacy-transformers (E123 without it)."""
    if variant.transformer and importlib.util.find_spec("spacy_transformers") is None:
        raise UserError(Errors.E123)
    config = merged_config(system, base, variant)
    parts = " and ".join(f"spacy_planar/partials/{p}.partial.cfg" for p in [*SYSTEM_PARTS[system],
                                                                             *variant_parts(variant)])
    flags = variant.flags() + (f" --lang {lang}" if lang != LANG else "")
    return filled_text(config, lang, f"spacy-planar init-config {system}{flags}: base.partial.cfg and {parts}, "
                                     "every default written out")


@app.command("init-config")
def init_config(
    system: str = typer.Argument(..., help="|".join(SYSTEM_CONFIGS)),
    output_path: Path = typer.Argument(..., help="Where to write the config (.cfg)"),
    base: Optional[Path] = typer.Option(None, "--base", "-b", help="Your own base config instead of the shipped one"),
    tagging: bool = flag(False, "--tagging", "-t", help="The UD pipeline: multiword tokens, a senter, a "
                                 "morphologizer (UPOS + FEATS), a tagger (XPOS) and a lemmatizer sharing the "
                                 "tok2vec, trained with the parser"),
    accurate: bool = flag(False, "--accurate", help="The accurate tier: the shared encoder sized for accuracy "
                          "(accurate.partial.cfg; slower to train and to parse, README's table)"),
    taggers_first: bool = flag(False, "--taggers-first", help="With --tagging: train the taggers first, then "
                               "the parser (its own encoder) on their predictions (spacy-planar train runs both)"),
    transformer: bool = flag(False, "--transformer", help="A pretrained transformer (spacy-transformers; "
                             "--paths.transformer, XLM-RoBERTa base unless given) as the shared encoder"),
    lang: str = typer.Option(LANG, "--lang", "-l", help="The pipeline's language (its tokenizer for raw text, "
                             "the vectors' language, the package's name); xx: multilingual"),
) -> None:
    """Write a training config: the shared base merged with one parser's partial.

    Write a training config: the shared base (tok2vec, corpora, training)
    merged with one parser's partial config, every default written out;
    ``--tagging`` adds a morphologizer and a tagger for UD treebanks (words
    in; heads, labels, UPOS, FEATS and XPOS out)."""
    text = config_text(system, base, Variant(tagging=tagging, accurate=accurate, taggers_first=taggers_first,
                                             transformer=transformer), lang)
    with atomic_output(output_path) as f:
        f.write(text)
    msg.good(f"Wrote {output_path}")
