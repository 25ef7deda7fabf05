"""Titled names from another generator and other locales (issue 27, point 5): recall and false positives of the
PHI detector on "Title Surname" written the way clinicians write it, measured on data its rule was not tuned on.

The rule (phi/name_titles.py) was written against 12 probes by its author. This set is generated instead:
Faker (MIT) surnames and given names from nine locales, each with the titles used there (Mr/Mrs/Ms/Dr/Prof,
Herr/Frau, M./Mme, Sr/Sra), written as generated, in lower case, double-barrelled with a hyphen, and with the
locale's apostrophes and particles ("O'Rafferty", "van Vliet", "de la Cruz"), inside clinical sentences.
Hard negatives are clinical sentences where a title-shaped token is not a title: organism names (M. pneumoniae),
abbreviations (MS, MR, SR, Dr for "doctor" with no name), and eponyms.

A positive is detected when the detector reports PHI and no word of the name (particles aside) survives in the
redacted text. Run (seeded, prints JSON):

    .venv/bin/python bench/phi_titled_names.py [--per-locale 40] [--seed 27] [--failures]
"""

from __future__ import annotations

import argparse
import json
import random
import re
from dataclasses import dataclass

from faker import Faker

from voiceassist.adapters.presidio.detector import PresidioPhiDetector
from voiceassist.settings import PhiMode

LOCALE_TITLES: dict[str, tuple[str, ...]] = {
    "en_GB": ("Mr", "Mrs", "Ms", "Dr", "Prof", "Miss"),
    "en_AU": ("Mr", "Mrs", "Ms", "Dr"),
    "en_IE": ("Mr", "Mrs", "Ms", "Dr"),
    "en_IN": ("Mr", "Mrs", "Ms", "Dr", "Prof"),
    "de_DE": ("Herr", "Frau", "Dr.", "Prof.", "Mr", "Mrs"),
    "fr_FR": ("M.", "Mme", "Dr", "Mr", "Mrs"),
    "es_ES": ("Sr", "Sra", "Sr.", "Sra.", "Dr", "Mr", "Mrs"),
    "it_IT": ("Mr", "Mrs", "Ms", "Dr"),
    "nl_NL": ("Mr", "Mrs", "Ms", "Dr"),
}
PARTICLES = frozenset({"van", "von", "de", "der", "den", "del", "della", "di", "da", "dos", "das", "du", "la", "le",
                       "ten", "ter"})

# Sentences a clinician might type to a decision-support tool; {n} is the titled name.
TEMPLATES = (
    "{n}, 68, on apixaban, due for hip replacement next week: when do we stop it?",
    "seen {n} in clinic today, BP 162/94 on amlodipine 10, what next?",
    "re {n} - eGFR 28 this morning, can metformin continue?",
    "{n} spiking temps on day 3 of tazocin, blood cultures negative",
    "could you check the warfarin dose for {n}? INR 3.9 today",
    "pharmacy query about {n}: co-amoxiclav ok with a penicillin rash history?",
    "{n} asking whether ibuprofen is safe with lisinopril",
    "handover: {n} 82F, delirious overnight, haloperidol 0.5 mg given",
    "spoke to {n}'s daughter, DNACPR discussed and agreed",
    "{n} 45M with CAP, CURB-65 of 2, oral or IV?",
    "new AF in {n}, CHA2DS2-VASc 4, start a DOAC?",
    "GP letter for {n} says HbA1c 71, add gliclazide?",
)

# Title-shaped tokens that are not titles, in realistic clinical questions.
NEGATIVES = (
    "CAP with M. pneumoniae suspected: add azithromycin?",
    "M. tuberculosis on sputum culture, start RIPE therapy?",
    "M. catarrhalis in sputum, is amoxicillin enough?",
    "M. genitalium positive, which antibiotic first line?",
    "severe MR on echo, on furosemide 40 mg: add spironolactone?",
    "mr grade 3 on the echo, refer to cardiology?",
    "pt back in SR after cardioversion, continue apixaban?",
    "in sr now, rate 72, stop the amiodarone?",
    "relapsing MS on natalizumab, JC virus positive: switch?",
    "ms flare, IV methylprednisolone dose?",
    "Dr said to stop metformin before contrast, is that right?",
    "the dr wants a second opinion on the DOAC dose in CKD",
    "ask Dr about the heparin infusion rate please",
    "Dr on call suggests co-amoxiclav, ok with penicillin allergy?",
    "Prof recommends checking B12 yearly on metformin, any evidence?",
    "Parkinson's patient NBM, how to give levodopa?",
    "Crohn's flare on azathioprine, check TPMT?",
    "Graves disease in pregnancy, PTU or carbimazole?",
    "Cushing's suspected, overnight dexamethasone test dose?",
    "Addison's crisis hydrocortisone dose",
    "Hodgkin lymphoma survivor, statin for primary prevention?",
    "Barrett's oesophagus surveillance interval",
    "Wernicke's encephalopathy thiamine dose IV",
    "Sr. nurse asks about the insulin sliding scale",
    "Raynaud's on amlodipine, increase the dose?",
    "Kawasaki disease aspirin dose",
    "MS contin 30 mg twice daily, convert to oxycodone?",
)


@dataclass(frozen=True)
class Probe:
    locale: str
    style: str
    text: str
    name_words: tuple[str, ...]


def _surname(fake: Faker, rng: random.Random, style: str) -> str:
    last = str(fake.last_name())
    if style == "hyphenated":
        second = str(fake.last_name())
        last = f"{last.split()[-1]}-{second.split()[-1]}"
    return last


def probes(per_locale: int, seed: int) -> list[Probe]:
    rng = random.Random(seed)
    out: list[Probe] = []
    styles = ("as generated", "lower case", "hyphenated", "with given name", "lower case hyphenated")
    for locale, titles in LOCALE_TITLES.items():
        fake = Faker(locale)
        fake.seed_instance(seed)
        for i in range(per_locale):
            style = styles[i % len(styles)]
            name = _surname(fake, rng, "hyphenated" if "hyphenated" in style else style)
            if style == "with given name":
                name = f"{fake.first_name()} {name}"
            if "lower" in style:
                name = name.lower()
            title = rng.choice(titles)
            if rng.random() < 0.3:
                title = title.lower()
            text = rng.choice(TEMPLATES).format(n=f"{title} {name}")
            words = tuple(w for w in name.replace("-", " ").split() if w.lower() not in PARTICLES and len(w) > 1)
            out.append(Probe(locale, style, text, words))
    return out


def name_parts(probe: Probe) -> list[str]:
    """The name's words as whole words ("reed" must not match "agreed")."""
    return [w for word in probe.name_words for w in re.findall(r"\w+", word) if len(w) > 1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--per-locale", type=int, default=40)
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--failures", action="store_true")
    args = parser.parse_args()
    detector = PresidioPhiDetector(mode=PhiMode.STRICT)
    detector.load()
    missed: list[dict[str, str]] = []
    by_locale: dict[str, list[int]] = {}
    by_style: dict[str, list[int]] = {}
    items = probes(args.per_locale, args.seed)
    for probe in items:
        result = detector.detect(probe.text)
        left = set(re.findall(r"\w+", result.redacted_text.casefold()))
        ok = result.contains_phi and not any(w.casefold() in left for w in name_parts(probe))
        for table, key in ((by_locale, probe.locale), (by_style, probe.style)):
            table.setdefault(key, [0, 0])
            table[key][0] += ok
            table[key][1] += 1
        if not ok:
            missed.append({"text": probe.text, "redacted": result.redacted_text})
    flagged = [text for text in NEGATIVES if detector.detect(text).contains_phi]
    report: dict[str, object] = {
        "positives": len(items),
        "recall_pct": round(100 * (len(items) - len(missed)) / len(items), 1),
        "by_locale_pct": {k: round(100 * a / n, 1) for k, (a, n) in by_locale.items()},
        "by_style_pct": {k: round(100 * a / n, 1) for k, (a, n) in by_style.items()},
        "negatives": len(NEGATIVES),
        "false_positive_pct": round(100 * len(flagged) / len(NEGATIVES), 1),
    }
    if args.failures:
        report["missed"] = missed
        report["false_positives"] = flagged
    print(json.dumps(report, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
