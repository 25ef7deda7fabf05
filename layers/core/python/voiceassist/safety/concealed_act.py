"""A concealed act sought: a request for the means of an act whose goal is the concealment itself, whatever the act
(harm_goal.py's `concealed_act_sought`): a check (an audit, an inspection, a verification, an examination of the dead:
WordNet's nouns of the lexicon) that is not to find it, or its record written to seem otherwise or kept off."""

from __future__ import annotations

import re

from voiceassist.safety.harm_lexicon import _TOKEN, _kind
from voiceassist.safety.harm_request import (
    _BE_NEGATED,
    _BY_ASKER,
    _INGESTED,
    _LIFE_NEGATOR,
    _MEANS,
    _ORDERED,
    _SENTENCE,
)

# an examination of the dead (WordNet's autopsy.n.01, toxicology.n.01) that is not to find the harm: "not show up at
# post-mortem", "without the autopsy finding it", "undetectable on toxicology"
_UNSEEN = re.compile(r"^un(?:detect|trace|notice|seen)", re.I)
# what a concealed act is, when a check is not to find it: a pronoun for it as the object found, or the finding said
# of it in the passive ("catching it", "won't be noticed"); "so the inspection doesn't find any problems" is ward work
_IT = frozenset({"it", "them", "this", "that", "me", "us"})
_PASSIVE = frozenset({"be", "been", "being", "get", "gets", "got", "getting", "is", "are", "was", "were"})
_PURPOSE = frozenset({"so", "that", "to", "and"})
# a record left without the act ("without anything on the drug chart", "without it going in the notes"): WordNet's
# record nouns of the lexicon (record, log, chart) and "notes", within five words after "without"
_LEFT_OFF = frozenset({"anything", "it", "this", "that", "any", "a", "trace", "them"})


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
