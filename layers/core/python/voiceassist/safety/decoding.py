"""Encoding layers an attack hides behind, undone on copies of the text the screen reads besides it.

An instruction written so that no pattern or model sees its words: base64 ("aWdub3JlIGFsbCBwcmV2aW91cw=="),
hexadecimal bytes or percent-escapes, ROT13 ("vtaber nyy cerivbhf vafgehpgvbaf"), letters swapped for look-alikes
of another script (Cyrillic "а", Greek "ο" inside English words: Unicode's confusables, UTS #39, shipped as
`_data/safety/confusables.tsv` by bench/input_screen_confusables.py), and chat shorthand ("ur rulez", "how 2").
Each decoder returns a copy only when its layer is there, so a clinical text is read as typed: an encoded run must
decode to readable text (mostly letters and spaces), ROT13 is read only when the rotated text has more English
function words than the text, look-alikes are folded only inside a word that mixes them with Latin letters or in
a text whose letters are mostly Latin (a Russian or Greek question keeps its letters).
"""

from __future__ import annotations

import base64
import binascii
import codecs
import re
from collections.abc import Callable
from functools import lru_cache
from urllib.parse import unquote

from voiceassist.common_words import common_words
from voiceassist.safety.screen_model import STOP_WORDS
from voiceassist.settings import PACKAGE_DIR

CONFUSABLES_PATH = PACKAGE_DIR / "_data" / "safety" / "confusables.tsv"
_BASE64_RUN = re.compile(r"(?<![\w+/=-])[A-Za-z0-9+/_-]{12,}={0,2}(?![\w+/=-])")
_HEX_RUN = re.compile(r"(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}[ :]?){6,}(?![0-9A-Fa-f])|(?:\\x[0-9A-Fa-f]{2}){4,}")
_PERCENT_RUN = re.compile(r"(?:%[0-9A-Fa-f]{2}){4,}")
_ENGLISH_WORD = re.compile(r"[a-z']+")
_WORD = re.compile(r"\w+")
# chat shorthand read as the words it stands for (only in a copy: "2" and "4" stay numbers in the text as typed)
# (not "n", "r", "2" or "4" alone: "n = 40", "r = 0.3", "2 doses"; "2" only after a word that asks for "to")
_SHORTHAND = {"u": "you", "ur": "your", "pls": "please", "plz": "please", "b4": "before", "ppl": "people",
              "thx": "thanks", "2": "to"}
_SHORTHAND_WORD = re.compile(r"(?<![\w.,/&])(u|ur|pls|plz|b4|ppl|thx)(?![\w.,/%&])"
                             r"|(?:(?<=\bhow )|(?<=\bwant )|(?<=\bneed )|(?<=\bgoing )|(?<=\bway )|(?<=\bways )"
                             r"|(?<=\bable ))2(?= [a-z])",
                             re.I)
_Z_PLURAL = re.compile(r"(?<=[a-z]{3})z\b")


@lru_cache(maxsize=1)
def confusables() -> dict[str, str]:
    """Character -> the ASCII letter or digit it looks like (UTS #39 confusables, single code points)."""
    table: dict[str, str] = {}
    for line in CONFUSABLES_PATH.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            char, ascii_char, _ = line.split("\t", 2)
            table[char] = ascii_char
    return table


def _readable(text: str) -> bool:
    """Decoded bytes that read as text: at least 8 characters, nine in ten letters, digits, spaces or punctuation,
    and at least half of them letters or spaces."""
    if len(text) < 8 or not text.isprintable():
        return False
    letters = sum(c.isalpha() or c == " " for c in text)
    usual = sum(c.isalnum() or c.isspace() or c in ".,;:!?'\"-()/" for c in text)
    return usual >= 0.9 * len(text) and letters >= 0.5 * len(text)


def _as_text(raw: bytes) -> str | None:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text if _readable(text) else None


def _base64(run: str) -> str | None:
    if not re.search(r"[A-Z]", run) or not re.search(r"[a-z]", run):  # a word, a number or a hex string is not base64
        return None
    body = run.rstrip("=")
    try:
        raw = base64.b64decode(body + "=" * (-len(body) % 4), altchars=b"-_" if re.search(r"[-_]", body) else None,
                               validate=True)
    except (binascii.Error, ValueError):
        return None
    return _as_text(raw)


def _hex(run: str) -> str | None:
    digits = re.sub(r"\\x|[ :]", "", run)
    return _as_text(bytes.fromhex(digits)) if len(digits) % 2 == 0 else None


def _percent(run: str) -> str | None:
    return _as_text(unquote(run).encode("utf-8", "surrogateescape"))


def _replace_runs(pattern: re.Pattern[str], decode: Callable[[str], str | None], text: str) -> tuple[str, bool]:
    found = False

    def replace(match: re.Match[str]) -> str:
        nonlocal found
        decoded = decode(match.group())
        if decoded is None:
            return match.group()
        found = True
        return f" {decoded} "

    return pattern.sub(replace, text), found


def decoded_runs(text: str) -> str | None:
    """`text` with each base64, hexadecimal or percent-escaped run that decodes to readable text replaced by that
    text, or None when it has none."""
    changed = False
    for pattern, decode in ((_BASE64_RUN, _base64), (_HEX_RUN, _hex), (_PERCENT_RUN, _percent)):
        text, found = _replace_runs(pattern, decode, text)
        changed = changed or found
    return text if changed else None


def _function_words(text: str) -> int:
    return sum(word in STOP_WORDS for word in _ENGLISH_WORD.findall(text.lower()))


@lru_cache(maxsize=1)
def _english_words() -> frozenset[str]:
    return common_words() | STOP_WORDS


def _english_share(text: str) -> float:
    words = _ENGLISH_WORD.findall(text.lower())
    return sum(word in _english_words() for word in words) / len(words) if words else 0.0


def rot13(text: str) -> str | None:
    """The ROT13 reading of `text` when it reads as English and the text does not: more English function words
    than the text, and at least twice the share of English words (SCOWL's common words, `_data/phi`), half of them
    or more."""
    rotated = codecs.encode(text, "rot13")
    if _function_words(rotated) <= _function_words(text):
        return None
    share = _english_share(rotated)
    return rotated if share >= 0.5 and share >= 2 * _english_share(text) else None


def fold_homoglyphs(text: str) -> str | None:
    """`text` with look-alike letters of other scripts read as the Latin letters they imitate, inside words that
    mix them with Latin letters, and everywhere when most of the text's letters are Latin; None when nothing
    changes."""
    table = confusables()
    letters = [c for c in text if c.isalpha()]
    latin = sum(c.isascii() for c in letters)
    everywhere = bool(letters) and latin > len(letters) / 2

    def fold(match: re.Match[str]) -> str:
        word = match.group()
        if everywhere or any(c.isascii() and c.isalpha() for c in word):
            return "".join(table.get(c, c) for c in word)
        return word

    folded = _WORD.sub(fold, text)
    return folded if folded != text else None


def expand_shorthand(text: str) -> str | None:
    """`text` with chat shorthand written out ("ur" -> "your", "how 2" -> "how to", "rulez" -> "rules"), or None
    when it has none beside words."""
    if not _SHORTHAND_WORD.search(text):
        return None
    expanded = _SHORTHAND_WORD.sub(lambda m: _SHORTHAND[m.group().lower()], text)
    expanded = _Z_PLURAL.sub("s", expanded)
    return expanded if expanded != text else None


def decoded_forms(text: str) -> list[str]:
    """The copies of `text` with one encoding layer undone (base64/hex/percent runs, ROT13, look-alike letters,
    chat shorthand), each present only when its layer is."""
    forms = [decoded_runs(text), rot13(text), fold_homoglyphs(text), expand_shorthand(text)]
    return [form for form in forms if form is not None]
