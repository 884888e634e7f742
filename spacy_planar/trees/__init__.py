"""Trees as plain head and label lists, knowing nothing of spaCy: their structure
(``algorithms.py``: projectivity, planes, gaps, one root), the pseudo-projective encodings of Nivre
& Nilsson 2005 (``pseudoproj.py``) and the coordination and verb-group transforms of Nilsson 2007
(``transforms.py``)."""
