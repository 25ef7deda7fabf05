"""Build the input screen's second attack source (bench/data/input_screen/pyrit.jsonl.gz) from the PyRIT wheel.

    pip download pyrit==1.1.0 --no-deps -d /tmp/pyrit
    python bench/input_screen_pyrit.py /tmp/pyrit/pyrit-1.1.0-py3-none-any.whl

PyRIT (Microsoft, MIT) ships red-team seed sets and jailbreak templates as data (pyrit/datasets/). Kept: the
jailbreak templates outside `in_the_wild/` (those are Shen et al.'s crawl, already in the garak set), each
filled with one of PyRIT's own harmful objectives; AdvBench harmful behaviours (Zou A et al., 2023, MIT) and
the AI Red Team seed objectives (harmful; its imminent-crisis seeds are `self_harm`); the system-prompt stealing
and leakage seeds (injection). Left out:
`seed_datasets/local/garak/` (garak's own sets) and any text sharing most of its word 5-grams with a row of
attacks.jsonl.gz (same prompt, another copy). The split is fixed by a SHA-256 of the text: `held_out` (1 in 2)
is read only by `bench/input_screen.py --source pyrit` for the report; `train` may be used for fitting.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import re
import sys
import zipfile
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).parent))

from input_screen_data import attacks  # noqa: E402

OUT = Path(__file__).parent / "data" / "input_screen" / "pyrit.jsonl.gz"
ROOT = "pyrit/datasets/"
LICENCE = "MIT"
HARMFUL_SEEDS = ("illegal", "malware", "violence", "harms", "scams", "harassment", "hate", "sexual",
                 "misinformation", "airt_imminent_crisis")
SELF_HARM_SEEDS = ("airt_imminent_crisis",)  # PyRIT's harm category imminent_crisis: the `self_harm` category
INJECTION_SEEDS = ("seed_datasets/local/psfuzz_steal_system.prompt", "seed_datasets/local/airt/leakage.prompt")
SHINGLE, OVERLAP = 5, 0.5


def _shingles(text: str) -> set[str]:
    words = re.findall(r"\w+", text.casefold())
    return {" ".join(words[i:i + SHINGLE]) for i in range(max(1, len(words) - SHINGLE + 1))}


def _seeds(wheel: zipfile.ZipFile, member: str) -> list[str]:
    data: Any = yaml.safe_load(wheel.read(ROOT + member))
    return [str(seed["value"]).strip() for seed in data.get("seeds", []) if str(seed.get("value", "")).strip()]


def rows(wheel_path: Path) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    with zipfile.ZipFile(wheel_path) as wheel:
        named = [(name, s) for name in HARMFUL_SEEDS for s in _seeds(wheel, f"seed_datasets/local/airt/{name}.prompt")]
        objectives = [text for _, text in named]
        for name, text in named:
            out.append({"category": "self_harm" if name in SELF_HARM_SEEDS else "harmful", "text": text,
                        "origin": "PyRIT AI Red Team seed objectives"})
        for text in _seeds(wheel, "seed_datasets/local/adv_bench.prompt"):
            out.append({"category": "harmful", "text": text,
                        "origin": "Zou A et al., AdvBench harmful behaviours, 2023 (via PyRIT)"})
        for member in INJECTION_SEEDS:
            for text in _seeds(wheel, member):
                out.append({"category": "injection", "text": text, "origin": f"PyRIT {Path(member).stem} seeds"})
        for member in ("seed_datasets/local/0din/" + n for n in sorted(
                Path(m).name for m in wheel.namelist() if m.startswith(ROOT + "seed_datasets/local/0din/"))):
            for text in _seeds(wheel, member):
                out.append({"category": "jailbreak", "text": text, "origin": "0DIN jailbreak seeds (via PyRIT)"})
        templates = sorted(m for m in wheel.namelist() if m.startswith(ROOT + "jailbreak/templates/")
                           and m.endswith(".yaml") and "/in_the_wild/" not in m)
        for i, member in enumerate(templates):
            data: Any = yaml.safe_load(wheel.read(member))
            value = str(data.get("value", ""))
            objective = objectives[i % len(objectives)]
            text = re.sub(r"\{\{\s*prompt\s*\}\}", objective, value)
            text = re.sub(r"\{\{\s*\w+\s*\}\}", objective, text).strip()
            if text:
                origin = f"PyRIT jailbreak template {member.removeprefix(ROOT)} ({data.get('source', '')})"
                out.append({"category": "jailbreak", "text": text, "origin": origin})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("wheel", type=Path)
    args = parser.parse_args(argv)
    garak = [_shingles(r["text"]) for r in attacks("train") + attacks("held_out")]
    kept: list[dict[str, str]] = []
    seen: set[str] = set()
    dropped = 0
    for row in rows(args.wheel):
        key = " ".join(row["text"].split()).casefold()
        grams = _shingles(row["text"])
        if key in seen or any(len(grams & g) / len(grams) > OVERLAP for g in garak if g & grams):
            dropped += 1
            continue
        seen.add(key)
        digest = int(hashlib.sha256(row["text"].encode()).hexdigest(), 16)
        kept.append({**row, "licence": LICENCE, "split": "held_out" if digest % 2 else "train"})
    with gzip.open(OUT, "wt", encoding="utf-8") as out:
        for row in kept:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    counts: dict[str, int] = {}
    for row in kept:
        counts[f"{row['category']}/{row['split']}"] = counts.get(f"{row['category']}/{row['split']}", 0) + 1
    print(json.dumps({"rows": len(kept), "dropped_as_garak_copies_or_duplicates": dropped, **counts}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
