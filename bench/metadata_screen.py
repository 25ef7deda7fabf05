"""The PHI screen of document file names and metadata (ingest/screening.py, Screen Metadata); prints JSON.

    .venv/bin/python bench/metadata_screen.py [--titles ../shared/eval/scifact/corpus.jsonl] [--limit 500]
                                              [--positives 300] [--seed 7] [--names faker|mimesis]

- over_redaction: PHI-free documents whose stored metadata the screen would change. Each title of --titles
  (a BEIR corpus: published paper titles) is uploaded as `<title words joined by "-">.pdf` with that title, and
  also with the defaults derived from the file name alone.
- leak: synthetic PHI file names (Faker names, or mimesis names with --names mimesis; 8-digit MRNs, dates of
  birth in several formats, in file-name templates, some lowercase) whose patient values survive anywhere in the
  screened metadata or file name.
- latency: p50/p95 of one document's screen (all its values), and the first-detection cold cost separately.
The machine is shared: `load_average` says how busy it was.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from faker import Faker

from voiceassist import service
from voiceassist.composition.phi_detectors import build_detector
from voiceassist.ingest.screening import screen_metadata
from voiceassist.settings import Settings

TEMPLATES = (
    "{last}_{first}_MRN{mrn}_discharge.pdf",
    "{first} {last} DOB {dob}.pdf",
    "{last}, {first} - {mrn} - referral letter.docx",
    "{first}-{last}-{dob}-labs.pdf",
    "{first_l}_{last_l}_{mrn}.txt",
    "discharge summary {first} {last} {dob}.md",
    "MRN {mrn} {last} echo report.pdf",
)
DOB_FORMATS = ("%Y-%m-%d", "%d.%m.%Y", "%m-%d-%Y", "%d%b%Y")


def _titles(path: Path, limit: int) -> list[str]:
    titles = []
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            title = json.loads(line).get("title", "").strip()
            if 3 <= len(title) <= 200:
                titles.append(title)
            if len(titles) >= limit:
                break
    return titles


def _file_name(title: str) -> str:
    return "-".join(re.findall(r"[A-Za-z0-9]+", title))[:120] + ".pdf"


def _mimesis_names(seed: int) -> Callable[[], tuple[str, str]]:
    """(first, last) from mimesis, a different generator, in locales Faker's set below does not have."""
    from mimesis import Locale, Person

    people = [Person(locale, seed=seed) for locale in (Locale.EN, Locale.FR, Locale.IT, Locale.NL, Locale.PL,
                                                       Locale.PT_BR)]
    rng = random.Random(seed)

    def name() -> tuple[str, str]:
        person = rng.choice(people)
        return person.first_name(), person.last_name()

    return name


def _positives(count: int, seed: int, names: str = "faker") -> list[tuple[str, list[str]]]:
    fake = Faker(["en_US", "en_GB", "es_ES", "de_DE"])
    fake.seed_instance(seed)
    rng = random.Random(seed)
    next_name = _mimesis_names(seed) if names == "mimesis" else lambda: (fake.first_name(), fake.last_name())
    cases = []
    for _ in range(count):
        first, last = next_name()
        mrn = str(rng.randrange(10_000_000, 99_999_999))
        dob = fake.date_of_birth(minimum_age=1, maximum_age=89).strftime(rng.choice(DOB_FORMATS))
        name = rng.choice(TEMPLATES).format(first=first, last=last, mrn=mrn, dob=dob, first_l=first.lower(),
                                            last_l=last.lower())
        values = [v for v in (first, last, mrn, dob) if v in name or v.lower() in name]
        cases.append((name, values))
    return cases


def _screen(detector: Any, file_name: str, values: dict[str, Any]) -> tuple[Any, Any, float]:
    metadata = service.metadata_for(file_name, values)
    started = time.perf_counter()
    screened = screen_metadata(detector, metadata, file_name)
    return metadata, screened, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--titles", type=Path, default=Path("../shared/eval/scifact/corpus.jsonl"))
    parser.add_argument("--limit", type=int, default=500)
    parser.add_argument("--positives", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--names", choices=("faker", "mimesis"), default="faker",
                        help="the generator of the positives' patient names")
    args = parser.parse_args()

    detector = build_detector(Settings(), timeout_s=30.0)
    started = time.perf_counter()
    detector.detect("warm-up")
    cold_s = time.perf_counter() - started
    latencies: list[float] = []

    changed = {"with_title": 0, "name_only": 0}
    examples: list[str] = []
    titles = _titles(args.titles, args.limit)
    for title in titles:
        name = _file_name(title)
        for kind, values in (("with_title", {"title": title}), ("name_only", {})):
            metadata, screened, seconds = _screen(detector, name, values)
            latencies.append(seconds)
            if screened.metadata != metadata or screened.file_name != name:
                changed[kind] += 1
                if len(examples) < 5:
                    examples.append(f"{sorted(screened.entity_types)}")

    leaked = 0
    leaked_values: dict[str, int] = {}
    positives = _positives(args.positives, args.seed, args.names)
    for name, values in positives:
        _metadata, screened, seconds = _screen(detector, name, {})
        latencies.append(seconds)
        stored = (screened.metadata.model_dump_json() + screened.file_name).lower()
        survivors = [v for v in values if v.lower() in stored]
        if survivors:
            leaked += 1
            for value in survivors:
                kind = "mrn" if value.isdigit() else "dob" if any(c.isdigit() for c in value) else "name"
                leaked_values[kind] = leaked_values.get(kind, 0) + 1

    latencies.sort()
    print(json.dumps({
        "titles": len(titles),
        "over_redaction": {kind: round(count / max(len(titles), 1), 4) for kind, count in changed.items()},
        "over_redaction_entity_types": examples,
        "positives": len(positives),
        "names": args.names,
        "leak": round(leaked / max(len(positives), 1), 4),
        "leaked_values_by_kind": leaked_values,
        "latency_ms": {"p50": round(statistics.median(latencies) * 1000, 1),
                       "p95": round(latencies[int(0.95 * (len(latencies) - 1))] * 1000, 1)},
        "first_detection_s": round(cold_s, 2),
        "load_average": os.getloadavg()[0],
    }, indent=2))


if __name__ == "__main__":
    main()
