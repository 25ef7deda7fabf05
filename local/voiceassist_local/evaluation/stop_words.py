"""Writes voiceassist/_data/phi/stop_words.tsv from spaCy's stop-word lists (`language<TAB>word`, lower case).

    .venv/bin/python -m voiceassist_local.evaluation.stop_words

Source: spaCy (MIT, pinned in pyproject.toml), `spacy.lang.<code>.stop_words.STOP_WORDS` for English and the
languages whose courtesy titles the name recognizer already reads (phi/name_titles.py) and Portuguese. A question
written in one of them has its function words ("cuál", "quelle", "wie") read as words, not as names or topics
(phi/word_lists.py, foreign_function_words). The file is shipped so that neither the query functions nor the PHI
image import spaCy's language packages for it.
"""

from __future__ import annotations

import importlib
from importlib import metadata

from voiceassist.phi.word_lists import PHI_DATA, STOP_WORDS

LANGUAGES = ("en", "de", "es", "fr", "it", "nl", "pt")


def main() -> int:
    lines = [
        f"# spaCy {metadata.version('spacy')} stop-word lists (MIT), spacy.lang.<code>.stop_words, lower case;",
        "# made by local/voiceassist_local/evaluation/stop_words.py",
    ]
    for code in LANGUAGES:
        words = importlib.import_module(f"spacy.lang.{code}.stop_words").STOP_WORDS
        lines += [f"{code}\t{word}" for word in sorted({w.lower().strip() for w in words} - {""})]
    (PHI_DATA / STOP_WORDS).write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(PHI_DATA / STOP_WORDS)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
