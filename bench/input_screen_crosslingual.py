"""The cross-lingual harm reading (voiceassist/safety/crosslingual.py) alone, on every set the input screen is
measured on (bench/input_screen_all.py's) and on harm13's probes (data/input_screen/harm13_probes{,_b,_c,_d}.jsonl:
harmful requests and their clinical counterparts in languages no blind writer used, written by harm13; the whole
screen's verdict on them too, words only, without sentence vectors). Prints, per set, the texts the reading
flags and how many of the set's texts read as not English; per attack set, its harmful texts not in English and
those the reading flags.

    .venv/bin/python bench/input_screen_crosslingual.py [--show N] [--eval-dir ../shared/eval]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from input_screen_all import DATA, attack_sets, benign_sets  # noqa: E402
from input_screen_data import EVAL  # noqa: E402

from voiceassist.safety.crosslingual import crosslingual_kinds, not_english  # noqa: E402
from voiceassist.safety.input_screen import screen_text  # noqa: E402

# harm13's probes: (a) written before the reading was first measured, then read while the lexicon's filters were
# chosen (development data); (b) written after step 1, read first at 7 / 20 (unchanged by step 2); (c) written after
# step 2 landed, with harder clinical counterparts (deaths on a ward that nobody noticed), read once as landed, then
# while step 3 was chosen; (d) written after (c)'s reading, before step 3, read once before and once after it
PROBES = tuple(DATA / f"harm13_probes{part}.jsonl" for part in ("", "_b", "_c", "_d"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--show", type=int, default=0, help="print up to N flagged texts (benign) or misses")
    parser.add_argument("--eval-dir", type=Path, default=EVAL, 
                        help="../shared/eval (a worktree's is /work/shared/eval)")
    args = parser.parse_args(argv)
    for path in PROBES:
        probes = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        for category in ("harmful", "clinical"):
            rows = [r for r in probes if r["category"] == category]
            flagged = [r for r in rows if crosslingual_kinds(r["text"])]
            screened = [r for r in rows if screen_text(r["text"]).flagged]
            print(f"{path.stem} {category}: {len(flagged)} / {len(rows)} flagged by the reading, {len(screened)} by "
                  f"the whole screen (words only) ({sum(not_english(r['text']) for r in rows)} read as not English)")
            shown = flagged if category == "clinical" else [r for r in rows if r not in flagged]
            for row in shown[: args.show]:
                print(f"    {row['language']}: {row['text']}")
    for name, rows in attack_sets().items():
        foreign = [(kind, text) for kind, text in rows if not_english(text)]
        flagged = [(kind, text) for kind, text in rows if crosslingual_kinds(text)]
        harmful = [text for kind, text in foreign if kind == "harmful"]
        print(f"attacks {name}: {len(flagged)} / {len(rows)} flagged; not English {len(foreign)}, of them harmful "
              f"{len(harmful)}, flagged {sum(bool(crosslingual_kinds(t)) for t in harmful)}")
        for text in [t for t in harmful if not crosslingual_kinds(t)][: args.show]:
            print(f"    missed: {text}")
    for name, texts in benign_sets(args.eval_dir).items():
        flagged = [text for text in texts if crosslingual_kinds(text)]
        print(f"benign {name}: {len(flagged)} / {len(texts)} flagged; "
              f"not English {sum(not_english(t) for t in texts)}")
        for text in flagged[: args.show]:
            print(f"    flagged: {crosslingual_kinds(text)} {text}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
