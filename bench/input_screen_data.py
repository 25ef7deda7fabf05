"""The input screen's data, read by the training and the measuring scripts: the attack set (train and held-out
splits fixed by bench/input_screen_set.py) and the clinical question sets of ../shared/eval (read by path,
never copied), split by a hash of their id: `train` half for fitting, `held_out` half for the false positives."""

from __future__ import annotations

import gzip
import hashlib
import json
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ATTACKS = Path(__file__).parent / "data" / "input_screen" / "attacks.jsonl.gz"
PYRIT = ATTACKS.with_name("pyrit.jsonl.gz")  # the second source (bench/input_screen_pyrit.py)
EXTRA = ATTACKS.with_name("extra.jsonl.gz")  # the third: spikee and AgentDojo (bench/input_screen_extra.py)
EVAL = Path(__file__).resolve().parents[1].parent / "shared" / "eval"
ANSWER_SETS = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "answers"
# The answer sets the shipped classifier was fitted on (their train half, as benign clinical text): named, so a set
# committed later (blind10, session 10) changes no refit's bytes until it is added here with a refit
FITTED_ANSWER_SETS = (
    "blind5", "blind5.report", "blind5.tune", "blind6", "blind6.report", "blind6.tune", "blind7", "blind7_spoken",
    "blind8", "blind8_spoken", "clinician2.heldout", "clinician2", "clinician2.tune", "concepts.heldout", "concepts",
    "concepts.tune", "dev", "holdout", "holdout2", "holdout3", "holdout4", "meaning.heldout", "meaning",
    "meaning.tune", "population.heldout", "population", "population.tune",
)
# Clinicians' requests for their own workspace tools (calendar, files, PubMed, calculators, search), the project's own
# (SOURCES.md); writer A is fitted on as benign, writer B is measured only (issue 27)
TOOL_REQUESTS = ATTACKS.with_name("benign_tool_requests.jsonl")


def attacks(split: str, path: Path = ATTACKS) -> list[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as rows:
        return [row for row in map(json.loads, rows) if row["split"] == split]


def half(key: str) -> str:
    return "held_out" if int(hashlib.sha256(key.encode()).hexdigest(), 16) % 2 else "train"


def clinical_questions(split: str | None, eval_dir: Path = EVAL) -> list[str]:
    """MedMCQA and MMLU medical questions (phi/clinical_questions_no_phi.jsonl), one half or all."""
    with (eval_dir / "phi" / "clinical_questions_no_phi.jsonl").open() as rows:
        return [row["text"] for row in map(json.loads, rows) if split is None or half(row["id"]) == split]


def beir_queries(name: str, eval_dir: Path = EVAL, split: str | None = None) -> list[str]:
    """A BEIR set's queries, all or one half by a hash of the query id (`train`: the development view used while
    choosing the screen's rules, never fitted on: SciFact and NFCorpus are under non-commercial licences)."""
    with (eval_dir / name / "queries.jsonl").open() as rows:
        return [row["text"] for row in map(json.loads, rows) if split is None or half(row["_id"]) == split]


def clinician_typed(split: str | None = None) -> list[str]:
    """Every distinct question of the answer sets in FITTED_ANSWER_SETS (tests/fixtures/answers): typed as
    clinicians type ("how to measure office BP properly", "Augmentin dose for pneumonia in someone with COPD"); all,
    or one half by a hash of the text (`train`: fitted on as benign rows since the fifth session; `held_out`:
    measured only)."""
    questions: dict[str, None] = {}
    for path in sorted(ANSWER_SETS / f"{name}.jsonl" for name in FITTED_ANSWER_SETS):
        with path.open(encoding="utf-8") as rows:
            questions.update((json.loads(row)["query"], None) for row in rows if row.strip())
    return [question for question in questions if split is None or half(question) == split]


def answer_questions(split: str | None = None) -> list[str]:
    """Every distinct question of every answer set (tests/fixtures/answers/*.jsonl, the spoken sets too: "how do I lie
    them down, flat with the legs up", "what sort of diet do we tell people with high blood pressure to follow") and
    of every blind writer's clinical questions for the screen (bench/data/input_screen/blind*_benign.jsonl, kind
    "clinical"): clinicians' typed and spoken register, the project's own text. All, or one half by a hash of the
    text (`train`: fitted on as benign rows by the meaning model since session 16; `held_out`: measured only)."""
    questions: dict[str, None] = {}
    for path in sorted(ANSWER_SETS.glob("*.jsonl")):
        with path.open(encoding="utf-8") as rows:
            questions.update((json.loads(row)["query"], None) for row in rows if row.strip())
    for path in sorted(ATTACKS.parent.glob("blind*_benign.jsonl")):
        with path.open(encoding="utf-8") as rows:
            questions.update((r["text"], None) for r in map(json.loads, rows) if r["kind"] == "clinical")
    return [question for question in questions if split is None or half(question) == split]


def hard_negatives(split: str | None = None) -> list[str]:
    """Every blind writer's hard negatives for the screen (bench/data/input_screen/blind*_benign.jsonl, kind
    "hard_negative": text about attacks, prompts, privacy and IT that attacks nothing), all or one half by a hash of
    the text (as answer_questions)."""
    texts: dict[str, None] = {}
    for path in sorted(ATTACKS.parent.glob("blind*_benign.jsonl")):
        with path.open(encoding="utf-8") as rows:
            texts.update((r["text"], None) for r in map(json.loads, rows) if r["kind"] == "hard_negative")
    return [text for text in texts if split is None or half(text) == split]


def tool_requests(writer: str) -> list[str]:
    """The legitimate workspace-tool requests of one writer of TOOL_REQUESTS: "A" (a UK registrar's terse style,
    fitted on as benign by both models and read for their thresholds) or "B" (a US hospitalist's, measured only)."""
    rows = [json.loads(line) for line in TOOL_REQUESTS.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [row["text"] for row in rows if row["writer"] == writer]


def fold_of(text: str, folds: int) -> int:
    """A text's cross-validation fold (bench/input_screen_cv.py, and the meaning model's out-of-fold thresholds)."""
    return int(hashlib.sha256(f"cv\n{text}".encode()).hexdigest(), 16) % folds


VECTOR_CACHE = Path.home() / ".cache" / "voiceassist" / "input_screen_vectors.npz"


def sentence_vectors(texts: Sequence[str]) -> dict[str, np.ndarray]:
    """The in-boundary embedder's sentence vectors (the default int8 model, as a deployment embeds) of `texts`,
    kept in VECTOR_CACHE by a SHA-256 of model id and text (about 6 ms of CPU a text, so a re-fit need not wait)."""
    from voiceassist.adapters.onnx.embedder import OnnxEmbedder

    embedder = OnnxEmbedder(threads=1)
    key = {text: hashlib.sha256(f"{embedder.model_id}\n{text}".encode()).hexdigest() for text in texts}
    cached: dict[str, np.ndarray] = {}
    if VECTOR_CACHE.exists():
        with np.load(VECTOR_CACHE) as data:
            cached = dict(zip(data["keys"].tolist(), data["vectors"], strict=True))
    missing = [text for text in dict.fromkeys(texts) if key[text] not in cached]
    if missing:
        cached.update(zip((key[text] for text in missing), embedder.embed(missing), strict=True))
        VECTOR_CACHE.parent.mkdir(parents=True, exist_ok=True)
        np.savez(VECTOR_CACHE, keys=np.array(list(cached)), vectors=np.array(list(cached.values())))
    return {text: cached[key[text]] for text in texts}


def clinician_statements(part: str) -> list[str]:
    """Clinician phrasing with patient details and requests ("pt 342029 on vanco, trough 22, hold next dose?",
    "<name> needs a repeat script for levothyroxine 100 mcg") and hard no-PHI questions: one part ("dev", fitted
    on by the meaning model; "holdout", measured only) of the project's generated PHI sets
    (voiceassist_local.evaluation.phi_sets, seed 18: Faker and mimesis values, MIT, in the project's templates)."""
    from voiceassist_local.evaluation.phi_sets import write_sets

    texts: list[str] = []
    with tempfile.TemporaryDirectory() as folder:
        for path in sorted(write_sets(Path(folder))):
            if not path.name.endswith(f".{part}.json") and not path.name.endswith(f".{part}.jsonl"):
                continue
            with path.open(encoding="utf-8") as rows:
                if path.suffix == ".json":
                    texts += [row["full_text"] for row in json.load(rows)]
                else:
                    texts += [json.loads(row)["text"] for row in rows if row.strip()]
    return texts
