"""The laboratory's apps (``spacy-planar lab ...``, ``spacy-planar lab bench ...``), on which
its command modules register; the product finds them through the ``spacy_planar_lab`` entry
point (pyproject.toml) when ``lab`` is called, and names nothing of this package."""
import typer

from spacy_planar.cli._app import LAB_HELP, OneLineErrors

lab_app = typer.Typer(cls=OneLineErrors, no_args_is_help=True, rich_markup_mode=None, help=LAB_HELP)
bench_app = typer.Typer(cls=OneLineErrors, no_args_is_help=True, rich_markup_mode=None,
                        help="Benchmarks: throughput in words per second.")
lab_app.add_typer(bench_app, name="bench")
