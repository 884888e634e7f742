"""Where a trained pipeline is, from what a user types: a folder or the name
of an installed package, or a one-line error with a code saying which of
"not found", "not a pipeline" it is (every command that loads a pipeline
goes through ``pipeline_path``)."""
from __future__ import annotations

from pathlib import Path
from typing import Dict, List, Optional, Union

from spacy_planar.defaults import PARSER_FACTORIES
from spacy_planar.errors import Errors, UserError

MEMBER = "member{}"  # a planar_ensemble member's folder under the component's


def pipeline_path(source: Union[str, Path]) -> Path:
    """The folder of the pipeline ``source`` names: a folder holding
    meta.json and config.cfg, or an installed pipeline package (its data
    folder). Otherwise E107 (a folder or file that is no pipeline; the hint
    names a model-best or model-last inside it) or E116 (nothing of that
    name)."""
    import srsly
    from spacy.util import get_package_path, is_package

    path = Path(source)
    if path.is_dir():
        if (path / "meta.json").is_file() and (path / "config.cfg").is_file():
            return path
        inside = [p for p in (path / "model-best", path / "model-last") if (p / "meta.json").is_file()]
        hint = f"; did you mean {inside[0]}?" if inside else ""
        raise UserError(Errors.E107.format(path=source) + hint)
    if path.exists():
        raise UserError(Errors.E107.format(path=source))
    name = str(source)
    if "/" not in name and is_package(name):
        package = get_package_path(name)
        meta = srsly.read_json(package / "meta.json")
        data = package / f"{meta['lang']}_{meta['name']}-{meta['version']}"
        if (data / "config.cfg").is_file():
            return data
    raise UserError(Errors.E116.format(source=source))


def pipeline_components(path: Union[str, Path]) -> Dict[str, Dict]:
    """A pipeline folder's ``[components]`` as its config.cfg writes them (not interpolated; the
    pipeline is not loaded): the one reader of what a pipeline holds before it is loaded."""
    from spacy.util import load_config

    return dict(load_config(Path(path) / "config.cfg", interpolate=False)["components"])


def config_parser(components: Dict[str, Dict]) -> Optional[str]:
    """The name of the parser among a config's components (the first of a factory of
    ``PARSER_FACTORIES``), None without one."""
    return next((name for name, c in components.items() if c.get("factory") in PARSER_FACTORIES), None)


def of_factory(components: Dict[str, Dict], factory: str) -> List[str]:
    """The names of the components made by ``factory``."""
    return [name for name, cfg in components.items() if cfg.get("factory") == factory]


def pipeline_id(path: Union[str, Path]) -> str:
    """Which pipeline a folder holds, for the outputs it writes (``# pipeline
    = ...``, the first line of ``parse`` and ``parse-corpus`` outputs): its
    package name and version, and a digest of its files' contents (a
    retrained pipeline in the same folder differs)."""
    import hashlib

    import srsly

    path = Path(path)
    meta = srsly.read_json(path / "meta.json")
    digest = hashlib.sha1()
    for file in sorted(p for p in path.rglob("*") if p.is_file()):
        digest.update(str(file.relative_to(path)).encode("utf-8"))
        with open(file, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
    name = f"{meta.get('lang', 'xx')}_{meta.get('name', 'pipeline')}-{meta.get('version', '0.0.0')}"
    return f"{name} (sha1 {digest.hexdigest()[:12]})"


def header_line(pipeline: str) -> str:
    """The comment that opens an output: the pipeline that wrote it."""
    return f"# pipeline = {pipeline}\n" if pipeline else ""


def parser_kind(name: str) -> str:
    """The parser a pipeline holds, from its config: its transition system's registered name, or
    ``biaffine_parser`` (``--ensemble`` of different kinds: reparsing, ``parser/ensembles/``)."""
    for component in pipeline_components(pipeline_path(name)).values():
        if component.get("factory") == "planar_parser":
            return component.get("transition_system", {}).get("@transition_systems", "")
        if component.get("factory") == "biaffine_parser":
            return "biaffine_parser"
    return ""


def parsers_held(path: Union[str, Path]) -> List[str]:
    """What parses in the pipeline folder at ``path``, for a user (``download --list``, the
    index): each parser by its transition system's name or ``biaffine`` (in pipeline order;
    a ``parse_decider``: ``decider``), a ``planar_ensemble``'s
    members' each (``ensemble: ...``)."""
    components = pipeline_components(path)
    out: List[str] = []
    for name, component in components.items():
        factory = component.get("factory")
        if factory == "planar_parser":
            out.append(component.get("transition_system", {}).get("@transition_systems", "").split(".")[1])
        elif factory == "biaffine_parser":
            out.append("biaffine")
        elif factory == "parse_decider":
            out.append("decider")
        elif factory == "planar_ensemble":
            members = [" + ".join(parsers_held(Path(path) / name / MEMBER.format(k)))
                       for k in range(component.get("members", 0))]
            out.append(f"ensemble: {', '.join(members)}")
    return out
