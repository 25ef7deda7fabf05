"""Writes voiceassist/_data/speech/drug_names_in_use.tsv: the drug dictionary's other names (brands and
synonyms) that are in general English use, with how common they are, for the speech vocabulary
(voiceassist/speech/vocabulary.py).

    .venv/bin/python -m voiceassist_local.evaluation.drug_names_in_use

Sources: the concept layer's drug dictionary (`_data/concepts/drugs.tsv.gz`, decision 0024: generic names with
their brand names and synonyms, MIT) and wordfreq (pinned in pyproject.toml's dev extra; its data is CC BY-SA 4.0,
and so is this derived list). A name is kept when it is not the generic itself, is one word of at least
MIN_LETTERS ASCII letters, and wordfreq finds it in English text at all (Zipf frequency above 0): the brands
clinicians say and write ("glucophage" 1.2, "augmentin" 1.6, "epipen" 2.3), not the dictionary's pharmacopoeia
and foreign spellings ("metforminum", "amlodipino", "dimethylbiguanide": 0). Written as `name<TAB>zipf` (two
decimals), sorted by name, so that no function imports wordfreq.
"""

from __future__ import annotations

from importlib import metadata

from voiceassist.query.terminology import drug_names
from voiceassist.speech.vocabulary import DRUG_NAMES_IN_USE_FILE

SOURCE = "wordfreq"
MIN_LETTERS = 5  # shorter dictionary names ("amox", "zmax", "hctz") are spelt out or are English words


def drug_names_in_use() -> list[tuple[str, float]]:
    from wordfreq import zipf_frequency

    kept: list[tuple[str, float]] = []
    for name, generic in drug_names().items():
        if name == generic or len(name) < MIN_LETTERS or not (name.isascii() and name.isalpha()):
            continue
        zipf = zipf_frequency(name, "en")
        if zipf > 0:
            kept.append((name, zipf))
    return sorted(kept)


def main() -> int:
    header = [f"# The drug dictionary's other names (brands, synonyms; _data/concepts/drugs.tsv.gz, MIT) found in "
              f"{SOURCE} {metadata.version(SOURCE)}'s English list",
              "# (Robyn Speer, wordfreq, doi:10.5281/zenodo.7199437) with their Zipf frequency; one word of "
              f"{MIN_LETTERS}+ letters; made by local/voiceassist_local/evaluation/drug_names_in_use.py.",
              "# wordfreq's data is licensed CC BY-SA 4.0 (creativecommons.org/licenses/by-sa/4.0/), and so is this "
              "derived list."]
    lines = header + [f"{name}\t{zipf:.2f}" for name, zipf in drug_names_in_use()]
    DRUG_NAMES_IN_USE_FILE.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(DRUG_NAMES_IN_USE_FILE)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
