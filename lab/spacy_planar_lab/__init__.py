"""The laboratory: the diagnostics and benchmarks behind docs/results.md (``spacy-planar lab ...``),
apart from the product, which imports none of it (``cli._app.LabGroup`` loads ``lab_app`` by the
``spacy_planar_lab`` entry point when `lab` is called): tree structure and the papers' round trips
(``analyse.py``, ``experiments.py``), speed (``bench.py``, ``bench_text.py``; training:
``bench_train.py``), pipelines side by side (``compare.py``), search and model errors
(``search.py``), the stacks at the end (``stacks.py``), the
anchors every table names (``anchors.py``: spaCy's configs, UDPipe 1; ``stanza.py``: Stanza) and
their partial configs (``partials/``). A package of its own (``lab/pyproject.toml``), which a plain
install of spacy-planar does not carry, released with it."""
__version__ = "0.3.0"  # spacy-planar's, released with it (tests/test_layout.py holds the two equal)
from spacy_planar_lab._app import lab_app  # noqa: F401
from spacy_planar_lab import analyse, anchors, bench, bench_memory, bench_text, bench_train  # noqa: F401
from spacy_planar_lab import compare, fetch, search, stacks, stanza  # noqa: F401
