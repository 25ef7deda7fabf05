"""Measure the input screen: the share of the held-out attack set flagged (per category) and the false positives
on the clinical question sets of ../shared/eval.

    python bench/input_screen.py [--eval ../shared/eval] [--split held_out|train] [--source garak|pyrit|extra]
                                 [--show N] [--words-only] [--without-classifier]
                                 [--obfuscate spaced|hyphenated|zero_width|leet|reversed]

As served with the in-boundary embedder: the patterns and the meaning model, which reads each text's sentence
vector (int8 all-MiniLM-L6-v2; vectors kept in input_screen_data.VECTOR_CACHE). `--words-only` measures the
words-only model, which screens where the embedding model is not deployed.

`--split train` is the only view used while writing patterns or fitting (bench/input_screen_train.py); the
held-out split is read for the report only. `--source pyrit` measures the second attack source (PyRIT's
bundled sets, bench/input_screen_pyrit.py) instead of garak's, `--source extra` the third (spikee's and AgentDojo's,
bench/input_screen_extra.py); the benign chat is garak's either way.
False positives: the held-out half of the MedMCQA/MMLU questions (the other half is training data), all of
them, the SciFact and NFCorpus queries (all, and each half by a hash of the id: the `train` half was the
development view of the fifth session's changes, never fitted on) and the project's answer-set questions
(clinician-typed: all, and the held-out half; the train half is fitted on since the fifth session).
`self_harm` requests (garak's intent S006sh on Do-Not-Answer, PyRIT's imminent-crisis seeds) are reported
apart from the injection/jailbreak/harmful attacks, and are not benign chat.
`--obfuscate KIND` rewrites every attack mechanically before screening (letters spaced apart with words two spaces
apart, letters hyphenated, a zero-width space inside each word, leetspeak digits, the text reversed): how much of
the set survives an attacker hiding its words (the clinical sets are screened as they are).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from input_screen_data import (  # noqa: E402
    ATTACKS,
    EVAL,
    EXTRA,
    PYRIT,
    attacks,
    beir_queries,
    clinical_questions,
    clinician_statements,
    clinician_typed,
    sentence_vectors,
)

from voiceassist.safety.input_screen import ScreenVerdict, screen_text  # noqa: E402


def _spaced(text: str, separator: str) -> str:
    return "  ".join(separator.join(word) for word in text.split())


OBFUSCATIONS: dict[str, Callable[[str], str]] = {
    "spaced": lambda text: _spaced(text, " "),
    "hyphenated": lambda text: _spaced(text, "-"),
    "zero_width": lambda text: " ".join(w[: len(w) // 2] + "\u200b" + w[len(w) // 2:] for w in text.split()),
    "leet": lambda text: text.translate(str.maketrans("aeiostAEIOST", "431057431057")),
    "reversed": lambda text: text[::-1],
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--eval", type=Path, default=EVAL)
    parser.add_argument("--split", default="held_out", choices=["held_out", "train"])
    parser.add_argument("--source", default="garak", choices=["garak", "pyrit", "extra"])
    parser.add_argument("--show", type=int, default=0, help="print up to N misses and false positives")
    parser.add_argument("--words-only", action="store_true", help="the words-only model (no sentence vectors)")
    parser.add_argument("--without-classifier", action="store_true", help="the screen without its attack classifier")
    parser.add_argument("--obfuscate", choices=sorted(OBFUSCATIONS), help="rewrite every attack this way first")
    args = parser.parse_args(argv)
    report: dict[str, object] = {"model": "words only" if args.words_only else "meaning"}
    source = {"garak": ATTACKS, "pyrit": PYRIT, "extra": EXTRA}[args.source]
    every = [r for r in attacks(args.split, source) if r["category"] != "benign"]
    if args.obfuscate:
        report["obfuscated"] = args.obfuscate
        every = [{**r, "text": OBFUSCATIONS[args.obfuscate](r["text"])} for r in every]
    rows = [r for r in every if r["category"] != "self_harm"]  # the injection/jailbreak/harmful set (issue 27)
    self_harm = [r["text"] for r in every if r["category"] == "self_harm"]
    benign = [r["text"] for r in attacks(args.split) if r["category"] == "benign"]
    sets = {"benign_chat": benign, "clinical_questions_held_out": clinical_questions("held_out", args.eval),
            "clinical_questions_all": clinical_questions(None, args.eval),
            "scifact_queries": beir_queries("scifact", args.eval),
            "nfcorpus_queries": beir_queries("nfcorpus", args.eval),
            "scifact_queries_train_half": beir_queries("scifact", args.eval, "train"),
            "scifact_queries_held_out_half": beir_queries("scifact", args.eval, "held_out"),
            "nfcorpus_queries_train_half": beir_queries("nfcorpus", args.eval, "train"),
            "nfcorpus_queries_held_out_half": beir_queries("nfcorpus", args.eval, "held_out"),
            "clinician_typed": clinician_typed(), "clinician_typed_held_out_half": clinician_typed("held_out"),
            "clinician_phi_statements_holdout": clinician_statements("holdout")}
    vectors = {} if args.words_only else sentence_vectors(
        [r["text"] for r in every] + [text for texts in sets.values() for text in texts])

    def screen(text: str) -> ScreenVerdict:
        return screen_text(text, vector=vectors.get(text), with_classifier=not args.without_classifier)

    misses = [r for r in rows if not screen(r["text"]).flagged]
    report["attacks"] = {"n": len(rows), "flagged": round(1 - len(misses) / len(rows), 4)}
    for category in sorted({r["category"] for r in rows}):
        of = [r for r in rows if r["category"] == category]
        missed = sum(r in misses for r in of)
        report[f"attacks_{category}"] = {"n": len(of), "flagged": round(1 - missed / len(of), 4)}
    n = max(len(self_harm), 1)
    verdicts = [screen(text) for text in self_harm]
    report["self_harm_requests"] = {"n": len(self_harm), "flagged": round(sum(v.flagged for v in verdicts) / n, 4),
                                    "as_self_harm": round(sum("self_harm" in v.categories for v in verdicts) / n, 4)}
    false_positives: list[str] = []
    for name, texts in sets.items():
        flagged = [t for t in texts if screen(t).flagged]
        false_positives += [] if name in ("clinical_questions_all", "scifact_queries", "nfcorpus_queries",
                                          "clinician_typed") else flagged
        report[f"false_positives_{name}"] = {"n": len(texts), "rate": round(len(flagged) / max(len(texts), 1), 4)}
    print(json.dumps(report, indent=1))
    for row in misses[: args.show]:
        print("MISS", row["category"], "|", row["text"][:160].replace("\n", " "))
    for text in false_positives[: args.show]:
        print("FP |", text[:160], "|", screen(text).reasons)
    return 0


if __name__ == "__main__":
    sys.exit(main())
