"""``init-config``: a training config from the shared base and one parser's partial.

The planar_parser factory's default config is the recommended parser; each
partial (``spacy_planar/configs/SYSTEM.cfg``) says only what differs from it
(and from base.cfg). A training config is base.cfg merged with the partial
by Thinc's ``Config.merge``, then filled as ``spacy init fill-config`` fills
it: every setting a factory or a registered function has is written out, so
the config says everything it trains with. ``configs/`` in the repository
holds what this writes for each system (tests/test_configs.py checks
them against it).
"""
from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Optional

import typer
from thinc.api import Config, ConfigValidationError

from ..conllu_io import atomic_output, check_input
from ..errors import Errors, UserError
from ._app import USER_ERRORS, app, fail, flag, msg

PARTS = Path(__file__).resolve().parents[1] / "configs"
SYSTEM_CONFIGS = ("arc_eager", "planar", "two_planar", "swap", "top_down", "spacy_parser", "spacy_parser_cnn",
                  "spacy_parser_small", "spacy_beam_parser")
# a system whose partial only changes another's: that one is merged first
BUILDS_ON = {"spacy_beam_parser": "spacy_parser", "spacy_parser_cnn": "spacy_parser"}
# spaCy's parser exactly as `spacy init config` writes it: spaCy's own tok2vec, without base.cfg's characters
SPACY_OWN_TOK2VEC = ("spacy_parser_cnn",)


def _with_taggers(config: Config, base: Path) -> None:
    """Put the morphologizer and the tagger right after the tok2vec in
    ``[nlp] pipeline`` (E086 where there is no tok2vec)."""
    pipeline = list(config["nlp"]["pipeline"])
    if "tok2vec" not in pipeline:
        raise UserError(Errors.E086.format(base=base, pipeline=pipeline))
    at = pipeline.index("tok2vec") + 1
    config["nlp"]["pipeline"] = pipeline[:at] + ["morphologizer", "tagger"] + pipeline[at:]


def _read(path: Path) -> Config:
    """A config file as it is written (no interpolation); one that is not a
    config is bad input (E088)."""
    try:
        return Config().from_disk(path, interpolate=False)
    except ConfigValidationError as e:
        raise UserError(Errors.E088.format(path=path, reason=" ".join(str(e).split()))) from None


def _without_chars(config: Config) -> None:
    """The tok2vec's embedding without base.cfg's character CNN: the
    embedding ``spacy-planar.CharEmbed.v2`` wraps (spaCy's own tok2vec)."""
    model = config["components"]["tok2vec"]["model"]
    if model["embed"].get("@architectures") in ("spacy-planar.CharEmbed.v1", "spacy-planar.CharEmbed.v2"):
        model["embed"] = model["embed"]["embed"]


def merged_config(system: str, base: Optional[Path] = None, tagging: bool = False) -> Config:
    """The config of ``system`` (one of ``SYSTEM_CONFIGS``) before filling:
    ``base`` (default: the package's base.cfg) merged with the system's
    partial (after the partial it builds on, ``BUILDS_ON``) and, with
    ``tagging``, the taggers' partial (tagging.cfg: a morphologizer and a
    tagger sharing the tok2vec, after it in the pipeline). The systems of
    ``SPACY_OWN_TOK2VEC`` take the tok2vec without its character CNN
    (``_without_chars``). Variables are left as they are."""
    if system not in SYSTEM_CONFIGS:
        raise UserError(Errors.E080.format(system=system, options=", ".join(SYSTEM_CONFIGS)))
    base_path = PARTS / "base.cfg" if base is None else Path(base)
    check_input(base_path)
    config = _read(base_path)
    for part in [name for name in (BUILDS_ON.get(system), system) if name] + (["tagging"] if tagging else []):
        config = config.merge(_read(PARTS / f"{part}.cfg"))
    if tagging:
        _with_taggers(config, base_path)
    if system in SPACY_OWN_TOK2VEC:
        _without_chars(config)
    return config


def config_text(system: str, base: Optional[Path] = None, tagging: bool = False) -> str:
    """The text of the training config of ``system``: ``merged_config``
    filled by spaCy's ``fill_config`` (every default written out)."""
    from spacy.cli.init_config import fill_config

    config = merged_config(system, base, tagging)
    with tempfile.TemporaryDirectory() as tmp:
        merged, filled = Path(tmp) / "merged.cfg", Path(tmp) / "filled.cfg"
        config.to_disk(merged, interpolate=False)
        fill_config(filled, merged, silent=True)
        text = filled.read_text(encoding="utf-8")
    name = f"{system} --tagging" if tagging else system
    parts = " and ".join([f"spacy_planar/configs/{p}.cfg" for p in (BUILDS_ON.get(system), system) if p]
                         + (["tagging.cfg"] if tagging else []))
    return (f"# spacy-planar init-config {name}: base.cfg and {parts}, every default written out"
            f"{' (without its character CNN)' if system in SPACY_OWN_TOK2VEC else ''}\n{text.rstrip()}\n")


@app.command("init-config")
def init_config(
    system: str = typer.Argument(..., help="|".join(SYSTEM_CONFIGS)),
    output_path: Path = typer.Argument(..., help="Where to write the config (.cfg)"),
    base: Optional[Path] = typer.Option(None, "--base", "-b", help="Your own base config instead of the shipped one"),
    tagging: bool = flag(False, "--tagging", "-t", help="Add a morphologizer (UPOS + FEATS) and a tagger "
                                 "(XPOS) sharing the tok2vec, trained with the parser"),
) -> None:
    """Write a training config: the shared base merged with one parser's partial.

    Write a training config: the shared base (tok2vec, corpora, training)
    merged with one parser's partial config, every default written out;
    ``--tagging`` adds a morphologizer and a tagger for UD treebanks (words
    in; heads, labels, UPOS, FEATS and XPOS out)."""
    try:
        text = config_text(system, base, tagging)
    except USER_ERRORS as e:
        fail(str(e))
    with atomic_output(output_path) as f:
        f.write(text)
    msg.good(f"Wrote {output_path}")
