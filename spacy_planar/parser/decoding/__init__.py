"""How a transition parser runs, apart from its component: the one driver loop over the batched
core (``driver.py``: oracle runs, exploration, greedy parses), the beam beside it (``beam.py``),
k-best parses and their confidence (``kbest.py``), a tree's way in and out of a system
(``codec.py``) with every repair on the way out counted (``repairs.py``), and parse time
(``parsing.py``: units, batches, whitespace)."""
