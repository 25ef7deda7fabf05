"""Tampering (session 18, harm18; act_harm.py's part f): the asker swaps, dilutes, alters or disables a medicine, a
device, a result, a record, a label or a setting, and the act's stated result is that someone is harmed or not
treated."""

from __future__ import annotations

import re

from voiceassist.safety.act_reader import MAX_WORDS
from voiceassist.safety.harm_lexicon import inflection_bases, outcome_kind, tokens_of
from voiceassist.safety.harm_request import goal_outcome, ingestion_reported

# (session 18, harm18) f. tampering: the asker swaps, dilutes, alters or disables a medicine, a device, a result, a
# record, a label or a setting, and the act's stated result is that someone is harmed or not treated. The verbs are
# WordNet 3.0's lemmas of swap.v.01 (trade, swap, swop, switch), substitute.v.01 (substitute, replace, interchange,
# exchange), change.v.01 (change, alter, modify), alter.v.04 and falsify.v.01 (falsify, distort), fudge.v.01 (fudge,
# manipulate, fake, cook, wangle, misrepresent), forge.v.03 (forge, counterfeit), dilute.v.01 and adulterate.v.01
# (dilute, thin, adulterate, debase; "reduce", "cut", "load" and "stretch" are a dose's or a bandage's words),
# tamper.v.01 (tamper, fiddle, monkey), sabotage.v.01 (sabotage, undermine, subvert), disable.v.01 (disable,
# disenable, incapacitate), empty.v.01, doctor.v.01 (doctor, sophisticate), switch_off.v.01 (turn off, switch off),
# and label.v.01 with English's re- and mis- ("relabel", "mislabel"); "make it fail" causes the failure itself. A
# clinician swaps, changes, dilutes and replaces every day ("swap a patient from warfarin to apixaban", "dilute insulin
# for a neonatal infusion"), so the act alone is nothing: the result after it decides, one of
#   - a failure when it is needed: WordNet's fail.v.04 ("stop operating or functioning": fail, give out, break
#     down), malfunction.v.01, "useless", or a function negated ("doesn't work", "won't shock"), beside a need ("when
#     she needs it", "when it's needed", "at his next attack") or as the act's purpose ("so it fails"); a failure
#     negated ("so it doesn't fail") is care;
#   - an outcome the person gets: harm_goal's outcomes (WordNet's harm, injury, illness and ill_health.n.01's
#     disorders, "lactic acidosis") after a verb of getting or undergoing ("she gets", "he goes", "ends up", "starts",
#     "has"), or governed as `goal_outcome` reads them; or the person ending up in hospital;
#   - the person not treated: a clinician's act negated after the act's purpose ("so the registrar doesn't treat
#     it"), or a harmful treatment carried on ("so her metformin carries on"), or the wrong one given ("gives the
#     wrong one");
#   (a time to harm asked, "if I swapped her metformin for glibenclamide how long before she went hypo", is not read:
#   "if I switch him from carbamazepine, how long before he starts fitting" asks a risk in the same words).
_TAMPER_VERBS = frozenset({
    "trade", "swap", "swop", "switch", "substitute", "replace", "interchange", "exchange", "change", "alter", "modify",
    "falsify", "distort", "fudge", "manipulate", "fake", "cook", "wangle", "misrepresent", "forge", "counterfeit",
    "dilute", "thin", "adulterate", "debase", "tamper", "fiddle", "monkey", "sabotage", "undermine", "subvert",
    "disable", "disenable", "incapacitate", "empty", "doctor", "sophisticate", "label", "relabel", "mislabel",
})
# the asker (or "you") as the act's agent, or the act asked for ("how to", "the best way to", "if I swapped")
_TAMPER_AGENT = frozenset({"i", "we", "you", "i'd", "i'll", "i’d", "i’ll", "to"})
_TURNED_OFF = re.compile(r"\b(?:turn|turns|turned|turning|switch|switches|switched|switching)\s+(?:off\b|\S+(?:\s+\S+)?"
                         r"\s+off\b)", re.I)
_MADE_TO_FAIL = re.compile(r"\bmak(?:e|es|ing)\s+(?:[\w'’-]+\s+){1,3}?(?:fail|malfunction|stop\s+working|not\s+work"
                           r"|useless)\b", re.I)
_FAILURE = re.compile(
    r"(?<!\bnot\s)(?<!n['’]t\s)\b(?:fail|fails|failed|failing|give\s+out|gives\s+out|break\s+down|breaks\s+down"
    r"|malfunctions?|misfunctions?|useless|dud)\b"
    r"|\b(?:does|do|did|will|would|wo|is|was|ca|can|could)(?:n['’]?t|\s+not)\s+(?:work|shock|fire|deliver|inject"
    r"|alarm|go\s+off|pump|infuse)\b|\bstops?\s+working\b",
    re.I,
)
_FAILURE_NEGATED = re.compile(r"\b(?:not|never|n['’]t)\s+(?:\w+\s+)?(?:fail|break\s+down|malfunction|stop\s+working)"
                              r"|\bwithout\s+(?:it\s+)?(?:failing|breaking)", re.I)
_NEEDED = re.compile(
    r"\bwhen\s+(?:it['’]s|it\s+is|they['’]re|they\s+are)\s+needed\b|\bwhen\s+(?:she|he|they|someone|somebody|you"
    r"|the\s+\w+|(?:his|her|their)\s+\w+)\s+(?:needs?|gets?|has|have|goes|next)\b|\bnext\s+(?:attack|episode|fit"
    r"|seizure|hypo|reaction|exacerbation)\b|\bin\s+an?\s+emergency\b|\bso\s+(?:that\s+)?(?:it|they|the\s+\w+)\s+"
    r"(?:fails?|(?:does|do|will|wo)(?:n['’]?t|\s+not))\b",
    re.I,
)
_GETS = frozenset({"gets", "get", "got", "getting", "goes", "go", "went", "gone", "going", "has", "have", "had",
                   "having", "starts", "start", "started", "starting", "develops", "develop", "developed",
                   "suffers", "suffer", "suffered", "ends", "end", "ended"})
_HOSPITAL = re.compile(r"(?<!n['’]t\s)(?<!not\s)(?<!never\s)\b(?:ends?|ended|winds?|wound|lands?|landed)\s+up\s+"
                       r"(?:back\s+)?in\s+(?:hospital|a\s*&\s*e"
                       r"|icu|itu|intensive\s+care|resus|the\s+(?:hospital|icu|morgue|mortuary))\b", re.I)
_UNTREATED = re.compile(
    r"\bso\s+(?:that\s+)?(?:the\s+(?:\w+\s+)?\w+|they|he|she|nobody|no\s+one|doctors?|nurses?)\s+(?:does|do|did|will|would"
    r"|wo)(?:n['’]?t|\s+not)\s+(?:treat|act|escalate|give|notice|see|call|check|start|stop|pick)\w*"
    r"|\bso\s+(?:that\s+)?(?:nobody|no\s+one)\s+(?:treats|acts|escalates|gives|notices|sees|calls|checks|starts)\b"
    r"|\b(?:gets?|is|was)\s+discharged\b|\bcarr(?:y|ies|ied)\s+on\b|\b(?:gives?|gets?|given|administers?)\s+"
    r"(?:\w+\s+)?(?:the\s+)?wrong\b|\b(?:gets?|given)\s+(?:far\s+|way\s+|much\s+)?too\s+much\b",
    re.I,
)
# the clipped "hypo" of hypoglycaemia, and a fit (WordNet's seizure.n.01 as the ward says it)
_SHORT_ILLNESS = frozenset({"hypo", "hypos", "fitting", "fit", "fits", "arrest", "arrests"})


_NOT = frozenset({"not", "never", "no", "doesn't", "don't", "won't", "didn't", "isn't", "wasn't", "can't", "couldn't",
                  "wouldn't", "doesnt", "dont", "wont", "didnt", "isnt", "wasnt", "cant", "couldnt", "wouldnt",
                  "doesn’t", "don’t", "won’t", "didn’t", "can’t", "couldn’t", "wouldn’t", "without", "avoid"})


def _outcome_got(tokens: list[str]) -> bool:
    """Whether a verb of getting or undergoing, not negated, governs an outcome of harm_goal's lexicon within three
    words after it ("she gets lactic acidosis", "he went hypo", "starts fitting"; not "so she doesn't get an
    infection")."""
    for at, token in enumerate(tokens):
        if token in _GETS and not _NOT & set(tokens[max(0, at - 3): at]) and tokens[at + 1: at + 2] != ["less"] and (
                tokens[at + 1: at + 2] not in (["fewer"], ["no"], ["reduced"], ["lower"])):
            for step in range(1, 4):
                if at + step < len(tokens):
                    if tokens[at + step] in _SHORT_ILLNESS:
                        return True
                    if outcome_kind(tokens, at + step) in ("harm", "injury", "illness", "disorder"):
                        return True
    return False


def _tamper_act(text: str) -> str | None:
    """The text after the asker's act of tampering (the verbs above, the asker or "to" before it within four words),
    or None."""
    tokens = list(re.finditer(r"[a-z]+(?:['’][a-z]+)?", text.lower()))
    for at, token in enumerate(tokens):
        if any(base in _TAMPER_VERBS for base in inflection_bases(token.group())) and any(
                t.group() in _TAMPER_AGENT for t in tokens[max(0, at - 4): at]):
            return text[token.start():]
    for pattern in (_TURNED_OFF, _MADE_TO_FAIL):
        found = pattern.search(text)
        if found and re.search(r"\b(?:i|we|you|to)\s+(?:\S+\s+){0,3}$", text[: found.start()], re.I):
            return text[found.start():]
    return None


def tampered(text: str) -> bool:
    """Whether the asker swaps, dilutes, alters or disables something and the stated result is harm or no treatment
    (part f above)."""
    if len(text.split()) > MAX_WORDS:
        return False
    after = _tamper_act(text)
    if after is None:
        return False
    failed = _FAILURE.search(after) and not _FAILURE_NEGATED.search(after) and (
        _NEEDED.search(after) or _MADE_TO_FAIL.search(after))
    # the act's stated result, after its purpose ("so", "so that"): what the person gets, or that they go untreated
    purpose = re.search(r"\bso\b(?P<result>.*)", after, re.I | re.S)
    result = after[purpose.start():] if purpose else ""
    return bool(
        failed
        or (goal_outcome(tokens_of(after)) and not ingestion_reported(text))
        or _outcome_got(tokens_of(result))
        or _HOSPITAL.search(result)
        or _UNTREATED.search(result)
    )
