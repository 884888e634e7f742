"""The ``planar_parser`` component, a thin spaCy layer: its factory and default config
(``factory.py``, the recommended parser), the pipe (``pipe.py``), its typed settings
(``settings.py``), how it learns (``training.py``), how it is saved (``saving.py``, shared with
the biaffine parser), its scorer (``scorer.py``) and the Doc extensions it fills
(``extensions.py``)."""
