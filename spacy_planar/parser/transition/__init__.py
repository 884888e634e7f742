"""The transition-based parser, ``planar_parser``: its systems described once each
(``catalog.py``: name, class, oracle, options), its factory and default config
(``factory.py``, the recommended parser), the pipe (``pipe.py``), its typed settings
(``settings.py``), how it learns (``training.py``; from teachers: ``teachers.py``), and how it
runs over the systems of ``systems/``: the one driver loop (``driver.py``: oracle runs,
exploration, greedy parses), the beam beside it (``beam.py``), k-best parses and their
confidence (``kbest.py``) and parse time (``parsing.py``)."""
