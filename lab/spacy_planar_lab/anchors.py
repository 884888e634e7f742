"""The anchors that every comparison in docs/results.md names: spaCy's parser in our pipeline and
spaCy's pipeline as ``spacy init config`` writes it (``lab anchor-config``: their training configs,
``configs/anchors/``), and UDPipe 1 trained on the same sentences (``lab udpipe1``)."""
from __future__ import annotations

import time
from pathlib import Path
from typing import List, Optional

import typer
from thinc.api import Config

from spacy_planar.cli._app import flag, msg
from spacy_planar_lab._app import lab_app
from spacy_planar.cli.init_config import PARTS, Variant, _with_taggers, filled_text, merge_parts, variant_parts
from spacy_planar.defaults import LANG
from spacy_planar.errors import Errors, UserError
from spacy_planar.io.conllu import atomic_output, check_input, read_conllu


# the anchors' partials: spaCy's parser in our pipeline and spaCy's pipeline as `spacy init config` writes it,
# what the comparisons in docs/results.md set ours against
ANCHOR_PARTS = Path(__file__).resolve().parent / "partials"
ANCHORS = ("spacy_parser", "spacy_parser_cnn", "spacy_parser_small", "spacy_beam_parser")
# an anchor whose partial only changes another's: that one is merged first
BUILDS_ON = {"spacy_beam_parser": "spacy_parser", "spacy_parser_cnn": "spacy_parser"}
# spaCy's parser exactly as `spacy init config` writes it: spaCy's own tok2vec, without base.partial.cfg's characters
SPACY_OWN_TOK2VEC = ("spacy_parser_cnn",)


def anchor_config_text(anchor: str, variant: Variant, lang: str = LANG) -> str:
    """The training config of one of ``ANCHORS``: base.partial.cfg merged with
    its partial (after the one it builds on) and, with ``variant.tagging``,
    the taggers (the UD pipeline's; spaCy's own pipeline without our raw-text
    components and lemmatizer), filled as ``init-config`` fills ours."""
    if anchor not in ANCHORS:
        raise UserError(Errors.E080.format(system=anchor, options=", ".join(ANCHORS)))
    own = anchor in SPACY_OWN_TOK2VEC
    names = [name for name in (BUILDS_ON.get(anchor), anchor) if name]
    extra = variant_parts(variant, raw_text=not own)
    config, base = merge_parts([ANCHOR_PARTS / f"{name}.partial.cfg" for name in names]
                               + [PARTS / f"{name}.partial.cfg" for name in extra])
    if variant.tagging:
        _with_taggers(config, base, raw_text=not own)
    if own:
        spacys_own(config)
    config["training"]["optimizer"]["@optimizers"] = "Adam.v1"  # spaCy's optimizer: Thinc's (ours steps as it)
    parts = " and ".join([f"lab/spacy_planar_lab/partials/{name}.partial.cfg" for name in names]
                         + [f"spacy_planar/partials/{name}.partial.cfg" for name in extra])
    flags = variant.flags() + (f" --lang {lang}" if lang != LANG else "")
    return filled_text(config, lang, f"spacy-planar lab anchor-config {anchor}{flags}: base.partial.cfg and {parts}, "
                                     f"every default written out{' (without its character CNN)' if own else ''}")


def spacys_own(config: Config) -> None:
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


@lab_app.command("anchor-config")
def anchor_config(
    anchor: str = typer.Argument(..., help="|".join(ANCHORS)),
    output_path: Path = typer.Argument(..., help="Where to write the config (.cfg)"),
    tagging: bool = flag(False, "--tagging", "-t", help="spaCy's taggers (morphologizer, tagger) beside the parser"),
    lang: str = typer.Option(LANG, "--lang", "-l", help="The pipeline's language"),
) -> None:
    """Write an anchor's training config (configs/anchors/ holds them).

    spacy_parser: spaCy's parser on our tok2vec (with --tagging: in the UD
    pipeline); spacy_parser_cnn: spaCy's pipeline as `spacy init config`
    writes it; spacy_parser_small: spaCy's parser at our hidden width;
    spacy_beam_parser: spaCy's beam parser."""
    text = anchor_config_text(anchor, Variant(tagging=tagging), lang)
    with atomic_output(output_path) as f:
        f.write(text)
    msg.good(f"Wrote {output_path}")


@lab_app.command("udpipe1")
def udpipe1(
    train: Path = typer.Argument(..., help="Training CoNLL-U"),
    dev: Path = typer.Argument(..., help="Held-out CoNLL-U (UDPipe's heldout data: its early stopping)"),
    out: Path = typer.Argument(..., help="A folder for the model and the parsed files"),
    evaluate: List[Path] = typer.Argument(..., help="CoNLL-U files whose words UDPipe tags and parses"),
    tagger: str = typer.Option("", "--tagger", help="UDPipe's tagger options (default: its own)"),
    parser: str = typer.Option("", "--parser", help="UDPipe's parser options, e.g. "
                               "'transition_system=swap;transition_oracle=static_lazy' (default: its own)"),
) -> None:
    """UDPipe 1 trained on the same sentences, the anchor every table names.

    Trains UDPipe 1 (its MorphoDiTa tagger and lemmatizer and its Parsito
    parser, pip install ufal.udpipe) on TRAIN with DEV held out, on the gold
    words (no tokenizer), as a user trains it with its default options, and
    writes OUT/model.udpipe and, for each EVALUATE file, OUT/<its name>
    with its words tagged and parsed: score them with `spacy-planar
    evaluate`. One core; about 10-16 minutes for 1,000 sentences."""
    try:
        from ufal import udpipe
    except ImportError:
        raise UserError(Errors.E140) from None
    for path in [train, dev, *evaluate]:
        check_input(path)
        next(iter(read_conllu(path)), None)  # a file that is not CoNLL-U: one line, before minutes of training
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    model = train_udpipe(udpipe, train, dev, tagger or "default", parser or "default")
    (out / "model.udpipe").write_bytes(model)
    loaded = udpipe.Model.load(str(out / "model.udpipe"))
    pipeline = udpipe.Pipeline(loaded, "conllu", udpipe.Pipeline.DEFAULT, udpipe.Pipeline.DEFAULT, "conllu")
    for path in evaluate:
        error = udpipe.ProcessingError()
        parsed = pipeline.process(path.read_text(encoding="utf-8"), error)
        if error.occurred():
            raise UserError(Errors.E141.format(path=path, reason=error.message))
        with atomic_output(out / path.name) as f:
            f.write(parsed)
    msg.good(f"UDPipe 1 trained and parsed in {time.perf_counter() - start:.0f} s: {out}")


def train_udpipe(udpipe, train: Path, dev: Path, tagger: str, parser: str) -> bytes:
    """UDPipe 1's model trained on ``train`` with ``dev`` held out (no tokenizer: the gold words)."""
    error = udpipe.ProcessingError()
    model = udpipe.Trainer.train("morphodita_parsito", sentences(udpipe, train), sentences(udpipe, dev), "none",
                                 tagger, parser, error)
    if error.occurred():
        raise UserError(Errors.E141.format(path=train, reason=error.message))
    return model if isinstance(model, bytes) else model.encode("latin-1")


def sentences(udpipe, path: Path) -> "udpipe.Sentences":  # noqa: F821
    """A CoNLL-U file as UDPipe's sentences."""
    reader = udpipe.InputFormat.newConlluInputFormat()
    reader.setText(path.read_text(encoding="utf-8"))
    out, error = udpipe.Sentences(), udpipe.ProcessingError()
    sentence: Optional[object] = udpipe.Sentence()
    while reader.nextSentence(sentence, error):
        out.push_back(sentence)
        sentence = udpipe.Sentence()
    if error.occurred():
        raise UserError(Errors.E141.format(path=path, reason=error.message))
    return out
