"""catalog.py: one description per system, from which the rest is derived."""
import pytest
from spacy.util import registry

from spacy_planar.errors import UserError
from spacy_planar.parser.transition.catalog import SPECS, SYSTEMS, make_system, spec_of


def test_each_system_is_described_once_and_the_rest_derives_from_it():
    from spacy_planar.cli.init_config import PARTS, SYSTEM_CONFIGS

    assert list(SYSTEMS) == ["arc_eager", "planar", "two_planar", "swap", "top_down"]
    for spec in SPECS:
        assert spec.system.name == spec.name  # the name in messages is the name users type
        # the registered function is the spec's, and configures the spec's class with its oracle
        assert registry.transition_systems.get(spec.registry_name) is spec.configure
        assert spec.configure().cls is spec.system
        assert (PARTS / f"{spec.name}.partial.cfg").is_file() and spec.name in SYSTEM_CONFIGS
    assert [s.name for s in SPECS if s.explores] == ["arc_eager", "planar", "two_planar", "swap"]
    assert [s.name for s in SPECS if s.reads_tags] == ["top_down"]
    assert [s.name for s in SPECS if s.encoded] == ["arc_eager", "top_down"]


def test_systems_are_named_as_the_configs_name_them_and_unknown_names_are_one_line():
    assert type(make_system("two_planar", ["obj"])) is SYSTEMS["two_planar"]
    assert spec_of("top_down").name == "top_down"
    with pytest.raises(UserError, match="E070"):
        spec_of("2-planar")  # 0.1's command line took it
    with pytest.raises(UserError, match=r"E070.*'three_planar'.*arc_eager, planar, two_planar, swap, top_down"):
        spec_of("three_planar")


def test_analyse_oracle_takes_the_factorys_system_by_default(tmp_path):
    from typer.testing import CliRunner

    from spacy_planar.__main__ import app

    path = tmp_path / "t.conllu"
    path.write_text("1\ta\t_\t_\t_\t_\t2\tnsubj\t_\t_\n2\tb\t_\t_\t_\t_\t0\troot\t_\t_\n\n", encoding="utf-8")
    r = CliRunner().invoke(app, ["lab", "oracle", str(path), "--json"])
    assert r.exit_code == 0, r.output
    assert '"system": "arc_eager"' in r.output
    r = CliRunner().invoke(app, ["lab", "oracle", str(path), "--system", "two_planar", "--json"])
    assert r.exit_code == 0 and '"system": "two_planar"' in r.output
