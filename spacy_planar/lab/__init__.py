"""The laboratory: the diagnostics and benchmarks behind docs/results.md (``spacy-planar lab ...``),
apart from the product: tree structure and the papers' round trips (``analyse.py``,
``experiments.py``), speed (``bench.py``), pipelines side by side (``compare.py``), search and model
errors (``search.py``), the stacks at the end (``stacks.py``)."""
