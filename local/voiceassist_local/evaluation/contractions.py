"""Writes voiceassist/_data/phi/contractions.txt: English contractions typed without their apostrophe.

    .venv/bin/python -m voiceassist_local.evaluation.contractions

Source: spaCy (MIT, pinned in pyproject.toml), `spacy.lang.en.tokenizer_exceptions.TOKENIZER_EXCEPTIONS`: every
key of letters only that the tokenizer splits into two or more tokens ("dont" -> do + nt, "theyve" -> they + ve,
"im" -> i + m), lower case. They are function words, as their apostrophe forms are (spaCy's stop words hold
"n't", "'ve", "'m"), so a question's "theyve" or "wont" is never a topic (query/question_concepts.py). spaCy
leaves out the forms that are words of their own ("ill", "well", "its", "were", "hell", "shell"), so they keep
their meaning. The file is shipped so that the query functions never import spaCy.
"""

from __future__ import annotations

from importlib import metadata

from voiceassist.phi.word_lists import CONTRACTIONS, PHI_DATA


def main() -> int:
    from spacy.lang.en.tokenizer_exceptions import TOKENIZER_EXCEPTIONS

    forms = sorted({key.lower() for key, tokens in TOKENIZER_EXCEPTIONS.items() if key.isalpha() and len(tokens) > 1})
    lines = [
        f"# spaCy {metadata.version('spacy')} English tokenizer exceptions (MIT), spacy.lang.en.tokenizer_exceptions:",
        "# the keys of letters only split into two or more tokens (contractions typed without the apostrophe);",
        "# made by local/voiceassist_local/evaluation/contractions.py",
        *forms,
    ]
    (PHI_DATA / CONTRACTIONS).write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(PHI_DATA / CONTRACTIONS, len(forms))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
