"""Writes voiceassist/_data/speech/english_words.tsv.gz: English words with how common they are, for the speech
vocabulary (voiceassist/speech/vocabulary.py).

    .venv/bin/python -m voiceassist_local.evaluation.english_words

Source: wordfreq (pinned in pyproject.toml's dev extra; its data is CC BY-SA 4.0, and so is this derived list):
every lower-case ASCII word of its English list with a Zipf frequency of at least MIN_ZIPF, as
`word<TAB>zipf` (one decimal). Two uses: an indexed word below vocabulary.COMMON_ZIPF is a term the recognizer
is biased toward ("anaphylaxis" 2.6, "acidosis" 2.4, "pneumonia" 3.7; not "treatment" 5.0); a word on the list
at all is English, which the transcript repair never bends to a term that sounds alike ("severe" is not
"severity", "withheld" not "withhold"). The file is shipped so that no function imports wordfreq.
"""

from __future__ import annotations

import gzip
from importlib import metadata

from voiceassist.speech.vocabulary import ENGLISH_WORDS_FILE

SOURCE = "wordfreq"
MIN_ZIPF = 3.0  # one use in a million words of English ("molasses" 3.0, "withheld" 3.4)


def english_words() -> list[tuple[str, float]]:
    from wordfreq import top_n_list, zipf_frequency

    kept: list[tuple[str, float]] = []
    for word in top_n_list("en", 500_000):
        zipf = zipf_frequency(word, "en")
        if zipf < MIN_ZIPF:
            break
        if word.isascii() and word.isalpha() and word.islower():
            kept.append((word, zipf))
    return sorted(kept)


def main() -> int:
    header = [f"# English words with their Zipf frequency (>= {MIN_ZIPF}) in {SOURCE} {metadata.version(SOURCE)}'s "
              "English list (Robyn Speer, wordfreq, doi:10.5281/zenodo.7199437),",
              "# lower-case ASCII letters; made by local/voiceassist_local/evaluation/english_words.py.",
              "# wordfreq's data is licensed CC BY-SA 4.0 (creativecommons.org/licenses/by-sa/4.0/), and so is this "
              "derived list."]
    lines = header + [f"{word}\t{zipf:.1f}" for word, zipf in english_words()]
    with gzip.GzipFile(ENGLISH_WORDS_FILE, "wb", mtime=0) as out:  # mtime 0: the same words, the same bytes
        out.write(("\n".join(lines) + "\n").encode("utf-8"))
    print(ENGLISH_WORDS_FILE)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
