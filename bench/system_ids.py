"""How often the input screen and the PHI detector flag a system id inside an ordinary sentence: a random uuid4
hex id (bare, and as `new_id` writes it, "act_<hex>"), an ISO timestamp (UTC, with and without microseconds, "Z"
or "+00:00") and a base64 token (urlsafe or standard base64 of 12-32 random bytes), read by the input screen
alone (patterns and the words-only model), by the input screen as a question is read (screen_all with the
in-boundary embedder: the meaning model and the attack classifier) and by the strict PHI detector. Nothing in
the product should refuse or reroute a sentence because of a system id: every count here should be 0, and a flag
is a test that fails by chance (CI's stop 47: an action id read as a DEA number, one uuid4 in about 70).

    nice -n 10 .venv/bin/python bench/system_ids.py [--n 500] [--seed 16]

Prints JSON: for each kind of id, how many of the n sentences each reader flagged, and up to three examples; and
the time of the process's first detection after the detector's load() (the 2 s time limit applies to it).
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from voiceassist.adapters.onnx.embedder import OnnxEmbedder
from voiceassist.adapters.presidio.detector import PresidioPhiDetector
from voiceassist.safety.input_screen import screen_all, screen_text
from voiceassist.settings import PhiMode

SENTENCES = (
    "Please look up the result for request {id} and tell me the usual amoxicillin dose.",
    "The upload {id} finished; what does the guideline say about sepsis fluids?",
    "Which antibiotic does the guideline attached to message {id} recommend for cellulitis?",
    "Session {id}: what is the first-line treatment for community-acquired pneumonia?",
)


def _uuid_hex(rng: random.Random) -> str:
    return uuid.UUID(int=rng.getrandbits(128), version=4).hex


def _prefixed(rng: random.Random) -> str:
    return f"{rng.choice(('act', 'doc', 'job', 'sess', 'msg'))}_{_uuid_hex(rng)}"


def _timestamp(rng: random.Random) -> str:
    moment = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(seconds=rng.randrange(366 * 86400),
                                                          microseconds=rng.randrange(1_000_000))
    return rng.choice((moment.isoformat(), moment.isoformat(timespec="seconds"),
                       moment.isoformat(timespec="seconds").replace("+00:00", "Z")))


def _base64(rng: random.Random) -> str:
    raw = rng.randbytes(rng.choice((12, 16, 24, 32)))
    return rng.choice((base64.urlsafe_b64encode(raw).decode().rstrip("="), base64.b64encode(raw).decode()))


KINDS: dict[str, Callable[[random.Random], str]] = {
    "uuid4 hex": _uuid_hex, "prefixed id": _prefixed, "iso timestamp": _timestamp, "base64 token": _base64}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--seed", type=int, default=16)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    strict = PresidioPhiDetector(mode=PhiMode.STRICT)
    strict.load()
    started = time.perf_counter()  # this process's first detection, after load() (FailClosedDetector times it)
    strict.detect("Is 40 mg of atorvastatin right for Mr Okonkwo, DOB 03/04/1957?")
    first_detection_s = round(time.perf_counter() - started, 3)
    embedder = OnnxEmbedder()
    report: dict[str, object] = {"n": args.n, "seed": args.seed, "load_average": round(os.getloadavg()[0], 1),
                                 "first detection after load (s)": first_detection_s}
    # each sentence with a word where the id goes: a flag here is the sentence's, not the id's
    controls = [sentence.format(id="twelve") for sentence in SENTENCES]
    report["controls flagged"] = [text for text in controls if screen_text(text).flagged
                                  or screen_all([text], embedder).flagged or strict.detect(text).contains_phi]
    for name, make in KINDS.items():
        flagged: dict[str, list[str]] = {"input screen": [], "input screen, meaning model": [], "phi strict": []}
        for index in range(args.n):
            text = SENTENCES[index % len(SENTENCES)].format(id=make(rng))
            verdict = screen_text(text)
            if verdict.flagged:
                flagged["input screen"].append(f"{text} -> {verdict.reasons}")
            verdict = screen_all([text], embedder)  # as a question is screened: with its sentence vector
            if verdict.flagged:
                flagged["input screen, meaning model"].append(f"{text} -> {verdict.reasons}")
            result = strict.detect(text)
            if result.contains_phi:
                flagged["phi strict"].append(
                    f"{text} -> {[(e.entity_type, text[e.start:e.end]) for e in result.entities]}")
        report[name] = {reader: {"flagged": len(texts), "examples": texts[:3]} for reader, texts in flagged.items()}
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
