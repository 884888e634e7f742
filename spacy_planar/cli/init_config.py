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
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

import typer
from thinc.api import Config

from spacy_planar.defaults import LANG
from spacy_planar.cli._app import app, flag, msg, read_config
from spacy_planar.errors import Errors, UserError
from spacy_planar.io.conllu import atomic_output, check_input
from spacy_planar.parser.catalog import PARSERS

PARTS = Path(__file__).resolve().parents[1] / "partials"  # NAME.partial.cfg: part of a config, never one
# the laboratory's anchors' partials (``spacy-planar lab anchor-config``): spaCy's parser in our pipeline and
# spaCy's pipeline as `spacy init config` writes it, what the comparisons in docs/results.md set ours against
ANCHOR_PARTS = Path(__file__).resolve().parents[1] / "lab" / "partials"
# our systems (a partial config each, named as the system: catalog.PARSERS, the transition systems and the biaffine)
SYSTEM_CONFIGS = PARSERS
ANCHORS = ("spacy_parser", "spacy_parser_cnn", "spacy_parser_small", "spacy_beam_parser")
# a system whose partial only changes another's: that one is merged first
BUILDS_ON = {"spacy_beam_parser": "spacy_parser", "spacy_parser_cnn": "spacy_parser"}
# spaCy's parser exactly as `spacy init config` writes it: spaCy's own tok2vec, without base.partial.cfg's characters
SPACY_OWN_TOK2VEC = ("spacy_parser_cnn",)


TAGGERS = ["morphologizer", "tagger", "lemmatizer"]  # tagging.partial.cfg's, after the tok2vec
RAW_TEXT = ["multiword_tokens", "senter"]  # raw_text.partial.cfg's, before it


def _with_taggers(config: Config, base: Path, raw_text: bool) -> None:
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
    """The taggers trained first (``spacy_planar/stages.py``): the tok2vec,
    morphologizer and tagger frozen and annotating, so ``spacy-planar
    train`` trains them in a first stage; the parser gets an encoder of its
    own (a copy of the tok2vec's architecture, its variables pointed at the
    copy) and reads their predictions one feature at a time
    (``spacy-planar.WithMorphology.v1``)."""
    taggers = ["tok2vec", *TAGGERS]
    config["training"]["frozen_components"] = taggers
    config["training"]["annotating_components"] = ["tok2vec", "morphologizer", "tagger"]  # what the parser reads
    here = "components.planar_parser.model.tok2vec.tok2vec"
    encoder = Config().from_str(config.copy().to_str().replace("${components.tok2vec.model", "${" + here),
                                interpolate=False)["components"]["tok2vec"]["model"]
    config["components"]["planar_parser"]["model"]["tok2vec"] = {
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


def _spacys_own(config: Config) -> None:
    """spaCy's pipeline as ``spacy init config`` writes it, on the gold
    words: the tok2vec without base.partial.cfg's character CNN (the embedding
    ``spacy-planar.CharEmbed.v3`` wraps) and as spaCy's ``Tok2Vec.v2``,
    spaCy's corpus reader with ``gold_preproc``, spaCy's matrix products
    (blis: no ``numpy_blas``)."""
    model = config["components"]["tok2vec"]["model"]
    if model["embed"].get("@architectures") == "spacy-planar.CharEmbed.v3":
        model["embed"] = model["embed"]["embed"]
    model["@architectures"] = "spacy.Tok2Vec.v2"
    for split in ("train", "dev"):
        config["corpora"][split] = {"@readers": "spacy.Corpus.v1", "path": f"${{paths.{split}}}", "max_length": 0,
                                    "gold_preproc": True, "limit": 0, "augmenter": None}
    config["nlp"]["after_pipeline_creation"] = None


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


def merged_config(system: str, base: Optional[Path] = None, variant: Variant = Variant(),
                  anchor: bool = False) -> Config:
    """The config of ``system`` (one of ``SYSTEM_CONFIGS``; with ``anchor``,
    one of the laboratory's ``ANCHORS``) before filling:
    ``base`` (default: the package's base.partial.cfg) merged with the system's
    partial (after the partial it builds on, ``BUILDS_ON``) and, with
    ``variant.tagging``, the taggers' partial (tagging.partial.cfg: a morphologizer
    and a tagger sharing the tok2vec, after it in the pipeline). The systems
    of ``SPACY_OWN_TOK2VEC`` take the tok2vec without its character CNN
    (``_spacys_own``). ``taggers_first`` (with ``tagging``): the taggers
    trained first, the parser reading their output (``_taggers_first``);
    ``transformer``: transformer.partial.cfg's encoder for the tok2vec
    (``_with_transformer``). Variables are left as they are."""
    names = ANCHORS if anchor else SYSTEM_CONFIGS
    if system not in names:
        raise UserError(Errors.E080.format(system=system, options=", ".join(names)))
    base_path = PARTS / "base.partial.cfg" if base is None else Path(base)
    check_input(base_path)
    config = read_config(base_path)
    for part in _parts(system, variant):
        folder = ANCHOR_PARTS if part in ANCHORS else PARTS
        config = config.merge(read_config(folder / f"{part}.partial.cfg"))
    if variant.tagging:
        _with_taggers(config, base_path, raw_text=system not in SPACY_OWN_TOK2VEC)
    if system in SPACY_OWN_TOK2VEC:
        _spacys_own(config)
    if variant.taggers_first:
        if not variant.tagging or "planar_parser" not in config["components"] or variant.transformer:
            raise UserError(Errors.E122.format(system=system))
        _taggers_first(config)
    if variant.transformer:
        if variant.accurate:
            raise UserError(Errors.E135)
        _with_transformer(config)
    return config


def _parts(system: str, variant: Variant) -> List[str]:
    """The partial configs merged over base.partial.cfg, in order."""
    ud = (["tagging"] + (["raw_text"] if system not in SPACY_OWN_TOK2VEC else [])) if variant.tagging else []
    return ([name for name in (BUILDS_ON.get(system), system) if name] + ud + (["accurate"] if variant.accurate else [])
            + (["transformer"] if variant.transformer else []))


def config_text(system: str, base: Optional[Path] = None, variant: Variant = Variant(), lang: str = LANG,
                anchor: bool = False) -> str:
    """The text of the training config of ``system``: ``merged_config``
    filled by spaCy's ``fill_config`` (every default written out), for the
    language ``lang`` (E132 for one spaCy does not know). A transformer
    config needs spacy-transformers (E123 without it)."""
    from spacy.cli.init_config import fill_config
    from spacy.util import get_lang_class

    if variant.transformer and importlib.util.find_spec("spacy_transformers") is None:
        raise UserError(Errors.E123)
    try:
        get_lang_class(lang)
    except ImportError:
        raise UserError(Errors.E132.format(lang=lang)) from None
    config = merged_config(system, base, variant, anchor)
    config["nlp"]["lang"] = lang
    with tempfile.TemporaryDirectory() as tmp:
        merged, filled = Path(tmp) / "merged.cfg", Path(tmp) / "filled.cfg"
        config.to_disk(merged, interpolate=False)
        fill_config(filled, merged, silent=True)
        text = filled.read_text(encoding="utf-8")
    parts = " and ".join(f"spacy_planar/{'lab/' if p in ANCHORS else ''}partials/{p}.partial.cfg"
                         for p in _parts(system, variant))
    flags = variant.flags() + (f" --lang {lang}" if lang != LANG else "")
    command = "lab anchor-config" if anchor else "init-config"
    return (f"# spacy-planar {command} {system}{flags}: base.partial.cfg and {parts}, every default written out"
            f"{' (without its character CNN)' if system in SPACY_OWN_TOK2VEC else ''}\n{text.rstrip()}\n")


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
