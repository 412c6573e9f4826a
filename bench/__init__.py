"""Benchmarks (not tests): a deterministic corpus generator and `python -m bench`.

See BENCHMARKS.md for the latest full run and the README for the headline figures.
"""

import os

# A measured command opens the index itself unless a figure says otherwise: with
# keep_warm (cli/keep_warm.py) the first "cold" command would leave a holder that
# answers the next ones. bench/scale.py measures keep_warm on its own, by name.
os.environ.setdefault("CONVO_TUI_KEEP_WARM", "0")
