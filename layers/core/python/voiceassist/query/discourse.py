"""What a quoted sentence needs around it, and what is never quoted (the extractive composer's rules).

- A sentence that continues the one before it cannot stand alone: "Repeat every 5 to 15 minutes if symptoms
  persist" is about the drug its antecedent names, "If this fails, ..." about the treatment before it. Such a
  sentence opens with an anaphoric pronoun or determiner ("it", "this", "these"), a discourse connective
  ("then", "otherwise", "however", "also"), or a bare instruction to do again ("repeat", "continue") —
  the closed classes of English grammar that refer back (Halliday and Hasan, "Cohesion in English", 1976:
  reference, conjunction). Quoted, it comes right after its antecedent, which is quoted too.
- Document furniture is never clinical content: disclaimers ("not medical advice", "SAMPLE CONTENT"),
  copyright and licence lines, page footers ("Page 2 of 3"), navigation ("Home | Index").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

_REFERS_BACK = re.compile(
    r"^[\"'(\[]*(?:it|its|this|these|that|those|they|them|such|then|otherwise|however|also|alternatively|"
    r"thereafter|afterwards|again|repeat|repeated|continue|if (?:this|these|that|it|they|so|not|symptoms|there is no)"
    r"|in (?:this|that|these) (?:case|cases|situation)|if (?:\w+ )?(?:fails|persists?))\b", re.I)
_FURNITURE = re.compile(
    r"\b(?:not (?:medical advice|for clinical use)|sample content|for demonstration|all rights reserved|"
    r"copyright|\(c\) \d{4}|©|licen[cs]ed under|page \d+ of \d+|terms of use|privacy policy|disclaimer|"
    r"written for the [\w ]+ project)\b|^(?:home|index|menu|contents)(?:\s*\|\s*\w+)+", re.I)

T = TypeVar("T")


def refers_back(sentence: str) -> bool:
    """Whether the sentence continues the one before it ("Repeat the dose ...", "If this fails, ...")."""
    return bool(_REFERS_BACK.match(sentence.strip()))


def is_furniture(sentence: str) -> bool:
    """Whether the sentence is a disclaimer, a copyright or licence line, a page footer or navigation."""
    return bool(_FURNITURE.search(sentence))


def with_antecedents(chosen: Sequence[T], antecedent: Callable[[T], T | None], limit: int) -> list[T]:
    """`chosen` (best first) with each sentence that refers back placed right after its antecedent, the
    antecedent added when it was not chosen; a sentence whose antecedent does not fit within `limit` is left
    out rather than quoted alone."""
    ordered: list[T] = []
    for item in chosen:
        if item in ordered:
            continue
        chain = [item]
        while (before := antecedent(chain[0])) is not None and before not in ordered and before not in chain:
            chain.insert(0, before)
        before = antecedent(chain[0])
        if before is not None and before in ordered:  # attach after the antecedent already quoted
            at = ordered.index(before) + 1
            while at < len(ordered) and antecedent(ordered[at]) is ordered[at - 1]:
                at += 1
            if len(ordered) + len(chain) > limit:
                continue
            ordered[at:at] = chain
            continue
        if len(ordered) + len(chain) > limit:
            continue
        ordered.extend(chain)
    return ordered
