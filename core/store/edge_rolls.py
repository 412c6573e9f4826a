"""When the embedded store's writer rolls its appendable segment into an on-disk
one and hands the heap's free pages back, counted in points written."""

from __future__ import annotations

# Edge keeps its appendable segment's indexes in memory (2-8 KB a point, and
# phase 2 moves every point it gives a vector back into that segment): after
# this many points written it is optimized into an on-disk segment, so the
# memory of a writer stays bounded however large the run. Building a segment
# maps its source and the new one (about 10 KB a point of RSS while it runs,
# page cache the kernel may drop): at 41k points an indexing run peaked at
# 841 MB, at 25k under 700. Each roll holds the process (Edge keeps the GIL)
# for about 6 s of CPU; more, smaller segments cost searches a little. Since a
# message's thinking and tool calls share points (keyword_parts.packed_parts),
# a point holds 1.45x the text it did, and 17k points are the bytes 25k were:
# as many rolls a run, and at 10k messages phase 1 peaked at 448 MB instead
# of 584 (530 before the packing; BENCHMARKS.md, "Twelfth session").
ROLL_POINTS = 17_000
# Between rolls the heap fills with what each write let go among what the
# appendable segment keeps (packed payloads cross as strings of 1-3 KB: edge_packing.py),
# so its free pages are handed back this often too: at 100k messages phase 1's
# peak was 695-713 MB without, 659-667 with (BENCHMARKS.md, "Twenty-first session").
TRIM_POINTS = 2_048


class Rolls:
    """Points written since the last roll and since the heap was last trimmed."""

    def __init__(self) -> None:
        self.since_roll = 0
        self.since_trim = 0

    def wrote(self, points: int) -> bool:
        """Count `points` written; True when the appendable segment is due to roll."""
        self.since_roll += points
        self.since_trim += points
        return self.since_roll >= ROLL_POINTS

    def rolled(self) -> None:
        """The segment was rolled (at a roll or any optimize): the heap is trimmed next."""
        self.since_roll = 0
        self.since_trim = TRIM_POINTS

    def trim_due(self) -> bool:
        """Whether to hand the heap's free pages back now (then counted afresh)."""
        if self.since_trim < TRIM_POINTS:
            return False
        self.since_trim = 0
        return True
