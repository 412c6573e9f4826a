"""What the recorded token usage cost: usage per model (usage.py), a dated price
table kept as data (prices.json, prices.py) and the sums (pricing.py).

Models the table does not name are counted as tokens and named, never priced
by a guess from a similar name.
"""
