"""What goes in and out: CoNLL-U (``conllu/``), DocBins with their user data (``docbins.py``), the
training reader (``readers.py``), raw text (``raw_text.py``), the one Doc <-> (heads, labels) adapter
(``doc_trees.py``), pipelines by name (``pipelines.py``), progress bars (``progress.py``) and trees drawn
(``render.py``)."""
