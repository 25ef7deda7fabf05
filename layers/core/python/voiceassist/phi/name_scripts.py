"""Names written in other scripts than Latin, by Unicode properties rather than per-language lists (docs/phi.md).

A script that capitalises names (Greek, Cyrillic, Armenian: a letter whose titlecase differs from its lower case)
writes a name as Latin does, "Γιάννης Παπαδόπουλος", "Иван Петров", so a word of such letters with an initial
capital is shaped like a name. A script without that case (Han, Hangul, kana, Arabic, Hebrew, Devanagari, Thai,
Georgian's Mkhedruli, whose titlecase is itself) cannot show a name by its shape: such a word is a name only in a
name's position, after a cue ("patient", "Mr", "Frau", "пациент", "患者") or where the English model's PERSON marks
it in an English text. In a text mostly in that script the English model's PERSON spans are noise ("मेटफॉर्मिन की",
"メトホルミンの最大用量は何ですか"), so they do not count there.
"""

from __future__ import annotations

import regex as re

# A word: letters with their combining marks (Devanagari's vowel signs are marks, so str.isalpha is False for
# "राहुल"), joined by an apostrophe or a hyphen.
_WORD = re.compile(r"\p{L}[\p{L}\p{M}]*(?:['’-]\p{L}[\p{L}\p{M}]*)*")
_LATIN_LETTER = re.compile(r"\p{Latin}")
_LATIN_VOWEL = re.compile(r"[aeiouyàáâãäåæèéêëìíîïòóôõöøùúûüýÿ]", re.IGNORECASE)
_OTHER_LETTER = re.compile(r"(?=\p{L})[^\p{Latin}\p{Common}\p{Inherited}]")  # not the micro sign of "µg"
_WORDS = re.compile(r"[\p{L}\p{M}]+")
# The word for a patient, written without a space before the name in scripts that use none (Chinese, Japanese):
# "患者王小明，男，54岁". A cue word followed by two or three letters of such a script, then a break (punctuation,
# a space, a digit or the text's end) is a name; "患者因胸痛入院" runs on without a break and is not, nor is kana
# ("患者さんは、", "患者様は、": the patient, politely). So are two to four letters, after a "の" too, before an
# honorific that follows a name ("患者の山田太郎さん").
_UNSPACED_LETTER = r"[\p{Han}\p{Hangul}\p{Hiragana}\p{Katakana}ー]"
UNSPACED_CUE = re.compile(
    r"(?:患者|病人|病患|患児|환자)[\s:：,，、]*(?:(?P<name>[\p{Han}\p{Hangul}]{2,3})(?=[\s\p{P}\d]|$)"
    r"|の?(?P<name>" + _UNSPACED_LETTER + r"{2,4}?)(?=さん|様|女士|小姐))"
)
# "Patient", "the patient", "sick person" in languages written in other scripts than Latin, as a cue before a name
# (the English cues and titles are in names.py and name_titles.py): Russian, Ukrainian, Greek, Armenian, Georgian,
# Arabic, Persian, Hebrew, Hindi, Korean. Translations of "patient" (Wiktionary).
OTHER_SCRIPT_CUES = (
    "пациент", "пациентка", "пациента", "пациентки", "пациентом", "больной", "больная", "больного", "пацієнт",
    "пацієнтка", "ασθενής", "ασθενούς", "ασθενή", "ο ασθενής", "η ασθενής", "հիվանդ", "պացիենտ", "პაციენტი",
    "المريض", "المريضة", "بیمار", "החולה", "המטופל", "המטופלת", "מטופל", "מטופלת", "मरीज़", "मरीज", "रोगी", "환자",
)


def other_script(text: str) -> bool:
    """A word of letters (and marks), none of them Latin: "Γιάννης", "王小明", "राहुल"."""
    return not text.isascii() and _WORD.fullmatch(text) is not None and _LATIN_LETTER.search(text) is None


def foreign_letters(text: str) -> bool:
    """Letters of another script than Latin and none of Latin, word or not: "王小明", "場合、どの" (one token to the
    English model, which does not split Japanese)."""
    return not text.isascii() and _OTHER_LETTER.search(text) is not None and _LATIN_LETTER.search(text) is None


def capitalisable(char: str) -> bool:
    """A letter of a script that capitalises names: its titlecase differs from its lower case ("Γ", "г", "ա"; not
    "王", "ა", "ب")."""
    return char.title() != char.lower()


def cased_name_shape(text: str) -> bool:
    """An other-script word of a capitalising script, written like a name: a capital, then lower case only
    ("Παπαδόπουλος", "Иван", "Անի"; not "ΔΝΑ", "мг", "доза")."""
    return (other_script(text) and len(text) >= 2 and text[:1].isupper() and any(c.islower() for c in text)
            and not any(c.isupper() for c in text[1:]) and all(capitalisable(c) for c in text if c.isalpha()))


def caseless_script_word(text: str) -> bool:
    """An other-script word whose script does not capitalise ("王小明", "김민수", "محمد", "राहुल", "ნინო")."""
    return other_script(text) and not any(capitalisable(c) for c in text)


def pronounceable(text: str) -> bool:
    """A Latin word with a vowel ("Anna"; not "Dr", "Hb"), or a word with a letter of another script: "Γιάννης", or
    "Пётp" as the look-alike fold leaves "Пётр" in an English text (phi.detection.readable_form)."""
    return _LATIN_VOWEL.search(text) is not None or (not text.isascii() and _OTHER_LETTER.search(text) is not None)


def mostly_other_script(text: str) -> bool:
    """Most of the text's words are written in another script than Latin: the English model is not reading
    English there."""
    if text.isascii():  # nearly every text: no need to count
        return False
    words = _WORDS.findall(text)
    foreign = sum(_LATIN_LETTER.search(w) is None for w in words)
    return foreign * 2 > len(words)
