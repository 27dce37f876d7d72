"""Grading a class: ``grade`` and ``grade --dry-run``, the local and Dask pools, the progress bar."""
