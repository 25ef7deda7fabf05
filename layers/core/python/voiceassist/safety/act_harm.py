"""The act asked about read for harm (session 17, harmreg17): the parse of act_reader.py's `care_act`, the asker
acting on a person, with the act's stated result harm (the reading below; tampering.py reads part f)."""

from __future__ import annotations

import re

from voiceassist.safety.act_reader import (
    _HIDDEN,
    _IN_FOOD,
    _PERSON,
    _PUT_INTO,
    _habit_or_symptom,
    asked_act,
)
from voiceassist.safety.care_frames import covert_administration_as_law
from voiceassist.safety.harm_goal import HEART_STOPPED, attributed_blameless, belief_induced
from voiceassist.safety.harm_lexicon import names_a_person, tokens_of
from voiceassist.safety.harm_request import goal_outcome, ingestion_reported
from voiceassist.safety.signals import HARMFUL
from voiceassist.safety.tampering import tampered

# (session 17, harmreg17) The same parse read for harm: the asker acts on a person (anyone too: "someone" is how a
# harmful request names its victim; and a person of the asker's circle, harm_goal's WordNet people of relative.n.01,
# spouse.n.01, child.n.01 ...: "my sister", "my wife") and the act's stated result is harm. `harm_act` reads five
# results:
#
# a. a harmful outcome (`harm_goal`'s readings, which want a person of the asker's circle named; here the parse has
#    found the person acted on): an outcome of WordNet 3.0's kill.v.01, die.v.01, unconsciousness.n.01, injure.v.01,
#    faint.v.01 ("pass out"), ill_health.n.01 ... governed by the act's purpose, cause or modal ("so", "enough",
#    "make", "would", "for it to"), not by an infinitive's "to" ("a patient expected to die"), and not negated, or a
#    negated act of living (`goal_outcome`); a heart stopped (cardiac_arrest.n.01's gloss); a clinician's belief in
#    an illness as the goal (`belief_induced`, fabricated or induced illness). The asker is the agent, so a harm
#    short of injury counts ("make them have a seizure"); not with an ingestion reported (a toxicology question:
#    "how do I make them vomit, they swallowed bleach");
# b. the act made to seem blameless: put down to natural causes or an accident (`attributed_blameless`, the
#    inquest's short-form conclusions), or kept from blame ("so nobody blames me");
# c. an end: the person's stopping, quieting or sleep caused by the asker and made permanent, WordNet's
#    permanently.r.01 ("permanently", "for good") and everlastingly.r.01 ("forever", "evermore", "eternally") right
#    after the ceasing, which a causative ("make", "put", "send", "shut", "keep") with the person as its object
#    governs: "make the baby stop crying for good", "put them to sleep forever"; "get them to stop smoking for good"
#    is persuasion (get ... to), not caused, and "make them stop scratching their eczema for good" ends a symptom;
#    nor a habit or a symptom ceased ("make him stop smoking for good", "stop coughing for good": session 18);
# d. the person silenced about the asker's own act: a verb of preventing (stop, keep, prevent) with the person as
#    its object, a verb of telling (tell, say, report, talk, call) and, as what is not to be told, the asker's own act
#    ("what I did", "about me / us", "on me"): "stop them telling anyone what I did to them"; "keep them from telling
#    the nurses about their pain" is the person's own state, and "how do we stop them scratching" a carer's;
# e. an effect the person does not know of: the asker's act on them with the person's knowing negated ("without them
#    knowing", "so they never find out", "before they realise"), unless asked as the law of covert administration
#    (NICE NG67, `care_frames.covert_administration_as_law`).
_ANYONE_ACTED_ON = re.compile(r"\b(?:someone|somebody)(?:['’]s)?\b", re.I)
# the end stated of the ceasing itself, right after it: "stop crying for good", "to sleep forever", "shut them up
# for good"; "stop scratching their eczema for good" ends a symptom, the object between
_END = r"(?:for\s+good|for\s*ever|permanently|evermore|eternally)\b"
_CAUSED_TO_CEASE = re.compile(
    r"\b(?:make|makes|making|put|puts|putting|send|sends|sending|shut|shuts|shutting|keep|keeps|keeping)\s+"
    r"(?P<who>[\w'’-]+(?:\s+[\w'’-]+){0,2}?)\s+(?:(?:to\s+)?sleep|stop(?:\s+(?P<ceased>\w+ing))?|quiet|quieten|silent|still|hush|up"
    r"|be\s+(?:quiet|silent|still))\s+" + _END,
    re.I,
)
_SILENCED = re.compile(
    r"\b(?:stop|stops|stopping|keep|keeps|keeping|prevent|prevents|preventing)\s+(?P<who>[\w'’-]+(?:\s+[\w'’-]+){0,1}?)"
    r"\s+(?:from\s+)?(?:telling|saying|reporting|talking|speaking|grassing|calling|ringing)\b(?P<rest>[^.?!]*)",
    re.I,
)
_TOLD = re.compile(
    r"\bwhat\s+(?:i|we)\s+(?:did|do|have\s+done|['’]ve\s+done|said|gave|give)\b|\babout\s+(?:me|us|what\s+(?:i|we))\b"
    r"|\bon\s+(?:me|us)\b|\bthat\s+(?:i|we)\s+(?:did|hit|hurt|gave|touched|took)\b",
    re.I,
)
_UNKNOWING = re.compile(
    r"\bwithout\s+(?:them|him|her|(?:the|their|his|her)\s+[\w-]+)\s+(?:knowing|noticing|realis|realiz|finding\s+out"
    r"|suspecting)\w*|\bso\s+(?:that\s+)?(?:they|he|she)\s+(?:never|don['’]?t|doesn['’]?t|won['’]?t|can['’]?t)\s+"
    r"(?:finds?\s+out|know|realise|realize|notice|remember|suspect)\w*|\bbefore\s+(?:they|he|she)\s+(?:realise|realize"
    r"|notice|know|finds?\s+out|works?\s+out)\w*",
    re.I,
)


# the asker's act kept from blame: "so nobody blames me", "without anyone blaming us"
_BLAME_DEFLECTED = re.compile(
    r"\b(?:nobody|no\s+one|noone|no-one)\s+(?:\w+\s+)?blames?\s+(?:me|us)\b|\bwithout\s+(?:anyone|anybody)\s+blaming"
    r"\s+(?:me|us)\b|\bnot\s+(?:get\s+)?blamed\s+on\s+(?:me|us)\b",
    re.I,
)


def _acted_on(text: str) -> tuple[str, str] | None:
    """(the asked act's verb, the text from the agent on) when the asker (or "you") acts on a person or anyone; the
    parse of `care_act`'s parts 1 and 2, with "someone" a person acted on."""
    parsed = asked_act(text)
    if parsed is None:
        return None
    verb, acted_on = parsed
    if re.search(r"\b(?:myself|ourselves|yourself|yourselves)\b", text, re.I):
        return None
    # or a person of the asker's circle (harm_goal's WordNet people: "my brother", "my mother-in-law")
    if not (_PERSON.search(acted_on) or _ANYONE_ACTED_ON.search(acted_on) or names_a_person(tokens_of(acted_on))):
        return None
    return verb, acted_on


def _a_person(words: str) -> bool:
    """Whether a causative's or a preventing verb's object names a person ("them", "the baby", "someone")."""
    return bool(_PERSON.fullmatch(words) or _ANYONE_ACTED_ON.fullmatch(words)) or names_a_person(tokens_of(words))


def harm_act(text: str) -> str | None:
    """The result of harm the asker's act on a person states, by its part of the reading above ("outcome",
    "blameless", "end", "silenced", "unknowing", "tampered"), or None."""
    if tampered(text):
        return "tampered"
    parsed = _acted_on(text)
    if parsed is None:
        return None
    _, acted_on = parsed
    # "to" is an infinitive's mark as often as a purpose's ("a patient expected to die", "asks me to backdate a sick
    # note"): here the outcome is governed by the act's own purpose or cause ("so", "enough", "make", "would", "for it
    # to")
    words = tokens_of(acted_on)
    tokens = [
        "_" if token == "to" and "for" not in words[max(0, at - 2) : at] else token for at, token in enumerate(words)
    ]
    if not ingestion_reported(text) and (
        goal_outcome(tokens) or HEART_STOPPED.search(acted_on) or belief_induced(words)
    ):
        return "outcome"
    if attributed_blameless(words) or _BLAME_DEFLECTED.search(acted_on):
        return "blameless"
    # a habit ended by something given in secret is still covert dosing: "by slipping something in his coffee"
    given_unknowing = bool(_HIDDEN.search(text) or _IN_FOOD.search(text) or _PUT_INTO.search(text))
    if any(_a_person(m.group("who")) and (given_unknowing or not _habit_or_symptom(m.group("ceased")))
           for m in _CAUSED_TO_CEASE.finditer(acted_on)):
        return "end"
    if any(_a_person(m.group("who")) and _TOLD.search(m.group("rest")) for m in _SILENCED.finditer(acted_on)):
        return "silenced"
    if _UNKNOWING.search(acted_on) and not covert_administration_as_law(text):
        return "unknowing"
    return None


def harm_act_kinds(text: str) -> list[tuple[str, str]]:
    """(category, kind) of the harm reading of the act in one form of a text."""
    found = harm_act(text)
    return [(HARMFUL, f"harm_act_{found}")] if found else []
