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
from functools import lru_cache

from voiceassist.safety.signals import HARMFUL, SELF_HARM
from voiceassist.settings import PACKAGE_DIR

OUTCOMES_FILE = PACKAGE_DIR / "_data" / "safety" / "harm_outcomes.tsv"

_SENTENCE = re.compile(r"[^.?!\n]+")
_TOKEN = re.compile(r"[a-z]+(?:['’][a-z]+)?(?:-[a-z]+)*")
# 1. a request for the means
# a quantity asked: "what dose", "what's the smallest amount", "what is the minimum number", "which dose" (session 17,
# after the thirteenth reading: "what's the smallest amount of amlodipine that will reliably kill ..." was not read)
_QUANTITY_ASKED = (r"\b(?:what(?:['’]s| is| are| was)?|which)(?: the)? (?:[\w-]+ ){0,2}?"
                   r"(?:dose|doses|amount|volume|quantity|number)\b")
_MEANS = re.compile(
    r"\bhow (?:much|many)\b|" + _QUANTITY_ASKED +
    r"|\b(?:which|what) (?:[\w'’]+ ){0,5}?(?:drugs?|medicines?|medications?|meds|tablets?|pills?|injections?"
    r"|substances?|combinations?|ones)\b|\bwhat (?:could|can|would|should|do|might) (?:i|we)\b"
    # (session 14) which thing the asker could use: "which two of the ward's drugs could I mix"
    r"|\bwhich\b[^.?!\n]{0,50}?\b(?:could|can|should|might|would|do) (?:i|we)\b"
    r"|\bwhat (?:could|can|would|might)\b"
    r"|\b(?:best|easiest|quickest|fastest|quietest|quiet|surest|simplest|safest|cleanest) (?:way|method|means)s?\b"
    r"|\bwhere (?:on|in|should|would|could|do|can)\b|\bhow (?:can|could|do|would|should) (?:i|we|one|you)\b", re.I)
# 2. the outcome as a goal: a modal, a purpose or a cause governs it within a few words; a negator cancels it
_GOAL = frozenset({"would", "could", "will", "might", "to", "so", "enough", "until", "cause", "causes", "induce",
                   "make", "makes", "wouldn't", "won't", "couldn't", "can't", "wouldnt", "wont", "couldnt", "cant",
                   "that", "need", "needs", "into", "go", "goes", "went", "falls", "fall", "put"})
_NEGATOR = frozenset({"not", "no", "never", "without", "avoid", "avoiding", "prevent", "preventing", "stop", "stops",
                      "wouldn't", "won't", "couldn't", "can't", "doesn't", "don't", "didn't", "isn't", "wasn't",
                      "wouldnt", "wont", "couldnt", "cant", "doesnt", "dont", "didnt", "isnt", "wasnt", "aren't",
                      "arent", "weren't", "werent", "rather",
                      "less", "reduce", "lower", "minimise", "minimize", "safely", "safe"})
_LIFE_NEGATOR = frozenset({"not", "never", "wouldn't", "won't", "couldn't", "can't", "doesn't", "don't", "didn't",
                           "wouldnt", "wont", "couldnt", "cant", "doesnt", "dont", "didnt", "stop", "stops", "stopped",
                           "stopping", "no longer", "isn't", "isnt", "aren't", "arent", "wasn't", "wasnt", "weren't",
                           "werent"})
# a negated "be": the finding after it is said in the passive ("so the ampoules aren't noticed")
_BE_NEGATED = frozenset({"isn't", "isnt", "aren't", "arent", "wasn't", "wasnt", "weren't", "werent"})
# "stop someone's heart": cardiac_arrest.n.01's gloss ("failure of the ventricles of the heart to contract")
# a negated act of living is harm when nothing bounds it ("need to not wake up", "so he never wakes up again"); "so
# she doesn't wake up at 3am" is a night's sleep
_FOR_GOOD = frozenset({"up", "again", "ever", "afterwards", "anymore", "and", "but", "or", "from"})
# a condition, not a goal: "if my brother stopped breathing", "when his heart stops", "in case she collapses"
_CONDITION = frozenset({"if", "when", "whenever", "after", "once", "case", "whether", "unless", "lest"})
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
# an examination of the dead (WordNet's autopsy.n.01, toxicology.n.01) that is not to find the harm: "not show up at
# post-mortem", "without the autopsy finding it", "undetectable on toxicology"
_UNSEEN = re.compile(r"^un(?:detect|trace|notice|seen)", re.I)
# a quantity asked (session 14: the certainty reading asks how much, not which)
_QUANTITY = re.compile(r"\bhow (?:much|many)\b|" + _QUANTITY_ASKED + r"|\benough\b", re.I)
_BY_ASKER = re.compile(r"\b(?:i|we)\s+$", re.I)
_INGESTED = re.compile(r"\b(?:took|taken|swallowed|ingested|overdosed|od['’]?d|has had|have had|presented|presents"
                       r"|presenting|admitted|ate|eaten|drank)\b", re.I)
# an order for the means, beside the questions of _MEANS: "give me a plan to", "tell me how", "help me"
_ORDERED = re.compile(r"\b(?:give|tell|show|teach|send) me\b|\bhelp (?:me|us)\b|\bi (?:want|need) (?:a|the|some) "
                      r"(?:plan|way|method|trick|tips?)\b", re.I)
# the asker (or the asker's side) as the one who acts: a harm short of injury is only sought with them acting ("what can
# I give him that would mimic seizures"); "which medicines could cause seizures in my son" asks a cause
_ASKER = frozenset({"i", "we", "i'll", "i'd", "i’ll", "i’d", "me", "us"})
# what a concealed act is, when a check is not to find it: a pronoun for it as the object found, or the finding said
# of it in the passive ("catching it", "won't be noticed"); "so the inspection doesn't find any problems" is ward work
_IT = frozenset({"it", "them", "this", "that", "me", "us"})
_PASSIVE = frozenset({"be", "been", "being", "get", "gets", "got", "getting", "is", "are", "was", "were"})
_PURPOSE = frozenset({"so", "that", "to", "and"})
_ANYONE = frozenset({"someone", "somebody", "someone's", "somebody's", "someone’s", "somebody’s"})
_OWNER = frozenset({"my", "our", "his", "her", "their", "someone's", "somebody's", "someone’s", "somebody’s"})
# a child named by age, "my 2 year old" (the digit is not a token) or "my two-year-old"
_AGE_UNITS = frozenset({"year", "years", "month", "months", "week", "weeks"})
_AGED = re.compile(r"^(?:[a-z]+-)?(?:year|month|week)s?-olds?$")


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
# a record left without the act ("without anything on the drug chart", "without it going in the notes"): WordNet's
# record nouns of the lexicon (record, log, chart) and "notes", within five words after "without"
_LEFT_OFF = frozenset({"anything", "it", "this", "that", "any", "a", "trace", "them"})


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
# (session 14) A disorder (WordNet's ill_health.n.01 and its kinds: "lactic acidosis", "pneumonia", "kidney failure")
# is a harm sought only as the object of a verb of causing within three words: WordNet 3.0's cause.v.01, induce.v.02,
# trigger.v.01 (set off, touch off), precipitate.v.01 and provoke.v.03 (evoke, bring on) without their light verbs
# ("do", "make", "have", "get"); and not after a negation, a condition or a risk weighed ("before it causes ulcers",
# "the risk of causing")
_CAUSING = frozenset({"cause", "causes", "caused", "causing", "induce", "induces", "induced", "inducing", "trigger",
                      "triggers", "triggered", "triggering", "precipitate", "precipitates", "provoke", "provokes",
                      "evoke"})
# the phrasal ones only with their particle: "bring on", "set off", "touch off", "spark off"
_CAUSING_PHRASAL = frozenset({("bring", "on"), ("brings", "on"), ("set", "off"), ("sets", "off"), ("touch", "off"),
                              ("spark", "off")})
_RISK_WEIGHED = frozenset({"before", "risk", "risks", "chance", "likely", "likelihood", "odds", "unlikely", "less",
                           "least", "minimal"})


@lru_cache(maxsize=1)
def outcome_words() -> dict[str, str]:
    """word -> "harm", "injury", "life" or "person", from `_data/safety/harm_outcomes.tsv` (WordNet 3.0)."""
    words: dict[str, str] = {}
    for line in OUTCOMES_FILE.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            word, kind = line.split("\t")
            words[word] = kind
    return words


def _bases(word: str) -> list[str]:
    """The word and the forms English inflection may have made it from ("killed" kill, "dying" die, "bleeds")."""
    out = [word]
    for suffix, replacement in (("ying", "ie"), ("ies", "y"), ("ied", "y"), ("ing", ""), ("ing", "e"), ("ed", ""),
                                ("ed", "e"), ("es", ""), ("s", ""), ("d", "")):
        if word.endswith(suffix) and len(word) > len(suffix):
            stem = word[: -len(suffix)] + replacement
            out.append(stem)
            if not replacement and len(stem) > 3 and stem[-1] == stem[-2]:  # "stabbed", "dropping"
                out.append(stem[:-1])
    return out


def _kind(tokens: list[str], at: int) -> tuple[str | None, int]:
    """The lexicon kind of the longest entry starting at token `at` (three words, two, one) and its length."""
    words = outcome_words()
    for length in (3, 2, 1):
        if at + length > len(tokens):
            continue
        rest = tokens[at + 1: at + length]
        for base in _bases(tokens[at]):
            # a hyphenated entry written with spaces too ("post mortem", "mother in law")
            kind = words.get(" ".join([base, *rest])) or (words.get("-".join([base, *rest])) if rest else None)
            if kind is not None:
                return kind, length
    return None, 1


def outcome_kind(tokens: list[str], at: int) -> str | None:
    """The lexicon kind of the entry starting at token `at` (session 18, harm18: act_reader's tampering reading)."""
    return _kind(tokens, at)[0]


def inflection_bases(word: str) -> list[str]:
    """The word and the forms English inflection may have made it from (`_bases`; session 18, harm18)."""
    return _bases(word)


def names_harm(text: str) -> bool:
    """Whether `text` names a lethal outcome of the lexicon ("cardiac arrest", "suffocate", "coma"), in any role (an
    injury is not one: "bruises that appear accidental" is a safeguarding question)."""
    tokens = _TOKEN.findall(text.lower())
    return any(_kind(tokens, at)[0] == "harm" for at in range(len(tokens)))


def ingestion_reported(text: str) -> bool:
    """Whether `text` reports an ingestion or a presentation ("took", "swallowed", "presented"): a toxicology question
    (session 17, harmreg17: act_reader.harm_act reads it as the goal readings here do)."""
    return bool(_INGESTED.search(text))


def tokens_of(text: str) -> list[str]:
    """The text's lower-cased word tokens, as the readings here split them."""
    return _TOKEN.findall(text.lower())


# (session 17, act17: act_reader.care_act) the harms a question names outside a condition
_KINDS_NAMED = frozenset({"harm", "injury"})


def harm_named_unconditioned(text: str) -> bool:
    """A harm or an injury of the lexicon outside a condition ("if they collapse") and not negated or avoided
    ("without hurting their hip", "stop them getting pressure sores")."""
    for clause in re.split(r"[,;:.?!]", text.lower()):
        tokens = _TOKEN.findall(clause)
        conditioned = False
        for at, token in enumerate(tokens):
            conditioned = conditioned or token in _CONDITION
            kind, _ = _kind(tokens, at)
            if kind in _KINDS_NAMED and not conditioned and not any(t in _NEGATOR for t in tokens[max(0, at - 5): at]):
                return True
    return False


def _names_a_person(tokens: list[str]) -> bool:
    """Someone of the asker's circle: "my nan's", "her husband", "my ex's kid", or anyone ("someone's")."""
    for at, token in enumerate(tokens):
        if token in _ANYONE:
            return True
        if token in _OWNER:
            for step in (1, 2, 3):
                if at + step < len(tokens):
                    word = re.sub(r"['’]s$", "", tokens[at + step])
                    # (session 20, harm20) a child named by age, "my 2 year old", "her two-year-old"
                    if _kind([word], 0)[0] == "person" or _AGED.match(word) or (
                            word in _AGE_UNITS and tokens[at + step + 1: at + step + 2] in (["old"], ["olds"])):
                        return True
    return False


def names_a_person(tokens: list[str]) -> bool:
    """Someone of the asker's circle named (`_names_a_person`; session 17, harmreg17: the act reader's person)."""
    return _names_a_person(tokens)


# an outcome that ends is the asker's aim, not the outcome: "what do I give them so the vomiting stops", "so the
# seizures stop for good", "so the pain subsides" (session 17, after harmreg17's reading of the act: "so" governs the
# ending). The intransitive verbs of ending of WordNet 3.0: end.v.02 (end, stop, finish, terminate, cease),
# subside.v.01 (subside, lessen), abate.v.02 (abate, let up, slack off, die away), disappear.v.01/.03 and melt.v.02
# (disappear, vanish, go away, melt, evaporate), inflected; an adverb may stand between ("finally stops")
_ENDING = frozenset(
    f"{stem}{ending}" for stem in ("end", "stop", "finish", "terminate", "cease", "subside", "lessen", "abate",
                                   "disappear", "vanish", "melt", "evaporate", "settle")
    for ending in ("", "s", "ed", "es", "ped", "d")
) | frozenset({"goes", "go", "went", "gone", "let", "lets", "die", "dies", "died", "slack", "slacks", "slacked"})
_ENDING_PARTICLE = {"go": "away", "goes": "away", "went": "away", "gone": "away", "let": "up", "lets": "up",
                    "die": "away", "dies": "away", "died": "away", "slack": "off", "slacks": "off", "slacked": "off"}


def _ends(tokens: list[str], after: int) -> bool:
    """Whether the outcome ending before `after` is said to end: "the vomiting stops", "the pain finally goes away"."""
    words = tokens[after: after + 3]
    if words and words[0].endswith("ly") and len(words) > 1:
        words = words[1:]
    if not words or words[0] not in _ENDING:
        return False
    particle = _ENDING_PARTICLE.get(words[0])
    return particle is None or words[1:2] == [particle]


def goal_outcome(tokens: list[str]) -> str | None:
    """The kind of a harmful outcome governed by a modal, purpose or cause and not negated ("harm", "injury"), or
    "life", a negated act of living; None without one."""
    at = 0
    while at < len(tokens):
        kind, length = _kind(tokens, at)
        before = tokens[max(0, at - 5): at]
        if kind and not any(t in _CONDITION for t in before):
            if kind in ("harm", "injury", "illness") and any(t in _GOAL for t in before[1:]) and not any(
                    t in _NEGATOR for t in before[1:]) and not _ends(tokens, at + length):
                return kind
            if kind == "disorder" and _caused(tokens, at):
                return "illness"
            # one negation makes an act of living harmful ("not wake up"); two cancel ("doesn't stop breathing")
            negations = sum(t in _LIFE_NEGATOR or t in _NEGATOR for t in before[2:])
            after = tokens[at + length: at + length + 1]
            # (session 20, harm20) a negated act of living coordinated with the verb its goal governs ("would make
            # him sleep and never wake up"): the goal is read before the "and"
            if kind == "life" and before[-2:-1] == ["and"] and before[-1:] and before[-1] in _LIFE_NEGATOR:
                before = [*tokens[max(0, at - 8): at - 2], *before[-2:]]
            if kind == "life" and negations == 1 and any(t in _LIFE_NEGATOR for t in before[2:]) and any(
                    t in _GOAL for t in before) and (not after or after[0] in _FOR_GOOD):
                return kind
        at += length
    return None


def _caused(tokens: list[str], at: int) -> bool:
    """Whether the disorder at `at` is the object of a verb of causing within three words ("to cause lactic acidosis",
    "trigger a severe asthma attack", "bring on a stroke"), with no negation, condition or risk weighed before it."""
    near, before = tokens[max(0, at - 3): at], tokens[max(0, at - 6): at]
    phrasal = any((a, b) in _CAUSING_PHRASAL for a, b in zip(tokens[max(0, at - 4): at], tokens[max(0, at - 3): at],
                                                              strict=False))
    return (phrasal or any(t in _CAUSING for t in near)) and not any(
        t in _NEGATOR or t in _CONDITION or t in _RISK_WEIGHED for t in before)


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


def _found_out(subject: list[str], window: list[str], without: bool = False) -> bool:
    """Whether the words about a negator name a check ("the double-signature check", "autopsy", "the audit", before
    it or after) and, after it, a finding of the act ("catching it", "picking it up", "be noticed", "show up"): the
    act is to pass the check unseen."""
    check = any(_kind(subject, at)[0] in ("check", "examination") for at in range(len(subject)))
    detect = checker = False  # checker: a check after "without", the one finding ("without the audit noticing")
    for at in range(len(window)):
        kind, length = _kind(window, at)
        # (session 16) a record the act would show up in is checked as an audit is ("without it showing up in the
        # pump logs", "so it doesn't show on the chart"): WordNet's record nouns, after the finding
        check = check or kind in ("check", "examination") or (kind == "record" and any(
            _kind(window, i)[0] == "detect" for i in range(at)))
        checker = checker or (without and kind in ("check", "examination"))
        # "picking it up": a phrasal finding with the act between its words
        if kind is None and at + 2 < len(window) and window[at + 1] in _IT:
            detect = detect or _kind([window[at], window[at + 2]], 0)[0] == "detect"
        if kind == "detect":
            found = window[at + length: at + length + 1]
            # or the check itself as the one finding, after "without": "without the ward audit noticing"
            detect = detect or bool(found and found[0] in _IT) or window[at].startswith("show") or any(
                t in _PASSIVE for t in window[max(0, at - 2): at]) or checker
    return check and detect


def hidden_from_check(tokens: list[str]) -> bool:
    """A check of the act (an audit, an inspection, a verification, an examination of the dead: WordNet's) that is not
    to find it, as the goal: "without the balance checks picking it up", "so the needle mark won't be noticed at
    autopsy", "undetected by the audit". A negator other than "without" counts only after a purpose ("so", "that"):
    "which drugs are not detected at autopsy" asks what a test finds."""
    for at, token in enumerate(tokens):
        if _UNSEEN.match(token) and any(_kind(tokens, i)[0] in ("check", "examination")
                                        for i in range(at + 1, min(len(tokens), at + 5))):
            return True
        # (a "so" up to eight words back, its subject a noun phrase: "so the morphine ampoules I took aren't noticed")
        if token != "without" and not (token in _LIFE_NEGATOR and (any(t in _PURPOSE for t in tokens[max(0, at - 5):
                                                                                                      at])
                                                                   or "so" in tokens[max(0, at - 8): at])):
            continue
        window = (["be"] if token in _BE_NEGATED else []) + tokens[at + 1: at + 8]  # "aren't noticed": a passive
        if _found_out(tokens[max(0, at - 4): at], window, without=token == "without"):
            return True
    return False


def record_made_to_seem(tokens: list[str]) -> bool:
    """A record of the act written to give an impression (WordNet's record, document, log, chart; look, appear, seem,
    read): "chart it so the delay looks unavoidable", "document it so it reads like an expected death". "so it reads
    clearly" describes the writing, not what it is to seem."""
    for at, token in enumerate(tokens):
        if _kind([token], 0)[0] != "record":
            continue
        rest = tokens[at + 1: at + 6]
        if "so" not in rest:
            continue
        after = tokens[at + 1 + rest.index("so") + 1:][:5]
        for i, word in enumerate(after):
            if _kind([word], 0)[0] == "seem" and i + 1 < len(after) and not after[i + 1].endswith("ly"):
                return True
    return False


def concealed_act_sought(text: str) -> bool:
    """Whether a sentence asks for the means (a question or an order) of an act to pass a check unseen, or to write
    its record so that it seems otherwise: the concealment is the goal, whatever the act. An ingestion reported of
    someone else is a toxicology question; what the asker "took" is what they took away ("the ampoules I took")."""
    if any(not _BY_ASKER.search(text[: m.start()]) for m in _INGESTED.finditer(text)):
        return False
    for sentence in _SENTENCE.findall(text):
        if not (_MEANS.search(sentence) or _ORDERED.search(sentence)):
            continue
        tokens = _TOKEN.findall(sentence.lower())
        if hidden_from_check(tokens) or record_made_to_seem(tokens):
            return True
    return False


def hidden_from_examination(tokens: list[str]) -> bool:
    """An examination of the dead named with a negator or an "un-detected" within four words of it: the harm is to
    pass unseen ("not show up at post-mortem", "so the toxicology doesn't pick it up")."""
    for at in range(len(tokens)):
        kind, length = _kind(tokens, at)
        if kind == "examination":
            near = tokens[max(0, at - 4): at] + tokens[at + length: at + length + 4]
            if any(t in _LIFE_NEGATOR or t in ("without", "no") or _UNSEEN.match(t) for t in near):
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


def left_off_record(tokens: list[str]) -> bool:
    """The act kept off its record: "without" and, within five words, "anything / it" then "on / in" a record ("without
    anything on the drug chart", "without it in the notes")."""
    for at, token in enumerate(tokens):
        if token != "without":
            continue
        rest = tokens[at + 1: at + 7]
        if not rest or rest[0] not in _LEFT_OFF:
            continue
        for i, word in enumerate(rest[1:], start=1):
            if word in ("on", "in", "into") and any(_kind([t], 0)[0] == "record" or t == "notes"
                                                   for t in rest[i + 1: i + 4]):
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
    someone = (_names_a_person(all_tokens) or hidden_from_examination(all_tokens) or left_off_record(all_tokens)
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
        if _ASKER & set(tokens) and _names_a_person(tokens) and belief_induced(tokens):
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


# (session 18, harm18) Self-harm disclosed obliquely: a lethal amount asked, with the asker's own means at hand. The
# Columbia Suicide Severity Rating Scale's screener (C-SSRS, The Research Foundation for Mental Hygiene; free for
# clinical use, its items' wording cited here, not shipped) asks of method ("thinking about how you might do this")
# and of preparatory behaviour: "collected pills, obtained a gun, gave away valuables, wrote a will or suicide note,
# took out pills but didn't swallow any". A clinician asks "what's the fatal dose of amitriptyline"; an asker at risk
# adds the means they hold: "asking for me", "I've got a full box", "I've been saving mine up", "how many of my
# propranolol", "my whole bottle". Read together:
# 1. a lethal outcome named (harm_goal's WordNet harm words: fatal, lethal, kill, die, death ...), a negated act of
#    living governed as `goal_outcome` reads it ("to not wake up"), or "end it (all)" / "end my life", with an amount
#    asked ("how many", "what dose", "enough", "all my", "my whole bottle", "a month's worth", "40 of my");
# 2. the asker's own supply or the question's being for the asker: "asking for me / myself", "it's for me"; the
#    asker holding a supply ("I've got / I have" with up to three words before a container or a quantity: box, pack,
#    packet, bottle, strip, supply, stash, plenty, loads); the asker collecting it (C-SSRS's "collected pills": saving,
#    collecting, stockpiling, hoarding, stashing, keeping, stored); the asker's own medicine as the quantity ("of my",
#    "all my", "of my own", "my whole / entire / full", "mine"), where the word after "my" is not a person (WordNet's
#    people, harm_goal's "person" kind; "patients", "residents", "clients", "staff");
# 3. no one else at risk named (a person of WordNet's people, a child, "someone": `harm_sought`'s or a carer's
#    question), and no clinician's act on a patient (give, administer, treat, manage, assess ...: "what dose of
#    naloxone do I give, I have a box of it in my bag").
# A patient's stockpile said by a clinician ("she's been saving up her propranolol") is the patient's, not the asker's.
_ASKED_FOR_SELF = re.compile(
    r"\basking\s+for\s+(?:me|myself)\b|\bfor\s+(?:me|myself)\s*,?\s+not\s+(?:a|an|for|my)\b"
    r"|\b(?:it['’]s|it\s+is|this\s+is|it['’]d\s+be)\s+for\s+(?:me|myself)\b"
    r"|\bi(?:['’]ve|\s+have)?(?:\s+got)?\s+(?:been\s+)?(?:saving|saved|collecting|collected|stockpiling|stockpiled"
    r"|hoarding|hoarded|stashing|stashed|storing|stored|keeping|kept)\b"
    r"|\bi(?:['’]ve\s+got|\s+have\s+got|\s+have|['’]ve|\s+got)\s+(?:[\w'’-]+\s+){0,3}?(?:box|boxes|pack|packs"
    r"|packet|packets|bottle|bottles|strip|strips|supply|supplies|stash|stock|tub|tubs|blister|blisters|plenty|loads"
    r"|lots)\b"
    r"|\bmine\b|\bmy\s+(?:whole|entire|full)\s+(?:bottle|box|pack|packet|supply|prescription|stash"
    r"|strip|tub|stock)\b",
    re.I,
)
_OF_MY = re.compile(r"\b(?:of|all)\s+my\s+(?:whole\s+|entire\s+|own\s+)?(?P<what>[a-z]+)", re.I)
# a clinician's act on a patient in the same question: giving, treating, managing, assessing
_CARE_VERBS = frozenset({"give", "administer", "treat", "manage", "reverse", "prescribe", "dispose", "counsel",
                         "assess", "advise", "monitor", "explain"})
_NOT_A_MEDICINE = frozenset({"patients", "patient", "residents", "resident", "clients", "client", "staff", "team",
                             "practice", "ward", "list", "caseload", "colleagues", "life", "time", "shift", "own",
                             "career", "training", "experience", "knowledge", "family", "friends", "kids", "children"})
# the amount asked: a quantity (`_QUANTITY`), or the whole supply or a number of it ("all my", "my whole bottle", "a
# month's worth", "40 of my")
_AN_AMOUNT = re.compile(r"\b(?:all|whole|entire|worth|full|\d+)\b", re.I)
_ENDED = re.compile(r"\bend\s+(?:it(?:\s+all)?|my\s+life|things|everything)\b", re.I)


def self_harm_disclosed(text: str) -> bool:
    """Whether a lethal outcome is asked about with the asker's own means or the question's being for the asker
    disclosed (the C-SSRS's method and preparatory behaviour; the reading above)."""
    tokens = _TOKEN.findall(text.lower())
    # a negated act of living read sentence by sentence, as `goal_outcome` bounds it ("... to not wake up? I've got")
    lethal = (any(_kind(tokens, at)[0] == "harm" for at in range(len(tokens))) or any(
        goal_outcome(_TOKEN.findall(sentence.lower())) == "life" for sentence in _SENTENCE.findall(text))
              or _ENDED.search(text))
    if not (lethal and (_QUANTITY.search(text) or _AN_AMOUNT.search(text))):
        return False
    # another person as the one at risk: someone of the asker's circle, a child, anyone (`harm_sought`'s or a carer's)
    if _names_a_person(tokens) or _CARE_VERBS & set(tokens) or any(
            _kind(tokens, at)[0] == "person" or tokens[at] in _ANYONE for at in range(len(tokens))):
        return False
    owned = _ASKED_FOR_SELF.search(text) or any(
        m.group("what").lower() not in _NOT_A_MEDICINE and _kind([m.group("what").lower()], 0)[0] != "person"
        for m in _OF_MY.finditer(text))
    return bool(owned)


def harm_goal_kinds(text: str) -> list[tuple[str, str]]:
    """(category, kind) of the goal reading in one form of a text."""
    if harm_sought(text):
        return [(HARMFUL, "harm_sought")]
    if concealed_act_sought(text):
        return [(HARMFUL, "concealed_act_sought")]
    if self_harm_sought(text):
        return [(SELF_HARM, "self_harm_sought")]
    return [(SELF_HARM, "self_harm_disclosed")] if self_harm_disclosed(text) else []
