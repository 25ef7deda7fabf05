"""The input screen on the blind-written sets (issue 27): attacks flagged and benign texts flagged, per kind.

    .venv/bin/python bench/input_screen_blind.py [--set blind5|6|7|8|10|11|12] [--words-only] [--without-classifier]
                                               [--show N] [--half tune|report]

bench/data/input_screen/blind5_attacks.jsonl (120: injection, jailbreak, extraction, harmful, tool_abuse,
obfuscated) and blind5_benign.jsonl (152: 82 clinical questions, 70 hard negatives that share words with attacks:
"ignore the first troponin", "pretend the patient is 70 kg") were written on 2026-11-29 by an engineer who read only
the four sample documents, never the code, the tests or the other sets; they were read once as a held-out set
(docs/benchmarks.md, "Input screen"), and are development data since. `--half` reads one half of each set,
fixed by a SHA-256 of the text: `tune` is the view the sixth session's signals were written against,
`report` the half it read once at the end.

blind6_attacks.jsonl (120, the same six categories, 20 each) and blind6_benign.jsonl (160: 85 clinical questions,
75 hard negatives) were written the same way by another engineer on the same day, at the start of the sixth
session, kept outside the repository while that session's screen work landed, and read once at its end (main at
5d0a518); development data since. Its halves (the seventh session's rule, fixed before any half was read) hash
"blind6\n" and the text: the screen's changes are written against `tune`; `report` is read once at the end.

blind7_attacks.jsonl (120, the same six categories) and blind7_benign.jsonl (160: 85 clinical, 75 hard negatives)
were written by a third engineer the same way at the start of the seventh session (who also wrote the answers
sets tests/fixtures/answers/blind7.jsonl and blind7_spoken.jsonl), kept outside the repository until that
session's work had landed, and read once at its end (main at 4d072c6); development data since.

blind8_attacks.jsonl and blind8_benign.jsonl (the same counts and categories) were written by a fourth engineer the
same way at the start of the eighth session (with tests/fixtures/answers/blind8.jsonl and blind8_spoken.jsonl),
kept outside the repository until that session's work had landed, and read once at its end (main at 432b3aa);
development data since.

blind10_attacks.jsonl and blind10_benign.jsonl (the same counts and categories) were written by a sixth engineer the
same way at the start of the tenth session (a mix of a UK GP registrar, a US hospitalist, a community pharmacist, a
paramedic and a nurse practitioner; with tests/fixtures/answers/blind10.jsonl and blind10_spoken.jsonl), kept
outside the repository until that session's work had landed, and read once at its end (main at c848cd7);
development data since. (The fifth writer's sets, blind9, were lost with the machine they were kept on before they
were committed: docs/benchmarks.md keeps their one reading.)

blind11_attacks.jsonl and blind11_benign.jsonl (the same counts and categories) were written by a seventh engineer the
same way at the start of the eleventh session (an Australian emergency registrar, an India-trained internal-medicine
resident writing second-language English, an Irish practice nurse, a US urgent-care physician assistant, a Canadian
rural family doctor, a hospital pharmacist, a medical student and a ward doctor dictating; with
tests/fixtures/answers/blind11.jsonl and blind11_spoken.jsonl), kept outside the repository while that session's
work landed, and read once (the screen at main 2ff870f, the answers at 0d6755e); development data since.

blind12_attacks.jsonl and blind12_benign.jsonl (the same counts and categories) were written by an eighth engineer the
same way at the start of the twelfth session (a UK GP partner, a Nigeria-trained doctor in a UK hospital, a US
hospitalist, a care-home nurse practitioner, a South African ICU registrar, a paramedic, a Philippines-trained nurse, a
New Zealand community pharmacist and a terse senior consultant; harmful requests in eight languages), kept outside the
repository while that session's work landed, and read once (the screen at main 89ee982; with
tests/fixtures/answers/blind12.jsonl and blind12_spoken.jsonl, read at main 35053c1); development data since.

blind13_attacks.jsonl and blind13_benign.jsonl (the same counts and categories) were written by a ninth engineer the
same way at the start of the thirteenth session (an Australian rural GP registrar on telehealth, a Pakistan-trained
foundation doctor in the UK, a Canadian triage nurse, a US family physician's smart-phrase shorthand, a Kenyan clinical
officer, a German-trained internist, a night registrar typing on a phone, a community midwife, a Singapore hospital
pharmacist and a final-year student; harmful requests in five languages), kept outside the repository while that
session's work landed, and read once (the screen at main 7641c8b; with tests/fixtures/answers/blind13.jsonl and
blind13_spoken.jsonl, read at main 61d1094); development data since.

blind14_attacks.jsonl and blind14_benign.jsonl (the same counts and categories) were written by a tenth engineer the
same way at the start of the fourteenth session (an Irish emergency SHO, a Brazilian-trained doctor in Portugal, a US
ICU nurse practitioner, a Scottish community pharmacist, an Indian outpatient doctor writing Hinglish, a Ghanaian
paediatric nurse, a Welsh locum GP, an occupational-health physician, a dental surgeon, a Malaysian medical officer, a
hospice nurse and a retired volunteer physician; other-language attacks in Portuguese, Hindi/Hinglish, Malay, Spanish,
French, German and Irish), kept outside the repository while that session's work landed, and read once (the screen at
main 5ffdb61; with tests/fixtures/answers/blind14.jsonl and blind14_spoken.jsonl, read at main cf08aef); development
data since.

blind15_attacks.jsonl and blind15_benign.jsonl (the same counts and categories) were written by an eleventh engineer
the same way at the start of the fifteenth session (a Sri Lankan intern, an Australian practice nurse, a US emergency
physician dictating, a Polish doctor in England, a school nurse, a Jamaican-trained GP in London, a cardiology
registrar, a remote-area nurse in northern Canada, a Filipino-American pharmacist, an Egyptian anaesthetist writing
Arabizi, an Irish nursing-home pharmacist and a first-year medical student; other-language attacks in Spanish, Arabic,
Tagalog, Polish and French), kept outside the repository while that session's work landed, and read once (the screen
at main 80cbebb; with tests/fixtures/answers/blind15.jsonl and blind15_spoken.jsonl, read at main 52116bd); development
data since.

blind16_attacks.jsonl and blind16_benign.jsonl (the same counts and categories) were written by a twelfth engineer the
same way at the start of the sixteenth session (a Kenyan clinical officer, a Welsh district nurse, a Texas physician
assistant, a Russian-speaking GP in Israel, a Hong Kong medical officer, an Indian ICU nurse in Dubai, a Scottish
geriatrician, a rural New Zealand GP, a South African emergency registrar, a German-trained doctor in Switzerland, a
retired locum and a pharmacology lecturer; other-language attacks in German, Russian, Chinese, Turkish, Italian and
Zulu), kept outside the repository while that session's work landed, and read once (the screen at main 8709f15);
development data since.

blind17_attacks.jsonl and blind17_benign.jsonl (the same counts and categories) were written by a thirteenth engineer
the same way at the start of the seventeenth session (a Nigerian house officer, an Irish practice nurse, a Florida
hospitalist dictating, a Polish GP in Norway, a Singaporean polyclinic doctor, a Filipino care-home nurse in London, a
Canadian community pharmacist, a Jamaican emergency physician, a Brazilian resident, a Welsh-speaking rural GP, a
night locum typing on a phone and a medical student writing viva questions; other-language attacks in Polish,
Portuguese, Japanese, Greek, Dutch and Swahili), kept outside the repository while that session's work landed, and read
once (the screen at main 5f2fa486); development data since.

blind18_attacks.jsonl and blind18_benign.jsonl (the same counts and categories) were written by a fourteenth engineer
the same way at the start of the eighteenth session (a Malaysian medical officer, a Ugandan intern, a Scottish
out-of-hours GP, a Spanish anaesthetist in England, an Egyptian-trained registrar in Saudi Arabia, a New York
urgent-care nurse practitioner, a Vietnamese-Australian pharmacist, a Bangladeshi-trained emergency doctor in London,
an Ontario long-term-care nurse, a nursing student revising for NCLEX, a retired locum GP and a telephone triage
nurse; other-language attacks in Vietnamese, Korean, Indonesian, Czech, Romanian and Hebrew), kept outside the
repository while that session's work landed, and read once (the screen at main cf8c2c19); development data since.
blind19_attacks.jsonl and blind19_benign.jsonl (the same counts and categories) were written by a fifteenth engineer
the same way at the start of the nineteenth session (a Trinidadian emergency doctor, a Cape Town community health
nurse, a Belfast GP, a Pakistan-trained GP registrar in Manchester, a rural Louisiana nurse practitioner, a Maltese
hospital pharmacist, a Fijian-Indian medical officer, a Hungarian anaesthetist in Ireland, a care-home healthcare
assistant in Yorkshire, an Alaska flight paramedic, a US sub-intern and an Aboriginal health worker in the Northern
Territory; other-language attacks in Thai, Persian, Ukrainian, Hungarian, Bengali and Swedish), kept outside the
repository while that session's work landed, and read once (the screen at main 35bf8bc1); development data since.
blind20_attacks.jsonl and blind20_benign.jsonl (the same counts and categories) were written by a sixteenth engineer
the same way at the start of the twentieth session (a Nigerian house officer in Lagos, a district nurse in the
Scottish Highlands, a Filipino nurse in Dubai, a rural family physician in Nunavut, a Maori GP in Rotorua, a
Brazilian-trained doctor in Lisbon, a Kenyan clinical officer, a Sri Lankan intern medical officer, a US hospital
pharmacy technician, a Dublin advanced paramedic, a Singapore polyclinic doctor and a Welsh community midwife;
other-language attacks in Urdu, Tamil, Finnish, Serbian, Danish and Yoruba), kept outside the repository while that
session's work landed, and read once (the screen at main 276203d5); development data since.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

DATA = Path(__file__).parent / "data" / "input_screen"


def half_of(text: str, name: str = "blind5") -> str:
    """The development half a blind row of set `name` belongs to (`tune` or `report`), by a SHA-256 of the set's
    name and the row's text (the rule fixed for each set before any of its results were read in halves)."""
    return "report" if int(hashlib.sha256(f"{name}\n{text}".encode()).hexdigest(), 16) % 2 else "tune"


def _rows(path: Path) -> list[dict[str, str]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--words-only", action="store_true")
    parser.add_argument("--without-classifier", action="store_true", help="the screen without its attack classifier")
    parser.add_argument("--show", type=int, default=0)
    parser.add_argument("--set", dest="name", default="blind5",
                        choices=["blind5", "blind6", "blind7", "blind8", "blind10", "blind11", "blind12",
                                 "blind13", "blind14", "blind15", "blind16",
                                 "blind17", "blind18", "blind19", "blind20"])
    parser.add_argument("--half", choices=["tune", "report"], help="one half of each set (default: both)")
    args = parser.parse_args()
    from voiceassist.adapters.onnx.embedder import OnnxEmbedder
    from voiceassist.safety.input_screen import screen_text

    attacks, benign = (_rows(DATA / f"{args.name}_{part}.jsonl") for part in ("attacks", "benign"))
    if args.half:
        attacks = [r for r in attacks if half_of(r["text"], args.name) == args.half]
        benign = [r for r in benign if half_of(r["text"], args.name) == args.half]
    texts = [r["text"] for r in attacks + benign]
    vectors: dict[str, np.ndarray] = {}
    if not args.words_only:
        vectors = dict(zip(texts, OnnxEmbedder(threads=1).embed(texts), strict=True))
    report: dict[str, object] = {"set": args.name, "model": "words only" if args.words_only else "meaning",
                                "half": args.half or "both"}
    shown: list[str] = []
    for label, rows, key, want in (("attacks", attacks, "category", True), ("benign", benign, "kind", False)):
        for group in sorted({r[key] for r in rows}) + [None]:
            of = [r for r in rows if group is None or r[key] == group]
            wrong = [r for r in of if screen_text(r["text"], vector=vectors.get(r["text"]),
                                              with_classifier=not args.without_classifier).flagged != want]
            name = f"{label}_{group or 'all'}"
            report[name] = {"n": len(of), "flagged": round((len(of) - len(wrong) if want else len(wrong)) / len(of), 4)}
            if group is None:
                shown += [f"{'MISS' if want else 'FP'} {r[key]} | {r['text'][:150]}" for r in wrong]
    print(json.dumps(report, indent=1))
    print("\n".join(shown[: args.show]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
