"""Harm sought as the goal of a request: the structure of a harmful request rather than its words.

A clinician and an attacker name the same drugs, doses and outcomes ("insulin", "cardiac arrest", "would not wake
up"). What differs is the role the outcome plays: a clinician asks how to manage, recognise or prevent it in a
patient; a harmful request asks for the means (how much, which drug, what could I add) of which the outcome is the
goal, for a person of the asker's own circle. `harm_sought` reads one sentence for the three parts together:

1. a request for means: "how much", "how many", "what dose / volume / amount", "which drugs", "what could I add",
   "the easiest / quietest way", "where ... should";
2. the outcome as its goal: a harmful outcome governed by a modal or a purpose ("would stop someone's heart",
   "enough to kill", "so he bleeds", "need to not wake up", "wouldn't recover"), never negated ("so that it is not
   fatal", "without killing the patient"), nor an outcome that has already happened to someone (an ingestion
   reported: "took", "swallowed", "overdosed": a toxicology question);
3. a person of the asker's circle in the text, named as theirs ("my mother-in-law", "my ex's kid", "her", after "my
   husband's") or anyone ("someone's heart"): a clinician names a patient, not a relative of their own.

A harm short of injury (a seizure, vomiting, a bleed, a hypo: "illness") is sought only with the asker acting ("what
can I give him that would mimic seizures"). `concealed_act_sought` reads a request for means whose goal is the
concealment itself, whatever the act: a check (an audit, an inspection, a verification, an examination of the dead)
that is not to find it ("without the balance check catching it", "so the mark won't be noticed at autopsy"), or its
record written to seem otherwise ("chart it so the delay looks unavoidable").

The outcome words and the people are WordNet 3.0's (Princeton University), sourced by
voiceassist_local/evaluation/harm_outcome_data.py into `_data/safety/harm_outcomes.tsv`: the lemmas of kill.v.01,
die.v.01, poison.v.02, suffocate.v.01, fatal.a.01, lethal.s.01, death.n.01, cardiac_arrest.n.01 and
unconsciousness.n.01 and their hyponyms (harm, lethal), of injure.v.01 and faint.v.01 (injury); of wake_up.v.02,
survive.v.01, recover.v.02 and breathe.v.01, harmful when negated (life); and of relative.n.01, spouse.n.01,
lover.n.01, friend.n.01, colleague.n.01, neighbor.n.01, child.n.01, baby.n.01 and foreman.n.01 (person). The
request, goal and negation words are English's closed classes (modals, purpose connectives, negators,
interrogatives), not topic words.
"""

from __future__ import annotations

import re

from voiceassist.safety.concealed_act import concealed_act_sought, hidden_from_examination, left_off_record
from voiceassist.safety.harm_lexicon import _TOKEN, _kind, names_a_person
from voiceassist.safety.harm_request import (
    _ASKER,
    _CONDITION,
    _GOAL,
    _INGESTED,
    _MEANS,
    _NEGATOR,
    _QUANTITY,
    _SENTENCE,
    goal_outcome,
)
from voiceassist.safety.self_harm_disclosure import self_harm_disclosed
from voiceassist.safety.signals import HARMFUL, SELF_HARM

# "stop someone's heart": cardiac_arrest.n.01's gloss ("failure of the ventricles of the heart to contract")
# the heart of anyone, "a patient's" too; a heart "racing" or "from pounding" is a rhythm to calm
# (session 14: with any determiner and up to two words before the owner, "stop an elderly patient's heart", and "the
# heart of"; a heart "rate" or "rhythm" is a measurement to control)
HEART_STOPPED = re.compile(r"\bstop(?:s|ped|ping)?\s+(?:(?:the|his|her|their|a|an|my|our|this|that)\s+)?(?:[\w-]+\s+)"
                           r"{0,2}?(?:the|his|her|their|a|someone['’]s|somebody['’]s|\w+['’]s)\s+heart\b(?!\s+(?:from|rate"
                           r"|rates|rhythm|\w+ing)\b)|\bstop(?:s|ped|ping)?\s+the\s+heart\s+of\b"
                           # (session 18) the stopped heart as the act's purpose: "so her heart stops" (not adenosine's
                           # "so the heart stops briefly": a person's heart, for good)
                           r"|\bso\s+(?:that\s+)?(?:his|her|their|\w+['’]s)\s+heart\s+(?:stops|will stop|would stop"
                           r"|arrests|gives out)\b(?!\s+(?:briefly|momentarily|transiently|for (?:a|a few|two|\d+)\s+"
                           r"(?:second|moment)))", re.I)
# a cause asked, not a means: "what could / might" with no one of the asker's side acting ("what could I" is a means)
_CAUSE_ASKED = re.compile(r"\bwhat (?:could|can|would|might)\b(?! (?:i|we)\b)", re.I)


# a clinician's false belief as the goal of the asker's act, fabricated or induced illness (RCPCH 2021, "Perplexing
# presentations and fabricated or induced illness in children"; DSM-5's factitious disorder imposed on another): a
# purpose, the clinicians (ILO ISCO-08's health professionals, as input_screen's cast) and a verb of believing within
# a few words, "so the doctors think it's a kidney problem"
_CLINICIANS = frozenset({"doctor", "doctors", "doctor's", "doctors'", "gp", "gps", "nurse", "nurses", "physician",
                         "physicians", "paediatrician", "paediatricians", "pediatrician", "pediatricians", "consultant",
                         "consultants", "specialist", "specialists", "medics", "hospital", "clinicians", "clinician"})
_BELIEVE = frozenset({"think", "thinks", "believe", "believes", "suspect", "suspects", "assume", "assumes",
                      "diagnose", "diagnoses", "conclude", "concludes"})
# what they are to believe is an illness: a disorder named, or had ("he has reflux"); "so the doctors think she is
# thriving" is a parent's hope
_DISORDER = frozenset({"has", "have", "had", "got", "problem", "disease", "illness", "condition", "disorder",
                       "syndrome", "allergy", "infection", "sick", "ill", "unwell", "something", "wrong"})


# (session 14) A death or a harm to be put down to a cause no one is blamed for: the short-form conclusions of an
# inquest that name none (the Coroners (Inquests) Rules 2013, Form 2's notes: "accident or misadventure", "natural
# causes", "suicide"; with "old age", a natural cause of death the GRO's guidance on certifying deaths accepts), read
# after a verb of attributing or of seeming within four words: WordNet 3.0's attribute.v.01 (impute, ascribe, assign,
# attribute) and its troponym blame.v.03, the phrasal attributions WordNet does not list ("put / set down to", "chalk
# up to", "write off as", "pass off as", "mistake for", a death "ruled", "recorded" or "certified as") and look.v.02's
# seeming ("look", "seem", "appear", "like")
_BLAMELESS = frozenset({"natural", "naturally", "accident", "accidents", "accidental", "accidentally", "misadventure",
                        "suicide", "old"})
_ATTRIBUTED = frozenset({"attribute", "attributed", "ascribe", "ascribed", "impute", "imputed", "assign", "assigned",
                         "blame", "blamed", "put", "set", "chalk", "chalked", "write", "written", "wrote", "pass",
                         "passed", "passes", "mistake", "mistaken", "taken", "ruled", "recorded", "certified",
                         "classed", "look", "looks", "looked", "seem", "seems", "seemed", "appear", "appears",
                         "appeared", "like"})
# (session 14) The death made certain: WordNet 3.0's surely.r.01 (surely, certainly, sure, for sure), definitely.r.01
# (decidedly, unquestionably, definitely), reliably.r.01 (faithfully, dependably, reliably), certain.a (00340239:
# "certain to occur", certain, sure) and guarantee.v.02 ("make certain of": guarantee, ensure, insure, assure), read
# within four words before a lethal outcome sought; a clinician asks what dose is toxic or may be fatal, not one that is
# sure to be
_CERTAIN = frozenset({"surely", "certainly", "sure", "definitely", "decidedly", "unquestionably", "reliably",
                      "dependably", "certain", "guaranteed", "guarantee", "guarantees", "ensure", "ensures", "assured",
                      "insure", "infallibly", "always"})
# guarantee.v.02 ("make certain of"): the verbs, and "make sure" (read in death_made_certain)
_MAKING_CERTAIN = frozenset({"ensure", "ensures", "guarantee", "guarantees", "insure", "assure"})


def attributed_blameless(tokens: list[str]) -> bool:
    """A cause no one is blamed for (natural causes, an accident, suicide, old age) within four words after a verb of
    attributing or seeming: "put down to natural causes", "so it looks accidental", "recorded as suicide"."""
    for at, token in enumerate(tokens):
        if token in _BLAMELESS and (token != "old" or tokens[at + 1: at + 2] == ["age"]) and any(
                t in _ATTRIBUTED for t in tokens[max(0, at - 4): at]):
            return True
    return False


def death_made_certain(tokens: list[str]) -> bool:
    """A lethal outcome sought (governed by a modal or a purpose, not negated) with a word of certainty within four
    words before it: "would be a guaranteed lethal overdose", "would reliably kill", "surely be fatal"."""
    for at in range(len(tokens)):
        kind, _ = _kind(tokens, at)
        if kind != "harm":
            continue
        before = tokens[max(0, at - 5): at]
        # (session 16) guarantee.v.02's verbs of making certain govern the outcome themselves ("to make sure the
        # reaction is fatal", "ensure it is lethal"), as a modal does
        governed = any(t in _GOAL for t in before[1:]) or any(
            t in _MAKING_CERTAIN or (t == "sure" and i > 0 and before[i - 1] in ("make", "makes"))
            for i, t in enumerate(before))
        if governed and not any(t in _NEGATOR or t in _CONDITION for t in before) and any(
                t in _CERTAIN for t in tokens[max(0, at - 4): at]):
            return True
    return False


def belief_induced(tokens: list[str]) -> bool:
    """A clinician's belief in an illness as the goal: a purpose ("so", "so that", "to make"), then within four words a
    clinician, within two more a verb of believing and an illness named or had ("so the doctors think it's a kidney
    problem", "so the GP believes he has reflux")."""
    for at, token in enumerate(tokens):
        if token not in ("so", "make", "makes"):
            continue
        rest = tokens[at + 1: at + 7]
        for i, word in enumerate(rest[:4]):
            believing = [j for j in range(i + 1, min(i + 3, len(rest))) if rest[j] in _BELIEVE]
            if word in _CLINICIANS and believing and any(
                    t in _DISORDER or _kind([t], 0)[0] == "illness" for t in tokens[at + 2 + believing[0]: at + 8
                                                                                   + believing[0]]):
                return True
    return False


def _self_goal(tokens: list[str]) -> bool:
    """The asker's own negated act of living as the goal: "(to be sure) I don't wake up", "so I never wake up"."""
    for at in range(len(tokens)):
        kind, length = _kind(tokens, at)
        if kind == "life" and goal_outcome(tokens[max(0, at - 5): at + length + 1]):
            before = tokens[max(0, at - 3): at]
            if "i" in before:
                return True
    return False


def harm_sought(text: str) -> bool:
    """Whether a sentence of `text` asks for the means to a harmful outcome for a person of the asker's circle, or for
    anyone (a patient too) when the harm is to pass unseen at an examination of the dead."""
    if _INGESTED.search(text):
        return False
    all_tokens = _TOKEN.findall(text.lower())
    # (session 14) or anyone when the harm is to be put down to natural causes, an accident or suicide
    someone = (names_a_person(all_tokens) or hidden_from_examination(all_tokens) or left_off_record(all_tokens)
               or attributed_blameless(all_tokens))
    for sentence in _SENTENCE.findall(text):
        if not _MEANS.search(sentence):
            continue
        tokens = _TOKEN.findall(sentence.lower())
        # (session 14) a quantity sought to make a death certain, for anyone: "how many would be a guaranteed lethal
        # overdose" ("which drug combinations reliably cause fatal arrhythmias" asks which, not how much)
        if _QUANTITY.search(sentence) and death_made_certain(tokens):
            return True
        if not someone:
            continue
        if HEART_STOPPED.search(sentence):
            return True
        # an illness made up or induced in someone of the asker's circle so that clinicians believe it, the asker acting
        if _ASKER & set(tokens) and names_a_person(tokens) and belief_induced(tokens):
            return True
        goal = goal_outcome(tokens)
        # "what could make my grandad faint / collapse" with no one acting is a carer asking the cause
        if goal in ("injury", "illness") and not _MEANS.search(_CAUSE_ASKED.sub(" ", sentence)):
            continue
        # a harm short of injury (a seizure, vomiting, a bleed, a hypo) is sought only with the asker acting
        if goal == "illness" and not _ASKER & set(tokens):
            continue
        if goal:
            return True
    return False


def self_harm_sought(text: str) -> bool:
    """Whether a sentence asks for the means ("how many ... would I need to take") to the asker's own death read as
    a negated act of living ("to be sure I don't wake up"), with no one else of the asker's circle named."""
    if _INGESTED.search(text) or harm_sought(text):
        return False
    return any(_MEANS.search(sentence) and _self_goal(_TOKEN.findall(sentence.lower()))
               for sentence in _SENTENCE.findall(text))


def harm_goal_kinds(text: str) -> list[tuple[str, str]]:
    """(category, kind) of the goal reading in one form of a text."""
    if harm_sought(text):
        return [(HARMFUL, "harm_sought")]
    if concealed_act_sought(text):
        return [(HARMFUL, "concealed_act_sought")]
    if self_harm_sought(text):
        return [(SELF_HARM, "self_harm_sought")]
    return [(SELF_HARM, "self_harm_disclosed")] if self_harm_disclosed(text) else []
