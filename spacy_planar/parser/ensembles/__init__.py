"""Several parsers as one (``parse --ensemble``): members of one system by their moves' mean
log-probabilities, or parsers of different systems reparsed (``members.py``), the votes and the
reparse itself (``reparse.py``, Sagae & Lavie 2006)."""
