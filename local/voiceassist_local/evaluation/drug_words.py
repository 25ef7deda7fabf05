"""Writes voiceassist/_data/phi/drug_words.txt: one-word drug names, brand and generic.

    .venv/bin/python -m voiceassist_local.evaluation.drug_words

Source: drug-named-entity-recognition (MIT; a development dependency, pinned in pyproject.toml). The PHI
recognizers read the text file, so the Lambda image carries 0.3 MB of words instead of the package and its
pickle (which takes seconds to decompress on a cold start).
"""

from __future__ import annotations

import bz2
import importlib.resources
import pickle
from importlib import metadata

from voiceassist.phi.word_lists import DRUG_WORDS, PHI_DATA

OUT = PHI_DATA / DRUG_WORDS  # inside the voiceassist package (an editable install writes into the checkout)
SOURCE = "drug-named-entity-recognition"


def drug_words() -> list[str]:
    package = importlib.resources.files("drug_named_entity_recognition")
    variants = pickle.loads(bz2.decompress(package.joinpath("drug_ner_dictionary.pkl.bz2").read_bytes()))
    words = {v for v in variants["drug_variant_to_canonical"] if v.isalpha() and v.isascii() and len(v) >= 4}
    return sorted(words)


def main() -> int:
    licence = next(f for f in metadata.files(SOURCE) or [] if f.name == "LICENSE").read_text()
    header = [
        "# One-word drug names (brand and generic), lower case: the keys of",
        f"# {SOURCE} {metadata.version(SOURCE)}'s dictionary (drug_ner_dictionary.pkl.bz2), made by",
        "# local/voiceassist_local/evaluation/drug_words.py. Its licence:",
        *(f"# {line}".rstrip() for line in licence.splitlines()),
    ]
    OUT.write_text("\n".join(header + drug_words()) + "\n", encoding="utf-8")
    print(OUT)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
