"""Writes voiceassist/_data/concepts/mixed_stop_words.tsv: other languages' function words that no English dictionary
holds (`language<TAB>word`, lower case), read by query/question_concepts.py in a question typed in English with
another language's words mixed in ("CURB-65 score 2 wala patient - admit karna hai ya ghar bhejna?").

    pip download --no-deps stopwordsiso==0.7.1 hinglishswd==0.1.3 -d /tmp/stop
    apt-get install wamerican-large wbritish-large
    .venv/bin/python -m voiceassist_local.evaluation.mixed_stop_words \
        /tmp/stop/stopwordsiso-0.7.1-py3-none-any.whl /tmp/stop/hinglishswd-0.1.3-py3-none-any.whl

Sources, read from their wheels (never installed, never imported):
- stopwords-iso (stopwordsiso 0.7.1, MIT, Gene Diaz and contributors; Python package by Arthit Suriyawongkul):
  the stop-word lists of 58 languages; those written in the Latin script are kept (a romanised question's words
  are Latin letters), English left out.
- hinglishswd 0.1.3 (Abhinav Patra; a "Modified MIT" licence: MIT, plus a product with more than 100 million
  monthly users or 20 million US dollars of monthly revenue must show "hinglishswd" in its interface), its
  `STOPWORDS_HINDI` and `STOPWORDS_HINGLISH` sets: Hindi function words as they are typed in the Latin script
  ("hai", "kya", "karna", "kaise"), language code "hi-Latn". Read with `ast.literal_eval` from the source.
  NLTK's "hinglish" stop-word list (which holds "wala", "kitna", "yaar" is in neither) is not used: its corpus
  states no licence (nltk/nltk issue 2501), and it is on no package registry reachable here but as a copy.

Kept: words of two or more letters, all letters, that SCOWL's size-70 American and British English lists (Kevin
Atkinson; Debian's wamerican-large and wbritish-large 2020.12.07-2) do not hold in lower case: an English word is
never read as another language's ("air" is Malay for water, "the" is in the Hinglish list); a word they hold only
as a name ("Dena") is no English word typed in lower case, and stays. The concept
layer's own vocabulary (drugs, abbreviations, diseases) is checked when a question is read, not here.
"""

from __future__ import annotations

import ast
import json
import re
import sys
import zipfile
from pathlib import Path

from voiceassist.query.terminology import MIXED_STOP_WORDS_FILE

ENGLISH = (Path("/usr/share/dict/american-english-large"), Path("/usr/share/dict/british-english-large"))
ISO_MEMBER = "stopwordsiso/stopwords-iso.json"
HINGLISH_MEMBER = "hinglishswd/stopwords.py"
HINGLISH_SETS = ("STOPWORDS_HINDI", "STOPWORDS_HINGLISH")
_LATIN_WORD = re.compile(r"[a-zà-öø-ÿāăąćĉċčďđēĕėęěĝğġģĥħĩīĭįıĵķĺļľŀłńņňŋōŏőœŕŗřśŝşšţťŧũūŭůűųŵŷźżž]{2,}")


def english_words(paths: tuple[Path, ...] = ENGLISH) -> frozenset[str]:
    """The words the English lists hold in lower case (a common word, not only a name: "Dena" is no reason to keep
    the Hindi "dena"), without a possessive "'s"."""
    words: set[str] = set()
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            word = line.strip().removesuffix("'s")
            if word.islower():
                words.add(word)
    return frozenset(words)


def iso_lists(wheel: Path) -> dict[str, frozenset[str]]:
    with zipfile.ZipFile(wheel) as archive:
        data = json.loads(archive.read(ISO_MEMBER))
    return {code: frozenset(w.strip().lower() for w in words) for code, words in data.items() if code != "en"}


def hinglish_list(wheel: Path) -> frozenset[str]:
    with zipfile.ZipFile(wheel) as archive:
        tree = ast.parse(archive.read(HINGLISH_MEMBER).decode("utf-8"))
    words: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id in HINGLISH_SETS
                                                for t in node.targets):
            words |= {w.lower() for w in ast.literal_eval(node.value)}
    return frozenset(words)


def mixed_stop_words(lists: dict[str, frozenset[str]], english: frozenset[str]) -> dict[str, list[str]]:
    """Each language's Latin-script stop words that no English list holds (languages with none left out)."""
    kept = {code: sorted(w for w in words if _LATIN_WORD.fullmatch(w) and w not in english)
            for code, words in lists.items()}
    return {code: words for code, words in sorted(kept.items()) if words}


def main(argv: list[str]) -> int:
    iso_wheel, hinglish_wheel = Path(argv[0]), Path(argv[1])
    lists = {**iso_lists(iso_wheel), "hi-Latn": hinglish_list(hinglish_wheel)}
    kept = mixed_stop_words(lists, english_words())
    with zipfile.ZipFile(hinglish_wheel) as archive:
        licence = next(archive.read(n).decode("utf-8") for n in archive.namelist() if n.endswith("LICENSE"))
    header = [
        "Other languages' function words that no English dictionary holds: language<TAB>word, lower case.",
        "Made by local/voiceassist_local/evaluation/mixed_stop_words.py from:",
        "- stopwords-iso, stopwordsiso 0.7.1 (MIT; github.com/stopwords-iso/stopwords-iso), Latin-script lists;",
        "- hinglishswd 0.1.3 (Abhinav Patra), STOPWORDS_HINDI and STOPWORDS_HINGLISH, as hi-Latn; its licence:",
        *(f"  {line}" for line in licence.strip().splitlines()),
        "less the words of SCOWL size 70 (wamerican-large, wbritish-large 2020.12.07-2; Kevin Atkinson, permissive).",
    ]
    lines = [f"# {line}".rstrip() for line in header]
    lines += [f"{code}\t{word}" for code, words in kept.items() for word in words]
    MIXED_STOP_WORDS_FILE.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(MIXED_STOP_WORDS_FILE, sum(len(w) for w in kept.values()), "words,", len(kept), "languages")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
