"""``upgrade``: a pipeline saved by an earlier spacy-planar, rewritten for this one."""
from __future__ import annotations

import json
from pathlib import Path
from typing import List

import typer

from spacy_planar.cli._app import app, msg


def upgraded_config(config) -> List[str]:
    """The config of a joint pipeline saved by spacy-planar 0.2 or before (a ``biaffine_parser``
    with ``reparse_with``, which decided each Doc as one tree) as this version's layout: the
    biaffine a parser like the other, a ``parse_decider`` after it that reads both
    (``ensembles/decider.py``), at its defaults. Changes ``config`` in place; returns what it did
    (nothing: already of this layout). The weights are untouched: nothing else differs."""
    done = []
    pipeline = list(config["nlp"]["pipeline"])
    for name in list(pipeline):
        component = config["components"].get(name, {})
        other = component.get("reparse_with") if component.get("factory") == "biaffine_parser" else None
        if not other:
            continue
        component["reparse_with"] = None
        decider = "parse_decider" if "parse_decider" not in pipeline else f"{name}_decider"
        config["components"][decider] = {"factory": "parse_decider", "parsers": [other, name], "weights": [0.5, 0.5],
                                         "votes": "moves", "decoder": "mst",
                                         "scorer": {"@scorers": "spacy-planar.parser_scorer.v1"}}
        pipeline.insert(pipeline.index(name) + 1, decider)
        done.append(f"{name}: reparse_with = '{other}' -> a {decider} after it reading {other} and {name}")
    config["nlp"]["pipeline"] = pipeline
    return done


@app.command()
def upgrade(
    pipeline: Path = typer.Argument(..., help="A pipeline folder saved by an earlier spacy-planar (model-best, say)"),
) -> None:
    """Rewrite a pipeline saved by an earlier spacy-planar so this version loads it: a joint
    pipeline of 0.2 and before (its biaffine_parser's reparse_with) gets this version's
    parse_decider, which decides each sentence (0.2 decided each Doc as one tree). Its
    config.cfg and meta.json are rewritten in place; the weights stay as they are."""
    from thinc.api import Config

    from spacy_planar.io.pipelines import pipeline_path

    path = pipeline_path(pipeline)
    config = Config().from_disk(path / "config.cfg", interpolate=False)
    done = upgraded_config(config)
    if not done:
        msg.good(f"{path}: already of this version's layout; nothing to do")
        return
    meta = json.loads((path / "meta.json").read_text(encoding="utf8"))
    meta["pipeline"] = list(config["nlp"]["pipeline"])
    meta["components"] = [name for name in meta["pipeline"] if name not in config["nlp"].get("disabled", [])]
    new_config, new_meta = path / "config.cfg.new", path / "meta.json.new"
    config.to_disk(new_config, interpolate=False)
    new_meta.write_text(json.dumps(meta, indent=2), encoding="utf8")
    new_config.replace(path / "config.cfg")
    new_meta.replace(path / "meta.json")
    for line in done:
        msg.good(f"{path}: {line}")
