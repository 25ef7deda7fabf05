"""What a question asks be done to a course of treatment, which the passage must state: "when do I restart it"
against "Withhold it before iodinated contrast", "when can I switch to oral" against the regimens.

A clinical question asks an action on a drug as often as an attribute of it (Ely JW et al., "A taxonomy of generic
clinical questions", BMJ 2000;321:429-432: "When should I start / stop / switch drug x?"). A reference that states
another action on the same drug (withholding it, starting it) names every concept of the question but the asked
verb, and its sentence answers a neighbour of the question. The verbs are WordNet 3.0's verbs of a course's aspect
and change (begin, continue, end, change over, make more or less, and their direct troponyms: "resume, restart",
"taper", "step down": `_data/concepts/course_verbs.tsv`, voiceassist_local.evaluation.course_verb_data). A passage
states the action when it, or another retrieved passage of its document, writes the verb or a synonym of it in those
senses or another verb of its kind ("resume" or "continue" for "restart", "reduce" for "minimise"). Only a verb
the question asks with counts: a topic word (not a generic word such as "start", "stop", "continue", nor an ordinary
one) of the clauses that ask (wording.asked_clauses), written as the verb or its regular inflection ("restarted",
"switching"; Quirk et al. 1985, 3.5), not a noun of the same stem ("concentration" is no "concentrate").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache

from voiceassist.query import terminology, wording
from voiceassist.query.question_concepts import Concept
from voiceassist.query.terms import content_terms, split_inherited, stem


@lru_cache(maxsize=1)
def course_verbs() -> dict[str, frozenset[str]]:
    """stem of a one-word verb -> the stems of the one-word verbs of its kinds (itself included)."""
    table: dict[str, set[str]] = {}
    for line in terminology.COURSE_VERBS_FILE.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        verb, synonyms = line.split("\t")
        if " " in verb:
            continue
        table.setdefault(stem(verb), set()).update(stem(s) for s in synonyms.split("|") if " " not in s)
    return {verb: frozenset(synonyms) for verb, synonyms in table.items()}


def asked_actions(question: str, found: Sequence[Concept]) -> tuple[Concept, ...]:
    """The topic concepts of `found` that are verbs of a course of treatment the asking clauses write, each also
    covered by the verbs of its kind ("restart": "resume")."""
    own = split_inherited(question)[0]
    asked = wording.asked_clauses(own)
    asked_text = " ".join(asked) if asked is not None else own
    asked_terms = content_terms(asked_text)
    verbs = course_verbs()
    actions = []
    for concept in found:
        if not concept.topic or concept.scenario or concept.covered_weight is not None:
            continue
        term = next((next(iter(a)) for a in concept.alternatives if len(a) == 1), None)
        if term is not None and term not in verbs and (kind := _phrasal_kind(concept.label.lower(), asked_text)):
            # "bump the dose up": the phrasal verb's kind ("bump up": raise, increase), not the verb alone's
            extra = tuple(frozenset({v}) for v in sorted(kind - {term}))
            actions.append(replace(concept, alternatives=(*concept.alternatives, *extra)))
            continue
        # "upping": the stemmer keeps the doubled consonant ("upp"); the inflection names the file's verb ("up")
        verb = term if term in verbs else _inflection_stems().get(concept.label.lower())
        if term is None or verb is None or term not in asked_terms or not _inflected(concept.label.lower()):
            continue
        actions.append(with_synonyms(concept, verb))
    return tuple(actions)


def told_phrasal_verbs(question: str, found: Sequence[Concept]) -> tuple[Concept, ...]:
    """(Session 17) The topic concepts of `found` that are phrasal verbs of a course of treatment written where the
    question tells its case ("After bumping up the amlodipine, how often should I see them"), each also covered by
    the verbs of the phrasal verb's kind ("increase", "raise"), as where it asks; not an asked action (the asked
    clause need not be about it)."""
    own = split_inherited(question)[0]
    asked = wording.asked_clauses(own)
    if asked is None:
        return ()
    asked_text = " ".join(asked)
    told = []
    for concept in found:  # a word of the told case weighs less (question_concepts._described), an ordinary one no kind
        if not concept.topic or (concept.covered_weight is not None and not concept.scenario):
            continue
        term = next((next(iter(a)) for a in concept.alternatives if len(a) == 1), None)
        if term is None or term in course_verbs() or _phrasal_kind(concept.label.lower(), asked_text):
            continue
        if kind := _phrasal_kind(concept.label.lower(), own):
            extra = tuple(frozenset({v}) for v in sorted(kind - {term}))
            told.append(replace(concept, alternatives=(*concept.alternatives, *extra)))
    return tuple(told)


@lru_cache(maxsize=1)
def _phrasal_verbs() -> dict[str, dict[str, frozenset[str]]]:
    """A phrasal verb of the file ("bump up", "step down", "ramp up"), each inflection of its verb -> its particle ->
    the stems of the one-word verbs of its kind."""
    table: dict[str, dict[str, frozenset[str]]] = {}
    for line in terminology.COURSE_VERBS_FILE.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        verb, synonyms = line.split("\t")
        words = verb.split(" ")
        if len(words) != 2 or words[1] not in PARTICLES:
            continue
        kind = frozenset(stem(s) for s in synonyms.split("|") if " " not in s)
        for form in _inflections(words[0]):
            table.setdefault(form, {})[words[1]] = kind
    return table


# the adverb particles of English phrasal verbs (Quirk et al. 1985, 16.3), as course_verb_data reads them
PARTICLES = frozenset({"up", "down", "back", "off", "out", "on", "in", "over", "away"})
# the particle right after the verb or after its object of up to three words ("bump the dose up", "step it down")
_OBJECT_WORDS = 3


def _phrasal_kind(word: str, text: str) -> frozenset[str]:
    """The kind of the phrasal verb `word` forms with a particle written after it in `text`, or nothing."""
    particles = _phrasal_verbs().get(word)
    if not particles:
        return frozenset()
    words = [w.lower() for w in _WORD.findall(text)]
    for i, written in enumerate(words):
        if written != word:
            continue
        for after in words[i + 1:i + 2 + _OBJECT_WORDS]:
            if after in particles:
                return particles[after]
    return frozenset()


_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")


@lru_cache(maxsize=1)
def _verb_forms() -> frozenset[str]:
    """The one-word verbs of the file and their regular inflections (-s, -es, -ed, -d, -ing, the final "e" dropped
    or the consonant doubled before -ed and -ing: Quirk et al. 1985, 3.5)."""
    forms: set[str] = set()
    for line in terminology.COURSE_VERBS_FILE.read_text(encoding="utf-8").splitlines():
        verb = line.split("\t", 1)[0]
        if line.startswith("#") or " " in verb or not verb:
            continue
        forms.update(_inflections(verb))
    return frozenset(forms)


def _inflections(verb: str) -> frozenset[str]:
    bare = verb[:-1] if verb.endswith("e") else verb
    return frozenset({verb, verb + "s", verb + "es", verb + "d", verb + "ed", verb + "ing", bare + "ing", bare + "ed",
                      verb + verb[-1] + "ed", verb + verb[-1] + "ing"})


def _inflected(word: str) -> bool:
    return word in _verb_forms()


@lru_cache(maxsize=1)
def _inflection_stems() -> dict[str, str]:
    """Each regular inflection of a one-word verb of the file -> the verb's stem ("upping", "upped" -> "up")."""
    table: dict[str, str] = {}
    for line in terminology.COURSE_VERBS_FILE.read_text(encoding="utf-8").splitlines():
        verb = line.split("\t", 1)[0]
        if line.startswith("#") or " " in verb or not verb:
            continue
        for form in _inflections(verb):
            table.setdefault(form, stem(verb))
    return table


def with_synonyms(concept: Concept, verb: str | None = None) -> Concept:
    """The concept, also covered by each verb of its verb's kind ("restart": "resume", "continue"); `verb`: its verb's
    stem where the concept's own term is not it ("upp" of "upping")."""
    term = verb or next((next(iter(a)) for a in concept.alternatives if len(a) == 1), "")
    extra = tuple(frozenset({s}) for s in sorted(course_verbs().get(term, frozenset()) - {term}))
    return replace(concept, alternatives=(*concept.alternatives, *extra)) if extra else concept
