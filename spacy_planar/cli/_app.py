"""The ``spacy-planar`` app, shared by the command modules (as spaCy's
``spacy/cli/_util.py``): the user's commands (``app``, whose modules
``cli/__init__.py`` imports) and the group ``spacy-planar lab ...``, whose
commands come from the ``spacy_planar_lab`` entry point when it is called
(``LabGroup``); a user error is one line and exit 1, once, for every command
(``OneLineErrors``)."""
from __future__ import annotations

from pathlib import Path
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

import typer
from typer.core import TyperGroup
from wasabi import Printer

from spacy_planar import __version__
from spacy_planar.errors import Errors, UserError
from spacy_planar.io.conllu import SkipReport, check_input, read_conllu

# what a command reports as one line and exit 1: bad input (file, line,
# reason: ConlluError is a UserError), a file that is missing, unreadable or
# a directory, a value out of range; every other exception is an internal
# error, which ``main`` reports with its traceback and exit 2
USER_ERRORS = (UserError, FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError)

msg = Printer()
# the entry-point group whose typer apps are ``spacy-planar lab``'s commands (pyproject.toml)
LAB_ENTRY_POINTS = "spacy_planar_lab"
LAB_HELP = "The laboratory: diagnostics, benchmarks and the anchors behind docs/results.md."


class OneLineErrors(TyperGroup):
    """A group whose commands' user errors (``USER_ERRORS``) are one line
    and exit 1 (``fail``), whichever command raised them; any other
    exception passes on as an internal error."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except USER_ERRORS as e:
            fail(str(e))

    def get_command(self, ctx, name):
        """The command, its help read as text (the docstrings' reST quotes ``x`` as x)."""
        command = super().get_command(ctx, name)
        for attr in ("help", "short_help"):
            if command is not None and getattr(command, attr, None):
                setattr(command, attr, getattr(command, attr).replace("``", ""))
        return command


class LabGroup(OneLineErrors):
    """The laboratory's group (``spacy-planar lab``): its commands are the typer apps that the
    ``spacy_planar_lab`` entry points name, loaded when the group is first asked for a command,
    so that the product's commands load nothing of the laboratory and name none of its modules."""

    def _load(self) -> None:
        if not getattr(self, "_loaded", False):
            from importlib.metadata import entry_points

            for point in entry_points(group=LAB_ENTRY_POINTS):
                self.commands.update(typer.main.get_command(point.load()).commands)
            self._loaded = True
        if not self.commands:  # a plain install: the laboratory is a package of its own
            raise UserError(Errors.E161)

    def get_command(self, ctx, name):
        self._load()
        return super().get_command(ctx, name)

    def list_commands(self, ctx):
        self._load()
        return super().list_commands(ctx)


APP_HELP = "Non-projective dependency parsing for spaCy: transition-based and graph-based."
app = typer.Typer(name="spacy-planar", cls=OneLineErrors, add_completion=False, no_args_is_help=True,
                  rich_markup_mode=None, help=APP_HELP)
app.add_typer(typer.Typer(cls=LabGroup, no_args_is_help=True, rich_markup_mode=None, help=LAB_HELP), name="lab")


def read_config(path: Path):
    """A config file as it is written (no interpolation): one that is
    missing (E031), a directory (E032) or not a config (E088) is a one-line
    error."""
    from thinc.api import Config, ConfigValidationError

    check_input(path)
    try:
        return Config().from_disk(path, interpolate=False)
    except ConfigValidationError as e:
        raise UserError(Errors.E088.format(path=path, reason=" ".join(str(e).split()))) from None


def flag(default: bool, *names: str, **options):
    """A typer option for a flag, shown without the ``<bool>`` that typer's
    help would put after it (a flag takes no value)."""
    return typer.Option(default, *names, metavar="", **options)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"spacy-planar {__version__}")
        raise typer.Exit()


@app.callback()
def _main(version: bool = flag(False, "--version", callback=_version, is_eager=True,
                                       help="Print the version and exit")) -> None:
    """Non-projective dependency parsing for spaCy: transition-based and graph-based."""


def fail(text: str) -> None:
    """Print an error (unwrapped, so "file:line: reason" stays whole) and exit 1."""
    typer.secho(f"\u2718 {text}", fg="red", err=True)
    raise typer.Exit(1)


def trees_of(path: Path, report: Optional[SkipReport] = None) -> Iterator[Tuple[List[int], List[str]]]:
    """(heads, labels) of the annotated sentences of a CoNLL-U file."""
    for sent in read_conllu(path, skip_invalid=report is not None, report=report):
        if sent.heads is not None:
            yield sent.heads, sent.deprels


def beam_options(items: Sequence[str]) -> Dict[str, Dict]:
    """``--beam NAME=WIDTH`` (or ``NAME=WIDTH+merge``) options: the
    planar_parser settings of each NAME (``beam_width``, ``beam_merge``)."""
    out = {}
    for item in items:
        name, _, spec = item.partition("=")
        width, plus, merge = spec.partition("+")
        if not width.isdigit() or int(width) < 1 or (plus and merge != "merge"):
            raise UserError(Errors.E087.format(item=item))
        out[name] = {"beam_width": int(width), "beam_merge": bool(plus)}
    return out


def setting_options(items: Sequence[str]) -> Dict[str, Dict]:
    """``--set NAME:KEY=VALUE`` options: planar_parser settings of each NAME,
    the value read as JSON where it is (true, 0.5, "x"), else as a string."""
    import json

    out: Dict[str, Dict] = {}
    for item in items:
        name, colon, setting = item.partition(":")
        key, eq, value = setting.partition("=")
        if not (name and colon and key and eq):
            raise UserError(Errors.E089.format(item=item))
        try:
            parsed = json.loads(value)
        except json.JSONDecodeError:
            parsed = value
        out.setdefault(name, {})[key] = parsed
    return out


def load_pipeline(source, beam: Optional[Dict] = None, beam_needed: bool = True):
    """``spacy.load`` of the pipeline ``source`` names (a folder or an
    installed package: ``pipelines.pipeline_path``, one line where it is
    neither); with ``beam`` (``beam_options``' settings), every
    planar_parser of the pipeline parses with that beam (E082 where there is
    none, unless the beam is only for arc probabilities, ``beam_needed``
    False, and a biaffine_parser gives them without one)."""
    import spacy

    from spacy_planar.io.pipelines import of_factory, pipeline_components, pipeline_path
    from spacy_planar.parser.ensembles.loading import beam_config

    path = pipeline_path(source)
    if beam is None:
        return spacy.load(path)
    components = pipeline_components(path)
    if not of_factory(components, "planar_parser"):
        if not beam_needed and of_factory(components, "biaffine_parser"):
            return spacy.load(path)
        raise UserError(Errors.E082.format(model=source, pipes=", ".join(components)))
    return spacy.load(path, config=beam_config(path, beam))


def planar_parsers(path: Path) -> List[str]:
    """The names of a pipeline folder's planar_parser components, read from
    its config.cfg (the pipeline is not loaded)."""
    from spacy_planar.io.pipelines import of_factory, pipeline_components

    return of_factory(pipeline_components(path), "planar_parser")
