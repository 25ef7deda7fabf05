"""Self-harm disclosed obliquely: a lethal amount asked with the asker's own means at hand (the C-SSRS screener's
method and preparatory behaviour; the reading below)."""

from __future__ import annotations

import re

from voiceassist.safety.harm_lexicon import _ANYONE, _TOKEN, _kind, names_a_person
from voiceassist.safety.harm_request import _QUANTITY, _SENTENCE, goal_outcome

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
    if names_a_person(tokens) or _CARE_VERBS & set(tokens) or any(
            _kind(tokens, at)[0] == "person" or tokens[at] in _ANYONE for at in range(len(tokens))):
        return False
    owned = _ASKED_FOR_SELF.search(text) or any(
        m.group("what").lower() not in _NOT_A_MEDICINE and _kind([m.group("what").lower()], 0)[0] != "person"
        for m in _OF_MY.finditer(text))
    return bool(owned)
