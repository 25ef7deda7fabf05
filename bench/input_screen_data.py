"""The input screen's data, read by the training and the measuring scripts: the attack set (train and held-out
splits fixed by bench/input_screen_set.py) and the clinical question sets of ../shared/eval (read by path,
never copied), split by a hash of their id: `train` half for fitting, `held_out` half for the false positives."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path
from typing import Any

ATTACKS = Path(__file__).parent / "data" / "input_screen" / "attacks.jsonl.gz"
PYRIT = ATTACKS.with_name("pyrit.jsonl.gz")  # the second source (bench/input_screen_pyrit.py)
EVAL = Path(__file__).resolve().parents[1].parent / "shared" / "eval"
ANSWER_SETS = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "answers"


def attacks(split: str, path: Path = ATTACKS) -> list[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as rows:
        return [row for row in map(json.loads, rows) if row["split"] == split]


def half(key: str) -> str:
    return "held_out" if int(hashlib.sha256(key.encode()).hexdigest(), 16) % 2 else "train"


def clinical_questions(split: str | None, eval_dir: Path = EVAL) -> list[str]:
    """MedMCQA and MMLU medical questions (phi/clinical_questions_no_phi.jsonl), one half or all."""
    with (eval_dir / "phi" / "clinical_questions_no_phi.jsonl").open() as rows:
        return [row["text"] for row in map(json.loads, rows) if split is None or half(row["id"]) == split]


def beir_queries(name: str, eval_dir: Path = EVAL) -> list[str]:
    with (eval_dir / name / "queries.jsonl").open() as rows:
        return [row["text"] for row in map(json.loads, rows)]


def clinician_typed() -> list[str]:
    """Every distinct question of the project's answer sets (tests/fixtures/answers): typed as clinicians type,
    never fitted on."""
    questions: dict[str, None] = {}
    for path in sorted(ANSWER_SETS.glob("*.jsonl")):
        with path.open(encoding="utf-8") as rows:
            questions.update((json.loads(row)["query"], None) for row in rows if row.strip())
    return list(questions)
