"""The readings of session 20's screen20 alone over every text the input screen is measured on (issue 27).

    .venv/bin/python bench/input_screen_covert.py

Reads `covert_harm.covert_harm_kinds` (harm_undetected, allergen_hidden) and `secret_shapes.secret_shape_kinds`
(secret_sent_out), and whether `split_payload.assembled` joins anything, over each text of
`bench/input_screen_all.py`'s attack and benign sets, every probe file (bench/data/input_screen/*_probes*.jsonl) and
the workspace tools' requests, on the text and each of its normal forms as the screen's patterns read them, and prints
per set the texts each reads. A pattern reading changes no verdict where it reads nothing, so a benign set it reads
nothing of keeps its false-positive rate, without the models' CPU.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import input_screen_all  # noqa: E402

from voiceassist.safety.covert_harm import covert_harm_kinds  # noqa: E402
from voiceassist.safety.obfuscation import normal_forms  # noqa: E402
from voiceassist.safety.secret_shapes import secret_shape_kinds  # noqa: E402
from voiceassist.safety.split_payload import assembled  # noqa: E402

DATA = Path(__file__).parent / "data" / "input_screen"


def _kinds(text: str) -> list[str]:
    kinds = {kind for form in (text, *normal_forms(text)) for read in (covert_harm_kinds, secret_shape_kinds)
             for _, kind in read(form)}
    return sorted(kinds | ({"split_payload_joined"} if assembled(text) is not None else set()))


def _report(name: str, rows: list[tuple[str, str]]) -> int:
    hits = [(label, text, kinds) for label, text in rows if (kinds := _kinds(text))]
    print(f"{name}: {len(hits)} / {len(rows)}")
    for label, text, kinds in hits:
        print(f"    {label} | {','.join(kinds)} | {text[:150]}")
    return len(hits)


def main() -> int:
    for name, rows in input_screen_all.attack_sets().items():
        _report(name, rows)
    benign = sum(_report(name, [("benign", text) for text in texts])
                 for name, texts in input_screen_all.benign_sets().items())
    for path in sorted(DATA.glob("*_probes*.jsonl")) + [DATA / "benign_tool_requests.jsonl"]:
        records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        _report(path.stem, [(str(r.get("category") or r.get("label")), r["text"]) for r in records])
    print(f"benign texts read: {benign}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
