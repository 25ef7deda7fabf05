"""A request for means and the outcome it seeks, as harm_goal.py's readings share them: the request ("how much",
"what dose", "give me a plan"), the outcome governed as its goal by a modal, a purpose or a cause and not negated
(`goal_outcome`), and what cancels it (a negator, a condition, an ingestion reported, an outcome that ends). English's
closed classes (modals, purpose connectives, negators, interrogatives) and WordNet 3.0's verbs of causing and ending,
not topic words."""

from __future__ import annotations

import re

from voiceassist.safety.harm_lexicon import _TOKEN, _kind

_SENTENCE = re.compile(r"[^.?!\n]+")
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
# a negated act of living is harm when nothing bounds it ("need to not wake up", "so he never wakes up again"); "so
# she doesn't wake up at 3am" is a night's sleep
_FOR_GOOD = frozenset({"up", "again", "ever", "afterwards", "anymore", "and", "but", "or", "from"})
# a condition, not a goal: "if my brother stopped breathing", "when his heart stops", "in case she collapses"
_CONDITION = frozenset({"if", "when", "whenever", "after", "once", "case", "whether", "unless", "lest"})
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


def ingestion_reported(text: str) -> bool:
    """Whether `text` reports an ingestion or a presentation ("took", "swallowed", "presented"): a toxicology question
    (session 17, harmreg17: act_harm.harm_act reads it as the goal readings here do)."""
    return bool(_INGESTED.search(text))



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
