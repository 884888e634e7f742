"""Raw text in, the treebank's tokens, words and sentences out: the training
reader's runs of sentences (spacy_planar/readers.py), the tok2vec that encodes
each sentence apart (model/tok2vec.py), the multiword_tokens component
(ud/words.py) and the CoNLL-U it writes."""
from typing import Optional

import numpy as np
import pytest
import spacy
from conftest import OPS, first_docs, fixture_path, sample
from spacy.tokens import Doc, DocBin
from spacy.training import Example

from spacy_planar.io.conllu import MWT_KEY, USER_DATA_KEY, conllu_to_docs, doc_to_conllu, read_conllu
from spacy_planar.io.readers import WORDS_GIVEN, create_corpus
from spacy_planar.ud.words import MultiwordTokens, split_words


def test_the_reader_gives_runs_of_gold_sentences(tmp_path):
    """spacy-planar.Corpus.v1: runs of 3 consecutive sentences, their gold
    words, heads and sentence starts (on the predicted Doc too), their
    CoNLL-U lines; the predicted Doc marked as given words."""
    nlp = spacy.blank("xx")
    docs = first_docs(fixture_path(), nlp.vocab, 7)
    path = tmp_path / "c.spacy"
    DocBin(store_user_data=True, docs=docs).to_disk(path)
    examples = list(create_corpus(path, sentences=3)(nlp))
    assert [len(list(eg.reference.sents)) for eg in examples] == [3, 3, 1]
    joined = [t for eg in examples for t in eg.reference]
    assert [t.text for t in joined] == [t.text for d in docs for t in d]
    k = 0
    for eg in examples:
        x, y = eg.predicted, eg.reference
        assert x.user_data[WORDS_GIVEN] and [t.text for t in x] == [t.text for t in y]
        assert [t.is_sent_start for t in x] == [t.is_sent_start for t in y]
        for sent in y.sents:  # each gold tree as it was
            gold = docs[k]
            assert [t.head.i - sent.start for t in sent] == [t.head.i for t in gold]
            assert [t.dep_ for t in sent] == [t.dep_ for t in gold]
            k += 1
        assert len(y.user_data[USER_DATA_KEY]["sents"]) == len(list(y.sents))
    assert [len(list(eg.reference.sents)) for eg in create_corpus(path, sentences=3, limit=4)(nlp)] == [3, 1]
    with pytest.raises(ValueError):
        create_corpus(path, sentences=0)


@pytest.mark.parametrize("ops", OPS)
def test_the_tok2vec_encodes_each_sentence_apart(ops):
    """spacy-planar.Tok2Vec.v1: a Doc of two sentences gets, word for word,
    the vectors of each sentence as a Doc of its own (the BiLSTM reads
    across no sentence start), and its gradients reach the embedding; on
    numpy and on cupy (where the sentences' split points must be host
    integers)."""
    from thinc.api import use_ops

    from spacy_planar.model.bilstm import build_bilstm_encoder
    from spacy_planar.model.tok2vec import build_tok2vec

    vocab = spacy.blank("xx").vocab  # spaCy's architectures registered
    with use_ops(ops):
        embed = spacy.registry.architectures.get("spacy.MultiHashEmbed.v2")(
            width=16, attrs=["NORM", "SHAPE"], rows=[500, 100], include_static_vectors=False)
        model = build_tok2vec(embed, build_bilstm_encoder(16, depth=1, cnn_depth=1, dropout=0.0))
    host = model.ops.to_numpy
    a, b = ["jah", "qaþ", "imma", "."], ["ik", "im", "wigs", "."]
    both = Doc(vocab, words=a + b, sent_starts=[True, False, False, False] * 2)
    model.initialize([both])
    (together,) = [host(Y) for Y in model.predict([both])]
    apart = [host(Y) for Y in model.predict([Doc(vocab, words=a), Doc(vocab, words=b)])]
    np.testing.assert_allclose(together, np.concatenate(apart), atol=1e-5)
    (unsplit,) = [host(Y) for Y in model.predict([Doc(vocab, words=a + b)])]
    assert np.abs(unsplit[:4] - together[:4]).max() > 1e-4  # one sentence: the BiLSTM reads on
    Ys, backprop = model([both], is_train=True)
    backprop([model.ops.xp.ones_like(Y) for Y in Ys])
    assert any(np.abs(host(n.get_grad(p))).sum() > 0 for n in embed.walk() for p in n.param_names if n.has_grad(p))


def _treebank_example(nlp, conllu: str) -> Example:
    doc = next(conllu_to_docs_from_text(nlp, conllu))
    return Example(Doc(nlp.vocab, words=[t.text for t in doc]), doc)


def conllu_to_docs_from_text(nlp, text: str):
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "x.conllu"
        path.write_text(text, encoding="utf-8")
        yield from list(conllu_to_docs(path, nlp.vocab))


def sentence(text: str, tokens) -> str:
    """A CoNLL-U sentence of ``tokens`` (a surface form, or (surface, [words])),
    each word attached to the first."""
    lines, n = [f"# text = {text}"], 0
    for tok in tokens:
        surface, words = (tok, [tok]) if isinstance(tok, str) else tok
        if len(words) > 1:
            lines.append(f"{n + 1}-{n + len(words)}\t{surface}" + "\t_" * 8)
        for w in words:
            n += 1
            lines.append(f"{n}\t{w}\t_\tX\t_\t_\t{0 if n == 1 else 1}\t{'root' if n == 1 else 'dep'}\t_\t_")
    return "\n".join(lines) + "\n\n"


LATIN = [
    sentence("populusque venit mecum.", [("populusque", ["populus", "que"]), "venit", ("mecum", ["cum", "me"]), "."]),
    sentence("senatusque et atque mecum.", [("senatusque", ["senatus", "que"]), "et", "atque", ("mecum", ["cum", "me"]),
                                            "."]),
    sentence("filiusque quoque venit.", [("filiusque", ["filius", "que"]), "quoque", "venit", "."]),
    sentence("bene ratione.", ["bene", "ratione", "."]),
]


@pytest.fixture
def latin_component():
    nlp = spacy.blank("la")
    examples = [_treebank_example(nlp, s) for s in LATIN]
    component = MultiwordTokens(nlp)
    component.initialize(lambda: examples, nlp=nlp)
    return nlp, component


def test_multiword_tokens_learns_the_treebanks_tokens_and_words(latin_component):
    """From four Latin sentences: spaCy's Latin tokenizer's "me" "cum" is
    one token (as the treebank writes it) of two words, "cum" "me"; -que is
    an enclitic (three distinct tokens split by it, none kept whole), so an
    unseen "matremque" is split, but "atque" and "quoque" (kept whole in
    training) are not; -ne, never split, is not an enclitic."""
    nlp, component = latin_component
    tables = component.tables
    assert ["me", "cum"] in tables["merges"] and tables["lexicon"]["mecum"] == ["cum", "me"]
    assert tables["suffixes"] == ["que"] and {"atque", "quoque"} <= set(tables["whole"])
    doc = component(nlp("Matremque atque quoque mecum bene vidit."))
    assert [t.text for t in doc] == ["Matrem", "que", "atque", "quoque", "cum", "me", "bene", "vidit", "."]
    assert doc.user_data[MWT_KEY] == [[0, 1, "Matremque"], [4, 5, "mecum"]]
    given = Doc(nlp.vocab, words=["mecum", "populusque"])
    given.user_data[WORDS_GIVEN] = True
    assert component(given) is given  # the words of CoNLL-U input stay as they are
    assert split_words("Nobiscum", {"nobiscum": ["cum", "nobis"]}, (), set()) == ["Cum", "nobis"]


def test_the_split_cache_is_bounded_and_answers_past_its_limit(latin_component, monkeypatch):
    """A corpus of millions of forms meets the cache's limit: the cache is emptied and the form
    that filled it still gets its words (a million-word parse-corpus once stopped on a KeyError)."""
    from spacy_planar.ud import words

    monkeypatch.setattr(words, "CACHE_LIMIT", 3)
    nlp, component = latin_component
    text = " ".join(f"populusque{k} mecum" for k in range(7))
    doc = component(nlp(text))
    assert [t.text for t in doc][:3] == ["populusque0", "cum", "me"]
    assert len(component._cache) <= 3


def test_the_users_text_is_kept_with_each_words_offset_in_it(latin_component):
    """The Doc's text has the words ("Matrem que"); ``doc._.input_text`` is
    the text as given and ``token._.input_idx`` each word's offset in it, the
    words of one multiword token at their token's; a Doc left as it was
    answers with its own text and offsets."""
    nlp, component = latin_component
    text = "Matremque  atque mecum bene vidit."
    doc = component(nlp(text))
    assert doc.text != text and doc._.input_text == text
    starts = {t.text: t._.input_idx for t in doc}
    assert starts["Matrem"] == starts["que"] == 0 and starts["atque"] == text.index("atque")
    assert starts["cum"] == starts["me"] == text.index("mecum") and starts["."] == len(text) - 1
    for t in doc:  # every offset points at the word's token in the input
        assert text[t._.input_idx:].lower().startswith(t.text.lower()) or t.text in ("que", "cum", "me")
    plain = component(nlp("bene vidit."))
    assert plain._.input_text == "bene vidit." and [t._.input_idx for t in plain] == [t.idx for t in plain]


def test_raw_text_with_multiword_tokens_is_written_as_ud(latin_component, tmp_path):
    """The Doc the component makes, as CoNLL-U: range lines with the
    surface form, the words under them, ``# text`` as the text was written,
    SpaceAfter on the range line; it reads back as a treebank does; the
    component's tables survive to_disk / from_disk."""
    nlp, component = latin_component
    text = "Matremque vidit mecum."
    doc = component(nlp(text))
    for t in doc:
        t.head = doc[0]
        t.dep_ = "root" if t.i == 0 else "dep"
    out = tmp_path / "out.conllu"
    out.write_text(doc_to_conllu(doc), encoding="utf-8")
    (sent,) = read_conllu(out)
    assert sent.text == text and sent.forms == ["Matrem", "que", "vidit", "cum", "me", "."]
    assert [(a, b, c[1]) for a, b, c in sent.ranges] == [(0, 1, "Matremque"), (3, 4, "mecum")]
    lines = out.read_text(encoding="utf-8").splitlines()
    assert "4-5\tmecum\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No" in lines
    component.to_disk(tmp_path / "mwt")
    again = MultiwordTokens(nlp).from_disk(tmp_path / "mwt")
    assert again.tables == component.tables and [t.text for t in again(nlp(text))] == [t.text for t in doc]


def test_the_lemmatizer_chooses_a_seen_forms_lemma_among_its_own():
    """lexicon_lemmatizer: trained on "qaþ" -> "qiþan" and "gaf" -> "giban"
    (two edit trees), a seen form whose best-scored tree is another form's
    takes the best of its own trees; an unseen form ("saþ"), the best of the
    trees of the training forms that end as it does ("-aþ": qaþ's). The
    tables are saved with the component."""
    nlp = spacy.blank("xx")
    lemmatizer = nlp.add_pipe("lexicon_lemmatizer", config={"model": {"tok2vec": {
        "@architectures": "spacy.HashEmbedCNN.v2", "pretrained_vectors": None, "width": 8, "depth": 1,
        "embed_size": 100, "window_size": 1, "maxout_pieces": 2, "subword_features": False}}, "min_tree_freq": 1})
    words, lemmas = ["qaþ", "gaf", "qaþ"], ["qiþan", "giban", "qiþan"]
    gold = Doc(nlp.vocab, words=words, lemmas=lemmas)
    nlp.initialize(lambda: [Example(Doc(nlp.vocab, words=words), gold)])
    assert len(lemmatizer.labels) == 2 and set(lemmatizer.cfg["lexicon"]) == {"qaþ", "gaf"}
    doc = Doc(nlp.vocab, words=["qaþ", "gaf", "saþ"])
    qaþ_tree, gaf_tree = lemmatizer._pair2label("qaþ", "qiþan"), lemmatizer._pair2label("gaf", "giban")
    scores = np.zeros((3, 2), dtype="f")
    scores[0, gaf_tree] = scores[1, qaþ_tree] = scores[2, gaf_tree] = 1.0  # each word's best: the other tree
    (guesses,) = lemmatizer._scores2guesses_top_k_equals_1([doc], [scores])
    lemmatizer.set_annotations([doc], [guesses])
    assert [t.lemma_ for t in doc] == ["qiþan", "giban", "siþan"]
    assert lemmatizer.cfg["suffixes"]["aþ"] == [qaþ_tree]
    restored = nlp.get_pipe("lexicon_lemmatizer").from_bytes(lemmatizer.to_bytes())
    assert all(restored.cfg[table] == lemmatizer.cfg[table] for table in ("lexicon", "suffixes"))


def test_a_form_with_neither_own_nor_ending_trees_takes_spacys_choice():
    """A word whose form and endings the training data lacks (bab) takes
    spaCy's choice: its best-scored tree where that applies to it (the
    identity, im's), else none (-1, the backoff), in a batch with an empty
    Doc and seen forms, which take their own trees."""
    from spacy.pipeline.edit_tree_lemmatizer import EditTreeLemmatizer

    nlp = spacy.blank("xx")
    lemmatizer = nlp.add_pipe("lexicon_lemmatizer", config={"model": {"tok2vec": {
        "@architectures": "spacy.HashEmbedCNN.v2", "pretrained_vectors": None, "width": 8, "depth": 1,
        "embed_size": 100, "window_size": 1, "maxout_pieces": 2, "subword_features": False}}, "min_tree_freq": 1})
    words, lemmas = ["qaþ", "im"], ["qiþan", "im"]
    nlp.initialize(lambda: [Example(Doc(nlp.vocab, words=words), Doc(nlp.vocab, words=words, lemmas=lemmas))])
    qaþ_tree, same = lemmatizer._pair2label("qaþ", "qiþan"), lemmatizer._pair2label("im", "im")
    trees = lemmatizer.cfg["labels"]
    doc, empty = Doc(nlp.vocab, words=["bab", "qaþ", "im", "bab"]), Doc(nlp.vocab, words=[])
    scores = np.zeros((4, 2), dtype="f")
    scores[0, same] = scores[1, same] = scores[2, qaþ_tree] = scores[3, qaþ_tree] = 1.0
    guesses = lemmatizer._scores2guesses_top_k_equals_1([doc, empty], [scores, scores[:0]])
    assert [len(g) for g in guesses] == [4, 0]
    assert guesses[0].tolist() == [trees[same], trees[qaþ_tree], trees[same], -1]
    assert guesses[0][[0, 3]].tolist() == EditTreeLemmatizer._scores2guesses_top_k_equals_1(
        lemmatizer, [doc], [scores])[0][[0, 3]].tolist()


def test_a_loaded_lemmatizer_learns_the_trees_it_learned_before(tmp_path):
    """A lemmatizer loaded from disk or bytes and trained further (``train``'s
    target stage sources it) takes each word's gold edit tree as its target,
    as the one it was saved from does: the same loss and gradients. spaCy's
    ``EditTreeLemmatizer`` (3.8) loads its labels without the map from tree
    to label, and its loss took label 0 for every word."""
    nlp = spacy.blank("xx")
    tok2vec = {"@architectures": "spacy.HashEmbedCNN.v2", "pretrained_vectors": None, "width": 8, "depth": 1,
               "embed_size": 100, "window_size": 1, "maxout_pieces": 2, "subword_features": False}
    lemmatizer = nlp.add_pipe("lexicon_lemmatizer", config={"model": {"tok2vec": tok2vec}, "min_tree_freq": 1})
    words, lemmas = ["qaþ", "gaf", "im", "qaþ"], ["qiþan", "giban", "is", "qiþan"]
    examples = [Example(Doc(nlp.vocab, words=words), Doc(nlp.vocab, words=words, lemmas=lemmas))]
    sgd = nlp.initialize(lambda: examples)
    nlp.update(examples, sgd=sgd)
    assert len(lemmatizer.labels) == 3
    scores, _ = lemmatizer.model.begin_update([eg.predicted for eg in examples])  # as in training: softmax
    loss, d_scores = lemmatizer.get_loss(examples, scores)
    nlp.to_disk(tmp_path / "pipeline")
    again = spacy.blank("xx")
    again.add_pipe("lexicon_lemmatizer", config={"model": {"tok2vec": tok2vec}, "min_tree_freq": 1})
    for restored in (spacy.load(tmp_path / "pipeline"), again.from_bytes(nlp.to_bytes())):
        loaded = restored.get_pipe("lexicon_lemmatizer")
        assert loaded.tree2label == lemmatizer.tree2label
        loaded_loss, loaded_d = loaded.get_loss(examples, scores)
        assert loaded_loss == pytest.approx(loss) and all(np.allclose(a, b) for a, b in zip(loaded_d, d_scores))


# a biaffine that votes in ensembles with its arcs' probabilities (its trees as they are, MST)
ARCS = {"decoder": "mst", "pseudo_projective": None}


def _ud_pipeline(seed: int, docs, parser: str = "planar_parser", settings: Optional[dict] = None):
    """A small UD pipeline (tok2vec, morphologizer, lemmatizer, parser with ``settings``) trained a little with
    ``seed`` on ``docs``."""
    from thinc.api import fix_random_seed

    fix_random_seed(seed)
    nlp = spacy.blank("xx")
    listener = {"@architectures": "spacy.Tok2VecListener.v1", "width": 32}
    nlp.add_pipe("tok2vec", config={"model": {
        "@architectures": "spacy.Tok2Vec.v2",
        "embed": {"@architectures": "spacy.MultiHashEmbed.v2", "width": 32, "attrs": ["NORM", "SHAPE"],
                  "rows": [500, 100], "include_static_vectors": False},
        "encode": {"@architectures": "spacy-planar.BiLSTMEncoder.v1", "width": 32, "depth": 1, "cnn_depth": 1}}})
    nlp.add_pipe("morphologizer", config={"model": {"@architectures": "spacy.Tagger.v2", "tok2vec": listener}})
    nlp.add_pipe("lexicon_lemmatizer", name="lemmatizer", config={"min_tree_freq": 1, "model": {
        "@architectures": "spacy.Tagger.v2", "tok2vec": listener}})
    nlp.add_pipe(parser, config={"model": {"tok2vec": listener}, **(settings or {})})
    examples = [Example(Doc(nlp.vocab, words=[t.text for t in d]), d) for d in docs]
    sgd = nlp.initialize(lambda: examples)
    for _ in range(4):
        nlp.update(examples, sgd=sgd)
    return nlp


def test_an_ensemble_of_one_parses_as_its_pipeline_and_of_two_as_their_mean(tmp_path):
    """parse --ensemble: a pipeline with itself as the other member gives its
    own annotation, word for word (the mean of equal log-probabilities); two
    seeds give one tree per sentence, and tags, chosen by their mean; members
    of other labels are one line (E136)."""
    from spacy_planar.errors import UserError
    from spacy_planar.parser.ensembles.members import Ensemble

    docs = first_docs(fixture_path(), spacy.blank("xx").vocab, 30)
    one, two = _ud_pipeline(0, docs), _ud_pipeline(1, docs)
    words = [[t.text for t in d] for d in docs[:10]]

    def annotated(nlp):
        return [[(t.head.i, t.dep_, t.pos_, str(t.morph), t.lemma_) for t in d]
                for d in nlp.pipe(Doc(one.vocab, words=w) for w in words)]

    alone = annotated(one)
    assert annotated(Ensemble(one, [one])) == alone
    both = annotated(Ensemble(one, [two]))
    assert both != alone and all(sum(h == i for i, (h, *_) in enumerate(d)) == 1 for d in both)
    other = _ud_pipeline(0, docs[10:])
    with pytest.raises(UserError, match="E136"):
        Ensemble(one, [other])
    # across systems: the biaffine alone as an ensemble of one (its arcs' mean decoded by its own decoder),
    # then with the transition parsers (reparsing): one tree per sentence, a probability for each word
    graph = _ud_pipeline(2, docs, parser="biaffine_parser", settings=ARCS)
    assert annotated(Ensemble(graph, [graph])) == annotated(graph)
    mixed = Ensemble(graph, [one, two])
    parsed = list(mixed.pipe(Doc(one.vocab, words=w) for w in words))
    arcs = [[(t.head.i, t.dep_) for t in d] for d in parsed]
    assert all(sum(h == i for i, (h, _) in enumerate(d)) == 1 for d in arcs)
    assert arcs != [[(h, dep) for h, dep, *_ in d] for d in annotated(graph)]
    assert all(0 < t._.head_prob <= 1 for d in parsed for t in d)
    # where two members of three agree on a word's head, the third rarely moves it (the tree may)
    trees = [[[h for h, *_ in d] for d in annotated(nlp)] for nlp in (graph, one, two)]
    agreed = [(d, i) for d in range(len(arcs)) for i in range(len(arcs[d])) if trees[1][d][i] == trees[2][d][i]]
    kept = sum(arcs[d][i][0] == trees[1][d][i] for d, i in agreed)
    assert kept / len(agreed) > 0.9
    # on the command line: the transition parsers of an ensemble of different parsers vote with their
    # beam's k best parses (--beam unless given: KBEST_BEAM); --kbest is refused there (E158)
    from typer.testing import CliRunner

    from spacy_planar.__main__ import app
    from spacy_planar.io.pipelines import parser_kind
    tmp = tmp_path
    graph.to_disk(tmp / "graph")
    one.to_disk(tmp / "one")
    assert parser_kind(str(tmp / "graph")) == "biaffine_parser"
    assert parser_kind(str(tmp / "one")) == "spacy-planar.arc_eager.v1"
    gold = sample(fixture_path("dev"), tmp / "gold.conllu", 10)
    r = CliRunner().invoke(app, ["parse", str(tmp / "graph"), str(gold), str(tmp / "out.conllu"), "--ensemble",
                                 str(tmp / "one"), "--confidence"])
    assert r.exit_code == 0, r.output
    parsed = list(read_conllu(tmp / "out.conllu"))
    assert len(parsed) == 10 and all(sent.heads.count(0) == 1 for sent in parsed)
    assert all("HeadProb=" in m for sent in parsed for m in sent.misc)
    r = CliRunner().invoke(app, ["parse", str(tmp / "graph"), str(gold), str(tmp / "k.conllu"), "--ensemble",
                                 str(tmp / "one"), "--kbest", "2"])
    assert r.exit_code == 1 and "E158" in r.output and not (tmp / "k.conllu").exists()


def test_an_ensembles_head_distribution_is_its_members_mean(tmp_path):
    """What an ensemble teaches the biaffine (``EnsembleHeads``): each sentence's head
    distribution is the mean of the members': the biaffine's arc probabilities (alone, its
    rows are distributions over the candidates) and a transition parser's tree (all the mass
    on the head it chose); loaded as ``parse --ensemble`` loads them, the transition parser with
    a beam whose k best parses vote."""
    from spacy_planar.defaults import KBEST_BEAM
    from spacy_planar.parser.ensembles.members import Ensemble
    from spacy_planar.parser.ensembles.teachers import EnsembleHeads

    docs = first_docs(fixture_path(), spacy.blank("xx").vocab, 30)
    one, graph = _ud_pipeline(0, docs), _ud_pipeline(2, docs, parser="biaffine_parser", settings=ARCS)
    words = [[t.text for t in d] for d in docs[:8]]

    def sentences(nlp):
        return [Doc(nlp.vocab, words=w, sent_starts=[True] + [False] * (len(w) - 1)) for w in words]

    heads = [[t.head.i - t.i + i + 1 if t.head.i != t.i else 0 for i, t in enumerate(d)]
             for d in one.pipe(sentences(one))]
    alone = Ensemble(graph, []).head_distributions(sentences(graph))
    mixed = Ensemble(graph, [one]).head_distributions(sentences(graph))
    for w, a, m, h in zip(words, alone, mixed, heads):
        n = len(w)
        assert a.shape == (n, n + 1) and np.allclose(a.sum(axis=1), 1)
        assert np.allclose(a[np.arange(n), np.arange(n) + 1], 0)  # no word its own head
        onehot = np.zeros((n, n + 1))
        onehot[np.arange(n), h] = 1
        assert np.allclose(m, (a + onehot) / 2, atol=1e-5)
    graph.to_disk(tmp_path / "graph")
    one.to_disk(tmp_path / "one")
    # a biaffine of pseudo-projective trees votes with its decoded tree (its arcs are the encoded trees')
    lifted = _ud_pipeline(2, docs, parser="biaffine_parser", settings={"pseudo_projective": "head+path"})
    trees = [[t.head.i - t.i + i + 1 if t.head.i != t.i else 0 for i, t in enumerate(d)]
             for d in lifted.pipe(sentences(lifted))]
    for arcs, h in zip(Ensemble(lifted, []).head_distributions(sentences(lifted)), trees):
        assert (arcs.argmax(axis=1) == h).all() and np.allclose(arcs.max(axis=1), 1)
    teacher = EnsembleHeads([tmp_path / "graph", tmp_path / "one"])
    assert teacher.ensemble.members[1].get_pipe("planar_parser").settings.beam_width == KBEST_BEAM
    taught = teacher(sentences(graph))
    for t, a in zip(taught, alone):  # the transition parser's half: its k best parses' probabilities
        assert (t - a / 2 >= -1e-5).all() and np.allclose((t - a / 2).sum(axis=1), 0.5, atol=1e-5)
    assert not all(np.allclose(t, m, atol=1e-5) for t, m in zip(taught, mixed))  # not only its best parse's
