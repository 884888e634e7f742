"""The graph-based parser (Dozat & Manning 2017), the transition parser's sibling: the
``biaffine_parser`` component (``component.py``) and what it computes with its model's scorer
(``scoring.py``: padded sentences, losses, the positional prior, MST or Eisner decoding)."""
