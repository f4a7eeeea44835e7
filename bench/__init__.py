"""Benchmarks: ``python -m bench`` (or ``make bench``) runs every module here that has ``run()``."""
