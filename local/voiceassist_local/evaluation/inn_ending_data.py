"""Writes `voiceassist/_data/concepts/inn_endings.tsv`, the endings by which a drug's INN in another language is its
English INN (query/clinical_spelling.py reads it: `inn_spelling`):

    .venv/bin/python -m voiceassist_local.evaluation.inn_ending_data

The correspondences are WHO's (the INN lists publish each name in Latin, English, French and Spanish) and the
national adaptations' (Italian, Portuguese, German): ENDINGS below, with their languages. A row is written only when
the shipped drug dictionary attests it, and its count is the dictionary's names in another language that the row
turns into their own generic ("amoxicilina" -> "amoxicillin"). Choice and measurements: decision 0024 (session 18).
"""

from __future__ import annotations

import sys
from pathlib import Path

from voiceassist.query import terminology
from voiceassist.settings import PACKAGE_DIR

OUT = PACKAGE_DIR / "_data" / "concepts" / "inn_endings.tsv"
# (foreign ending, English ending, languages): WHO's Latin/French/Spanish forms, Italian (DCIT), Portuguese (DCB),
# German (the INN less its final "e")
ENDINGS = (
    ("cillina", "cillin", "it"), ("cilline", "cillin", "fr"), ("cilina", "cillin", "es pt"),
    ("micina", "mycin", "es it pt"), ("ciclina", "cycline", "es it pt"),
    ("ina", "ine", "es it pt"), ("ina", "in", "es it pt"), ("ine", "in", "fr"), ("in", "ine", "de"),
    ("ona", "one", "es it pt"), ("on", "one", "de"), ("ida", "ide", "es it pt"), ("id", "ide", "de"),
    ("olo", "ol", "it"), ("ato", "ate", "es it pt"), ("azol", "azole", "es pt de"),
    ("ino", "in", "es pt"), ("ino", "ine", "es pt"), ("ilo", "il", "es pt"), ("ene", "en", "fr it"),
    ("inum", "ine", "la"), ("onum", "one", "la"), ("idum", "ide", "la"), ("um", "", "la"),
)


def attested() -> list[tuple[str, str, str, int]]:
    """Each ending with the count of the dictionary's other-language names it turns into their own generic."""
    names = terminology.drug_names()
    rows = []
    for foreign, english, languages in ENDINGS:
        count = sum(1 for name, generic in names.items() if name != generic and name.isalpha()
                    and name.endswith(foreign) and name[:len(name) - len(foreign)] + english == generic)
        if count:
            rows.append((foreign, english, languages, count))
    return rows


def main(out: Path = OUT) -> int:
    header = [line for line in out.read_text(encoding="utf-8").splitlines() if line.startswith("#")]
    rows = ["\t".join((f, e, langs, str(n))) for f, e, langs, n in attested()]
    out.write_text("\n".join([*header, *rows]) + "\n", encoding="utf-8")
    print(f"{len(rows)} endings -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
