"""The graph-based parser (Dozat & Manning 2017) beside the transition systems: the
``biaffine_parser`` component (``component.py``), what it computes with its model's scorer
(``scoring.py``: padded sentences, losses, the MST decoding), and parsers of different systems
as one by reparsing (``reparse.py``, Sagae & Lavie 2006)."""
