"""The purpose-clause reading alone over every text the input screen is measured on (issue 27, session 19, harm19).

    .venv/bin/python bench/input_screen_purpose.py

Reads `purpose_clause.purpose_harm` over each text of `bench/input_screen_all.py`'s attack and benign sets and of
every probe file (bench/data/input_screen/*_probes*.jsonl), on the text and each of its normal forms as the screen's
patterns read them, and prints per set the texts it reads (a reading that adds a HARMFUL pattern flag changes no
verdict where it reads nothing). Then the CPU of the reading per MedMCQA/MMLU question, the parser's load apart.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import input_screen_all  # noqa: E402
from input_screen_data import clinical_questions  # noqa: E402

from voiceassist.safety.obfuscation import normal_forms  # noqa: E402
from voiceassist.safety.purpose_clause import _parser, purpose_harm  # noqa: E402

DATA = Path(__file__).parent / "data" / "input_screen"


def _read(text: str) -> bool:
    return any(purpose_harm(form) for form in (text, *normal_forms(text)))


def _report(name: str, rows: list[tuple[str, str]]) -> int:
    hits = [(label, text) for label, text in rows if _read(text)]
    print(f"{name}: {len(hits)} / {len(rows)}")
    for label, text in hits:
        print(f"    {label} | {text[:160]}")
    return len(hits)


def main() -> int:
    start = time.process_time()
    _parser()
    print(f"parser load: {time.process_time() - start:.2f} s CPU")
    for name, rows in input_screen_all.attack_sets().items():
        _report(name, rows)
    for name, texts in input_screen_all.benign_sets().items():
        _report(name, [("benign", text) for text in texts])
    for path in sorted(DATA.glob("*_probes*.jsonl")):
        records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        _report(path.stem, [(str(r.get("category") or r.get("label")), r["text"]) for r in records])
    questions = clinical_questions(None)
    start = time.process_time()
    for text in questions:
        purpose_harm(text + " ")  # a text not parsed before (the parse cache is keyed by text)
    print(f"CPU per MedMCQA/MMLU question: {(time.process_time() - start) / len(questions) * 1000:.4f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
