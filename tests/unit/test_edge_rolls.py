"""When the embedded store's writer rolls its appendable segment and trims the heap."""

from __future__ import annotations

from convo_tui.core.store.edge_rolls import ROLL_POINTS, TRIM_POINTS, Rolls


def test_the_heap_is_trimmed_every_trim_points_and_after_each_roll():
    rolls = Rolls()
    assert not rolls.wrote(TRIM_POINTS - 1) and not rolls.trim_due()
    assert not rolls.wrote(1) and rolls.trim_due()
    assert not rolls.trim_due()  # counted afresh
    assert not rolls.wrote(TRIM_POINTS - 1) and not rolls.trim_due()
    assert rolls.wrote(ROLL_POINTS)  # due to roll
    rolls.rolled()
    assert rolls.trim_due() and not rolls.trim_due()


def test_an_optimize_outside_a_roll_starts_the_count_again():
    rolls = Rolls()
    assert not rolls.wrote(ROLL_POINTS - 1)
    rolls.rolled()
    assert rolls.trim_due() and not rolls.trim_due()
    assert not rolls.wrote(ROLL_POINTS - 1) and rolls.wrote(1)
