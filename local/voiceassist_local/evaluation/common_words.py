"""Writes voiceassist/_data/phi/common_words.txt.gz: English words that the dictionary never capitalises.

    apt-get install wamerican   # Debian's SCOWL "american-english" list (size 50)
    .venv/bin/python -m voiceassist_local.evaluation.common_words [/usr/share/dict/american-english]

A word the list holds in lower case only ("plasma", "atrophy", "repair") is a common word; a word it holds
capitalised too ("Smith"/"smith", "Bill"/"bill", "Jean") is also a name, and is left out. The metadata screen
(ingest/name_vocabulary.py) reads a name found without a cue whose words are all common words, and none a
Census name, as no name: "Diaphragm Atrophy", "Birth Size" in a headline-case title.

Source: SCOWL (Spell Checker Oriented Word Lists, Kevin Atkinson), as Debian's wamerican 2020.12.07-2 packages
it; its licence is permissive with notice, copied into the file's header.
"""

from __future__ import annotations

import gzip
import re
import sys
from pathlib import Path

from voiceassist.common_words import COMMON_WORDS_FILE

SOURCE = Path("/usr/share/dict/american-english")
OUT = COMMON_WORDS_FILE
NOTICE = """\
SCOWL (Spell Checker Oriented Word Lists), via Debian's wamerican 2020.12.07-2 (american-english).
Copyright 2000-2011 by Kevin Atkinson
Permission to use, copy, modify, distribute and sell these word lists, the associated scripts, the output
created from the scripts, and its documentation for any purpose is hereby granted without fee, provided that
the above copyright notice appears in all copies and that both that copyright notice and this permission
notice appear in supporting documentation. Kevin Atkinson makes no representations about the suitability of
this array for any purpose. It is provided "as is" without express or implied warranty.
(The list also includes words from WordNet 1.6, Copyright 1997 by Princeton University, and other sources
named in /usr/share/doc/wamerican/copyright.)"""


def common_words(lines: list[str]) -> list[str]:
    """The lower-case words (letters only, two or more) whose capitalised form the list does not hold."""
    capitalised = {line.lower() for line in lines if line[:1].isupper()}
    return sorted({line for line in lines if re.fullmatch(r"[a-z]{2,}", line) and line not in capitalised})


def main(argv: list[str]) -> int:
    source = Path(argv[0]) if argv else SOURCE
    words = common_words(source.read_text(encoding="utf-8").splitlines())
    header = ["# English words never capitalised in the dictionary: voiceassist_local.evaluation.common_words",
              *(f"# {line}" for line in NOTICE.splitlines())]
    with gzip.GzipFile(OUT, "wb", mtime=0) as out:  # mtime 0: the same list gives the same bytes
        out.write(("\n".join(header + words) + "\n").encode("utf-8"))
    print(OUT, len(words))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
