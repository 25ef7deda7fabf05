"""Every blind writer's rows in one run, with why each benign text was refused (issue 27): attacks flagged per writer
and category, benign texts refused per writer and kind, and each refused benign text with the reasons that flagged it
(a pattern's or a shape's kind, `model:<category>`, `model:classifier`), so false flags can be grouped by the signal
that fired. For an old-versus-new comparison, run it twice, the old tree's package first on PYTHONPATH:

    .venv/bin/python bench/input_screen_writers.py [--json out.json]
    PYTHONPATH=/path/to/old/layers/core/python .venv/bin/python bench/input_screen_writers.py --json old.json

The texts' sentence vectors are the int8 embedder's (input_screen_data.VECTOR_CACHE); `--json` writes every row's
reasons (keyed "writer|attacks|text" or "writer|benign|text") beside the counts.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from input_screen_data import sentence_vectors  # noqa: E402

DATA = Path(__file__).parent / "data" / "input_screen"
# every blind writer with both files, in the order they wrote (blind5, blind6, ..., blind20)
WRITERS = sorted((p.name.split("_")[0] for p in DATA.glob("blind*_benign.jsonl")
                  if (DATA / p.name.replace("_benign", "_attacks")).exists()), key=lambda w: int(w[5:]))


def rows() -> list[tuple[str, str, str, str]]:
    """(writer, part, category or kind, text) of every blind writer's attacks and benign texts."""
    out = []
    for writer in WRITERS:
        for part, key in (("attacks", "category"), ("benign", "kind")):
            for line in (DATA / f"{writer}_{part}.jsonl").read_text().splitlines():
                if line.strip():
                    row = json.loads(line)
                    out.append((writer, part, row[key], row["text"]))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", type=Path, help="also write every row's reasons and the counts here")
    args = parser.parse_args(argv)
    from voiceassist.safety.input_screen import screen_text

    table = rows()
    vectors = sentence_vectors(list(dict.fromkeys(text for *_, text in table)))
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    reasons: dict[str, list[str]] = {}
    for writer, part, group, text in table:
        verdict = screen_text(text, vector=vectors[text])
        for key in (f"{writer}|{part}|{group}", f"all|{part}|{group}"):
            counts[key][0] += 1
            counts[key][1] += verdict.flagged
        reasons[f"{writer}|{part}|{text}"] = list(verdict.reasons)
        if part == "benign" and verdict.flagged:
            print(f"FP {writer} {group} {list(verdict.reasons)} | {text}")
    for key, (n, flagged) in sorted(counts.items()):
        print(f"{key}: {flagged} / {n} flagged ({100 * flagged / n:.1f} %)")
    if args.json:
        args.json.write_text(json.dumps({"counts": counts, "reasons": reasons}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
