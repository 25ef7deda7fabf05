"""The frame readings alone over every text the input screen is measured on (issue 27, session 20, harm20).

    .venv/bin/python bench/input_screen_frames.py
    PYTHONPATH=/path/to/old/layers/core/python .venv/bin/python bench/input_screen_frames.py  # the goal reading before

Reads `harm_frames.harm_frame_kinds` (where the tree has it) and `harm_goal.harm_goal_kinds` over each text of
`bench/input_screen_all.py`'s attack and benign sets and of every probe file (bench/data/input_screen/*_probes*.jsonl),
on the text and each of its normal forms as the screen's patterns read them, and prints per set the texts each reads:
a reading that adds a pattern flag changes no verdict where it reads nothing, so two runs (this tree, and an older
one through PYTHONPATH) show what a change to the readings adds on every set, without the models' CPU.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import input_screen_all  # noqa: E402

from voiceassist.safety.harm_goal import harm_goal_kinds  # noqa: E402
from voiceassist.safety.obfuscation import normal_forms  # noqa: E402

try:
    from voiceassist.safety.harm_frames import harm_frame_kinds
except ImportError:  # an older tree, before session 20
    harm_frame_kinds = None

DATA = Path(__file__).parent / "data" / "input_screen"


def _kinds(text: str, readings: list[Callable[[str], list[tuple[str, str]]]]) -> list[str]:
    return sorted({kind for form in (text, *normal_forms(text)) for read in readings for _, kind in read(form)})


def _report(name: str, rows: list[tuple[str, str]], readings: list[Callable[[str], list[tuple[str, str]]]]) -> None:
    hits = [(label, text, kinds) for label, text in rows if (kinds := _kinds(text, readings))]
    print(f"{name}: {len(hits)} / {len(rows)}")
    for label, text, kinds in hits:
        print(f"    {label} | {','.join(kinds)} | {text[:150]}")


def main() -> int:
    readings = [harm_goal_kinds] + ([harm_frame_kinds] if harm_frame_kinds is not None else [])
    for name, rows in input_screen_all.attack_sets().items():
        _report(name, rows, readings)
    for name, texts in input_screen_all.benign_sets().items():
        _report(name, [("benign", text) for text in texts], readings)
    for path in sorted(DATA.glob("*_probes*.jsonl")):
        records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        _report(path.stem, [(str(r.get("category") or r.get("label")), r["text"]) for r in records], readings)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
