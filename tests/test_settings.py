"""No config value is silently overwritten: what a shipped config, a load-time
override or a command's option says is what runs."""
import zlib
from pathlib import Path

import pytest
import spacy
from conftest import fixture_path, sample, shortest_docs, small_parser
from spacy.util import load_config, load_model_from_config
from thinc.api import set_dropout_rate

from spacy_planar.model.packed import DROP_CONNECT
from spacy_planar.model.chars import WORD_DROPOUT
from spacy_planar.model.with_tags import EMBED_DROPOUT

CONFIGS = sorted(p for p in (Path(__file__).resolve().parents[1] / "configs").glob("*.cfg") if p.stem != "ud_trf")


def blocks_with(node, key: str, where: str = ""):
    """Every (path, block) of a resolved config section holding ``key``."""
    if isinstance(node, dict):
        if key in node:
            yield where, node
        for name, child in node.items():
            yield from blocks_with(child, key, f"{where}.{name}")


def model_attrs(model, attr: str):
    return [node.attrs[attr] for node in model.walk() if attr in node.attrs]


@pytest.mark.parametrize("path", CONFIGS, ids=[p.stem for p in CONFIGS])
def test_every_value_of_a_shipped_config_is_the_one_that_runs(path):
    """Each planar_parser setting is the config's; each encoder's DropConnect
    and word dropout are the config's, still after spaCy's trainer has set
    ``training.dropout`` on every layer (what ``nlp.update`` does at each
    step); ``[nlp] batch_size`` is the pipeline's (``parse``'s default)."""
    config = load_config(path)
    nlp = load_model_from_config(config, auto_fill=True, validate=True)
    filled = nlp.config.interpolate()
    assert nlp.batch_size == filled["nlp"]["batch_size"]
    checked = 0
    for name, block in filled["components"].items():
        if "source" in block or name not in nlp.component_names:
            continue
        pipe = nlp.get_pipe(name)
        if block.get("factory") == "planar_parser":
            settings = pipe.settings
            for key, value in block.items():
                if key == "root_label" and value is None:  # learned from the training data
                    assert settings.learn_root_label
                elif key == "transition_system":  # the system's options (its name for the registered function)
                    assert {k: v for k, v in value.items() if not k.startswith("@")}.items() <= settings.system.items()
                elif hasattr(settings, key):
                    assert getattr(settings, key) == value, (name, key)
                    checked += 1
        model = getattr(pipe, "model", None)
        if model is None:
            continue
        set_dropout_rate(model, 0.77)  # what spaCy's components do with training.dropout at each update
        for key, attrs in (("dropout", (DROP_CONNECT, EMBED_DROPOUT)), ("word_dropout", (WORD_DROPOUT,))):
            wanted = {b[key] for where, b in blocks_with(block.get("model", {}), key)
                      if str(b.get("@architectures", "")).startswith("spacy-planar.")}
            found = {rate for attr in attrs for rate in model_attrs(model, attr)}
            assert found - {0.0} == wanted - {0.0}, (name, key, found, wanted)  # 0: no layer, or one at 0
            checked += len(found)
    assert checked


def test_a_learned_setting_given_at_load_is_refused_in_one_line(tmp_path):
    """root_label and tree_transforms are learned with the weights: one given
    at load that is not the saved one is E139, not replaced without a word;
    beam_width, an option of parsing, is honoured."""
    from spacy_planar.errors import UserError

    model = small_parser(tmp_path / "model", 10, epochs=1)
    for key, value in (("root_label", "ROOT"), ("tree_transforms", ["coordination-ps"]),
                       ("transition_system", {"encoding": "head"})):  # the system's labels mean head+path
        with pytest.raises(UserError, match=f"E139.*{key}") as e:
            spacy.load(model, config={"components": {"planar_parser": {key: value}}})
        assert len(str(e.value).splitlines()) == 1
    assert spacy.load(model, config={"components": {"planar_parser": {"beam_width": 3}}}).get_pipe(
        "planar_parser").settings.beam_width == 3


def test_the_biaffines_learned_settings_given_at_load_are_refused_in_one_line(tmp_path):
    """The biaffine's pseudo-projective encoding, tree transforms and root label are learned with
    its weights (its labels are decorated by the one, its trees transformed by the other): one
    given at load that is not the saved one is E139 (an override of pseudo_projective once kept
    the decorated labels and no longer deprojectivized); the decoder, an option, is honoured."""
    from spacy.tokens import Doc
    from spacy.training import Example

    from spacy_planar.errors import UserError

    nlp = spacy.blank("xx")
    nlp.add_pipe("biaffine_parser")
    docs = shortest_docs(nlp.vocab, 10)
    examples = [Example(Doc(nlp.vocab, words=[t.text for t in d]), d) for d in docs]
    nlp.initialize(lambda: examples)
    nlp.to_disk(tmp_path / "model")
    for key, value in (("pseudo_projective", None), ("tree_transforms", ["coordination-ps"]), ("root_label", "ROOT")):
        with pytest.raises(UserError, match=f"E139.*{key}") as e:
            spacy.load(tmp_path / "model", config={"components": {"biaffine_parser": {key: value}}})
        assert len(str(e.value).splitlines()) == 1
    loaded = spacy.load(tmp_path / "model", config={"components": {"biaffine_parser": {"decoder": "mst"}}})
    assert loaded.get_pipe("biaffine_parser").settings.decoder == "mst"
    assert loaded.get_pipe("biaffine_parser").settings.labels == nlp.get_pipe("biaffine_parser").settings.labels


def test_parse_takes_the_batch_size_and_beam_it_is_given(tmp_path, monkeypatch):
    """parse: the pipeline's [nlp] batch_size without --batch-size, the
    option's with it; --beam alone parses with that beam."""
    from typer.testing import CliRunner

    from spacy_planar.__main__ import app
    from spacy_planar.parser.transition.pipe import PlanarParser

    model = small_parser(tmp_path / "model", 10, epochs=1)
    nlp = spacy.load(model)
    nlp.to_disk(tmp_path / "b7")
    config = (tmp_path / "b7" / "config.cfg").read_text(encoding="utf-8")
    assert "\nbatch_size = 1000\n" in config
    (tmp_path / "b7" / "config.cfg").write_text(config.replace("\nbatch_size = 1000\n", "\nbatch_size = 7\n", 1))
    gold = sample(fixture_path("dev"), tmp_path / "in.conllu", 3)
    seen = []
    pipe = PlanarParser.pipe

    def recording(self, stream, *, batch_size=128):
        seen.append((batch_size, self.settings.beam_width))
        return pipe(self, stream, batch_size=batch_size)

    monkeypatch.setattr(PlanarParser, "pipe", recording)
    for options, wanted in (([], (7, 1)), (["--batch-size", "2"], (2, 1)), (["--beam", "3"], (7, 3))):
        seen.clear()
        r = CliRunner().invoke(app, ["parse", str(tmp_path / "b7"), str(gold), str(tmp_path / "out.conllu"), *options])
        assert r.exit_code == 0, r.output
        assert set(seen) == {wanted}, options


def test_an_embeddings_dropout_set_in_a_config_outlives_the_trainers():
    """WithMorphology's ``dropout`` (0 in the shipped configs) is its own, not
    ``training.dropout``: spaCy's set_dropout_rate leaves it as given."""
    from spacy_planar.model.with_tags import build_with_morphology

    from spacy.ml.models.tok2vec import build_hash_embed_cnn_tok2vec

    tok2vec = build_hash_embed_cnn_tok2vec(width=16, depth=1, embed_size=100, window_size=1, maxout_pieces=2,
                                           subword_features=False, pretrained_vectors=None)
    model = build_with_morphology(tok2vec, width=8, rows=50, dropout=0.3)
    set_dropout_rate(model, 0.77)
    assert model_attrs(model, EMBED_DROPOUT) == [0.3]


@pytest.mark.parametrize("override, section, key, nearest", [
    ("--training.max_stepz", "training", "max_stepz", "max_steps"),
    ("--components.planar_parser.beam_widht", "components.planar_parser", "beam_widht", "beam_width"),
    ("--components.tok2vec.model.encode.deptj", "components.tok2vec.model.encode", "deptj", "depth"),
    ("--corpora.train.max_lenght", "corpora.train", "max_lenght", "max_length"),
])
def test_a_misspelled_key_is_refused_in_one_line_before_anything_is_made(tmp_path, override, section, key, nearest):
    """spaCy drops a [training] key it does not know and trains on; train
    refuses any key that no schema, factory or registered function takes,
    in the file or on the command line, naming the nearest valid one."""
    from typer.testing import CliRunner

    from spacy_planar.__main__ import app

    config = Path(__file__).resolve().parents[1] / "configs" / "ud.cfg"
    corpus = tmp_path / "c.spacy"
    from conftest import first_docs
    from spacy.tokens import DocBin

    DocBin(docs=first_docs(fixture_path(), spacy.blank("xx").vocab, 3)).to_disk(corpus)
    args = ["train", str(config), "--output", str(tmp_path / "out"), "--paths.train", str(corpus),
            "--paths.dev", str(corpus), override, "2"]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 1 and "E142" in r.output, r.output
    assert f"[{section}] has no setting '{key}' (did you mean '{nearest}'?)" in r.output
    assert len(r.output.strip().splitlines()) == 1 and not (tmp_path / "out").exists()
    # the same in the file
    text = config.read_text(encoding="utf-8")
    bad = tmp_path / "bad.cfg"
    bad.write_text(text.replace("[training]\n", "[training]\nmax_stepz = 2\n", 1), encoding="utf-8")
    r = CliRunner().invoke(app, ["train", str(bad), "--output", str(tmp_path / "out"), "--paths.train", str(corpus),
                                 "--paths.dev", str(corpus)])
    assert r.exit_code == 1 and "'max_stepz' (did you mean 'max_steps'?)" in r.output


def test_plain_spacy_train_refuses_a_misspelled_key_through_the_configs_callback(tmp_path):
    """spaCy's own ``spacy train`` (which drops a ``[training]`` key it does not know and trains
    20,000 steps) stops on a misspelled key, given as an override or written in the file, with
    the nearest name, before any training: the shipped configs' ``[nlp.after_creation]``
    (``spacy-planar.check_keys.v1``); a clean run trains and its pipeline loads unchecked."""
    from spacy.cli._util import app as spacy_app
    from spacy.tokens import DocBin
    from typer.testing import CliRunner

    from conftest import first_docs

    config = Path(__file__).resolve().parents[1] / "configs" / "arc_eager.cfg"
    assert load_config(config)["nlp"]["after_creation"] == {"@callbacks": "spacy-planar.check_keys.v1"}
    corpus = tmp_path / "c.spacy"
    DocBin(docs=first_docs(fixture_path(), spacy.blank("xx").vocab, 3)).to_disk(corpus)
    common = ["--paths.train", str(corpus), "--paths.dev", str(corpus)]
    r = CliRunner().invoke(spacy_app, ["train", str(config), "--output", str(tmp_path / "a"), *common,
                                       "--training.max_stepz", "2"])
    assert r.exit_code == 1 and "max_stepz\tno such setting (did you mean 'max_steps'?)" in r.output, r.output
    assert not (tmp_path / "a" / "model-last").exists()
    bad = tmp_path / "bad.cfg"
    bad.write_text(config.read_text(encoding="utf-8").replace(
        "[components.planar_parser]\n", "[components.planar_parser]\nbeam_widht = 2\n", 1), encoding="utf-8")
    r = CliRunner().invoke(spacy_app, ["train", str(bad), "--output", str(tmp_path / "b"), *common])
    assert r.exit_code == 1 and "beam_widht\tno such setting (did you mean 'beam_width'?)" in r.output, r.output
    r = CliRunner().invoke(spacy_app, ["train", str(config), "--output", str(tmp_path / "c"), *common,
                                       "--training.max_steps", "2"])
    assert r.exit_code == 0, r.output
    assert spacy.load(tmp_path / "c" / "model-last").pipe_names == ["tok2vec", "planar_parser"]


def test_every_shipped_config_has_only_keys_that_something_reads():
    from spacy.util import load_config

    import spacy_planar.parser  # noqa: F401 (the factories)
    import spacy_planar.ud  # noqa: F401
    from spacy_planar.io.config_keys import first_unknown_key

    root = Path(__file__).resolve().parents[1] / "configs"
    for path in sorted(root.glob("**/*.cfg")):
        assert first_unknown_key(load_config(path, interpolate=False)) is None, path


def test_a_gpu_id_without_a_gpu_is_one_line(tmp_path):
    from thinc.util import gpu_is_available
    from typer.testing import CliRunner

    from spacy_planar.__main__ import app

    if gpu_is_available():
        pytest.skip("this machine has a GPU")
    config = Path(__file__).resolve().parents[1] / "configs" / "arc_eager.cfg"
    corpus = tmp_path / "c.spacy"
    from conftest import first_docs
    from spacy.tokens import DocBin

    DocBin(docs=first_docs(fixture_path(), spacy.blank("xx").vocab, 3)).to_disk(corpus)
    r = CliRunner().invoke(app, ["train", str(config), "--output", str(tmp_path / "out"), "--paths.train", str(corpus),
                                 "--paths.dev", str(corpus), "--gpu-id", "0"])
    assert r.exit_code == 1 and "E143" in r.output and len(r.output.strip().splitlines()) == 1, r.output
    assert not (tmp_path / "out").exists()


def test_train_keeps_a_trained_pipeline_and_ctrl_c_leaves_nothing_half_made(tmp_path, monkeypatch):
    """A rerun into a folder holding a trained pipeline is refused without
    --overwrite (E144); Ctrl-C before any pipeline is saved removes the folder
    the run made, in one line (E145)."""
    from conftest import first_docs
    from spacy.tokens import DocBin
    from typer.testing import CliRunner

    from spacy_planar.__main__ import app
    from spacy_planar.cli import train as train_module

    config = Path(__file__).resolve().parents[1] / "configs" / "arc_eager.cfg"
    corpus = tmp_path / "c.spacy"
    DocBin(docs=first_docs(fixture_path(), spacy.blank("xx").vocab, 3)).to_disk(corpus)
    args = ["--paths.train", str(corpus), "--paths.dev", str(corpus)]
    (tmp_path / "done" / "model-best").mkdir(parents=True)
    r = CliRunner().invoke(app, ["train", str(config), "--output", str(tmp_path / "done"), *args])
    assert r.exit_code == 1 and "E144" in r.output and "--overwrite" in r.output

    def interrupted(config_path, output_path, overrides, gpu_id=-1, target_epochs=0):
        output_path.mkdir(parents=True, exist_ok=True)
        (output_path / "half").write_text("initialising", encoding="utf-8")
        raise KeyboardInterrupt

    monkeypatch.setattr(train_module, "train_stages", interrupted)
    r = CliRunner().invoke(app, ["train", str(config), "--output", str(tmp_path / "new"), *args])
    assert r.exit_code == 1 and sum("E145" in line for line in r.output.splitlines()) == 1, r.output
    assert "removed" in r.output and not (tmp_path / "new").exists()
    r = CliRunner().invoke(app, ["train", str(config), "--output", str(tmp_path / "done"), "--overwrite", *args])
    assert r.exit_code == 1 and "E145" in r.output and (tmp_path / "done" / "model-best").exists()


def test_training_says_what_it_has_taken_and_about_what_is_left():
    """The line under each row of spaCy's table (spacy-planar.ConsoleLogger.v1):
    elapsed time, and once an epoch's steps are known the time left by
    whichever of max_epochs and max_steps ends training first."""
    from spacy_planar.io.progress import training_estimate

    first = "elapsed 0:00:30, epoch 1 of 20 (an estimate once an epoch is done)"
    assert training_estimate(30, 10, 0, 20000, 20, None) == first
    # 100 steps an epoch, 20 epochs: 500 of 2,000 steps in 60 s, 180 s left
    assert training_estimate(60, 500, 5, 20000, 20, 100.0) == "elapsed 0:01:00, about 0:03:00 left (at most; 25% done)"
    # max_steps first: 500 of 1,000
    assert training_estimate(60, 500, 5, 1000, 20, 100.0) == "elapsed 0:01:00, about 0:01:00 left (at most; 50% done)"
    assert training_estimate(60, 500, 0, 1000, 0, None) == "elapsed 0:01:00, about 0:01:00 left (at most; 50% done)"


def test_training_estimates_from_its_first_steps_before_the_first_evaluation():
    """spaCy's loop calls the logger every step, with nothing between evaluations: after the
    first 20 and 100 steps (before step 200's evaluation) a line says their pace and at least
    how long max_steps leaves; none once an evaluation after step 0 has been written."""
    import io

    from spacy_planar.io.progress import console_logger, early_estimate

    assert early_estimate(12.0, 10.0, 20, 20000, 20) == (
        "elapsed 0:00:12, 0.50 s a step over the first 20; at least 2:46:30 left for 20,000 steps at this pace, "
        "or 20 epochs, whichever ends first")
    nlp = spacy.blank("xx")
    nlp.config["training"] = {"max_steps": 1000, "max_epochs": 0, "eval_frequency": 200,
                              "score_weights": {"dep_las": 1.0}}
    info = {"epoch": 0, "step": 0, "score": 0.0, "other_scores": {"dep_las": 0.0}, "losses": {}, "checkpoints": []}

    def run(evaluated_at=()):
        out = io.StringIO()
        step, _ = console_logger()(nlp, stdout=out, stderr=io.StringIO())
        step(info)
        for n in range(1, 150):
            step({**info, "step": n} if n in evaluated_at else None)
        return [line for line in out.getvalue().splitlines() if "s a step over the first" in line]

    lines = run()
    assert [line.split(" over the first ")[1].split(";")[0] for line in lines] == ["20", "100"], lines
    assert all("left for 1,000 steps at this pace" in line for line in lines)
    assert run(evaluated_at=(10,)) == []  # an evaluation's own line says more


@pytest.mark.parametrize("content", [b"not a DocBin", zlib.compress(b"msgpack it is not")], ids=["bytes", "zlib"])
def test_a_file_that_is_not_a_docbin_is_one_line_and_nothing_made(tmp_path, content):
    """A .spacy file whose bytes are no DocBin: `convert` and `train` say so in
    one line (E151, exit 1), write nothing and leave no folder behind."""
    from typer.testing import CliRunner

    from spacy_planar.__main__ import app

    bad = tmp_path / "bad.spacy"
    bad.write_bytes(content)
    r = CliRunner().invoke(app, ["convert", str(bad), str(tmp_path / "out.conllu")])
    assert r.exit_code == 1 and "E151" in r.output and len(r.output.strip().splitlines()) == 1, r.output
    assert not (tmp_path / "out.conllu").exists()
    config = Path(__file__).resolve().parents[1] / "configs" / "arc_eager.cfg"
    r = CliRunner().invoke(app, ["train", str(config), "--output", str(tmp_path / "out"), "--paths.train", str(bad),
                                 "--paths.dev", str(bad)])
    assert r.exit_code == 1 and f"[E151] {bad}" in r.output, r.output
    assert not (tmp_path / "out").exists()


def test_model_best_meta_carries_the_score_it_was_kept_for(tmp_path):
    """A short training whose last step beats every evaluation (only step 0's, here) keeps
    model-last as model-best: its meta.json holds the LAS the log reports for it, not step 0's."""
    import re

    import srsly
    from conftest import first_docs
    from spacy.tokens import DocBin
    from typer.testing import CliRunner

    from spacy_planar.__main__ import app

    config = Path(__file__).resolve().parents[1] / "configs" / "biaffine.cfg"
    corpus = tmp_path / "c.spacy"
    DocBin(docs=first_docs(fixture_path(), spacy.blank("xx").vocab, 150), store_user_data=True).to_disk(corpus)
    r = CliRunner().invoke(app, ["train", str(config), "--output", str(tmp_path / "out"), "--paths.train", str(corpus),
                                 "--paths.dev", str(corpus), "--training.max_epochs", "2",
                                 "--training.eval_frequency", "1000"])
    assert r.exit_code == 0, r.output
    reported = re.search(r"model-last \(the last step\) scored [\d.]+ \(LAS ([\d.]+)\) on dev: it is model-best",
                         r.output)
    assert reported, r.output
    performance = srsly.read_json(tmp_path / "out" / "model-best" / "meta.json")["performance"]
    assert f"{100 * performance['dep_las']:.2f}" == reported.group(1)
    assert performance["dep_las"] > 0.1  # not the untrained pipeline's
