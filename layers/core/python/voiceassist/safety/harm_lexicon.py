"""The outcome words and the people of harm_goal.py's readings, looked up in the words of a text: WordNet 3.0's
(Princeton University) lemmas, sourced by voiceassist_local/evaluation/harm_outcome_data.py into
`_data/safety/harm_outcomes.tsv` (harm, injury, life, person and the other kinds: harm_goal.py names the synsets), read
with English inflection undone ("killed", "dying"), and a person of the asker's circle named in the text."""

from __future__ import annotations

import re
from functools import lru_cache

from voiceassist.settings import PACKAGE_DIR

OUTCOMES_FILE = PACKAGE_DIR / "_data" / "safety" / "harm_outcomes.tsv"

_TOKEN = re.compile(r"[a-z]+(?:['’][a-z]+)?(?:-[a-z]+)*")
_ANYONE = frozenset({"someone", "somebody", "someone's", "somebody's", "someone’s", "somebody’s"})
_OWNER = frozenset({"my", "our", "his", "her", "their", "someone's", "somebody's", "someone’s", "somebody’s"})
# a child named by age, "my 2 year old" (the digit is not a token) or "my two-year-old"
_AGE_UNITS = frozenset({"year", "years", "month", "months", "week", "weeks"})
_AGED = re.compile(r"^(?:[a-z]+-)?(?:year|month|week)s?-olds?$")


@lru_cache(maxsize=1)
def outcome_words() -> dict[str, str]:
    """word -> "harm", "injury", "life" or "person", from `_data/safety/harm_outcomes.tsv` (WordNet 3.0)."""
    words: dict[str, str] = {}
    for line in OUTCOMES_FILE.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            word, kind = line.split("\t")
            words[word] = kind
    return words


def inflection_bases(word: str) -> list[str]:
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
        for base in inflection_bases(tokens[at]):
            # a hyphenated entry written with spaces too ("post mortem", "mother in law")
            kind = words.get(" ".join([base, *rest])) or (words.get("-".join([base, *rest])) if rest else None)
            if kind is not None:
                return kind, length
    return None, 1


def outcome_kind(tokens: list[str], at: int) -> str | None:
    """The lexicon kind of the entry starting at token `at` (session 18, harm18: act_reader's tampering reading)."""
    return _kind(tokens, at)[0]


def names_harm(text: str) -> bool:
    """Whether `text` names a lethal outcome of the lexicon ("cardiac arrest", "suffocate", "coma"), in any role (an
    injury is not one: "bruises that appear accidental" is a safeguarding question)."""
    tokens = _TOKEN.findall(text.lower())
    return any(_kind(tokens, at)[0] == "harm" for at in range(len(tokens)))


def tokens_of(text: str) -> list[str]:
    """The text's lower-cased word tokens, as the readings here split them."""
    return _TOKEN.findall(text.lower())


def names_a_person(tokens: list[str]) -> bool:
    """Someone of the asker's circle: "my nan's", "her husband", "my ex's kid", or anyone ("someone's"); also the act
    reader's person (session 17, harmreg17)."""
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
