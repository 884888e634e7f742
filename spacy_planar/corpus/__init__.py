"""Parsing files and corpora: one file (``files.py``, what ``parse`` runs), a corpus's jobs and
their resumption (``jobs.py``), run here or in a process pool (``pool.py``) or on Dask (``dask.py``)."""
