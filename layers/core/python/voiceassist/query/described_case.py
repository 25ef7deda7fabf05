"""The case as told apart from the ask: how a concept only the description of the case names is weighed (context,
the story, the patient's background drugs and presentation), read from a question's clauses that ask
(wording.asked_clauses). The concepts are read by query/question_concepts.py, which passes its reader in."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import lru_cache

from voiceassist.query import (
    care_setting,
    case_words,
    diseases,
    particles,
    plain_words,
    population,
    setting,
    story_exposures,
    story_places,
    terminology,
    wording,
)
from voiceassist.query.concept_weights import GENERIC_WEIGHT, Concept
from voiceassist.query.concepts import MARK as CONCEPT_MARK
from voiceassist.query.expansion import abbreviation_meanings
from voiceassist.query.terms import stem
from voiceassist.query.typed_words import _SURFACE_WORD

# A concept only the description of the case names ("wasp", "lips" of "kid stung by wasp, lips swelling. epinephrine
# IM dose per kg pls": wording.asked_clauses) is context, weighed as an ordinary word (GENERIC_WEIGHT of its weight
# when a passage lacks it, fully when it holds it; still a topic, named when missing), unless it can change the
# answer: a drug or a class of drugs the patient is on, or a disease (the patient's condition, which the document
# may not be about). When what is asked names no topic of its own ("thoughts?", "is that OK?") it asks about
# the case, and the whole question is its topic.
# GENERIC_WEIGHT, as for negated and framing words, not fitted; what keeps full weight was chosen leaving one writer
# out (`python -m voiceassist_local.evaluation.gate_scenario D.pkl`, decision 0024, session 11): a weight of 0 chosen
# on blind5-8 lost an uncovered and a population question on blind10.
SCENARIO_WEIGHT = GENERIC_WEIGHT
_KEPT_IN_SCENARIO: tuple[str, ...] = (CONCEPT_MARK + "drug:", CONCEPT_MARK + "class:",
                                      CONCEPT_MARK + "named-class:", CONCEPT_MARK + "disease:")


def described(concepts: list[Concept], question: str, read: Callable[[str], list[Concept]]) -> list[Concept]:
    """`concepts` of `question` weighed as the case tells them apart from the ask; `read` reads the concepts of the
    clauses that ask (question_concepts._concepts)."""
    asked = wording.asked_clauses(question)
    if asked is None:
        return concepts
    asked_concepts = read(". ".join(asked))
    focus = [c for c in asked_concepts if c.topic]
    if not focus:  # the whole question is the topic, but for where it happens and how the patient travels
        asked_words = {c.label.lower() for c in asked_concepts}
        return [replace(c, weight=0.0, covered_weight=c.held_weight, scenario=False)
                if c.label.lower() not in asked_words and (_circumstance(c, food=False) or _place(c, question))
                else c for c in concepts]
    labels = {c.label.lower() for c in focus} | _disease_modifiers(question)
    alternatives = {a for c in focus for a in c.alternatives}
    asked_labels = labels | {c.label.lower() for c in asked_concepts}
    background = _background_reach(focus)
    apart = _ask_apart(focus, asked)
    acting = setting.actors(question)  # a carer who acts in the case ("by the NP"): the story's, where told
    described = []
    for c in concepts:
        other = not alternatives.intersection(c.alternatives)
        told = other and not _kept_in_scenario(c)
        c = _with_derived(c) if told and DERIVED_TOLD else c
        story = told and c.label.lower() not in asked_labels and (_story(c) or _carer_or_place(c, question)
                                                                  or _circumstance(c) or _place(c, question))
        # (session 18) a topic of the story, where the ask stands apart from it (_ask_apart)
        story = story or (told and apart and (c.topic or c.label.lower() in acting) and c.label.lower() not in labels
                          and not _qualifier(c))
        # (session 20, ans20a) a food the drug dictionary lists, told where the ask stands apart: what was eaten
        story = story or (other and apart and FOODS_TOLD and c.label.lower() not in asked_labels
                          and story_exposures.is_food(c.label))
        if story:
            described.append(replace(c, weight=0.0, covered_weight=c.held_weight, scenario=False))
        elif told and c.topic and c.label.lower() not in labels:
            described.append(replace(c, weight=SCENARIO_WEIGHT * c.weight, covered_weight=c.weight, scenario=True))
        elif (other and c.topic and c.label.lower() not in labels
              and ((background and _drug_or_class(c) and not _disease(c))
                   or ((SYMPTOMS_TOLD or (SYMPTOMS_APART and apart)) and _symptom(c)))):
            described.append(replace(c, weight=BACKGROUND_DRUG_WEIGHT * c.weight, covered_weight=c.weight,
                                     scenario=True))
        else:
            described.append(c)
    return described


# (session 18) The story apart from the ask. Where the clauses that ask name a thing of their own (a drug, class,
# disease or abbreviation: _names_a_thing) and neither refer back to the case (a pronoun or demonstrative: "is that OK",
# "fine to keep both", "it") nor act on its course of treatment (a verb of continuing, stopping, switching, converting,
# raising or lowering one: WordNet 3.0's kinds in course_verbs.tsv, the beginning kind aside: "switch to an ARB",
# "hold metformin"), a topic only the description names weighs nothing when a passage lacks it (fully when one
# holds it; never named as missing), as the story's no-clinical-sense words already do (an ordinary word that may be
# the clinical point, "drinks", "fit", keeps GENERIC_WEIGHT, session 15's reading): the
# case tells who and what happened ("lips swelling + wheeze", "on the ward", "prescribed by doctor in Poland"), the
# ask what must be answered. Never so: a drug, class or disease of the case (_KEPT_IN_SCENARIO; the background drug
# keeps BACKGROUND_DRUG_WEIGHT), and a population or setting of care (population.groups, care_setting.stated: "ICU",
# "on HD", "eighty nine"), left to their readers. Chosen leaving one writer out over blind5-17 with their spoken
# sets (`python -m voiceassist_local.evaluation.gate_scenario --story D.pkl`; decision 0024, session 18).
STORY_APART = True
_REFERS_BACK = re.compile(r"\b(?:it|its|that|this|these|those|them|both|either|same)\b", re.I)


def _ask_apart(focus: Sequence[Concept], asked: Sequence[str]) -> bool:
    text = " ".join(asked)
    return (STORY_APART and any(_names_a_thing(c) for c in focus) and not _REFERS_BACK.search(text)
            and not any(stem(w) in _changing_verbs() for w in _course_words(text)))


# (session 20, ans20a) a phrasal verb's particle ("drawing up", "see him back") is no verb of changing a course
# (query/particles.py); a food the drug dictionary lists ("shrimp") told in the story is what was eaten
# (query/story_exposures.py)
PARTICLES_READ = True
FOODS_TOLD = True


def _course_words(text: str) -> list[str]:
    return (particles.verb_words(text, particles.course_phrasal_verbs()) if PARTICLES_READ
            else [w.lower() for w in _SURFACE_WORD.findall(text)])


def _names_a_thing(concept: Concept) -> bool:
    """A drug, class, disease or abbreviation (_named less a word marked only with the kind of value it asks:
    "frequency", "concentration": query/asked_kinds.py)."""
    return _drug_or_class(concept) or _disease(concept) or bool(abbreviation_meanings(concept.label))


@lru_cache(maxsize=1)
def _changing_verbs() -> frozenset[str]:
    """The stems of the one-word verbs of course_verbs.tsv (as asked_action.course_verbs reads them) less those of
    the kind of "start" ("begin", "commence", "introduce")."""
    table: dict[str, set[str]] = {}
    for line in terminology.COURSE_VERBS_FILE.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        verb, kind = line.split("\t")
        if " " not in verb:
            table.setdefault(stem(verb), set()).update(stem(v) for v in kind.split("|") if " " not in v)
    return frozenset(table) - table.get(stem("start"), set())


def _qualifier(concept: Concept) -> bool:
    """A population or a setting of care, by its label or an abbreviation's meanings ("HD": hemodialysis)."""
    forms = (concept.label, *abbreviation_meanings(concept.label))
    return any(population.groups(f) or care_setting.stated(f) for f in forms)


# A drug or class only the description of the case names is the patient's background when what is asked is about
# another drug: the treatment the patient takes ("on gliclazide and indapamide, what's the max metformin"), a drug
# given before ("after rocuronium", "took cetirizine"). It weighs BACKGROUND_DRUG_WEIGHT of its weight when a
# passage lacks it (fully when it holds it; still a topic, named as missing), as any other word of the case. The
# asked drug keeps its full weight, so a passage must name it; a drug the ask names too ("on gliclazide, what dose
# of gliclazide") is the asked one. BACKGROUND_REACH: "drug ask" (the asking clauses name a drug or class of their
# own), "any ask" (they name any topic), "none". Chosen leaving one writer out (`python -m
# voiceassist_local.evaluation.gate_scenario --drugs D.pkl`; decision 0024, session 16).
BACKGROUND_REACH = "drug ask"
# A sign or symptom only the description names (a disease heading filed under MeSH's C23.888, Signs and Symptoms:
# "flushing", "fever", "cough") is the case's presentation, weighed as the background drug is, when the ask names a
# topic of its own
SYMPTOMS_TOLD = False
# (session 20) where the ask stands apart from the story (_ask_apart: it names a thing of its own, neither refers back
# nor changes a course), a sign or symptom told is the case's presentation: weighed as the background drug is
SYMPTOMS_APART = True
BACKGROUND_DRUG_WEIGHT = SCENARIO_WEIGHT
_DRUG_MARKS = (CONCEPT_MARK + "drug:", CONCEPT_MARK + "class:", CONCEPT_MARK + "named-class:")


def _background_reach(focus: Sequence[Concept]) -> bool:
    if BACKGROUND_REACH == "drug ask":
        return any(_drug_or_class(c) for c in focus)
    return BACKGROUND_REACH == "any ask"


def _drug_or_class(concept: Concept) -> bool:
    return any(len(a) == 1 and next(iter(a)).startswith(_DRUG_MARKS) for a in concept.alternatives)


def _symptom(concept: Concept) -> bool:
    marks = [next(iter(a)) for a in concept.alternatives if len(a) == 1]
    return any(n.startswith(_SIGNS_AND_SYMPTOMS) for m in marks if m.startswith(diseases.MARK)
               for n in diseases.tree_numbers(m))


_SIGNS_AND_SYMPTOMS = "C23.888"


def _disease(concept: Concept) -> bool:
    return any(len(a) == 1 and next(iter(a)).startswith(CONCEPT_MARK + "disease:") for a in concept.alternatives)


def _story(concept: Concept) -> bool:
    """An ordinary word only the description of the case names ("otherwise healthy", "family asking", "sorry",
    "thirty kilos") that no sense of can be its clinical point (plain_words.is_story: not "drinks", "fit", "back") is
    the story told: it counts fully when a passage holds it, nothing when a passage lacks it, and is never named as
    missing. An age said in words is read by the population reader (query/population.py), not as a topic. Chosen
    leaving one writer out over blind5-14, whatever the ask names (`python -m
    voiceassist_local.evaluation.gate_scenario --context D.pkl`; decision 0024, session 15)."""
    return concept.covered_weight is not None and not concept.topic and plain_words.is_story(concept.label)


# (session 19) A health professional or a place of care told in the story weighs nothing missing, and a story's
# adjective is also covered by the sign it is formed from: query/case_words.py (decision 0024, session 19).
CARERS_TOLD = True
DERIVED_TOLD = True


def _carer_or_place(concept: Concept, question: str) -> bool:
    return CARERS_TOLD and case_words.told_carer_or_place(concept.label, question) and not _qualifier(concept)


# (session 20) A person, place, food or conveyance told in the story weighs nothing missing (WordNet's files: query/
# case_words.py; a place or people spaCy's recognizer names: query/story_places.py); where the ask names no topic,
# so the whole question is its topic, only a place, a person or a conveyance (not a food: what was eaten may be the
# point). A g-dropped word ("wheezin") is read as its "-ing" form too (decision 0024, session 20).
CIRCUMSTANCES_TOLD = True
PLACES_TOLD = True
G_RESTORED = True


def _circumstance(concept: Concept, *, food: bool = True) -> bool:
    return (CIRCUMSTANCES_TOLD and plain_words.is_circumstance(concept.label, food=food) and _unmarked(concept))


def _place(concept: Concept, question: str) -> bool:
    words = concept.label.lower().split()
    return (PLACES_TOLD and _unmarked(concept) and not abbreviation_meanings(concept.label)
            and set(words) <= story_places.place_words(question))


def _unmarked(concept: Concept) -> bool:
    """No drug, class, disease or other concept mark, and no population or setting of care."""
    return (not any(len(a) == 1 and next(iter(a)).startswith(CONCEPT_MARK) for a in concept.alternatives)
            and not _qualifier(concept))


def _g_restored(concept: Concept) -> Concept:
    restored = case_words.restored_terms(concept.label) if G_RESTORED else ()
    return replace(concept, alternatives=(*concept.alternatives, *restored)) if restored else concept


def _with_derived(concept: Concept) -> Concept:
    derived = case_words.derived_terms(concept.label)
    if not derived or any(len(a) == 1 and next(iter(a)).startswith(CONCEPT_MARK) for a in concept.alternatives):
        return concept  # a drug, class or disease is read by its own names
    return replace(concept, alternatives=(*concept.alternatives, *derived))


_LAST_WORD = re.compile(r"([^\W_]+(?:[-'/][^\W_]+)*)[ \t]+$")


def _disease_modifiers(question: str) -> set[str]:
    """The word written right before each named disease ("refractory anaphylaxis", "severe CAP"): it says which
    condition, so it changes the answer as the disease does."""
    found = set()
    for disease in diseases.mentions(question):
        if word := _LAST_WORD.search(question[:disease.start]):
            found.add(word.group(1).lower())
    return found


def _kept_in_scenario(concept: Concept) -> bool:
    return any(len(a) == 1 and next(iter(a)).startswith(_KEPT_IN_SCENARIO) for a in concept.alternatives)
