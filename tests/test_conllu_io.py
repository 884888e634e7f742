import pytest
import spacy
from conftest import fixture_path, treebank
from typer.testing import CliRunner

from spacy_planar.__main__ import app
from spacy_planar.errors import ConlluError
from spacy_planar.io.conllu import (
    conllu_to_docs,
    doc_to_conllu,
    read_conllu,
    roundtrip_diffs,
    write_conllu,
)

runner = CliRunner()

GOOD = """# sent_id = 1
# text = Do mar.
1-2\tDo\t_\t_\t_\t_\t_\t_\t_\t_
1\tDe\tde\tADP\t_\t_\t3\tcase\t_\t_
2\to\to\tDET\t_\tDefinite=Def|Gender=Masc\t3\tdet\t_\t_
3\tmar\tmar\tNOUN\t_\tGender=Masc|Number=Sing\t0\troot\t_\tSpaceAfter=No
3.1\tvem\t_\t_\t_\t_\t_\t_\t0:root\t_
4\t.\t.\tPUNCT\t_\t_\t3\tpunct\t_\t_

"""


def write(tmp_path, text, name="in.conllu", mode="w"):
    p = tmp_path / name
    if mode == "wb":
        p.write_bytes(text)
    else:
        p.write_text(text, encoding="utf-8")
    return p


def test_multiword_tokens_and_extras(tmp_path):
    path = write(tmp_path, GOOD)
    vocab = spacy.blank("xx").vocab
    (doc,) = conllu_to_docs(path, vocab)
    assert [t.text for t in doc] == ["De", "o", "mar", "."]
    assert doc.text.startswith("De o mar.")  # words inside "Do" stay apart
    assert [t.head.i for t in doc] == [2, 2, 2, 2]
    assert [t.dep_ for t in doc] == ["case", "det", "root", "punct"]
    assert doc[1].morph.get("Definite") == ["Def"] and doc[0].pos_ == "ADP" and doc[0].lemma_ == "de"
    assert doc_to_conllu(doc) == GOOD.rstrip("\n") + "\n\n"


def test_several_roots_are_kept(tmp_path):
    text = GOOD.replace("4\t.\t.\tPUNCT\t_\t_\t3\tpunct", "4\t.\t.\tPUNCT\t_\t_\t0\tpunct")
    (doc,) = conllu_to_docs(write(tmp_path, text), spacy.blank("xx").vocab)
    assert doc_to_conllu(doc) == text.rstrip("\n") + "\n\n"


def test_unannotated_sentence_has_no_parse(tmp_path):
    lines = []
    for line in GOOD.splitlines():
        cols = line.split("\t")
        if len(cols) == 10 and cols[0].isdigit():
            cols[6] = cols[7] = "_"
        lines.append("\t".join(cols))
    text = "\n".join(lines) + "\n"
    (doc,) = conllu_to_docs(write(tmp_path, text), spacy.blank("xx").vocab)
    assert not doc.has_annotation("DEP")
    assert doc_to_conllu(doc) == text.rstrip("\n") + "\n\n"


def test_doc_from_raw_text_is_written():
    nlp = spacy.blank("en")
    doc = nlp("Hello, world. It works")
    text = doc_to_conllu(doc)
    assert text.startswith("# sent_id = 1\n# text = Hello, world. It works\n"
                           "1\tHello\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No\n")
    doc = nlp("A b")
    doc[0].head, doc[1].dep_ = doc[1], "det"
    doc[1].dep_ = "ROOT"
    doc[0].dep_ = "det"
    # spaCy's root label is written as UD's (a DocBin from `spacy convert` or spaCy's parser)
    assert "1\tA\t_\t_\t_\t_\t2\tdet\t_\t_\n2\tb\t_\t_\t_\t_\t0\troot" in doc_to_conllu(doc)


def test_several_sentences_per_doc(tmp_path):
    text = GOOD + GOOD.replace("sent_id = 1", "sent_id = 2")
    path = write(tmp_path, text)
    (doc,) = conllu_to_docs(path, spacy.blank("xx").vocab, n_sents=10)
    assert len(doc) == 8 and len(list(doc.sents)) == 2
    out = tmp_path / "out.conllu"
    write_conllu([doc], out)
    assert out.read_text(encoding="utf-8") == text


# (replacements in the second copy of GOOD, line of the error in the file, code)
BAD = {
    "columns": ([("4\t.\t.\tPUNCT\t_\t_\t3\tpunct\t_\t_", "4\t.\t.\tPUNCT\t_\t3\tpunct\t_\t_")], 17, "E002"),
    "id": ([("4\t.\t.\tPUNCT", "x\t.\t.\tPUNCT")], 17, "E003"),
    "order": ([("4\t.\t.\tPUNCT", "5\t.\t.\tPUNCT")], 17, "E004"),
    "head-nan": ([("\t3\tpunct", "\tthree\tpunct")], 17, "E005"),
    "head-range": ([("\t3\tpunct", "\t7\tpunct")], 17, "E006"),
    "self-head": ([("\t3\tpunct", "\t4\tpunct")], 17, "E007"),
    "cycle": ([("ADP\t_\t_\t3", "ADP\t_\t_\t2"), ("Masc\t3\tdet", "Masc\t1\tdet")], 13, "E008"),
    "no-root": ([("\t0\troot", "\t4\troot"), ("\t3\tpunct", "\t0\tpunct")], 10, None),
    "head-some": ([("\t3\tpunct", "\t_\tpunct")], 17, "E010"),
    "spaces": ([("mar\tmar", "mar  x\tmar")], 15, "E014"),
}


@pytest.mark.parametrize("kind", sorted(BAD))
def test_bad_input_names_file_line_reason(tmp_path, kind):
    changes, line, code = BAD[kind]
    if code is None:  # a sentence with several roots is valid: the control case
        changes = [changes[1]]
    bad = GOOD
    for old, new in changes:
        assert old in bad
        bad = bad.replace(old, new)
    path = write(tmp_path, GOOD + bad)
    out = tmp_path / "out.spacy"
    res = runner.invoke(app, ["convert", str(path), str(out)])
    if code is None:
        assert res.exit_code == 0
        return
    assert res.exit_code == 1
    assert f"{path}:{line}:" in res.output and code in res.output
    assert not out.exists() and list(tmp_path.iterdir()) == [path]
    # --skip-invalid keeps the good sentence and says which one it left out
    res = runner.invoke(app, ["convert", str(path), str(out), "--skip-invalid"])
    assert res.exit_code == 0, res.output
    assert "Skipped 1" in res.output and f"{path}:{line}:" in res.output
    back = tmp_path / "back.conllu"
    assert runner.invoke(app, ["convert", str(out), str(back)]).exit_code == 0
    assert back.read_text(encoding="utf-8") == GOOD


def test_no_root(tmp_path):
    text = GOOD.replace("\t0\troot", "\t4\troot").replace("\t3\tpunct", "\t1\tpunct")
    with pytest.raises(ConlluError) as e:
        list(read_conllu(write(tmp_path, text)))
    assert "E008" in str(e.value) or "E009" in str(e.value)
    with pytest.raises(ConlluError, match="E009"):
        list(read_conllu(write(tmp_path,
                               "1\ta\t_\t_\t_\t_\t2\tx\t_\t_\n2\tb\t_\t_\t_\t_\t1\tx\t_\t_\n\n1\tc\t_\t_\t_\t_\t1\tx\t_\t_\n")))


def test_bad_encoding(tmp_path):
    path = write(tmp_path, GOOD.encode("utf-8").replace(b"mar\tmar", b"m\xe1r\tmar"), mode="wb")
    with pytest.raises(ConlluError) as e:
        list(read_conllu(path))
    assert e.value.line == 6 and "E001" in str(e.value) and str(path) in str(e.value)


@pytest.mark.parametrize("name", [None, pytest.param("en_ewt", marks=pytest.mark.data),
                                  pytest.param("pt_bosque", marks=pytest.mark.data)])
def test_the_reader_reads_what_the_conllu_library_reads(name):
    """The reader builds its Sentences from the columns it checked; the conllu
    library's own parser (the reference) reads the same words, heads, ranges
    and empty nodes: the test treebank's training split, the dev files of
    en_ewt and pt_bosque (all have multiword tokens; en_ewt has empty nodes
    and SpaceAfter=No on ranges)."""
    import conllu

    path = fixture_path() if name is None else treebank(name, "dev")
    with open(path, encoding="utf-8") as f:
        reference = list(conllu.parse_incr(f))
    ours = list(read_conllu(path))
    assert len(ours) == len(reference) >= 240
    kinds = {"ranges": 0, "empty": 0}
    for sent, tokens in zip(ours, reference):
        words = [t for t in tokens if isinstance(t["id"], int)]
        assert sent.forms == [t["form"] for t in words] and sent.lemmas == [t["lemma"] for t in words]
        assert sent.upos == [t["upos"] for t in words] and sent.heads == [t["head"] for t in words]
        assert sent.deprels == [t["deprel"] for t in words]
        ranges = [t for t in tokens if isinstance(t["id"], tuple) and t["id"][1] == "-"]
        assert [(first + 1, last + 1) for first, last, _ in sent.ranges] == [(t["id"][0], t["id"][2]) for t in ranges]
        assert len(sent.empty) == sum(isinstance(t["id"], tuple) and t["id"][1] == "." for t in tokens)
        space = [(t["misc"] or {}).get("SpaceAfter") != "No" for t in words]
        for t in ranges:  # a multiword token's MISC says what follows its last word
            space[t["id"][2] - 1] = (t["misc"] or {}).get("SpaceAfter") != "No"
        assert sent.space_after == space
        kinds["ranges"] += bool(sent.ranges)
        kinds["empty"] += bool(sent.empty)
    assert kinds["ranges"] > 10 and (name != "en_ewt" or kinds["empty"] >= 3), kinds


def test_roundtrip_of_the_test_treebank(train_conllu):
    n, diffs = roundtrip_diffs(train_conllu)
    assert n == 240 and diffs == []


@pytest.mark.data
@pytest.mark.parametrize("name", ["got_proiel", "en_ewt", "pt_bosque"])
def test_roundtrip_sample(name):
    n, diffs = roundtrip_diffs(treebank(name), every=1 if name == "got_proiel" else 7)
    assert n > 1000 and diffs == []


def test_convert_cli_both_ways(tmp_path):
    """The command, both ways, on the test treebank's dev split: the same
    bytes (test_roundtrip_of_the_test_treebank takes the training split
    through Docs, DocBin bytes and back)."""
    dev = fixture_path("dev")
    spacy_path = tmp_path / "got.spacy"
    back = tmp_path / "got.conllu"
    assert runner.invoke(app, ["convert", str(dev), str(spacy_path)]).exit_code == 0
    assert runner.invoke(app, ["convert", str(spacy_path), str(back)]).exit_code == 0
    assert back.read_text(encoding="utf-8") == dev.read_text(encoding="utf-8")
    res = runner.invoke(app, ["convert", str(dev), str(tmp_path / "x.conllu")])
    assert res.exit_code == 1 and "E030" in res.output


def test_whitespace_tokens_are_written_as_spaces_after(tmp_path):
    """Raw text with a double space and a tab: spaCy's whitespace tokens are
    no UD words; the word before each gets SpacesAfter (escaped), the words
    are numbered without them, a word headed by one takes that one's head,
    and the file passes the UD validator at level 2."""
    import spacy

    from spacy_planar.eval.official import validate
    from spacy_planar.io.conllu import doc_to_conllu, read_conllu

    nlp = spacy.blank("xx")
    doc = nlp("jah qaþ  imma\t sa .")
    assert [t.text for t in doc] == ["jah", "qaþ", " ", "imma", "\t ", "sa", "."]
    heads = [1, 1, 1, 1, 3, 2, 1]  # "sa" headed by the space token after "qaþ": it takes "qaþ"
    for t, h, pos, dep in zip(doc, heads, ["CCONJ", "VERB", "SPACE", "PRON", "SPACE", "PRON", "PUNCT"],
                              ["cc", "ROOT", "dep", "obj", "dep", "nsubj", "punct"]):
        t.head, t.pos_, t.dep_ = doc[h], pos if pos != "SPACE" else "X", dep
    path = tmp_path / "raw.conllu"
    path.write_text(doc_to_conllu(doc), encoding="utf-8")
    (sent,) = read_conllu(path)
    assert sent.forms == ["jah", "qaþ", "imma", "sa", "."]
    assert sent.misc == ["_", "SpacesAfter=\\s\\s", "SpacesAfter=\\t\\s", "_", "SpaceAfter=No"]
    assert sent.heads == [2, 0, 2, 2, 2] and sent.deprels == ["cc", "root", "obj", "nsubj", "punct"]
    passed, report = validate(path, level=2)
    assert passed, report


def test_sentences_that_start_with_whitespace_are_written_as_ud(tmp_path):
    """A splitter's sentence start on a whitespace token (the first
    sentence's, one inside, and a sentence of whitespace alone): no word of
    whitespace is written; the whitespace before a sentence's first word is
    its SpacesBefore, a sentence of whitespace joins the one before it, the
    text comes back from the columns, and the file passes the UD validator."""
    import spacy
    from spacy.tokens import Doc

    from spacy_planar.eval.official import validate
    from spacy_planar.io.conllu import doc_to_conllu, read_conllu

    nlp = spacy.blank("xx")
    doc = nlp("  jah qaþ .   sa  \t  imma .  ik")
    assert [t.text for t in doc] == ["  ", "jah", "qaþ", ".", "  ", "sa", " \t  ", "imma", ".", " ", "ik"]
    # sentences from the Doc's start, "  " before "sa", " \t  " alone, " " before "ik"
    heads = [1, 1, 1, 1, 5, 5, 6, 7, 7, 10, 10]
    deps = ["dep", "ROOT", "obj", "punct", "dep", "ROOT", "ROOT", "ROOT", "punct", "dep", "ROOT"]
    doc = Doc(doc.vocab, words=[t.text for t in doc], spaces=[bool(t.whitespace_) for t in doc], heads=heads,
              deps=deps, pos=["X" if w.isspace() else "PUNCT" if w == "." else "NOUN" for w in (t.text for t in doc)])
    assert [s.text for s in doc.sents] == ["  jah qaþ .", "  sa", " \t  ", "imma .", " ik"]
    path = tmp_path / "raw.conllu"
    path.write_text(doc_to_conllu(doc), encoding="utf-8")
    sents = list(read_conllu(path))
    assert [s.forms for s in sents] == [["jah", "qaþ", "."], ["sa"], ["imma", "."], ["ik"]]
    assert sents[0].misc[0] == "SpacesBefore=\\s\\s"
    assert sents[1].misc == ["SpacesBefore=\\s\\s|SpacesAfter=\\s\\s\\t\\s\\s"]  # " \t  " joins "sa"
    assert sents[3].misc == ["SpacesBefore=\\s|SpaceAfter=No"]
    unescape = {"\\s": " ", "\\t": "\t"}

    def spaces(value):
        return "".join(unescape[value[i:i + 2]] for i in range(0, len(value), 2))

    text = ""
    for sent in sents:
        for form, misc in zip(sent.forms, sent.misc):
            parts = dict(p.split("=", 1) for p in misc.split("|") if "=" in p)
            text += spaces(parts.get("SpacesBefore", "")) + form
            text += spaces(parts["SpacesAfter"]) if "SpacesAfter" in parts else ("" if "SpaceAfter" in parts else " ")
    assert text == doc.text
    passed, report = validate(path, level=2)
    assert passed, report
    assert doc_to_conllu(nlp("  \n ")) == ""  # whitespace alone: no sentence
    # k-best parses by the parser's units: "sa"'s (4-6), with " \t  " joined to it
    from spacy_planar.io.conllu import PARAGRAPH_KEY, PARSES_KEY

    doc.user_data[PARSES_KEY] = [(4, 6, [{"prob": 0.75, "heads": [2, 0], "labels": ["dep", "root"]},
                                         {"prob": 0.25, "heads": [2, 0], "labels": ["dep", "vocative"]}])]
    doc.user_data[PARAGRAPH_KEY] = ["# newdoc", "# newpar"]
    blocks = doc_to_conllu(doc, kbest=2).split("\n\n")
    assert blocks[0].startswith("# newdoc\n# newpar\n# sent_id = 1\n")
    assert blocks[1].startswith("# sent_id = 2\n# text = sa\n# parse_prob = 0.7500\n"), blocks[1]
    assert blocks[2].startswith("# sent_id = 2/2") and "\tsa\t" in blocks[2] and "\tvocative\t" in blocks[2]
    first = ["dep", "root", "obj", "punct"]
    doc.user_data[PARSES_KEY] = [(0, 4, [{"prob": 0.5, "heads": [0, 0, 1, 1], "labels": first},
                                         {"prob": 0.5, "heads": [0, 0, 1, 2], "labels": first}])]
    blocks = doc_to_conllu(doc, kbest=2).split("\n\n")
    assert blocks[1].startswith("# sent_id = 1/2\n# text = jah qaþ .\n")  # an alternative opens no paragraph


def test_other_whitespace_and_a_multiword_token_before_it_are_written_as_ud(tmp_path):
    """A no-break space and an em space are escaped (\\u00A0, \\u2003: no
    raw whitespace in MISC); whitespace after a multiword token goes on its
    range line, not on its last word; the file passes the UD validator."""
    from spacy.tokens import Doc

    from spacy_planar.eval.official import validate
    from spacy_planar.io.conllu import MWT_KEY, doc_to_conllu, read_conllu

    words = ["Aspicit", ",", "\u00a0", "impavidos", "que", "\t\u2003", "iudice", "."]
    doc = Doc(spacy.blank("xx").vocab, words=words, spaces=[False, False, False, False, False, False, False, False],
              heads=[0, 0, 1, 6, 3, 4, 0, 0], deps=["ROOT", "punct", "dep", "obj", "cc", "dep", "conj", "punct"],
              pos=["VERB", "PUNCT", "X", "ADJ", "CCONJ", "X", "NOUN", "PUNCT"])
    doc.user_data[MWT_KEY] = [(3, 4, "impavidosque")]
    path = tmp_path / "raw.conllu"
    text = doc_to_conllu(doc)
    path.write_text(text, encoding="utf-8")
    lines = [line.split("\t") for line in text.splitlines() if line and not line.startswith("#")]
    assert [(c[0], c[1], c[9]) for c in lines] == [
        ("1", "Aspicit", "SpaceAfter=No"), ("2", ",", "SpacesAfter=\\u00A0"),
        ("3-4", "impavidosque", "SpacesAfter=\\t\\u2003"),
        ("3", "impavidos", "_"), ("4", "que", "_"), ("5", "iudice", "SpaceAfter=No"), ("6", ".", "SpaceAfter=No")]
    (sent,) = read_conllu(path)
    assert sent.heads == [0, 1, 5, 3, 1, 1]
    passed, report = validate(path, level=2)
    assert passed, report


def test_predicted_feats_are_written_in_uds_order(tmp_path):
    """spaCy orders a morph's features by code point (NumType before
    Number); UD by name, case-insensitively: what is written passes the UD
    validator's unsorted-features check."""
    from spacy.tokens import Doc

    from spacy_planar.eval.official import validate

    nlp = spacy.blank("la")
    doc = Doc(nlp.vocab, words=["duo", "milites", "veniunt", "."], spaces=[True, True, False, False],
              pos=["NUM", "NOUN", "VERB", "PUNCT"], heads=[1, 2, 2, 2], deps=["nummod", "nsubj", "ROOT", "punct"],
              morphs=["NumType=Card|Number=Plur", "Case=Nom|Number=Plur", "Mood=Ind|Number=Plur|Person=3", ""])
    assert str(doc[0].morph) == "NumType=Card|Number=Plur"  # spaCy's order
    text = doc_to_conllu(doc)
    assert "\tNUM\t_\tNumber=Plur|NumType=Card\t" in text
    out = write(tmp_path, text, "out.conllu")
    ok, report = validate(out, level=2, lang="la")
    assert ok, report


def test_docbins_read_and_write_as_spacys_docbin_does():
    """add_docs writes the bytes DocBin.add writes, docbin_docs reads the
    Docs get_docs reads: user data included, a numpy array (srsly's own
    encoder) and a tuple key among them; a DocBin without user data too."""
    import numpy as np
    from spacy.tokens import DocBin

    from spacy_planar.io.docbins import add_docs, docbin_docs

    vocab = spacy.blank("xx").vocab
    docs = list(conllu_to_docs(fixture_path("dev"), vocab))[:40]
    docs[0].user_data["array"] = np.arange(4, dtype="int32")
    docs[1].user_data[("._.", "x", 0, 2)] = [1, (2, "b")]
    for store in (True, False):
        ours = DocBin(store_user_data=store)
        add_docs(ours, docs)
        data = DocBin(store_user_data=store, docs=docs).to_bytes()
        assert ours.to_bytes() == data
        spacys, read = (list(f(DocBin(store_user_data=store).from_bytes(data))) for f in
                        (lambda db: db.get_docs(vocab), lambda db: docbin_docs(db, vocab)))
        assert [d.to_bytes(exclude=["user_data"]) for d in read] == [d.to_bytes(exclude=["user_data"]) for d in spacys]
        assert [sorted(d.user_data, key=repr) for d in read] == [sorted(d.user_data, key=repr) for d in spacys]
        assert bool(read[0].user_data) == store
    assert read[0].user_data == {} and len(read) == 40
    data = DocBin(store_user_data=True, docs=docs).to_bytes()
    spacys = list(DocBin().from_bytes(data).get_docs(vocab))
    kept = DocBin().from_bytes(data)
    read = list(docbin_docs(kept, vocab))
    assert len(kept.user_data) == 40  # the DocBin read is left as it was
    assert np.array_equal(read[0].user_data["array"], spacys[0].user_data["array"])
    assert read[1].user_data[("._.", "x", 0, 2)] == spacys[1].user_data[("._.", "x", 0, 2)] == (1, (2, "b"))
    assert all(r.user_data.keys() == s.user_data.keys() for r, s in zip(read, spacys))
    assert all(r.user_data[k] == s.user_data[k] for r, s in zip(read[1:], spacys[1:]) for k in r.user_data)
