"""Every parser works sentence by sentence and keeps the boundaries set before it: a Doc of five
sentences gets the trees of the five sentences as one-sentence Docs (each config, the joint
pipeline), raw text keeps its sentence splitter's sentences, and a pipeline's dev score in
training (Docs of five sentences) is its score on the same sentences a Doc each, as ``parse``
reads CoNLL-U.

The pipelines here read words without context (a window of 0): the shipped encoders read across
a Doc's sentences (as they are trained, five sentences a Doc), so there the trees of a Doc's
sentences also depend on their neighbours' words; what this file tests is that the parsers and
the decider never join or move sentences."""
import pytest
import spacy
from conftest import shortest_docs
from spacy.tokens import Doc
from spacy.training import Example

from spacy_planar.io.doc_trees import span_tree

# words without context: spaCy's hash embeddings through one window-0 maxout layer
TOK2VEC = {"@architectures": "spacy.Tok2Vec.v2",
           "embed": {"@architectures": "spacy.MultiHashEmbed.v2", "width": 64, "attrs": ["NORM", "SUFFIX"],
                     "rows": [2000, 1000], "include_static_vectors": False},
           "encode": {"@architectures": "spacy.MaxoutWindowEncoder.v2", "width": 64, "window_size": 0,
                      "maxout_pieces": 2, "depth": 1}}
LISTENER = {"@architectures": "spacy.Tok2VecListener.v1", "width": 64, "upstream": "*"}
BIAFFINE = {"@architectures": "spacy-planar.BiaffineModel.v2", "arc_width": 32, "label_width": 16,
            "positional_width": 8, "tok2vec": LISTENER}
SYSTEMS = {"arc_eager": {}, "planar": {}, "two_planar": {}, "swap": {"oracle": "lazy"}, "top_down": {}}
NO_EXPLORATION = {"top_down": {"exploration": 0.0, "model": {"arc_width": 32}}}  # no dynamic oracle; its arc scorer
CONFIGS = {**{name: ("planar_parser", {"transition_system": {"@transition_systems": f"spacy-planar.{name}.v1",
                                                             **extra}, **NO_EXPLORATION.get(name, {})})
              for name, extra in SYSTEMS.items()},
           "biaffine_eisner": ("biaffine_parser", {"model": BIAFFINE}),
           "biaffine_mst": ("biaffine_parser", {"model": BIAFFINE, "decoder": "mst", "pseudo_projective": None})}


def _pipeline(parsers, decider: bool = False, sentencizer: bool = False, epochs: int = 3):
    """A pipeline of the shared context-free tok2vec and ``parsers`` (factory, config), with
    ``decider`` a parse_decider after them, trained ``epochs`` on the test treebank's 30 shortest
    sentences (seeded), and those sentences."""
    from thinc.api import fix_random_seed

    fix_random_seed(0)
    nlp = spacy.blank("xx")
    if sentencizer:
        nlp.add_pipe("sentencizer")
    nlp.add_pipe("tok2vec", config={"model": TOK2VEC})
    for factory, config in parsers:
        model = {**config.get("model", {}), "tok2vec": LISTENER} if factory == "planar_parser" else config["model"]
        nlp.add_pipe(factory, config={**config, "model": model})
    if decider:
        nlp.add_pipe("parse_decider")
    docs = shortest_docs(nlp.vocab, 30)
    examples = [Example(Doc(nlp.vocab, words=[t.text for t in d]), d) for d in docs]
    sgd = nlp.initialize(lambda: examples)
    for _ in range(epochs):
        for i in range(0, len(examples), 10):
            nlp.update(examples[i:i + 10], sgd=sgd)
    return nlp, docs


def _five(nlp, docs):
    """Five sentences as one Doc (their starts given) and as five Docs."""
    words = [[t.text for t in d] for d in docs[10:15]]
    joined = Doc(nlp.vocab, words=[w for ws in words for w in ws],
                 sent_starts=[i == 0 for ws in words for i in range(len(ws))])
    return joined, [Doc(nlp.vocab, words=ws) for ws in words]


def _trees(doc):
    return [span_tree(doc, s.start, s.end) for s in doc.sents]


@pytest.mark.parametrize("name", list(CONFIGS))
def test_a_doc_of_five_sentences_gets_the_trees_of_five_docs(name):
    nlp, docs = _pipeline([CONFIGS[name]])
    joined, apart = _five(nlp, docs)
    parsed = nlp(joined)
    assert [(s.start, s.end) for s in parsed.sents] == [(s.start, s.end) for s in joined.sents]
    assert _trees(parsed) == [span_tree(nlp(d)) for d in apart]


@pytest.fixture(scope="module")
def joint():
    return _pipeline([("planar_parser", {}), CONFIGS["biaffine_mst"]], decider=True)


def test_the_joint_pipeline_decides_five_sentences_as_five_docs(joint):
    """The decided trees, each parser's own (Doc._.trees) and the words' probabilities of a Doc of
    five sentences are those of the five sentences apart; one root a sentence."""
    nlp, docs = joint
    joined, apart = _five(nlp, docs)
    parsed = nlp(joined)
    alone = [nlp(d) for d in apart]
    assert [s.root.i - s.start for s in parsed.sents] == [next(d.sents).root.i for d in alone]
    assert _trees(parsed) == [span_tree(d) for d in alone]
    for name in ("planar_parser", "biaffine_parser"):
        assert [(t["heads"], t["labels"]) for t in parsed._.trees[name]] == \
               [(d._.trees[name][0]["heads"], d._.trees[name][0]["labels"]) for d in alone]
    assert [t._.head_prob for t in parsed] == [t._.head_prob for d in alone for t in d]
    assert sum(t.head.i == t.i for t in parsed) == 5


def test_docs_with_and_without_sentence_starts_in_one_batch(joint):
    """nlp.pipe over a mix of Docs with sentence starts and without: each its own sentences
    (a Doc without starts is one sentence), the same trees as one at a time."""
    nlp, docs = joint
    joined, apart = _five(nlp, docs)
    batch = [joined, apart[0], apart[1]]
    piped = list(nlp.pipe([Doc(nlp.vocab, words=[t.text for t in d],
                               sent_starts=[t.is_sent_start for t in d] if d is joined else None) for d in batch]))
    assert [len(list(d.sents)) for d in piped] == [5, 1, 1]
    assert [_trees(d) for d in piped] == [_trees(nlp(d)) for d in (_five(nlp, docs)[0], *_five(nlp, docs)[1][:2])]


def test_raw_text_keeps_its_sentence_splitters_sentences():
    """With a sentence splitter before the parsers (here spaCy's sentencizer), the joint pipeline's
    sentences are the splitter's: one tree and one root each."""
    nlp, _ = _pipeline([("planar_parser", {}), CONFIGS["biaffine_mst"]], decider=True, sentencizer=True, epochs=1)
    text = "Gallia est omnis divisa. Quarum unam incolunt Belgae. Aliam Aquitani. Tertiam Celtae. Hi omnes differunt."
    split = nlp.get_pipe("sentencizer")(nlp.make_doc(text))
    doc = nlp(text)
    assert [s.text for s in doc.sents] == [s.text for s in split.sents] and len(list(doc.sents)) == 5
    assert all(sum(t.head.i == t.i for t in s) == 1 for s in doc.sents)


def test_parse_of_raw_paragraphs_writes_the_splitters_sentences(tmp_path):
    """`spacy-planar parse` of a raw file of two paragraphs of five sentences with a joint pipeline
    (a sentence splitter before it): ten sentences, one root each, and it says so."""
    from typer.testing import CliRunner

    from spacy_planar.__main__ import app
    from spacy_planar.io.conllu import read_conllu

    nlp, _ = _pipeline([("planar_parser", {}), CONFIGS["biaffine_mst"]], decider=True, sentencizer=True, epochs=1)
    nlp.to_disk(tmp_path / "joint")
    paragraph = "Gallia est omnis divisa. Quarum unam incolunt Belgae. Aliam Aquitani. Tertiam Celtae. Hi omnes."
    (tmp_path / "raw.txt").write_text(f"{paragraph}\n{paragraph}\n", encoding="utf-8")
    r = CliRunner().invoke(app, ["parse", str(tmp_path / "joint"), str(tmp_path / "raw.txt"),
                                 str(tmp_path / "out.conllu")])
    assert r.exit_code == 0 and "10 sentences" in " ".join(r.output.split()), r.output
    sents = list(read_conllu(tmp_path / "out.conllu"))
    assert len(sents) == 10 and all(s.heads.count(0) == 1 for s in sents)


def test_the_training_dev_score_is_the_score_of_its_sentences_a_doc_each(joint, tmp_path):
    """nlp.evaluate of dev Examples of five sentences a Doc (as corpora.dev reads them) equals
    nlp.evaluate of the same sentences a Doc each (as parse reads CoNLL-U)."""
    from spacy_planar.io.readers import run_example

    nlp, docs = joint
    dev = [Doc(nlp.vocab, words=[t.text for t in d], heads=[t.head.i for t in d], deps=[t.dep_ for t in d])
           for d in docs[:15]]
    grouped = [run_example(nlp.vocab, dev[i:i + 5]) for i in range(0, 15, 5)]
    single = [Example(Doc(nlp.vocab, words=[t.text for t in d]), d) for d in dev]
    together, apart = nlp.evaluate(grouped), nlp.evaluate(single)
    assert together["dep_las"] == pytest.approx(apart["dep_las"]) and together["dep_uas"] == pytest.approx(
        apart["dep_uas"])
