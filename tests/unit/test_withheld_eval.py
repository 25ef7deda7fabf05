"""The withheld-evidence evaluation's arithmetic: the AUROC and a reproducible draw."""

from __future__ import annotations

import math

from voiceassist_local.evaluation.withheld import auroc, withheld_queries


def test_auroc_is_one_for_a_perfect_split_half_for_ties_and_zero_when_reversed() -> None:
    assert auroc([0.9, 0.8], [0.1, 0.2]) == 1.0
    assert auroc([0.5, 0.5], [0.5]) == 0.5
    assert auroc([0.1], [0.9, 0.8]) == 0.0
    assert auroc([0.9, 0.3], [0.5]) == 0.5
    assert math.isnan(auroc([], [0.5]))


def test_the_withheld_half_is_drawn_by_seed() -> None:
    ids = [f"q{n}" for n in range(10)]

    first, again, other = (withheld_queries(ids, 0.5, 7), withheld_queries(ids, 0.5, 7),
                           withheld_queries(ids, 0.5, 8))

    assert len(first) == 5 and first == again and first != other
