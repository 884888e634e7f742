"""``train``: ``spacy train``, in stages where the config asks, timed."""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Dict, List, Optional

import typer
from thinc.api import Config

from ..errors import Errors, UserError
from ._app import USER_ERRORS, app, fail, msg, read_config

TRAIN_SECONDS = "train_seconds.json"


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def train(
    ctx: typer.Context,
    config_path: Path = typer.Argument(..., help="A training config"),
    output_path: Path = typer.Option(..., "--output", "-o", help="Output directory"),
    gpu_id: int = typer.Option(-1, "--gpu-id", "-g", help="GPU id, or -1 for the CPU"),
) -> None:
    """Run spacy train (in stages where the config asks), timed.

    ``spacy train`` as it is, also writing the wall time of the training
    to OUTPUT/train_seconds.json (for ``compare``). Extra options are config
    overrides, as for spacy train (--paths.train ...). A config that
    freezes components it builds from a factory (``init-config --tagging
    --taggers-first``) is trained in two stages: those components first,
    into OUTPUT/first_stage, then the rest on their output, into OUTPUT.
    Several treebanks: --paths.train TARGET --paths.train OTHER ... (the
    first the target, the others its paths.treebanks)."""
    from spacy.cli._util import parse_config_overrides, setup_gpu

    overrides = parse_config_overrides(several_treebanks(ctx.args))
    try:
        config = read_config(config_path)
        paths = raw_text_paths(config, overrides)
        check_vectors(paths["vectors"])
        check_charlm(paths["charlm"])
        overrides.update(language_of(config, overrides, paths["vectors"]))
        check_corpora(config, overrides)
    except USER_ERRORS as e:
        fail(str(e))
    setup_gpu(gpu_id)
    start = time.perf_counter()
    train_stages(config_path, Path(output_path), overrides, gpu_id)
    seconds = time.perf_counter() - start
    (Path(output_path) / TRAIN_SECONDS).write_text(json.dumps({"seconds": seconds}), encoding="utf-8")


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def distill(
    ctx: typer.Context,
    teachers: List[Path] = typer.Option(..., "--teacher", "-t", help="A trained pipeline; repeat for each of the "
                                        "ensemble's (one config on one treebank, other seeds)"),
    output_path: Path = typer.Option(..., "--output", "-o", help="Output directory"),
    weight: float = typer.Option(1.0, "--teacher-weight", help="The teachers' share of the parser's target (the "
                                 "rest: the oracle's)"),
    gpu_id: int = typer.Option(-1, "--gpu-id", "-g", help="GPU id, or -1 for the CPU"),
) -> None:
    """Train one pipeline that parses as an ensemble of pipelines does.

    The ensemble that ``parse --ensemble`` runs, distilled into one
    pipeline of the teachers' config at one pipeline's cost: trained as the
    teachers were (their config, the same treebank; extra options are
    config overrides, as for train), its parser learning in every state the
    ensemble's distribution over the moves (the mean of the teachers'
    log-probabilities), mixed with the oracle's by --teacher-weight."""
    from spacy.cli._util import parse_config_overrides, setup_gpu

    overrides = parse_config_overrides(several_treebanks(ctx.args))
    try:
        config = read_config(teachers[0] / "config.cfg")
        parser = next((name for name, c in config["components"].items() if c.get("factory") == "planar_parser"),
                      None)
        if parser is None:
            raise UserError(Errors.E138.format(path=teachers[0], reason="it has no planar_parser"))
        check_corpora(config, overrides)
    except USER_ERRORS as e:
        fail(str(e))
    config["initialize"].setdefault("components", {})[parser] = {
        "teachers": [str(Path(t).resolve()) for t in teachers], "teacher_weight": weight}
    output_path.mkdir(parents=True, exist_ok=True)
    config.to_disk(output_path / "distill.cfg", interpolate=False)
    setup_gpu(gpu_id)
    start = time.perf_counter()
    train_stages(output_path / "distill.cfg", output_path, overrides, gpu_id)
    seconds = time.perf_counter() - start
    (output_path / TRAIN_SECONDS).write_text(json.dumps({"seconds": seconds}), encoding="utf-8")


def train_stages(config_path: Path, output_path: Path, overrides: Dict, gpu_id: int = -1) -> None:
    """``spacy train`` of the config, or of its two stages
    (``spacy_planar/stages.py``), each stage's config written beside its
    output (OUTPUT/first_stage.cfg, OUTPUT/second_stage.cfg); on GPU
    ``gpu_id`` where it is 0 or more (spaCy's train sets its device itself)."""
    from spacy.cli.train import train as spacy_train
    from spacy.util import load_config

    from ..stages import first_stage, second_stage

    config = load_config(config_path, overrides=overrides, interpolate=False)
    first = first_stage(config)
    if first is None:
        spacy_train(config_path, output_path, use_gpu=gpu_id, overrides=overrides)
        return
    output_path.mkdir(parents=True, exist_ok=True)
    first_out = output_path / "first_stage"
    first.to_disk(output_path / "first_stage.cfg", interpolate=False)
    msg.divider(f"Stage 1 of 2: {', '.join(first['nlp']['pipeline'])}")
    spacy_train(output_path / "first_stage.cfg", first_out, use_gpu=gpu_id)
    trained = load_config(first_out / "model-best" / "config.cfg", interpolate=False)["nlp"]["pipeline"]
    second = second_stage(config, (first_out / "model-best").resolve(), list(trained))
    second.to_disk(output_path / "second_stage.cfg", interpolate=False)
    msg.divider(f"Stage 2 of 2: {', '.join(second['nlp']['pipeline'])}, the first stage's frozen")
    spacy_train(output_path / "second_stage.cfg", output_path, use_gpu=gpu_id)


def several_treebanks(args: List[str]) -> List[str]:
    """``--paths.train`` given more than once: the first is the target
    (``paths.train``), the others are joined to ``paths.treebanks``."""
    trains, rest, others = [], [], []
    k = 0
    while k < len(args):
        name, eq, value = args[k].partition("=")
        if name in ("--paths.train", "--paths.treebanks"):
            if not eq:
                k += 1
                value = args[k] if k < len(args) else ""
            (trains if name == "--paths.train" else others).append(value)
        else:
            rest.append(args[k])
        k += 1
    if trains:
        rest += ["--paths.train", trains[0]]
    others = trains[1:] + others
    if others:
        rest += ["--paths.treebanks", ",".join(others)]
    return rest


def setting(config: Config, overrides: Dict, section: str, name: str):
    """A config setting as it will be trained: its override, else the config's."""
    return overrides.get(f"{section}.{name}", config.get(section, {}).get(name))


def check_corpora(config: Config, overrides: Dict) -> None:
    """A one-line error (E031) for a training or dev corpus (``paths.train``,
    ``paths.dev``: a DocBin or a folder of them) that is not there, before
    the output folder is made."""
    for name in ("train", "dev", "treebanks"):
        paths = setting(config, overrides, "paths", name) or ""
        for path in paths.split(",") if name == "treebanks" and isinstance(paths, str) else [paths]:
            if path and not Path(path).exists():
                raise FileNotFoundError(Errors.E031.format(path=path))


def raw_text_paths(config: Config, overrides: Dict) -> Dict[str, Optional[str]]:
    """The config's ``paths.vectors`` and ``paths.charlm`` (an override first)."""
    return {name: setting(config, overrides, "paths", name) for name in ("vectors", "charlm")}


def check_vectors(path: Optional[str]) -> None:
    """A one-line error (E111) unless the vectors the config is trained with
    (``paths.vectors``) are a pipeline holding vectors."""
    from spacy.vocab import Vocab

    from ..model.static_vectors import has_vectors

    if not path:
        return
    if not (Path(path) / "vocab").is_dir():
        raise UserError(Errors.E111.format(path=path))
    try:
        vocab = Vocab().from_disk(Path(path) / "vocab")
    except (OSError, ValueError):
        raise UserError(Errors.E111.format(path=path)) from None
    if not has_vectors(vocab):
        raise UserError(Errors.E111.format(path=path))


def language_of(config: Config, overrides: Dict, vectors: Optional[str]) -> Dict[str, str]:
    """The pipeline's language, set once: where the config leaves it
    multilingual ("xx", the shipped configs' default, not overridden) and
    the vectors are of a language, the pipeline takes theirs (an override
    of ``nlp.lang``, said in one line); a pipeline and vectors of two
    languages are a one-line error (E131), not spaCy's E150 traceback."""
    import srsly

    if not vectors or not (Path(vectors) / "meta.json").is_file():
        return {}
    theirs = srsly.read_json(Path(vectors) / "meta.json").get("lang") or "xx"
    ours = setting(config, overrides, "nlp", "lang") or "xx"
    if theirs == ours:
        return {}
    if ours != "xx" or "nlp.lang" in overrides:
        raise UserError(Errors.E131.format(path=vectors, vectors=theirs, pipeline=ours))
    msg.info(f"nlp.lang = {theirs}: the language of the vectors at {vectors} (--nlp.lang sets another)")
    return {"nlp.lang": theirs}


def check_charlm(path: Optional[str]) -> None:
    """A one-line error (E130) unless the character language model the
    config is trained with (``paths.charlm``) is one ``spacy-planar charlm``
    wrote: checked before training starts, not when the layer is initialized."""
    from ..model.charlm import model_file

    if path:
        model_file(Path(path))
