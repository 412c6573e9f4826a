"""Benchmarks (not tests): a deterministic corpus generator and `python -m bench`.

See BENCHMARKS.md for the latest full run and the README for the headline figures.
"""
