"""Several treebanks in one pipeline: each Doc's treebank (convert, the
reader), the learned treebank embedding (model/treebanks.py), train's
repeated --paths.train, parse --treebank."""
import numpy as np
import pytest
from conftest import fixture_path
import spacy
from spacy.tokens import DocBin
from thinc.api import NumpyOps

from spacy_planar.cli.train import several_treebanks
from spacy_planar.errors import UserError
from spacy_planar.io.conllu import TREEBANK_KEY, TREEBANKS_KEY, conllu_to_docbin, treebank_name
from spacy_planar.io.readers import create_corpus
from spacy_planar.model.treebanks import build_treebank_embed, set_treebank, treebanks

SENTENCE = """# sent_id = {k}
1\t{a}\t{a}\tNOUN\t_\t_\t2\tnsubj\t_\t_
2\tvenit\tvenio\tVERB\t_\t_\t0\troot\t_\t_
3\t{b}\t{b}\tADV\t_\t_\t2\tadvmod\t_\t_

"""


def write_treebank(folder, name: str, n: int, words=("Marcus", "heri")):
    path = folder / f"{name}-ud-train.conllu"
    path.write_text("".join(SENTENCE.format(k=f"{name}-{k}", a=words[0], b=words[1]) for k in range(n)),
                    encoding="utf-8")
    return path


@pytest.mark.parametrize("path,name", [("UD_Latin-ITTB/la_ittb-ud-dev.conllu", "la_ittb"),
                                       ("corpus/la_llct/train.spacy", "la_llct"),
                                       ("ud/grc_ptnk/test.conllu", "grc_ptnk"),
                                       ("my_treebank.conllu", "my_treebank")])
def test_a_files_treebank_is_named_by_its_file(path, name):
    assert treebank_name(path) == name


def test_convert_keeps_the_treebank_and_the_reader_names_each_run(tmp_path):
    """convert marks each Doc with its treebank (the file's name, or
    --treebank); the reader gives the target's runs, then the others', each
    predicted Doc naming its treebank and all of them, the target first."""
    target = tmp_path / "target.spacy"
    conllu_to_docbin(write_treebank(tmp_path, "la_udante", 4), target)
    other = tmp_path / "other.spacy"
    conllu_to_docbin(write_treebank(tmp_path, "la_llct", 3), other, treebank="charters")
    nlp = spacy.blank("xx")
    docs = list(DocBin().from_disk(target).get_docs(nlp.vocab))
    assert {d.user_data[TREEBANK_KEY] for d in docs} == {"la_udante"}
    examples = list(create_corpus(target, sentences=2, treebanks=str(other))(nlp))
    assert [eg.predicted.user_data[TREEBANK_KEY] for eg in examples] == ["la_udante"] * 2 + ["charters"] * 2
    assert {eg.predicted.user_data[TREEBANKS_KEY] for eg in examples} == {("la_udante", "charters")}
    assert [len(list(eg.reference.sents)) for eg in examples] == [2, 2, 2, 1]
    with pytest.raises(FileNotFoundError):
        create_corpus(target, treebanks=f"{other},{tmp_path / 'missing.spacy'}")


def test_train_takes_several_paths_train_the_first_the_target():
    args = ["--paths.train", "a.spacy", "--paths.dev", "d.spacy", "--paths.train=b.spacy", "--paths.train", "c"]
    assert several_treebanks(args) == ["--paths.dev", "d.spacy", "--paths.train", "a.spacy",
                                       "--paths.treebanks", "b.spacy,c"]
    assert several_treebanks(["--paths.train", "a"]) == ["--paths.train", "a"]


def test_several_treebanks_then_epochs_on_the_target_alone(tmp_path):
    """`train --paths.train T --paths.train O`: the several-treebank
    pipeline in OUTPUT/all_treebanks, then --target-epochs epochs on T
    alone, every component sourced from it, into OUTPUT; the result knows
    both treebanks (parse --treebank O). --target-epochs 0: one stage."""
    from pathlib import Path

    from conftest import sample
    from typer.testing import CliRunner

    from spacy_planar.__main__ import app
    from spacy_planar.ud.stages import target_stage

    config = Path(__file__).resolve().parents[1] / "configs" / "arc_eager.cfg"
    target, other, dev = tmp_path / "la_udante.spacy", tmp_path / "other.spacy", tmp_path / "dev.spacy"
    conllu_to_docbin(sample(fixture_path(), tmp_path / "t.conllu", 20), target, treebank="la_udante")
    conllu_to_docbin(sample(fixture_path("dev"), tmp_path / "o.conllu", 20), other, treebank="other")
    conllu_to_docbin(sample(fixture_path("test"), tmp_path / "d.conllu", 10), dev)
    common = [str(config), "--paths.train", str(target), "--paths.train", str(other), "--paths.dev", str(dev),
              "--training.max_steps", "4", "--training.eval_frequency", "2"]
    out = tmp_path / "out"
    r = CliRunner().invoke(app, ["train", *common, "--output", str(out), "--target-epochs", "1"])
    assert r.exit_code == 0, r.output
    assert (out / "all_treebanks" / "model-best").is_dir() and (out / "model-best").is_dir()
    stage = target_stage(out / "all_treebanks" / "model-best", 1)
    assert stage["paths"]["treebanks"] is None and stage["paths"]["train"] == str(target)
    assert stage["training"]["max_epochs"] == 1 and stage["training"]["max_steps"] == 0
    assert all(c == {"source": str((out / "all_treebanks" / "model-best").resolve())}
               for c in stage["components"].values())
    nlp = spacy.load(out / "model-best")
    assert treebanks(nlp) == ["la_udante", "other"]
    set_treebank(nlp, "other")
    assert nlp(spacy.tokens.Doc(nlp.vocab, words=["Marcus", "venit"])).has_annotation("DEP")
    r = CliRunner().invoke(app, ["train", *common, "--output", str(tmp_path / "one"), "--target-epochs", "0"])
    assert r.exit_code == 0, r.output
    assert not (tmp_path / "one" / "all_treebanks").exists() and (tmp_path / "one" / "model-best").is_dir()


def _docs(nlp, names):
    docs = [nlp.make_doc("Marcus venit heri"), nlp.make_doc("Marcus venit")]
    for doc, name in zip(docs, names):
        if name:
            doc.user_data[TREEBANK_KEY] = name
    return docs


def test_the_treebank_embedding_gives_each_doc_its_treebanks_row():
    """Rows from the reader's names (the target first); a Doc of another
    treebank reads that row, one of none (or unknown) the target's, or the
    one set_treebank chose; gradients reach the rows of the Docs' treebanks
    only; trained on one treebank it gives zeros."""
    nlp = spacy.blank("xx")
    layer = build_treebank_embed(4)
    layer.ops = NumpyOps()
    sample = _docs(nlp, ["t", "o"])
    for doc in sample:
        doc.user_data[TREEBANKS_KEY] = ("t", "o")
    layer.initialize(X=sample)
    assert layer.attrs == {"treebanks": ["t", "o"], "write_as": "t"}
    table = layer.get_param("E")
    out, backprop = layer(_docs(nlp, ["o", None]), is_train=True)
    assert np.array_equal(out[0], np.repeat(table[1:2], 3, axis=0))
    assert np.array_equal(out[1], np.repeat(table[0:1], 2, axis=0))
    backprop([np.ones((3, 4), dtype="f"), 2 * np.ones((2, 4), dtype="f")])
    assert np.array_equal(layer.get_grad("E"), np.asarray([[4] * 4, [3] * 4], dtype="f"))
    layer.attrs["write_as"] = "o"
    out, _ = layer(_docs(nlp, ["elsewhere", None]), is_train=False)
    assert all(np.array_equal(row, table[1]) for x in out for row in x)
    copy = build_treebank_embed(4).from_bytes(layer.to_bytes())
    assert copy.attrs == layer.attrs and np.array_equal(copy.get_param("E"), table)

    alone = build_treebank_embed(4)
    alone.initialize(X=_docs(nlp, ["t", "t"]))
    out, _ = alone(_docs(nlp, ["t", None]), is_train=True)
    assert all(not x.any() for x in out)


def test_set_treebank_refuses_a_treebank_the_pipeline_does_not_know():
    class Pipe:
        def __init__(self, model):
            self.model = model

    class Pipeline:
        def __init__(self, layer):
            self.pipeline = [("tok2vec", Pipe(layer))]

    layer = build_treebank_embed(2)
    layer.attrs["treebanks"] = ["la_udante", "la_llct"]
    nlp = Pipeline(layer)
    assert treebanks(nlp) == ["la_udante", "la_llct"]
    set_treebank(nlp, "la_llct")
    assert layer.attrs["write_as"] == "la_llct"
    with pytest.raises(UserError) as e:
        set_treebank(nlp, "la_ittb")
    assert e.value.code == "E137" and "la_udante, la_llct" in str(e.value)


def test_an_epoch_holds_the_target_and_share_times_its_words_of_the_others(tmp_path):
    """spacy-planar.batch_by_words.v1: every target Example, then others in
    the epoch's order until they reach share x the target's words; a new
    order draws others anew; share 0 and one treebank: spaCy's batches."""
    from spacy_planar.io.readers import configure_batches, target_share

    target = tmp_path / "t.spacy"
    conllu_to_docbin(write_treebank(tmp_path, "t", 4), target)  # 4 runs of one 3-word sentence
    other = tmp_path / "o.spacy"
    conllu_to_docbin(write_treebank(tmp_path, "o", 20), other)
    nlp = spacy.blank("xx")
    examples = list(create_corpus(target, sentences=1, treebanks=str(other))(nlp))
    kept = target_share(examples, 2.0)
    mine = [eg for eg in kept if eg.predicted.user_data[TREEBANK_KEY] == "t"]
    theirs = [eg for eg in kept if eg.predicted.user_data[TREEBANK_KEY] == "o"]
    assert len(mine) == 4 and len(theirs) == 8 and theirs == examples[4:12]
    assert target_share(examples[::-1], 2.0)[:8] == examples[::-1][:8]  # another order, other sentences
    batches = configure_batches(size=1000, tolerance=0.2, share=2.0)
    assert sum(len(b) for b in batches(examples)) == 12
    assert sum(len(b) for b in configure_batches(size=1000, tolerance=0.2)(examples)) == 24
    alone = list(create_corpus(target, sentences=1)(nlp))
    assert sum(len(b) for b in batches(alone)) == 4
    with pytest.raises(ValueError):
        configure_batches(size=1000, tolerance=0.2, share=-1)


def test_the_teachers_loss_pulls_the_scores_towards_their_distribution():
    """distill: the soft cross-entropy's gradient is p - q over the valid
    moves, checked against finite differences; mixed with the oracle's by
    the weight."""
    from spacy_planar.parser.transition.teachers import Teachers
    from spacy_planar.parser.shared.softmax import softmax
    from spacy_planar.parser.transition.training import loss_towards

    ops = NumpyOps()
    rng = np.random.default_rng(0)
    scores = rng.normal(size=(3, 4)).astype("f")
    valid = np.asarray([[1, 1, 0, 1], [1, 1, 1, 1], [0, 1, 1, 0]], dtype=bool)
    targets = np.asarray([[1, 0, 0, 0], [0, 0, 1, 0], [0, 1, 1, 0]], dtype="f")
    q = softmax(np, rng.normal(size=(3, 4)).astype("f"), valid)
    teachers = Teachers.__new__(Teachers)
    teachers.weight = 1.0
    d, loss = teachers.loss(ops, scores, targets, valid, q)
    assert np.allclose(d, softmax(np, scores, valid) - q, atol=1e-6)
    eps = 1e-3
    for i, j in [(0, 1), (1, 2), (2, 2)]:
        bumped = scores.copy()
        bumped[i, j] += eps
        numeric = (teachers.loss(ops, bumped, targets, valid, q)[1] - loss) / eps
        assert abs(numeric - d[i, j]) < 1e-2
    teachers.weight = 0.25
    mixed, mixed_loss = teachers.loss(ops, scores, targets, valid, q)
    hard, hard_loss = loss_towards(ops, scores, targets, valid)
    assert np.allclose(mixed, 0.25 * d + 0.75 * hard) and np.isclose(mixed_loss, 0.25 * loss + 0.75 * hard_loss)
    with pytest.raises(UserError):
        Teachers([], "p", weight=0.0)


def test_a_distilled_parser_parses_as_its_teacher_does(tmp_path):
    """A parser distilled from a teacher learns the teacher's moves, not the
    gold trees': a teacher trained to attach every word to the word before
    it (the gold labels kept) teaches a student, trained on the real trees
    of the same sentences, to do the same on held-out sentences, where the
    same student without the teacher does not; a teacher whose moves are
    not the student's is refused (E138)."""
    from spacy.tokens import Doc
    from spacy.training import Example
    from thinc.api import fix_random_seed

    from conftest import first_docs, shortest_docs

    swap = {"transition_system": {"@transition_systems": "spacy-planar.swap.v1"}, "exploration": 0.0}

    def trained(examples, teachers=(), path=None):
        fix_random_seed(0)
        nlp = spacy.blank("xx")
        nlp.add_pipe("planar_parser", config=swap)
        nlp.config["initialize"]["components"]["planar_parser"] = {"teachers": [str(t) for t in teachers]}
        sgd = nlp.initialize(lambda: examples)
        for _ in range(6):
            for i in range(0, len(examples), 8):
                nlp.update(examples[i:i + 8], sgd=sgd)
        if path is not None:
            nlp.to_disk(path)
        return nlp

    vocab = spacy.blank("xx").vocab
    docs = shortest_docs(vocab, 60)
    gold = [Example(Doc(vocab, words=[t.text for t in d]), d) for d in docs]
    chains = [Example(Doc(vocab, words=[t.text for t in d]),
                      Doc(vocab, words=[t.text for t in d], heads=[max(i - 1, 0) for i in range(len(d))],
                          deps=["root"] + [t.dep_ for t in d][1:])) for d in docs]
    teacher = trained(chains, path=tmp_path / "teacher")
    held = [Doc(vocab, words=[t.text for t in d]) for d in first_docs(fixture_path("dev"), vocab, 30)]

    def chained(nlp):  # the share of words attached to the word before them
        parsed = [nlp(Doc(nlp.vocab, words=[t.text for t in d])) for d in held]
        return np.mean([t.head.i == t.i - 1 for d in parsed for t in d if t.i > 0])

    assert chained(teacher) > 0.9
    assert chained(trained(gold, [tmp_path / "teacher"])) > chained(trained(gold)) + 0.3
    with pytest.raises(UserError) as e:
        trained([Example(Doc(vocab, words=["a", "b"]), Doc(vocab, words=["a", "b"], heads=[0, 0],
                                                            deps=["root", "unseen"]))], [tmp_path / "teacher"])
    assert e.value.code == "E138"
