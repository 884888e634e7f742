"""``init-config``: a training config from the shared base and one parser's partial."""
from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional, Tuple

import typer

from ..conllu_io import atomic_output, check_input
from ..errors import Errors, UserError
from ._app import USER_ERRORS, app, fail, msg

PARTS = Path(__file__).resolve().parents[1] / "configs"
SYSTEM_CONFIGS = ("arc_eager", "planar", "two_planar", "swap", "top_down", "spacy_parser", "spacy_parser_small",
                  "spacy_beam_parser")
# a system whose partial only changes another's: that one is merged first
BUILDS_ON = {"spacy_beam_parser": "spacy_parser"}


def _sections(text: str) -> List[Tuple[str, List[str]]]:
    """(header, lines) of each section of a config's text, in order; the
    comment lines before the first section are dropped."""
    out: List[Tuple[str, List[str]]] = []
    for line in text.splitlines():
        if line.startswith("["):
            out.append((line.strip(), []))
        elif out:
            out[-1][1].append(line)
    return out


def _merge(sections: List[Tuple[str, List[str]]], part: str) -> List[Tuple[str, List[str]]]:
    """``sections`` with the partial config ``part`` (a file of PARTS)
    merged in, section by section: a section the base has gets the
    partial's settings in place of its own, the others go after the base's
    last ``[components...]`` section."""
    sections = list(sections)
    headers = [h for h, _ in sections]
    last = max((i for i, h in enumerate(headers) if h.startswith("[components")), default=len(sections) - 1)
    added: List[Tuple[str, List[str]]] = []
    for header, lines in _sections((PARTS / part).read_text(encoding="utf-8")):
        if header not in headers:
            added.append((header, lines if lines and not lines[-1].strip() else [*lines, ""]))
            continue
        old = sections[headers.index(header)][1]
        settings = {line.split("=", 1)[0].strip(): line for line in lines if "=" in line}
        merged = [settings.pop(line.split("=", 1)[0].strip(), line) if "=" in line else line for line in old]
        merged[-1:-1] = list(settings.values())
        sections[headers.index(header)] = (header, merged)
    sections[last + 1:last + 1] = added
    return sections


def _with_taggers(line: str, base: Path) -> str:
    """The ``pipeline = [...]`` line of [nlp] with the morphologizer and the
    tagger right after the tok2vec (E086 where there is no tok2vec)."""
    pipeline = json.loads(line.split("=", 1)[1])
    if "tok2vec" not in pipeline:
        raise UserError(Errors.E086.format(base=base, pipeline=pipeline))
    at = pipeline.index("tok2vec") + 1
    return "pipeline = " + json.dumps(pipeline[:at] + ["morphologizer", "tagger"] + pipeline[at:], separators=(",", ":"))


def merged_config(system: str, base: Optional[Path] = None, tagging: bool = False) -> str:
    """The text of the training config of ``system`` (one of
    ``SYSTEM_CONFIGS``): ``base`` (default: the package's base.cfg) with the
    system's partial config merged in (``_merge``; after the partial it
    builds on, ``BUILDS_ON``); with ``tagging``, also
    the taggers' partial (tagging.cfg: a morphologizer and a tagger sharing
    the tok2vec), which go after the tok2vec in the pipeline. Variables are
    left as they are."""
    if system not in SYSTEM_CONFIGS:
        raise UserError(Errors.E080.format(system=system, options=", ".join(SYSTEM_CONFIGS)))
    base_path = PARTS / "base.cfg" if base is None else Path(base)
    check_input(base_path)
    parts = [f"{name}.cfg" for name in (BUILDS_ON.get(system), system) if name]
    if tagging:
        parts.append("tagging.cfg")
    sections = _sections(base_path.read_text(encoding="utf-8"))
    for part in parts:
        sections = _merge(sections, part)
    if tagging:
        nlp = [h for h, _ in sections].index("[nlp]")
        sections[nlp] = ("[nlp]", [_with_taggers(line, base_path) if line.split("=")[0].strip() == "pipeline" else line
                                   for line in sections[nlp][1]])
    text = "\n".join(line for header, lines in sections for line in [header, *lines])
    name = f"{system} --tagging" if tagging else system
    return f"# spacy-planar init-config {name}: base.cfg merged with {' and '.join(parts)}\n{text.rstrip()}\n"


@app.command("init-config")
def init_config(
    system: str = typer.Argument(..., help="|".join(SYSTEM_CONFIGS)),
    output_path: Path = typer.Argument(..., help="Where to write the config (.cfg)"),
    base: Optional[Path] = typer.Option(None, "--base", "-b", help="Your own base config instead of the shipped one"),
    tagging: bool = typer.Option(False, "--tagging", "-t", help="Add a morphologizer (UPOS + FEATS) and a tagger "
                                 "(XPOS) sharing the tok2vec, trained with the parser"),
) -> None:
    """Write a training config: the shared base merged with one parser's partial.

    Write a training config: the shared base (tok2vec, corpora, training)
    merged with one parser's partial config; ``--tagging`` adds a
    morphologizer and a tagger for UD treebanks (words in; heads, labels,
    UPOS, FEATS and XPOS out)."""
    try:
        text = merged_config(system, base, tagging)
    except USER_ERRORS as e:
        fail(str(e))
    with atomic_output(output_path) as f:
        f.write(text)
    msg.good(f"Wrote {output_path}")
