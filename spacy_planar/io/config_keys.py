"""Every key of a training config checked against what reads it, before
anything is trained: spaCy resolves ``[training]`` with a schema that drops
a key it does not know (``max_stepz`` trains the default 20,000 steps), and a
registered function's unknown argument fails late with a dump of the whole
block. Here a key no schema, factory or registered function takes is one
line naming the section, the key and the nearest valid name."""
from __future__ import annotations

import difflib
import inspect
from typing import Dict, Iterable, Iterator, Optional, Tuple

from spacy.util import registry

# the sections whose keys are spaCy's schemas' fields; [paths] and [system] are the user's variables
FREE_SECTIONS = ("paths", "system", "pretraining", "variables")


def schema_fields(schema) -> set:
    fields = getattr(schema, "model_fields", None) or getattr(schema, "__fields__", {})
    return {getattr(f, "alias", None) or name for name, f in fields.items()} | set(fields)


def parameters(func) -> Optional[set]:
    """A function's argument names, or None where it takes any (``**kwargs``)."""
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):
        return None
    if any(p.kind is p.VAR_KEYWORD for p in signature.parameters.values()):
        return None
    return set(signature.parameters)


def registered(block: Dict) -> Optional[Tuple[str, set]]:
    """The names a block with ``@namespace = "name"`` may hold: its function's arguments."""
    for key, value in block.items():
        if key.startswith("@"):
            try:
                func = registry.get(key[1:], value)
            except Exception:  # an unknown function: spaCy's own error says so
                return None
            names = parameters(func)
            return None if names is None else (f"{key} = {value!r}", names | {key})
    return None


def unknown_keys(config: Dict) -> Iterator[Tuple[str, str, Iterable[str]]]:
    """(section, key, valid names) for every key nothing reads."""
    from spacy.language import Language
    from spacy.schemas import ConfigSchemaInit, ConfigSchemaNlp, ConfigSchemaTraining

    try:  # spaCy 3.8 registers its own factories when a language is made, or when asked
        from spacy.pipeline.factories import register_factories

        register_factories()
    except ImportError:
        import spacy.pipeline  # noqa: F401

    top = {"training": ConfigSchemaTraining, "nlp": ConfigSchemaNlp, "initialize": ConfigSchemaInit}
    for section, schema in top.items():
        block = config.get(section, {})
        valid = schema_fields(schema)
        for key, value in block.items():
            if key not in valid:
                yield section, key, valid
            elif isinstance(value, dict):
                yield from nested(f"{section}.{key}", value)
    for name, block in config.get("components", {}).items():
        section = f"components.{name}"
        if "factory" in block:
            func = Language.factories.get(block["factory"])
            names = None if func is None else parameters(func)  # None: an unknown factory (spaCy says so)
            valid = None if names is None else (names | {"factory"}) - {"nlp", "name"}
        else:
            valid = {"source", "component", "replace_listeners"}
        for key, value in block.items():
            if valid is not None and key not in valid:
                yield section, key, valid
            elif isinstance(value, dict):
                yield from nested(f"{section}.{key}", value)
    for section in ("corpora",):
        for key, value in config.get(section, {}).items():
            if isinstance(value, dict):
                yield from nested(f"{section}.{key}", value)


def nested(section: str, block: Dict) -> Iterator[Tuple[str, str, Iterable[str]]]:
    """A block's keys against its registered function (blocks without one hold what their reader takes)."""
    found = registered(block)
    for key, value in block.items():
        if found is not None and key not in found[1]:
            yield section, key, found[1] - {k for k in found[1] if k.startswith("@")}
        elif isinstance(value, dict):
            yield from nested(f"{section}.{key}", value)


def first_unknown_key(config: Dict) -> Optional[Tuple[str, str, Optional[str]]]:
    """The first (section, key, nearest valid name or None) nothing reads, or None."""
    for section, key, valid in unknown_keys(config):
        if section.split(".")[0] in FREE_SECTIONS:
            continue
        nearest = difflib.get_close_matches(key, sorted(valid), n=1, cutoff=0.6)
        return section, key, nearest[0] if nearest else None
    return None


def training_config_of_caller():
    """The config that spaCy's ``init_nlp`` is setting up, as it was read (overrides in it, every
    key still there), found in its frame; None where the pipeline is made otherwise
    (``spacy.load``, ``spacy.blank``): a trained pipeline is not checked again."""
    from thinc.api import Config

    frame = inspect.currentframe()
    while frame is not None:
        if frame.f_code.co_name == "init_nlp" and isinstance(frame.f_locals.get("raw_config"), Config):
            return frame.f_locals["raw_config"]
        frame = frame.f_back
    return None


@registry.callbacks("spacy-planar.check_keys.v1")
def make_check_keys():
    """``spacy-planar.check_keys.v1``, the shipped configs' ``[nlp.after_creation]`` callback: under
    plain ``spacy train`` (which fills ``[training]`` with a schema that drops a key it does not
    know, so ``max_stepz`` trains the default 20,000 steps) a key nothing reads stops the run
    before anything is trained, as spaCy's own config errors do (``ConfigValidationError``: two
    lines, exit 1), naming the section, the key and the nearest valid name; ``spacy-planar train``
    checks the same before it calls spaCy (E142)."""
    from thinc.api import ConfigValidationError

    def check_keys(nlp):
        config = training_config_of_caller()
        found = None if config is None else first_unknown_key(config)
        if found is not None:
            section, key, nearest = found
            hint = f" (did you mean '{nearest}'?)" if nearest else ""
            raise ConfigValidationError(config=config, title="Config validation error", show_config=False, errors=[
                {"loc": [*section.split("."), key], "msg": f"no such setting{hint}"}])
        return nlp

    return check_keys
