"""``package``: a trained pipeline as an installable package, with spacy-planar's own wheel beside it."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Dict, List, Optional

import typer

from spacy_planar.cli._app import app, flag, load_pipeline, msg
from spacy_planar.errors import Errors, UserError
from spacy_planar.io.pipelines import pipeline_path

# the CoNLL 2018 scores written to the package's meta (as spaCy's scores: fractions); the tag scores only
# where the pipeline predicts the column (a spaCy annotation: the scorer's name)
TAG_SCORES = {"POS": "UPOS", "TAG": "XPOS", "MORPH": "UFeats", "LEMMA": "Lemmas"}


def source_root() -> Optional[Path]:
    """The source tree spacy_planar runs from (a clone, installed with
    ``pip install -e .``), or None where it was installed from a wheel."""
    root = Path(__file__).resolve().parents[2]
    pyproject = root / "pyproject.toml"
    if pyproject.exists() and 'name = "spacy-planar"' in pyproject.read_text(encoding="utf-8"):
        return root
    return None


def test_scores(model: str, test: Path) -> Dict[str, float]:
    """The pipeline's CoNLL 2018 scores on a gold-tokenised test file (its
    words parsed as ``parse`` parses them), as fractions."""

    from spacy_planar.corpus.files import parse_file
    from spacy_planar.eval.official import conll18_scores

    nlp = load_pipeline(model)
    probe = nlp("a b c")
    predicted = {annotation for annotation in TAG_SCORES if probe.has_annotation(annotation)}
    # MLAS and BLEX read the tags and lemmas too: the input's, copied where the pipeline predicts none
    names = ["UAS", "LAS", "CLAS"] + ["MLAS"] * ({"POS", "MORPH"} <= predicted) + ["BLEX"] * ("LEMMA" in predicted)
    names += [score for annotation, score in TAG_SCORES.items() if annotation in predicted]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "test.conllu"
        parse_file(nlp, test, out, progress=False)
        scores, _ = conll18_scores(test, out)
    return {f"ud_test_{k.lower()}": round(scores[k] / 100, 4) for k in names}


def bare_name(lang: str, name: str) -> str:
    """NAME without the language in front (la_proiel -> proiel for a Latin
    pipeline): ``spacy package`` puts the language before the meta's name
    in one place and keeps a name that starts with it in another, so the
    meta gets the bare name and the package is LANG_NAME either way."""
    return name[len(lang) + 1:] if name.startswith(f"{lang}_") and len(name) > len(lang) + 1 else name


def check_name(name: str, version: str) -> None:
    """A package name pip and Python accept (letters, digits, ``_``; not
    starting with a digit) and a version as pip reads it (E134), checked
    before anything is built or written."""
    from packaging.version import InvalidVersion, Version

    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise UserError(Errors.E134.format(what="--name", value=name, rule="letters, digits and _, not starting "
                                           "with a digit"))
    try:
        Version(version)
    except InvalidVersion:
        raise UserError(Errors.E134.format(what="--version", value=version, rule="a version pip reads, as "
                                           "0.1.0")) from None


def dependency_pins() -> List[str]:
    """``NAME==VERSION`` of each installed requirement of spacy-planar that
    spaCy does not require itself (conllu, threadpoolctl, udtools): what a
    machine with spaCy needs besides the two wheels."""
    from importlib.metadata import requires, version

    from packaging.requirements import Requirement

    def names(dist: str) -> List[str]:
        reqs = [Requirement(r) for r in requires(dist) or []]
        return [r.name for r in reqs if r.marker is None or r.marker.evaluate({"extra": ""})]

    spacys = {n.lower().replace("_", "-") for n in names("spacy")} | {"spacy"}
    return [f"{n}=={version(n)}" for n in names("spacy-planar") if n.lower().replace("_", "-") not in spacys]


def download_dependencies(dist: Path) -> List[str]:
    """The wheels of ``dependency_pins`` and what they need, fetched into
    ``dist`` from the package index; a one-line error (E115) where it cannot
    be reached."""
    pins = dependency_pins()
    res = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--only-binary=:all:", "-d", str(dist),
                          *pins], capture_output=True, text=True)
    if res.returncode != 0:
        last = (res.stderr.strip().splitlines() or ["pip download failed"])[-1]
        raise UserError(Errors.E115.format(pins=" ".join(pins), reason=last))
    return pins


def build_wheel(source: Path, dist: Path, isolation: bool) -> Path:
    """``pip wheel SOURCE --no-deps`` into ``dist``; the wheel's path."""
    before = set(dist.glob("*.whl"))
    command = [sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "-q", "-w", str(dist)]
    if not isolation:
        command.append("--no-build-isolation")
    subprocess.run(command, check=True)
    new = sorted(set(dist.glob("*.whl")) - before) or sorted(dist.glob("*.whl"), key=lambda p: p.stat().st_mtime)
    return new[-1]


def package_meta(model: Path, name: str, version: str, test: Optional[Path], license_: str, source: str,
                 description: str) -> Dict:
    """The pipeline's meta.json with the package's name, version,
    description, licence, its treebank as the source, and the test scores
    (``test_scores``) added to its performance."""
    from spacy_planar.io.pipelines import parsers_held

    meta = json.loads((pipeline_path(model) / "meta.json").read_text(encoding="utf-8"))
    meta.update({"name": bare_name(meta["lang"], name), "version": version, "parsers": parsers_held(model)})
    meta["description"] = description or meta.get("description") or (
        f"A spacy-planar dependency parsing pipeline ({', '.join(meta.get('pipeline', []))})")
    if license_:
        meta["license"] = license_
    if source:
        src_name, _, url = source.partition("=")
        meta["sources"] = [{"name": src_name, "url": url, "license": license_}]
    if test is not None:
        msg.info(f"Scoring the pipeline on {test} (CoNLL 2018 scorer)")
        meta.setdefault("performance", {}).update(test_scores(str(model), test))
    return meta


@app.command()
def package(
    model: Path = typer.Argument(..., help="A trained pipeline's folder (model-best)"),
    output_dir: Path = typer.Argument(..., help="Where the package's folder and dist/ (both wheels) go"),
    name: str = typer.Option(..., "--name", "-n", help="The package's name without the language (xx_NAME)"),
    version: str = typer.Option("0.1.0", "--version", "-v", help="The package's version"),
    test: Optional[Path] = typer.Option(None, "--test", help="Gold-tokenised CoNLL-U: its CoNLL 2018 scores go "
                                        "into the meta (performance: ud_test_las, ...)"),
    license_: str = typer.Option("", "--license", "-l", help="The licence of the pipeline (the treebank's)"),
    source: str = typer.Option("", "--source", help="The treebank the pipeline learnt from: NAME or NAME=URL"),
    description: str = typer.Option("", "--description"),
    planar_wheel: Optional[Path] = typer.Option(None, "--planar-wheel", help="spacy-planar's wheel to put beside "
                                                "it (default: built from the clone spacy_planar runs from)"),
    isolation: bool = flag(True, "--build-isolation/--no-build-isolation", help="pip's build isolation "
                                   "(off: the build needs setuptools, wheel and cython installed, but no index)"),
    dependencies: bool = flag(True, "--dependencies/--no-dependencies", help="Also fetch the wheels of "
                                      "what spacy-planar needs besides spaCy (conllu, threadpoolctl, udtools) into "
                                      "dist, so that it installs with --no-index where spaCy is installed"),
    ensemble: List[Path] = typer.Option([], "--ensemble", "-e", help="Another pipeline trained on the same "
                                        "treebank: the package parses with all as parse MODEL --ensemble does "
                                        "(repeat for more)"),
) -> None:
    """Package a trained pipeline (``spacy package``) with a meta (name,
    version, licence, the treebank, the test scores) and build its wheel and
    spacy-planar's own into OUTPUT_DIR/dist, so that ``pip install
    --no-index --find-links OUTPUT_DIR/dist LANG_NAME`` installs it where
    spaCy is installed and this repository is not, and ``spacy.load("LANG_NAME")``
    loads it. With ``--ensemble``, the pipelines as one (``planar_ensemble``), parsing as
    ``parse MODEL --ensemble ...`` does."""
    check_name(name, version)
    with ensemble_folder(model, ensemble, output_dir) as model:
        package_pipeline(model, output_dir, name, version, test, license_, source, description, planar_wheel,
                         isolation, dependencies)


@contextmanager
def ensemble_folder(model: Path, others: List[Path], output_dir: Path):
    """``model`` itself, or with ``others`` the pipelines as one (``ensemble_pipeline``) in a
    temporary folder (beside the output), gone afterwards."""
    if not others:
        yield model
        return
    from spacy_planar.parser.ensembles.component import ensemble_pipeline

    output_dir.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=output_dir.parent, prefix=".ensemble-") as tmp:
        folder = ensemble_pipeline([str(model), *map(str, others)], Path(tmp) / "pipeline")
        msg.info(f"{1 + len(others)} pipelines as one: {', '.join(str(p) for p in [model, *others])}")
        yield folder


def package_pipeline(model: Path, output_dir: Path, name: str, version: str, test: Optional[Path], license_: str,
                     source: str, description: str, planar_wheel: Optional[Path], isolation: bool,
                     dependencies: bool) -> None:
    """What ``package`` does with one pipeline folder (its help says what)."""
    meta = package_meta(model, name, version, test, license_, source, description)
    root = source_root()
    if planar_wheel is None and root is None:
        raise UserError(Errors.E108)
    if planar_wheel is not None and not planar_wheel.is_file():
        raise FileNotFoundError(Errors.E031.format(path=planar_wheel))
    full_name = f"{meta['lang']}_{meta['name']}"
    created = not output_dir.exists()
    output_dir.mkdir(parents=True, exist_ok=True)
    try:
        wheel, planar = build_package(model, output_dir, meta, version, root, planar_wheel, isolation, dependencies)
    except BaseException:
        if created:  # a failure leaves nothing behind, not even the folder
            shutil.rmtree(output_dir, ignore_errors=True)
        raise
    dist = output_dir / "dist"
    from spacy_planar.io.zoo import add_to_index, index_entry

    index = add_to_index(dist, index_entry(dict(meta, version=version), dist / wheel.name))
    msg.good(f"Built {wheel.name} and {planar.name} in {dist}; {index.name} lists it (spacy-planar download "
             f"{full_name} --index {index})")
    if test is not None:
        perf = meta["performance"]
        msg.info("Test (CoNLL 2018 scorer): " + ", ".join(
            f"{k[8:].upper()} {perf[k] * 100:.2f}" for k in perf if k.startswith("ud_test_")))
    msg.text(f"Install: pip install --no-index --find-links {dist} {full_name} (spaCy from your index "
             f"unless installed: drop --no-index)")


def build_package(model: Path, output_dir: Path, meta: Dict, version: str, root: Optional[Path],
                  planar_wheel: Optional[Path], isolation: bool, dependencies: bool):
    """``spacy package``'s folder and the two wheels (and the dependencies'),
    built in a temporary folder beside the output and moved in once all are
    there: a failure leaves nothing half-built. Returns the two wheels."""
    from spacy.cli.package import package as spacy_package

    full_name = f"{meta['lang']}_{meta['name']}"
    dist = output_dir / "dist"
    with tempfile.TemporaryDirectory(dir=output_dir) as tmp:
        meta_path = Path(tmp) / "meta.json"
        meta_path.write_text(json.dumps(meta, indent=2), encoding="utf-8")
        spacy_package(pipeline_path(model), Path(tmp), meta_path=meta_path, name=meta["name"], version=version,
                      create_sdist=False,
                      create_wheel=False, force=True, require_parent=True, silent=True)
        built = Path(tmp) / f"{full_name}-{version}"
        (Path(tmp) / "dist").mkdir()
        msg.info(f"Building the wheels of {full_name} and spacy-planar")
        wheel = build_wheel(built, Path(tmp) / "dist", isolation)
        planar = (build_wheel(root, Path(tmp) / "dist", isolation) if planar_wheel is None
                  else Path(shutil.copy(planar_wheel, Path(tmp) / "dist")))
        if dependencies:
            msg.info("Fetching the wheels of " + ", ".join(dependency_pins()))
            download_dependencies(Path(tmp) / "dist")
        package_dir = output_dir / built.name
        if package_dir.exists():
            shutil.rmtree(package_dir)
        shutil.move(str(built), str(package_dir))
        dist.mkdir(exist_ok=True)
        for built_wheel in (Path(tmp) / "dist").iterdir():
            shutil.move(str(built_wheel), str(dist / built_wheel.name))
    return wheel, planar
