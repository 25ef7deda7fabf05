"""Harm given so that it passes unseen (session 20, screen20; decision 0027).

Two kinds of request recurred, writer after writer, in plain English that no reading took:

- **harm_undetected** (HARMFUL): a means asked (a drug, an amount: harm_goal's means) chosen by whether a test of the
  body will find it ("least detectable on a tox screen", "don't show on a standard drug screen", "no trace"), with a
  lethal outcome caused or a person given it by the asker ("if I gave someone a big dose"). A test's blind spots
  asked alone are toxicology ("which drugs don't show on a standard urine drug screen?"), and so is an ingestion
  reported. The tests are harm_goal's WordNet examinations and checks (toxicology.n.01, autopsy.n.01, screening.n.04,
  check.n.05) with the ward's clippings of them ("tox", "bloods", "screen" after a drug or tox); the finding is
  harm_goal's detect.v.01 / show_up.v.02 words, "detectable" and "trace", minimised ("least", "hardest to") or negated.
- **allergen_hidden** (HARMFUL): an allergy named to a class ("documented penicillin anaphylaxis", "allergic to
  peanuts") and a substance of that class hidden in food or drink or given unnoticed ("amoxicillin hidden in their
  food so they don't notice"): whatever else the request says, the hidden drug is the allergen. The class comes from
  WordNet 3.0's noun hierarchy (`_data/safety/substance_classes.tsv.gz`, written by
  voiceassist_local/evaluation/substance_class_data.py): amoxicillin and Augmentin are penicillins; and
  from the project's drug dictionary with the WHO INN stems (query.terminology: flucloxacillin's "-cillin"). Covert
  administration to a patient lacking capacity (NICE NG67) of a drug outside the allergy's class is care and passes.
"""

from __future__ import annotations

import gzip
import re
from functools import lru_cache

from voiceassist.query.terminology import COMBINATIONS, classes_of, drug_names
from voiceassist.safety.harm_lexicon import outcome_kind, tokens_of
from voiceassist.safety.harm_request import goal_outcome, ingestion_reported
from voiceassist.safety.signals import HARMFUL
from voiceassist.settings import PACKAGE_DIR

CLASSES_FILE = PACKAGE_DIR / "_data" / "safety" / "substance_classes.tsv.gz"

_SENTENCE = re.compile(r"[^.?!\n]+")
# the means asked: an amount, a drug or a way (harm_goal's _MEANS, the forms these requests take)
_MEANS = re.compile(
    r"\bhow\s+(?:much|many)\b|\b(?:which|what)\s+(?:[\w'’-]+\s+){0,4}?(?:drugs?|medicines?|medications?|meds|tablets?"
    r"|pills?|injections?|substances?|combinations?|dose|doses|amount|ones)\b|\b(?:which|what)\s+(?:[\w'’-]+\s+){0,4}?"
    r"(?:is|are|would|could|will|might|can|does|do|doesn['’]?t|don['’]?t|won['’]?t|wouldn['’]?t)\b|\bhow\s+(?:can|could|do|would|should|might)\s+(?:i|we|one|you)\b"
    r"|\b(?:best|easiest|quickest|surest|simplest|cleanest)\s+(?:way|method|means)\b|\b(?:give|tell|show)\s+me\b",
    re.I)
# a finding by a test: harm_goal's detect words, and "detectable", "trace", "show" (show_up.v.02 without its particle)
_FINDING = frozenset({"detectable", "detected", "detect", "traceable", "trace", "traces", "show", "shows", "showing",
                      "visible", "found"})
# minimised or negated: the choice of a means by how little it is found
_LITTLE = frozenset({"least", "less", "hardest", "harder", "not", "no", "never", "without", "don't", "doesn't",
                     "won't", "wouldn't", "isn't", "aren't", "can't", "cannot", "dont", "doesnt", "wont", "leaving",
                     "leaves", "leave"})
_UNSEEN = re.compile(r"^un(?:detect|trace|notice|seen)", re.I)
# the ward's clippings of toxicology and of the blood tests: "tox", "bloods", "a drug screen"
_TEST_WORDS = frozenset({"tox", "bloods", "screen", "screens", "pm", "postmortem", "post-mortem"})
_GIVEN_BY_ASKER = re.compile(
    r"\b(?:i|we)\s+(?:\w+\s+){0,2}?(?:give|gave|giving|slip|slipped|put|inject|injected|administer|administered)\s+"
    r"(?:someone|somebody|him|her|them|a\s+person|my\s+\w+|an?\s+(?:[\w-]+\s+)?(?:man|woman|adult|child|person))\b",
    re.I)
_ARREST = re.compile(r"\b(?:cause|causes|causing|induce|induces|inducing|trigger|triggers|into)\s+(?:an?\s+)?"
                     r"(?:\w+\s+)?arrest\b", re.I)


def _test_near(tokens: list[str], at: int) -> bool:
    """A test of the body within six words after the finding (or four before): harm_goal's examinations and checks
    of WordNet, or the ward's clippings of them."""
    near = tokens[max(0, at - 4): at] + tokens[at + 1: at + 7]
    return any(t in _TEST_WORDS or outcome_kind([t], 0) in ("examination", "check") for t in near) or any(
        outcome_kind(near, i) in ("examination", "check") for i in range(len(near)))


def _evaded(tokens: list[str]) -> bool:
    """A finding minimised or negated, by a test named ("least detectable on a tox screen", "don't show on a standard
    drug screen", "undetectable at post-mortem") or of any trace ("no trace", "without a trace", "untraceable")."""
    for at, token in enumerate(tokens):
        if _UNSEEN.match(token):
            if token.startswith("untrace") or _test_near(tokens, at):
                return True
            continue
        if token not in _FINDING and outcome_kind(tokens, at) != "detect":
            continue
        before = tokens[max(0, at - 4): at]  # "least likely to be found"
        if not any(t in _LITTLE or t.endswith("n't") for t in before):
            continue
        if token in ("trace", "traces") or _test_near(tokens, at):
            return True
    return False


def _harm_or_given(sentence: str, tokens: list[str]) -> bool:
    """A lethal outcome of harm_goal's lexicon ("kill", "fatal", "cardiac arrest"), an arrest caused, a person the
    asker gives it to, or one of the asker's circle named (harm_goal's WordNet people)."""
    return (any(outcome_kind(tokens, at) in ("harm", "person") for at in range(len(tokens)))
            or goal_outcome(tokens) is not None or bool(_ARREST.search(sentence) or _GIVEN_BY_ASKER.search(sentence)))


def harm_undetected(text: str) -> bool:
    """Whether a sentence asks for a means by how unseen it is to a test, with a harm caused or a person given it."""
    if ingestion_reported(text):
        return False
    for sentence in _SENTENCE.findall(text):
        tokens = tokens_of(sentence)
        if _MEANS.search(sentence) and _evaded(tokens) and _harm_or_given(sentence, tokens):
            return True
    return False


@lru_cache(maxsize=1)
def substance_classes() -> dict[str, frozenset[str]]:
    """substance -> its classes (the module's doc)."""
    table: dict[str, frozenset[str]] = {}
    for line in gzip.decompress(CLASSES_FILE.read_bytes()).decode("utf-8").splitlines():
        if line and not line.startswith("#"):
            word, classes = line.split("\t")
            table[word] = frozenset(classes.split("|"))
    return table


def _singular(word: str) -> str:
    """A plural's singular ("peanuts", "sulphonamides"); "penicillin" and "glass" as they are."""
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _substance(word: str) -> frozenset[str] | None:
    """The classes of a word or of its singular ("peanuts")."""
    table = substance_classes()
    for form in (word, word[:-1] if word.endswith("s") else None, word[:-2] if word.endswith("es") else None):
        if form and form in table:
            return table[form]
    return None


# an allergy named: "penicillin allergy", "penicillin anaphylaxis", "allergic to peanuts", "allergy to penicillin",
# "penicillin-allergic"
_ALLERGY = re.compile(
    r"\b(?P<before>[a-z]+)(?:\s+|-)(?:allergy|allergies|anaphylaxis)\b|\b(?P<hyphen>[a-z]+)-allergic\b"
    r"|\b(?:allergic|allergy|allergies|anaphylaxis|anaphylactic)\s+(?:reaction\s+)?to\s+(?:the\s+)?(?P<after>[a-z]+)",
    re.I)
# a hiding negated or checked for is a precaution: "make sure it is not hidden in", "isn't hidden"
_NOT_HIDDEN = re.compile(r"\b(?:not|never|isn['’]?t|aren['’]?t|wasn['’]?t|no)\s+(?:\w+\s+)?$", re.I)
# hidden or given unnoticed: hide.v.01 / conceal.v.01 (hide, conceal, disguise, mask), slip.v.05 and sneak; "so they
# don't notice / taste / know", "without them knowing", "covertly", "secretly"
_HIDDEN = re.compile(
    r"\b(?:hid|hide|hides|hidden|hiding|conceal|concealed|concealing|disguise|disguised|disguising|mask|masked"
    r"|masking|slip|slipped|slipping|sneak|sneaked|snuck|sneaking|smuggle|smuggled)\b", re.I)
_MIXED = re.compile(r"\b(?:crush|crushed|crushing|mix|mixed|mixing|stir|stirred|stirring|dissolve|dissolved|grind"
                    r"|ground|add|added|put)\b", re.I)
_UNNOTICED = re.compile(
    r"\b(?:so|that)\s+(?:they|he|she|the\s+\w+)\s+(?:don['’]?t|doesn['’]?t|won['’]?t|can['’]?t|cannot|wouldn['’]?t"
    r"|never)\s+(?:\w+\s+)?(?:notice|taste|know|realise|realize|find\s+out|tell)\b"
    r"|\bwithout\s+(?:them|him|her|the\s+\w+|anyone)\s+(?:\w+\s+)?(?:knowing|noticing|tasting|realising|realizing)\b"
    r"|\b(?:covertly|secretly)\b", re.I)
_INTO = re.compile(r"\b(?:in|into|inside|within)\s+(?:(?:their|his|her|the|a|my)\s+)?(?P<what>[a-z]+)", re.I)


def _a_food(word: str) -> bool:
    classes = _substance(word.lower())
    return word.lower() in ("food", "drink", "meal", "meals", "drinks") or bool(
        classes and classes & {"food", "beverage", "meal"} and "drug" not in classes)


def allergen_hidden(text: str) -> bool:
    """Whether a substance of an allergy's class (or the allergen itself) is hidden in food or drink or given
    unnoticed (the module's doc)."""
    allergens = {(m.group("before") or m.group("hyphen") or m.group("after")).lower() for m in _ALLERGY.finditer(text)}
    allergens = {_singular(a) for a in allergens}
    unnoticed = _UNNOTICED.search(text)
    # a drug crushed or mixed into food is covert only where it is not to be noticed (NICE NG67's practice is both)
    hiding = [m for m in _HIDDEN.finditer(text)] + ([m for m in _MIXED.finditer(text)] if unnoticed else [])
    if not allergens or not any(not _NOT_HIDDEN.search(text[: m.start()]) for m in hiding):
        return False
    covert = unnoticed or any(_a_food(m.group("what")) for m in _INTO.finditer(text))
    if not covert:
        return False
    if any(allergens & _classes(token) for token in tokens_of(text)):
        return True
    return _allergen_named_twice(text, allergens)


def _classes(word: str) -> set[str]:
    """The classes of a drug or a food: WordNet's (`substance_classes`), and for a drug the project's drug dictionary
    (query.terminology: a brand or synonym to its generic, a combination to its members, "co-amoxiclav" to amoxicillin)
    with the generic's WHO INN stem classes ("-cillin": penicillin) and WordNet's."""
    found = set(_substance(word) or ())
    generic = drug_names().get(word) or drug_names().get(_singular(word))
    for name in COMBINATIONS.get(generic, (generic,)) if generic else ():
        found |= {name, *classes_of(name), *(_substance(name) or ())}
    return found


def _allergen_named_twice(text: str, allergens: set[str]) -> bool:
    """The allergen itself named again after the allergy, as what is hidden ("allergic to peanuts ... hide peanut")."""
    tokens = tokens_of(text)
    for allergen in allergens:
        hits = [i for i, t in enumerate(tokens) if _singular(t) == allergen]
        if len(hits) >= 2:
            return True
    return False


def covert_harm_kinds(text: str) -> list[tuple[str, str]]:
    """(category, kind) of the readings in one form of a text."""
    kinds = [(HARMFUL, "harm_undetected")] if harm_undetected(text) else []
    return kinds + ([(HARMFUL, "allergen_hidden")] if allergen_hidden(text) else [])
