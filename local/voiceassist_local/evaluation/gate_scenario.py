"""What keeps its weight in the description of a case, leaving one writer out (decision 0024, session 11).

The evidence score weighs a topic named only where a question describes the case (query/wording.asked_clauses) at
described_case.SCENARIO_WEIGHT of its weight when a passage lacks it, except what is kept at full weight. This
re-scores the gate's first judgement of every recorded question (evaluation/gate_data.py records) under each variant
(what is kept: drugs and classes, MeSH diseases, the word before a disease, every abbreviation; whether a clause
naming the asked value asks; the weight) and prints, per group of writers, the questions gained and lost against the
gate with no case reading: a variant is chosen on one group and checked on the other.

    .venv/bin/python -m voiceassist_local.evaluation.gate_data --data-dir D --output D.pkl
    .venv/bin/python -m voiceassist_local.evaluation.gate_scenario D.pkl

`--context` (sessions 14 and 15, decision 0024) measures readings in which words of the description weigh nothing
when a passage lacks them (described_reading): the ordinary words there, and/or words every WordNet 3.0 sense of
which lies in one of a set of lexicographer files (plain_word_data.CONTEXT_VARIANTS; `apt-get install
wordnet-base`), words no English list knows, and (adopted in session 15: described_case._story) the ordinary
words no WordNet sense of which may be a clinical point; how far each reaches (an ask naming a thing, any ask, an
ask with no topic of its own); leaving one writer out over blind5-14: for each writer, the variant that gains most
on the other writers with no uncovered or population question lost there is applied to the writer held out.

    .venv/bin/python -m voiceassist_local.evaluation.gate_scenario --context D.pkl

`--story` (session 18, decision 0024) measures the story apart from the ask: the asking clause's marks weighed
(wording.MARKS_WEIGHED) and the words only the description names weighing nothing missing where the ask names a thing
of its own (described_case.STORY_APART), leaving one writer out over blind5-17.

    .venv/bin/python -m voiceassist_local.evaluation.gate_scenario --story D.pkl
"""

from __future__ import annotations

import itertools
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import numpy as np

from voiceassist.common_words import common_words
from voiceassist.query import attribute_owner, evidence, plain_words, setting, wording
from voiceassist.query import described_case as dc
from voiceassist.query import question_concepts as qc
from voiceassist.query.expansion import abbreviation_meanings
from voiceassist.query.typed_quantities import _NUMERALS, _said_number
from voiceassist_local.evaluation.gate_data import GateRecord, load
from voiceassist_local.evaluation.gate_training import Example, kind, outcome

GROUPS = {"blind5-8": ("blind5", "blind6", "blind7", "blind7_spoken", "blind8", "blind8_spoken"),
          "blind10": ("blind10", "blind10_spoken")}
WEIGHTS = (0.0, 0.25, 0.5)
KEPT = ("drugs", "drugs+diseases", "+abbreviations")
_NEVER = re.compile(r"(?!x)x")


@contextmanager
def variant(*, reading: bool, kept: str = "drugs+diseases", modifier: bool = True, value_clause: bool = True,
            weight: float = qc.GENERIC_WEIGHT) -> Iterator[None]:
    """The evidence score with the case read as named (reading=False: no case reading at all)."""
    saved = (wording.asked_clauses, wording.ATTRIBUTE, dc._KEPT_IN_SCENARIO, dc._kept_in_scenario,
             dc._disease_modifiers, dc.SCENARIO_WEIGHT)
    kept_by_mark = dc._kept_in_scenario
    try:
        if not reading:
            wording.asked_clauses = lambda text: None  # type: ignore[assignment]
        if not value_clause:
            wording.ATTRIBUTE = _NEVER
        if kept == "drugs":
            dc._KEPT_IN_SCENARIO = tuple(m for m in saved[2] if not m.endswith("disease:"))
        if kept == "+abbreviations":
            dc._kept_in_scenario = lambda c: kept_by_mark(c) or bool(abbreviation_meanings(c.label))  # type: ignore[assignment]
        if not modifier:
            dc._disease_modifiers = lambda question: set()  # type: ignore[assignment]
        dc.SCENARIO_WEIGHT = weight
        yield
    finally:
        (wording.asked_clauses, wording.ATTRIBUTE, dc._KEPT_IN_SCENARIO, dc._kept_in_scenario,  # type: ignore[misc]
         dc._disease_modifiers, dc.SCENARIO_WEIGHT) = saved


def right(records: Sequence[GateRecord], threshold: float = 0.55) -> list[bool]:
    """Whether the gate's first judgement, re-scored now, gets each question right (gate_training.outcome)."""
    out = []
    for record in records:
        if not record.judged:
            out.append(record.correct)
            continue
        scores = np.array([p.score for p in evidence.assess(record.judged_text, record.hits).passages])
        out.append(outcome(Example(record, "", "full", np.zeros((0, 0)), np.zeros(0)), scores, threshold))
    return out


def changes(records: Sequence[GateRecord], before: Sequence[bool], after: Sequence[bool], sets: Sequence[str]) -> str:
    """gained / answerable lost / uncovered lost / population lost, over the records of `sets`."""
    counted: Counter[str] = Counter()
    for record, was, now in zip(records, before, after, strict=True):
        if record.set in sets and was != now:
            counted[kind(record) + ("+" if now else "-")] += 1
    gained = sum(v for k, v in counted.items() if k.endswith("+"))
    return f"{gained} / {counted['answerable-']} / {counted['uncovered-']} / {counted['population-']}"


# the writers of the blind sets, each with its spoken set (blind9 wrote no answers file)
WRITERS = {f"blind{n}": (f"blind{n}", f"blind{n}_spoken") for n in (5, 6, 7, 8, 10, 11, 12, 13, 14, 15)}
# (session 18) every blind writer with an answers file, for --story
STORY_WRITERS = {f"blind{n}": (f"blind{n}", f"blind{n}_spoken") for n in (5, 6, 7, 8, *range(10, 18))}


def described_reading(context: Callable[[qc.Concept], bool], *, any_ask: bool = False, bare_ask: bool = False
                      ) -> Callable[[list[qc.Concept], str], list[qc.Concept]]:
    """question_concepts._described with a reading of the story (session 14; the variant adopted in session 15 is
    described_case._story, test_context_words checks they agree): a concept only the
    description names that `context` takes for the story weighs nothing when a passage lacks it, its own weight when
    a passage holds it, and is no topic (never named as missing); only when what is asked names a drug, class,
    disease or abbreviation of its own (or always: `any_ask`)."""
    def described(concepts: list[qc.Concept], question: str) -> list[qc.Concept]:
        asked = wording.asked_clauses(question)
        if asked is None:
            return concepts
        asked_concepts = qc._concepts(". ".join(asked))
        asked_labels = {c.label.lower() for c in asked_concepts}
        focus = [c for c in asked_concepts if c.topic]
        if not focus:
            if not bare_ask:
                return concepts
            # an ask with no topic of its own ("where exactly does it go in?"): the case is its topic, less its story
            return [replace(c, weight=0.0, covered_weight=c.held_weight, scenario=False)
                    if not dc._kept_in_scenario(c) and c.label.lower() not in asked_labels and context(c) else c
                    for c in concepts]
        labels = {c.label.lower() for c in focus} | dc._disease_modifiers(question)
        alternatives = {a for c in focus for a in c.alternatives}
        asked_labels |= labels
        story = any_ask or any(attribute_owner._named(c) for c in focus)
        background = dc._background_reach(focus)
        out = []
        for c in concepts:
            other = not alternatives.intersection(c.alternatives)
            told = other and not dc._kept_in_scenario(c)
            if story and told and c.label.lower() not in asked_labels and context(c):
                out.append(replace(c, weight=0.0, covered_weight=c.held_weight, scenario=False))
            elif told and c.topic and c.label.lower() not in labels:
                out.append(replace(c, weight=dc.SCENARIO_WEIGHT * c.weight, covered_weight=c.weight, scenario=True))
            elif (other and c.topic and c.label.lower() not in labels  # (session 16) the patient's background drug
                  and ((background and dc._drug_or_class(c) and not dc._disease(c))
                       or (dc.SYMPTOMS_TOLD and dc._symptom(c)))):
                out.append(replace(c, weight=dc.BACKGROUND_DRUG_WEIGHT * c.weight, covered_weight=c.weight,
                                   scenario=True))
            else:
                out.append(c)
        return out
    return described


def _word_like(label: str) -> bool:
    return label.replace("-", "").isalpha() and not label.startswith("-")


def context_variants() -> dict[str, Callable[[qc.Concept], bool]]:
    """What each variant takes for the story ("none": nothing, the gate as shipped)."""
    from voiceassist_local.evaluation import plain_word_data as wn

    english = common_words()

    def by_files(files: frozenset[str]) -> Callable[[str], bool]:
        # words of the shipped English list only, as a shipped list would hold them
        return lambda word: word.lower() in english and len(word) > 2 and wn.is_context(word.lower(), files)

    def reading(words: Callable[[str], bool] | None, *, plain: bool, numbers: bool = False, wordnet_plain: bool = False,
                no_clinical_sense: bool = False) -> Callable[[qc.Concept], bool]:
        def test(concept: qc.Concept) -> bool:
            if not numbers and (concept.label.lower() in _NUMERALS or _said_number(concept.label)):
                return False  # a number said in words is the case's data ("eighty five and frail": an age)
            if concept.covered_weight is not None and not concept.topic:
                # an ordinary, plain, framing or negated word; (session 15) or only one WordNet files as plain or
                # a framing word: not wordfreq's ordinary words alone ("drinks": a verb of consumption)
                if wordnet_plain:
                    return plain_words.is_plain(concept.label) or bool(setting.context_words(concept.label))
                if no_clinical_sense:  # (session 15) none of its senses is filed where a clinical thing may be
                    return plain and plain_words.is_story(concept.label)  # the shipped list, as written
                return plain
            if not concept.topic or attribute_owner._named(concept):
                return False
            if words is unknown and len(concept.alternatives) > 1:
                return False  # the concept layer knows another form of it
            return bool(words) and _word_like(concept.label) and words(concept.label)  # type: ignore[misc]
        return test

    def unknown(word: str) -> bool:
        """(session 15) A word neither the shipped English list (SCOWL 50) nor the concept layer knows ("yaar",
        "lassie"): `reading` has already ruled out a drug, class, disease or abbreviation, and one with another
        form (an ion, a completion, a spelling)."""
        return word.lower() not in english and len(word) > 2

    def either(*tests: Callable[[str], bool]) -> Callable[[str], bool]:
        return lambda word: any(test(word) for test in tests)

    variants: dict[str, Callable[[qc.Concept], bool]] = {"none": lambda concept: False}
    for name, files in wn.CONTEXT_VARIANTS.items():
        variants[name] = reading(by_files(files), plain=False)
    variants["ordinary words"] = reading(None, plain=True)
    variants["ordinary words +numbers"] = reading(None, plain=True, numbers=True)
    for name, files in wn.CONTEXT_VARIANTS.items():
        variants[f"ordinary words + {name}"] = reading(by_files(files), plain=True)
    variants["plain words"] = reading(None, plain=True, wordnet_plain=True)
    variants["plain words + files W+A (and artefacts, acts, events, objects)"] = reading(
        by_files(wn.CONTEXT_VARIANTS["files W+A (and artefacts, acts, events, objects)"]), plain=True,
        wordnet_plain=True)
    variants["ordinary words with no clinical sense"] = reading(None, plain=True, no_clinical_sense=True)
    variants["ordinary words with no clinical sense +numbers"] = reading(None, plain=True, numbers=True,
                                                                         no_clinical_sense=True)
    variants["unknown words"] = reading(unknown, plain=False)
    variants["unknown words + files W+A (and artefacts, acts, events, objects)"] = reading(either(
        unknown, by_files(wn.CONTEXT_VARIANTS["files W+A (and artefacts, acts, events, objects)"])), plain=False)
    variants["ordinary words + unknown words"] = reading(unknown, plain=True)
    for name, files in list(wn.CONTEXT_VARIANTS.items())[:2]:
        variants[f"ordinary words + unknown words + {name}"] = reading(either(unknown, by_files(files)), plain=True)
    return variants


def rates(records: Sequence[GateRecord], right_now: Sequence[bool], sets: Sequence[str]) -> str:
    """answered / uncovered abstained / population handled, per cent, over the records of `sets`."""
    cells = []
    for name in ("answerable", "uncovered", "population"):
        picked = [ok for r, ok in zip(records, right_now, strict=True) if r.set in sets and kind(r) == name]
        cells.append(f"{100.0 * sum(picked) / len(picked):.1f}" if picked else "-")
    return " / ".join(cells)


def _losses(records: Sequence[GateRecord], before: Sequence[bool], after: Sequence[bool],
            sets: Sequence[str]) -> tuple[int, int]:
    """(questions lost that abstained or handled a population, answerable gained minus answerable lost)."""
    lost = net = 0
    for record, was, now in zip(records, before, after, strict=True):
        if record.set in sets and was != now:
            if kind(record) == "answerable":
                net += 1 if now else -1
            elif was:
                lost += 1
    return lost, net


def context_main(records: Sequence[GateRecord]) -> int:
    outcomes: dict[str, list[bool]] = {}
    saved = qc._described
    # how far the reading reaches: an ask naming a thing of its own; any ask with a topic; (session 15) an ask with
    # no topic of its own too ("where exactly does it go in?")
    reaches = {"": {}, " +any ask": {"any_ask": True}, " +any ask +bare ask": {"any_ask": True, "bare_ask": True}}
    for (name, test), (reach, flags) in itertools.product(context_variants().items(), reaches.items()):
        if name == "none" and reach:
            continue
        qc._described = described_reading(test, **flags)  # type: ignore[assignment]
        try:
            outcomes[name + reach] = right(records)
        finally:
            qc._described = saved  # type: ignore[assignment]
        print(f"measured {name + reach}", file=sys.stderr, flush=True)
    return _report(records, outcomes, width=60, every_variant=False)


# (session 16) how far a drug or class only the description names is the patient's background
# (described_case.BACKGROUND_REACH) and what it weighs missing (BACKGROUND_DRUG_WEIGHT)
DRUG_VARIANTS = {f"{reach}{' +symptoms' if symptoms else ''}, w {weight}": (reach, weight, symptoms)
                 for reach in ("none", "drug ask", "any ask") for weight in (0.25, 0.0) for symptoms in (False, True)
                 if reach != "none" or symptoms}


def drugs_main(records: Sequence[GateRecord]) -> int:
    """Each background-drug variant against the shipped gate, per writer, and leaving one writer out."""
    saved = (dc.BACKGROUND_REACH, dc.BACKGROUND_DRUG_WEIGHT, dc.SYMPTOMS_TOLD)
    outcomes: dict[str, list[bool]] = {}
    for name, (reach, weight, symptoms) in {"none": ("none", dc.SCENARIO_WEIGHT, False), **DRUG_VARIANTS}.items():
        dc.BACKGROUND_REACH, dc.BACKGROUND_DRUG_WEIGHT, dc.SYMPTOMS_TOLD = reach, weight, symptoms
        try:
            outcomes[name] = right(records)
        finally:
            dc.BACKGROUND_REACH, dc.BACKGROUND_DRUG_WEIGHT, dc.SYMPTOMS_TOLD = saved
        print(f"measured {name}", file=sys.stderr, flush=True)
    return _report(records, outcomes)


def _report(records: Sequence[GateRecord], outcomes: dict[str, list[bool]], *, width: int = 30,
            every_variant: bool = True) -> int:
    """Each variant's changes per writer, the variant chosen leaving each writer out, and the questions changed by
    every variant (or by the chosen ones only)."""
    before = outcomes["none"]
    print("variant | " + " | ".join(f"{w} gained / ans lost / unc lost / pop lost" for w in WRITERS))
    for name, after in outcomes.items():
        print(f"{name:{width}} | " + " | ".join(changes(records, before, after, sets) for sets in WRITERS.values()))
    print("\nleaving one writer out: writer | variant chosen on the others | answered / uncovered / population "
          "before -> after")
    shown: dict[str, None] = {}  # the variants chosen, in order
    for writer, sets in WRITERS.items():
        others = tuple(s for w, ss in WRITERS.items() if w != writer for s in ss)
        allowed = [(net, name) for name, after in outcomes.items()
                   for lost, net in [_losses(records, before, after, others)] if lost == 0]
        chosen = max(allowed, key=lambda pair: (pair[0], pair[1] == "none"))[1]
        print(f"{writer} | {chosen} | {rates(records, before, sets)} -> {rates(records, outcomes[chosen], sets)}")
        shown.setdefault(chosen)
    for name in outcomes if every_variant else shown:
        print(f"\nchanged by {name}:")
        for record, was, now in zip(records, before, outcomes[name], strict=True):
            if was != now:
                print(f"  {record.set} {kind(record)} {'gained' if now else 'lost'}: {record.query}")
    return 0


# (session 18) the story apart from the ask: whether the marks of an asking clause weigh differently
# (wording.MARKS_WEIGHED) and whether the words only the description names weigh nothing when the ask names a thing
# of its own and neither refers back nor acts on the case's course (described_case.STORY_APART)
STORY_VARIANTS = {"none": (False, False), "marks weighed": (True, False), "story apart": (False, True),
                  "marks weighed + story apart": (True, True)}


def story_main(records: Sequence[GateRecord]) -> int:
    """Each story reading against the gate without either, per writer, and leaving one writer out."""
    saved = (wording.MARKS_WEIGHED, dc.STORY_APART)
    outcomes: dict[str, list[bool]] = {}
    for name, (marks, apart) in STORY_VARIANTS.items():
        wording.MARKS_WEIGHED, dc.STORY_APART = marks, apart
        try:
            outcomes[name] = right(records)
        finally:
            wording.MARKS_WEIGHED, dc.STORY_APART = saved
        print(f"measured {name}", file=sys.stderr, flush=True)
    global WRITERS
    kept, WRITERS = WRITERS, STORY_WRITERS
    try:
        return _report(records, outcomes)
    finally:
        WRITERS = kept


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] == "--story":
        return story_main(load(Path(args[1])))
    if args and args[0] == "--context":
        return context_main(load(Path(args[1])))
    if args and args[0] == "--drugs":
        return drugs_main(load(Path(args[1])))
    records = load(Path(args[0]))
    with variant(reading=False):
        before = right(records)
    others = tuple(sorted({r.set for r in records} - {s for sets in GROUPS.values() for s in sets}))
    print("variant | " + " | ".join(f"{g} gained / ans lost / unc lost / pop lost" for g in (*GROUPS, "other files")))
    for kept, modifier, value_clause, weight in itertools.product(KEPT, (False, True), (False, True), WEIGHTS):
        if kept == "drugs" and modifier:
            continue  # the word before a disease is kept only with the disease
        with variant(reading=True, kept=kept, modifier=modifier, value_clause=value_clause, weight=weight):
            after = right(records)
        name = f"{kept}{' +word before' if modifier else ''}{' +value clause' if value_clause else ''} w={weight}"
        cells = [changes(records, before, after, sets) for sets in (*GROUPS.values(), others)]
        print(f"{name:48} | " + " | ".join(cells), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
