"""pipe_speed.py MODEL CONLLU [REPEATS]: words/s of ``nlp.pipe`` over Docs of each sentence's gold
words, best of REPEATS (3); with whichever spacy_planar is first on the path (across_commits.sh)."""
import sys
import time

import conllu
import spacy
import spacy_planar  # noqa: F401
from spacy.tokens import Doc

nlp = spacy.load(sys.argv[1])
with open(sys.argv[2], encoding="utf8") as f:
    sents = [[t["form"] for t in s if isinstance(t["id"], int)] for s in conllu.parse(f.read())]
words = sum(map(len, sents))
list(nlp.pipe([Doc(nlp.vocab, words=w) for w in sents[:100]]))  # warm up
best = float("inf")
for _ in range(int(sys.argv[3]) if len(sys.argv) > 3 else 3):
    docs = [Doc(nlp.vocab, words=w) for w in sents]
    start = time.perf_counter()
    list(nlp.pipe(docs))
    best = min(best, time.perf_counter() - start)
print(f"{sys.argv[1]}: {words} words, {best:.2f} s, {words / best:,.0f} words/s")
