"""The ``planar_parser`` component, a thin spaCy layer: its factory and default config
(``factory.py``, the recommended parser), the pipe (``pipe.py``), its typed settings
(``settings.py``), how it learns (``training.py``), what it shares with the biaffine parser (its
``cfg``, labels and saving: ``base.py``), its scorer (``scorer.py``) and the Doc extensions it fills
(``extensions.py``)."""
