"""A recognizer's written forms of spoken words, put back to the form a typed question has.

Whisper writes a spoken "is" after a word as the clitic "'s" ("her e G F R is twenty five" heard as "her eGFR's
25", "the creatinine is 140" as "the creatinine's 140"), the contraction English writing uses for "is" and "has"
after any subject. Before a number it is "is": "has" takes an object or a participle ("she's had", "she's got 2"),
and a possessive before a bare number is rare in a question (none in the 1,244 typed questions of
tests/fixtures/answers). The query pipeline reads a lab value or a score after "is", "of", "=" or nothing ("eGFR is
25", "eGFR 25"; tools/calculators/question_patterns.py), not after "'s", so "eGFR's 25" left the value unread and
the question unanswered (docs/benchmarks.md, "Voice", session 11).

Runs inside the trust boundary on the transcript, after PHI detection on the transcript as heard (a span the detector
found is left as heard, as by the repair), and logs nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

# a word, its clitic "'s" (straight or typographic apostrophe), one space, then a number ("eGFR's 25", "it's 7.2")
_IS_BEFORE_NUMBER = re.compile(r"\b(?P<word>[A-Za-z][A-Za-z0-9]*)['’]s (?=\d)")


def written_forms(text: str, keep: Sequence[tuple[int, int]] = ()) -> tuple[str, list[tuple[int, int]]]:
    """The transcript with "'s" before a number written "is", and the `keep` spans (start, end: what the PHI
    detector found in the transcript as heard) moved to where they are in it; a kept span is never rewritten."""
    written, at = written_forms_at(text, keep)
    return written, [(at(start), at(end)) for start, end in keep]


def written_forms_at(text: str, keep: Sequence[tuple[int, int]] = ()) -> tuple[str, Callable[[int], int]]:
    """`written_forms`' transcript, and where an offset in the transcript as heard is in it."""
    pieces: list[str] = []
    moved: list[tuple[int, int]] = []  # (position in the text as heard, characters added there)
    position = 0
    for match in _IS_BEFORE_NUMBER.finditer(text):
        if any(start < match.end() and match.start() < end for start, end in keep):
            continue
        written = f"{match['word']} is "
        pieces.append(text[position:match.start()])
        pieces.append(written)
        position = match.end()
        moved.append((match.end(), len(written) - (match.end() - match.start())))
    pieces.append(text[position:])

    def at(offset: int) -> int:
        return offset + sum(added for end, added in moved if end <= offset)

    return "".join(pieces), at
