"""What both parsers use, neither parser's own: the pipe's settings, labels and saving
(``base.py``), the gold trees they train on (``gold.py``), a tree's way in and out
(``codec.py``) with every repair counted (``repairs.py``), the units a parse reads and their
whitespace (``units.py``), the default encoder (``tok2vec.py``), the scorer (``scorer.py``) and
the Doc extensions they fill (``extensions.py``)."""
