"""``train``: ``spacy train``, in stages where the config asks, timed."""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Dict, List, Optional

import typer
from thinc.api import Config

from spacy_planar.defaults import LANG, TARGET_EPOCHS, TAUGHT_FACTORIES
from spacy_planar.cli._app import app, msg, read_config
from spacy_planar.io.conllu import check_input
from spacy_planar.errors import Errors, UserError

TRAIN_SECONDS = "train_seconds.json"


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def train(
    ctx: typer.Context,
    config_path: Path = typer.Argument(..., help="A training config"),
    output_path: Path = typer.Option(..., "--output", "-o", help="Output directory"),
    teachers: List[Path] = typer.Option([], "--teacher", "-t", help="Distil: a pipeline trained on this treebank "
                                        "(a transition parser: of this config, another seed; the biaffine: any of "
                                        "our parsers); repeat for each of the ensemble's"),
    teacher_weight: float = typer.Option(1.0, "--teacher-weight", help="With --teacher: the ensemble's share of the "
                                         "parser's target, the rest the gold tree's"),
    target_epochs: int = typer.Option(TARGET_EPOCHS, "--target-epochs", help="Several treebanks: then this many "
                                      "epochs on the target alone, from the pipeline they gave (0: none)"),
    gpu_id: int = typer.Option(-1, "--gpu-id", "-g", help="GPU id, or -1 for the CPU"),
    overwrite: bool = typer.Option(False, "--overwrite", help="Train into an output folder that holds a trained "
                                   "pipeline, replacing it"),
) -> None:
    """Run spacy train (in stages where the config asks), timed.

    ``spacy train`` as it is, also writing the wall time of the training
    to OUTPUT/train_seconds.json. Extra options are config overrides, as
    for spacy train (--paths.train ...). Several treebanks: --paths.train
    TARGET --paths.train OTHER ... (the first the target, the others its
    paths.treebanks). With --teacher, the parser learns the moves of the
    ensemble of the teachers (``parse --ensemble``'s) at one pipeline's
    cost; the biaffine, their mean distribution over each word's heads
    (teachers of any of our parsers, reparsed). Several treebanks train into OUTPUT/all_treebanks, then
    --target-epochs epochs on the target alone into OUTPUT. A config that
    freezes components it builds from a factory (``init-config --tagging
    --taggers-first``) is trained in two stages.

    How long: [training] max_steps (the shipped configs: 20000) or max_epochs (0:
    none), whichever ends it first, and patience (1600 steps without a better dev
    score end it); shorten it with --training.max_epochs N or --training.max_steps
    N. The line under each evaluation (every 200 steps) says how long is left."""
    from spacy.cli._util import parse_config_overrides

    overrides = parse_config_overrides(several_treebanks(ctx.args))
    config = read_config(config_path)
    check_keys(config_path, overrides)
    check_gpu(gpu_id)
    check_output(Path(output_path), overwrite)
    created = not Path(output_path).exists()
    vectors = setting(config, overrides, "paths", "vectors")
    check_vectors(vectors)
    language = language_of(config, overrides, vectors)
    check_corpora(config, overrides)
    say_language(config, overrides, language, vectors)  # once every check has passed
    overrides.update(language)
    if teachers:
        config_path = with_teachers(config, teachers, teacher_weight, output_path)
    start = time.perf_counter()
    try:
        several = bool(setting(config, overrides, "paths", "treebanks"))
        train_stages(config_path, Path(output_path), overrides, gpu_id, target_epochs if several else 0)
    except KeyboardInterrupt:
        raise UserError(Errors.E145.format(left=unfinished(Path(output_path), created))) from None
    except UserError:  # bad input found while training (a corpus spaCy cannot read): nothing half-made left
        unfinished(Path(output_path), created)
        raise
    seconds = time.perf_counter() - start
    (Path(output_path) / TRAIN_SECONDS).write_text(json.dumps({"seconds": seconds}), encoding="utf-8")


def check_keys(config_path: Path, overrides: Dict) -> None:
    """Every key of the config, overrides included, is one something reads
    (``io.config_keys``): else one line (E142) with the nearest valid name,
    before anything is made."""
    from spacy.util import load_config
    from thinc.api import ConfigValidationError

    from spacy_planar.io.config_keys import first_unknown_key

    try:
        config = load_config(config_path, overrides=overrides, interpolate=False)
    except ConfigValidationError as e:
        raise UserError(Errors.E088.format(path=config_path, reason=" ".join(str(e).split()))) from None
    found = first_unknown_key(config)
    if found is not None:
        section, key, nearest = found
        hint = f" (did you mean '{nearest}'?)" if nearest else ""
        given = f"{section}.{key}"
        where = f"--{given} (on the command line)" if given in overrides else config_path
        raise UserError(Errors.E142.format(path=where, section=section, key=key, hint=hint))


def check_output(output_path: Path, overwrite: bool) -> None:
    """An output folder that holds a trained pipeline is refused without
    ``overwrite`` (E144): a rerun would replace a better model-best."""
    found = [name for name in ("model-best", "model-last", "first_stage") if (output_path / name).exists()]
    if found and not overwrite:
        raise UserError(Errors.E144.format(path=output_path, found=", ".join(found)))


def unfinished(output_path: Path, created: bool) -> str:
    """After Ctrl-C or bad input met while training: the folder this run
    made is removed where no pipeline was saved yet; else what it holds
    (spaCy saves model-best as it goes)."""
    import shutil

    from spacy_planar.io.progress import FINISHED, best_checkpoint

    best = output_path / "model-best"
    if best.exists():
        checkpoints = FINISHED.get("checkpoints") or []
        if not checkpoints:
            return f"{best} holds a pipeline saved before the interruption (no evaluation of this run was seen)"
        score, step = best_checkpoint(checkpoints)
        if step == 0:
            return (f"{best} holds the untrained pipeline (step 0, score {score:.2f}): no trained step was "
                    "evaluated before the interruption; train again")
        return f"{best} holds step {step}'s pipeline (score {score:.2f}), the best of {len(checkpoints)} evaluations"
    if created and output_path.exists():
        shutil.rmtree(output_path, ignore_errors=True)
        return f"no pipeline was saved yet; {output_path} removed"
    return "no pipeline was saved yet"


def check_gpu(gpu_id: int) -> None:
    """``--gpu-id`` 0 or more where no GPU can be used: one line (E143), nothing made."""
    if gpu_id < 0:
        return
    from thinc.util import gpu_is_available

    if not gpu_is_available():
        raise UserError(Errors.E143.format(gpu_id=gpu_id))


def with_teachers(config: Config, teachers: List[Path], weight: float, output_path: Path) -> Path:
    """The config with its parser's teachers (``[initialize.components.NAME]``),
    written to OUTPUT/teachers.cfg: the path to train."""
    from spacy_planar.io.pipelines import config_parser

    parser = config_parser(config["components"])
    factory = config["components"][parser]["factory"] if parser else None
    if factory not in TAUGHT_FACTORIES:
        raise UserError(Errors.E138.format(path=teachers[0], reason=f"the config's parser ({factory}) learns from "
                                           f"no teacher: {', '.join(TAUGHT_FACTORIES)} does"))
    for teacher in teachers:
        check_input(Path(teacher) / "config.cfg")
    paths = [str(Path(t).resolve()) for t in teachers]
    if factory == "biaffine_parser":  # the teachers' head distributions, asked once (graph/teachers.py)
        config["initialize"].setdefault("components", {})[parser] = {
            "teachers": {"@misc": "spacy-planar.ensemble_heads.v1", "paths": paths}, "teacher_weight": weight}
    else:
        config["initialize"].setdefault("components", {})[parser] = {"teachers": paths, "teacher_weight": weight}
    output_path.mkdir(parents=True, exist_ok=True)
    config.to_disk(output_path / "teachers.cfg", interpolate=False)
    return output_path / "teachers.cfg"


def spacy_train(config_path: Path, output_path: Path, use_gpu: int = -1, overrides: Optional[Dict] = None) -> None:
    """spaCy's ``train``, then its final evaluation (``final_evaluation``)."""
    from spacy.cli.train import train

    from spacy_planar.io.progress import FINISHED

    FINISHED["final"] = True
    train(config_path, output_path, use_gpu=use_gpu, overrides=overrides or {})
    final_evaluation(output_path)


def final_evaluation(output_path: Path) -> None:
    """model-last (the weights after the last step, averaged where the
    optimizer averages) scored on dev as spaCy scores a checkpoint, since
    training can end past its last evaluation (an epoch shorter than
    ``eval_frequency`` steps): where it beats every evaluation it becomes
    model-best. Then the time and what model-best holds, with a warning
    where that is the untrained pipeline (``progress.summary``)."""
    import shutil

    import spacy
    from spacy.schemas import ConfigSchemaTraining
    from spacy.training.loop import create_evaluation_callback
    from spacy.util import registry, resolve_dot_names

    from spacy_planar.io.progress import FINISHED, summary

    last, best = output_path / "model-last", output_path / "model-best"
    checkpoints = FINISHED.get("checkpoints")
    if not checkpoints or not last.exists():
        return
    nlp = spacy.load(last)
    config = nlp.config.interpolate()
    T = registry.resolve(config["training"], schema=ConfigSchemaTraining)
    (dev_corpus,) = resolve_dot_names(config, [T["dev_corpus"]])
    score, scores = create_evaluation_callback(nlp, dev_corpus, T["score_weights"])()
    if score > max(s for s, _ in checkpoints):
        shutil.rmtree(best, ignore_errors=True)
        shutil.copytree(last, best)
        kept_for(best, T["score_weights"], scores, score)
    las = f" (LAS {100 * scores['dep_las']:.2f})" if isinstance(scores.get("dep_las"), float) else ""
    for line in summary(checkpoints, FINISHED.get("seconds", 0.0), final=score, detail=las):
        typer.echo(line)


def kept_for(path: Path, weights: Dict, scores: Dict, score: float) -> None:
    """``path``'s meta.json carries the evaluation it was kept for: its performance the scores
    (as spaCy's ``update_meta`` writes them: each weighted score, the losses of the evaluation it
    was saved at), ``spacy package`` and readers of the meta see the accuracy it has."""
    import srsly

    meta = srsly.read_json(path / "meta.json")
    performance = dict(meta.get("performance") or {})
    performance.update({metric: scores.get(metric, 0.0) for metric in weights if metric is not None})
    meta["performance"] = performance
    srsly.write_json(path / "meta.json", meta)


def train_stages(config_path: Path, output_path: Path, overrides: Dict, gpu_id: int = -1,
                 target_epochs: int = 0) -> None:
    """``spacy train`` of the config, or of its two stages
    (``ud/stages.py``), each stage's config written beside its
    output (OUTPUT/first_stage.cfg, OUTPUT/second_stage.cfg); on GPU
    ``gpu_id`` where it is 0 or more (spaCy's train sets its device itself).
    With ``target_epochs``, that into OUTPUT/all_treebanks, then the target
    stage (OUTPUT/target_stage.cfg) into OUTPUT."""
    from spacy.util import load_config

    from spacy_planar.ud.stages import first_stage, second_stage, target_stage

    if target_epochs > 0:
        several = output_path / "all_treebanks"
        train_stages(config_path, several, overrides, gpu_id)
        stage = target_stage(several / "model-best", target_epochs)
        stage.to_disk(output_path / "target_stage.cfg", interpolate=False)
        msg.divider(f"Then {target_epochs} epochs on the target alone")
        spacy_train(output_path / "target_stage.cfg", output_path, use_gpu=gpu_id)
        return
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
    """A one-line error for a training or dev corpus (``paths.train``,
    ``paths.dev``: a DocBin, a CoNLL-U file or a folder of them) that is not
    there (E031), not one (E154) or holds a file that its reader refuses (a
    CoNLL-U line, a DocBin's bytes: ``readers.check_corpus_file``), before
    anything is made or said of the training."""
    from spacy_planar.io.readers import check_corpus_file, corpus_files

    for name in ("train", "dev", "treebanks"):
        paths = setting(config, overrides, "paths", name) or ""
        for path in paths.split(",") if name == "treebanks" and isinstance(paths, str) else [paths]:
            for file in corpus_files(path) if path else ():
                check_corpus_file(file)


def check_vectors(path: Optional[str]) -> None:
    """A one-line error (E111) unless the vectors the config is trained with
    (``paths.vectors``) are a pipeline holding vectors."""
    from spacy.vocab import Vocab

    from spacy_planar.model.static_vectors import has_vectors

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
    of ``nlp.lang``, which ``train`` says in one line); a pipeline and vectors of two
    languages are a one-line error (E131), not spaCy's E150 traceback."""
    import srsly

    if not vectors or not (Path(vectors) / "meta.json").is_file():
        return {}
    theirs = srsly.read_json(Path(vectors) / "meta.json").get("lang") or LANG
    ours = setting(config, overrides, "nlp", "lang") or LANG
    if theirs == ours:
        return {}
    if ours != LANG or "nlp.lang" in overrides:
        raise UserError(Errors.E131.format(path=vectors, vectors=theirs, pipeline=ours))
    return {"nlp.lang": theirs}


def say_language(config: Config, overrides: Dict, language: Dict, vectors: Optional[str]) -> None:
    """One line on the pipeline's language: taken from the vectors (``language_of``), or left
    multilingual while the training data is named for a language (``language_named``)."""
    if language:
        msg.info(f"nlp.lang = {language['nlp.lang']}: the language of the vectors at {vectors} (--nlp.lang sets "
                 "another)")
        return
    named = language_named(config, overrides)
    if named:
        msg.warn(f"nlp.lang = \"{LANG}\" (multilingual: no tokenizer or lemmatizer rules of a language) while "
                 f"the training data is named for '{named}': give --nlp.lang {named} to use that language's")


def language_named(config: Config, overrides: Dict) -> Optional[str]:
    """The language code the training treebank is named for (``la`` of la_ittb/train.conllu) where
    the pipeline's language is left multilingual and spaCy has that language; else None."""
    from spacy.util import get_lang_class

    from spacy_planar.io.conllu import treebank_name

    if (setting(config, overrides, "nlp", "lang") or LANG) != LANG or "nlp.lang" in overrides:
        return None
    train = setting(config, overrides, "paths", "train")
    first = (train.split(",")[0] if isinstance(train, str) else None) or ""
    code = treebank_name(Path(first)).split("_")[0] if first else ""
    if not code or code == LANG:
        return None
    try:
        get_lang_class(code)
    except Exception:  # no such language in spaCy: nothing to say
        return None
    return code
