"""Evaluation: the papers' metrics (``metrics.py``) and UD's own tools, the CoNLL 2018 scorer and
the UD validator (``official.py``)."""
