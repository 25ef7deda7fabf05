"""bench/metadata_screen.py's recall cases: the held-out half names no patient of the tuning half, nor any patient
the screen was tuned on before the split (seed 7). Nothing is detected or timed here."""

from __future__ import annotations

from types import ModuleType

import pytest

from tests.support.bench_module import load_bench


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return load_bench("metadata_screen")


def _full_names(names: object, count: int) -> set[str]:
    return {f"{first} {last}".lower() for first, last in (names() for _ in range(count))}  # type: ignore[operator]


def test_metadata_screen_bench_recall_halves_share_no_patient(bench: ModuleType) -> None:
    tune = _full_names(bench.names_in_part(bench._faker_names(bench.TUNED_LOCALES, 2029), "tune"), 200)
    held_out = _full_names(bench.names_in_part(bench._faker_names(bench.TUNED_LOCALES, 2029), "held-out"), 200)

    assert len(tune) > 150 and len(held_out) > 150
    assert not tune & held_out


def test_metadata_screen_bench_held_out_leaves_out_names_tuned_on_before(bench: ModuleType) -> None:
    # Given the names of the cases tuned on before the split (seed 7), drawn as positives() drew them
    seen = frozenset(f"{first} {last}".lower()
                     for first, last in bench._names_drawn(bench._faker_names(bench.TUNED_LOCALES, 7), 60))
    # When the held-out half is drawn from that same seed, it names none of them, and still has patients
    held_out = _full_names(bench.names_in_part(bench._faker_names(bench.TUNED_LOCALES, 7), "held-out", seen), 60)

    assert len(held_out) > 40
    assert not held_out & seen
    assert len(bench.positives(bench._faker_names(bench.TUNED_LOCALES, 7), 30, 7, "held-out", seen)) == 30
