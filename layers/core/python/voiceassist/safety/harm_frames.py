"""Harm read from the frame around it, not from the words of one phrasing (session 20, harm20; decision 0027).

Writer after writer, the plain-English harmful requests that passed were of a few kinds whose words differed each
time; the readings here take the kind's frame, whatever fills it:

- **harm_disguised** (HARMFUL): a harm caused, and the asker making it look like something else ("how do I make it
  look like a pump fault", "... so it looks like an ordinary complication"), or a means asked for a harm that is
  itself to look like something else ("which combination would cause a death that looks like a diabetic
  complication"). Whatever it is to look like (an accident, an equipment error, a disease): the deception is the
  frame. A clinician asks what a condition looks like, what can make an ECG look like a STEMI (no harm caused, no
  one making), or how to make a body look peaceful for the family (last offices: after a death, not causing one).
- **self_harm_amount_taken** (SELF_HARM): an amount asked, the asker the one to take it ("how many would I need to
  take", "for me to swallow"), and a lethal outcome as its goal ("to die", "to not wake up", "to kill me"):
  the Columbia Suicide Severity Rating Scale's method item (C-SSRS screener, The Research Foundation for Mental
  Hygiene, free for clinical use; "thinking about how you might do this", its wording cited, not shipped). No other
  person named (a carer's or a clinician's question), no ingestion reported (a toxicology question).
- **harm_to_unindicated** (HARMFUL): a means asked to cause a harm (`harm_goal`'s WordNet outcomes: harm, injury, a
  negated act of living) in a person described as having no indication for the drug, "a healthy person", "an otherwise
  well adult", "a non-diabetic": the harm is then the drug's only effect, as in a poisoning. "What dose would be
  fatal in a healthy adult" asks a threshold and passes: the harm must be made ("make them collapse", "cause ...",
  "enough to ..."), as `harm_request.goal_outcome` reads a governed outcome, with a verb of making or causing.

The outcome words are harm_goal's WordNet 3.0 lexicon (`_data/safety/harm_outcomes.tsv`); the frame words (look,
seem, appear: WordNet 3.0 look.v.02 "give a certain impression"; make.v.02 "cause to be"; healthy.a.01, well.a.01)
are English closed classes and the verbs of those synsets, not topic words.
"""

from __future__ import annotations

import re

from voiceassist.safety.covert_harm import covert_harm_kinds
from voiceassist.safety.harm_lexicon import names_a_person, outcome_kind, tokens_of
from voiceassist.safety.harm_request import goal_outcome, ingestion_reported
from voiceassist.safety.signals import HARMFUL, SELF_HARM

_SENTENCE = re.compile(r"[^.?!\n]+")
# look.v.02 ("give a certain impression or have a certain outward aspect": look, appear, seem) with its complements
_SEEM = r"(?:look|looks|looked|looking|seem|seems|seemed|appear|appears|appeared)"
_SEEM_AS = _SEEM + r"\s+(?:like|as\s+(?:if|though)|to\s+(?:be|have))\b"
# the asker as the one who makes it seem so: "how do I make it look like", "the best way to make ... look like", "I
# want to make it seem", "so it looks like" after the asker's act; make.v.02 ("give certain properties to something")
_ASKER_MAKES = re.compile(
    r"\b(?:how\s+(?:do|can|could|would|should|might|will)\s+(?:i|we|you|one)\s+|(?:way|how|where|when)\s+to\s+"
    r"|\b(?:i|we)\s+(?:\w+\s+){0,3}?(?:to\s+)?|\b(?:can|could|should|would)\s+(?:i|we)\s+)"
    r"(?:make|get|have)\s+(?:sure\s+)?(?:that\s+)?(?:[\w'’-]+\s+){0,6}?" + _SEEM_AS, re.I)
_SO_IT_SEEMS = re.compile(r"\bso\s+(?:that\s+)?(?:it|this|that|the\s+\w+|his\s+\w+|her\s+\w+|their\s+\w+)\s+"
                          r"(?:would\s+|will\s+)?" + _SEEM_AS, re.I)
# any maker ("that would make it look like", "make a deliberate overdose look like"), read with the asker in the
# sentence; what is made to seem so or what it is to seem names a death (harm_goal's lexicon, "passed away": die.v.01's
# euphemism, which the lexicon leaves out for its commoner senses) or an overdose (overdose.n.01)
_MAKE_SEEM = re.compile(r"\bmake\s+(?:[\w'’-]+\s+){0,6}?" + _SEEM_AS, re.I)
_ASKER_IN = re.compile(r"\b(?:i|we|i['’]d|i['’]ll)\b", re.I)
_DEATH_NAMED = re.compile(r"\b(?:passed\s+away|passed\s+on|overdoses?|od)\b")
# a harm caused that is itself to seem otherwise: "a death that looks like", "an overdose that would look like"
_HARM_SEEMS = re.compile(r"\b(?:that|which)\s+(?:would\s+|will\s+|could\s+|might\s+)?" + _SEEM_AS, re.I)
# last offices and the family's viewing: a body made to look peaceful after a death is care
_AFTER_DEATH = re.compile(r"\b(?:after\s+(?:the|his|her|their)\s+death|last\s+offices|viewing|deceased|laying\s+out"
                          r"|(?:his|her|their|the)\s+body)\b", re.I)
# "an arrest" caused or induced is a cardiac arrest in the ward's words (cardiac_arrest.n.01, elided)
_ARREST_CAUSED = re.compile(r"\b(?:cause|causes|causing|induce|induces|inducing|trigger|triggers|triggering"
                            r"|precipitate|precipitates|into)\s+(?:an?\s+)?(?:\w+\s+)?arrest\b", re.I)
_WOULD = re.compile(r"\b(?:would|could|will|might|(?:i|we)\s+\w+)\b", re.I)
_MEANS_OR_ORDER = re.compile(
    r"\bhow\s+(?:much|many|fast|quickly|long)\b|\b(?:which|what)\b|\bhow\s+(?:do|can|could|would|should)\s+(?:i|we)\b"
    r"|\b(?:best|easiest|quickest|surest|simplest)\s+(?:way|method)\b|\b(?:give|tell|show)\s+me\b", re.I)
_QUANTITY = re.compile(r"\bhow\s+(?:much|many)\b|\b(?:what|which)(?:['’]s|\s+is)?(?:\s+the)?\s+(?:[\w-]+\s+){0,2}?"
                       r"(?:dose|doses|amount|number|quantity|volume)\b|\benough\b", re.I)

# the asker as the one who takes it: "would I need to take", "I'd have to swallow", "for me to take", "should I take"
_INGEST = r"(?:take|swallow|down|eat|drink|inject|have|use|od|overdose)"
_ASKER_TAKES = re.compile(
    r"\b(?:would|will|do|does|should|must|could|can|did)\s+i\s+(?:\w+\s+){0,2}?(?:need|have|want)\s+to\s+" + _INGEST
    + r"\b|\bi(?:['’]d|\s+would|\s+will|['’]ll|\s+should)?\s+(?:\w+\s+)?(?:need|have|want)\s+to\s+" + _INGEST
    + r"\b|\bfor\s+me\s+to\s+" + _INGEST + r"\b|\bshould\s+i\s+" + _INGEST + r"\b"
    r"|\bwould\s+it\s+take\s+(?:for\s+me\s+)?to\s+(?:kill|end)\s+me\b", re.I)

# no indication for the drug (healthy.a.01, well.a.01 "in good health"; a "non-" condition): "a healthy person", "an
# otherwise well adult", "a non-diabetic"; a person noun or none after it
_UNINDICATED = re.compile(
    r"\b(?:an?|any|the)\s+(?:otherwise\s+|perfectly\s+|completely\s+)?(?:healthy|well|fit|non-?[a-z]{4,})"
    r"(?:\s+(?:young\s+|old\s+|elderly\s+)?(?:person|person['’]s|adult|adult['’]s|man|man['’]s|woman|woman['’]s"
    r"|individual|people|child|kid|teenager|driver|someone))?\b(?!\s+(?:volunteer|control|range|diet|weight|lifestyle"
    r"|level|status|tolerated))|\bsomeone\s+(?:who\s+is\s+|who['’]s\s+)?(?:healthy|well|not\s+\w+\s+on\s+it)\b", re.I)
_MADE = frozenset({"make", "makes", "cause", "causes", "induce", "induces", "enough", "push", "pushes", "drop",
                   "drops", "put", "puts", "send", "sends", "knock", "knocks"})


def _harm_caused(text: str) -> bool:
    """A harm governed as a goal in some sentence (`goal_outcome`: harm, injury, a negated act of living), or a cardiac
    arrest caused in the ward's elision ("to cause an arrest")."""
    return bool(_ARREST_CAUSED.search(text)) or any(
        goal_outcome(tokens_of(sentence)) in ("harm", "injury", "life") for sentence in _SENTENCE.findall(text))


def _death_seemed(text: str) -> bool:
    """The asker in a sentence that makes something look like a death or an overdose: "what could I put in his tea
    that would make it look like he passed away", "how to make an overdose look like sepsis"."""
    for sentence in _SENTENCE.findall(text):
        if not _ASKER_IN.search(sentence) and not _ASKER_MAKES.search(sentence):
            continue
        for made in _MAKE_SEEM.finditer(sentence):
            tokens = tokens_of(made.group(0)) + tokens_of(sentence[made.end():])[:8]
            if _DEATH_NAMED.search(" ".join(tokens)) or any(outcome_kind(tokens, at) == "harm"
                                                            for at in range(len(tokens))):
                return True
    return False


def harm_disguised(text: str) -> bool:
    """A harm caused and made to look like something else by the asker, or a harm asked for that is to look so."""
    if _AFTER_DEATH.search(text):
        return False
    if _death_seemed(text):
        return True
    if not _harm_caused(text):
        return False
    if _ASKER_MAKES.search(text) or _SO_IT_SEEMS.search(text):
        return True
    # a harm that is to seem otherwise, asked as a means that would bring it ("which ... would cause a death that looks
    # like"); "which drugs can cause a death that looks like SIDS" asks what is known, not what to use
    return any(_HARM_SEEMS.search(sentence) and _MEANS_OR_ORDER.search(sentence) and _WOULD.search(sentence)
               for sentence in _SENTENCE.findall(text))


def self_harm_amount_taken(text: str) -> bool:
    """An amount asked for the asker to take, with a lethal outcome as its goal, and no one else named at risk."""
    if ingestion_reported(text):
        return False
    tokens = tokens_of(text)
    if names_a_person(tokens) or any(outcome_kind(tokens, at) == "person" for at in range(len(tokens))) or re.search(
            r"\b(?:some(?:one|body)|patients?|residents?|child|kid|baby)\b", text, re.I):
        return False
    for sentence in _SENTENCE.findall(text):
        taken = _ASKER_TAKES.search(sentence)
        if taken is None or not _QUANTITY.search(sentence):
            continue
        if goal_outcome(tokens_of(sentence[taken.start():])) in ("harm", "life"):
            return True
    return False


def harm_to_unindicated(text: str) -> bool:
    """A means asked to make a harm happen to a person with no indication for the drug ("a healthy person")."""
    if ingestion_reported(text):
        return False
    for sentence in _SENTENCE.findall(text):
        if not (_UNINDICATED.search(sentence) and _MEANS_OR_ORDER.search(sentence)):
            continue
        tokens = tokens_of(sentence)
        if goal_outcome(tokens) in ("harm", "injury", "life") and _MADE & set(tokens):
            return True
    return False


def harm_frame_kinds(text: str) -> list[tuple[str, str]]:
    """(category, kind) of the frame readings in one form of a text."""
    kinds = [(HARMFUL, "harm_disguised")] if harm_disguised(text) else []
    kinds += [(HARMFUL, "harm_to_unindicated")] if harm_to_unindicated(text) else []
    kinds += [(SELF_HARM, "self_harm_amount_taken")] if self_harm_amount_taken(text) else []
    # (session 20, screen20) a harm chosen to pass a test unseen, an allergen hidden in food (covert_harm.py)
    return kinds + covert_harm_kinds(text)
