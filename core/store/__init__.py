"""Index stores behind one contract (see base.py)."""
