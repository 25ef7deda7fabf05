"""Writes `voiceassist/_data/concepts/setting_words.tsv`, the words that say who asks a clinical question and
where (query/setting.py reads them as context, not topics, where a question is framed by them):

    apt-get install wordnet-base
    .venv/bin/python -m voiceassist_local.evaluation.setting_data

The words come from WordNet 3.0 (Princeton University; the WordNet 3.0 licence, quoted in the file's
header), read from Debian's wordnet-base (/usr/share/wordnet/data.noun): every lemma of the noun synsets
under one of ROOTS by WordNet's hyponymy (not instances: "Avicenna" is a physician, not a word for one).

- person: health_professional.n.01 "a person who helps in identifying or preventing or treating illness or
  disability" and everything under it (doctor, nurse, pharmacist, general practitioner, midwife, cardiologist);
  and paramedic.n.01 "a person trained to assist medical professionals and to give emergency medical treatment",
  which WordNet files under paraprofessional (beside paralegal), not health_professional;
- place: medical_building.n.01 (hospital, clinic, infirmary), medical_institution.n.01, hospital_room.n.01
  (emergency room, recovery room), hospital_ward.n.01 and intensive_care_unit.n.01;
- source: the source a question asks of (session 11, the seventh blind writer's "per this monograph", "does the
  guide say"): publication.n.01 "a copy of a printed work offered for distribution", document.n.01 "writing
  that provides information (especially information of an official nature)" and written_communication.n.01
  (monograph, guidebook, reference, leaflet, report, note, handbook, article).

Left out: a lemma that is not a plain word (capitals other than an abbreviation, digits, "Dr."), a stop word
("OR": operating room), and a word the concept layer reads as clinical vocabulary by the same test as the
ordinary words (voiceassist_local.evaluation.concept_data: a drug, class, shorthand, synonym or population
term, a disease name, or a word of more than MAX_CLINICAL_USES meanings of the abbreviation list:
"hospital" 8, "surgery" 25 stay topics). Choice and gaps: docs/decisions/0024-clinical-concepts.md.
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path

from voiceassist.query.terminology import SETTING_FILE

WORDNET = Path("/usr/share/wordnet")
_LICENCE = Path("/usr/share/doc/wordnet-base/copyright")
# (data.noun offset, WordNet 3.0 sense name, kind): the offsets are WordNet 3.0's, checked against the names
ROOTS: tuple[tuple[str, str, str], ...] = (
    ("10165109", "health_professional", "person"),
    ("10398176", "paramedic", "person"),  # WordNet files it under paraprofessional, not health_professional
    ("03739518", "medical_building", "place"),
    ("08053905", "medical_institution", "place"),
    ("03541091", "hospital_room", "place"),
    ("04549919", "hospital_ward", "place"),
    ("08146593", "intensive_care_unit", "place"),
    ("06589574", "publication", "source"),
    ("06470073", "document", "source"),
    ("06349220", "written_communication", "source"),
)
_PLAIN = re.compile(r"^(?:[a-z]+(?:[ -][a-z]+)*|[A-Z]{2,5})$")


def wordnet_synsets(path: Path) -> dict[str, tuple[list[str], list[str]]]:
    """offset -> (lemmas, hyponym offsets), from one of WordNet's data files (wndb(5WN)): data.noun, data.verb ...
    (a hyponym pointer joins synsets of one part of speech). Lemmas keep their case."""
    table: dict[str, tuple[list[str], list[str]]] = {}
    for line in path.read_text(encoding="latin-1").splitlines():
        if line.startswith(" "):  # the licence at the file's head
            continue
        fields = line.split("|", 1)[0].split()
        count = int(fields[3], 16)
        lemmas = [re.sub(r"\(\w+\)$", "", fields[4 + 2 * i]) for i in range(count)]
        at = 4 + 2 * count
        pointers = int(fields[at])
        hyponyms = [fields[at + 2 + 4 * p] for p in range(pointers) if fields[at + 1 + 4 * p] == "~"]
        table[fields[0]] = (lemmas, hyponyms)
    return table


def setting_words(wordnet: Path = WORDNET) -> dict[str, str]:
    """word (as WordNet writes it, "_" read as a space) -> "person", "place" or "source" (the module's doc)."""
    from voiceassist.phi.word_lists import stop_words
    from voiceassist_local.evaluation.concept_data import clinical_vocabulary

    synsets = wordnet_synsets(wordnet / "data.noun")
    clinical = clinical_vocabulary() | _disease_words()
    stop = stop_words().get("en", frozenset())
    words: dict[str, str] = {}
    for offset, name, kind in ROOTS:
        if offset not in synsets or name not in synsets[offset][0]:
            raise ValueError(f"WordNet offset {offset} is not {name}: not WordNet 3.0's data.noun?")
        pending, seen = [offset], {offset}
        while pending:
            lemmas, hyponyms = synsets[pending.pop()]
            for lemma in lemmas:
                word = lemma.replace("_", " ")
                if (_PLAIN.match(word) and word.lower() not in stop and word.lower() not in clinical
                        and not any(part in clinical for part in word.split() if word.islower())):
                    words.setdefault(word, kind)
            for hyponym in hyponyms:
                if hyponym not in seen:
                    seen.add(hyponym)
                    pending.append(hyponym)
    return dict(sorted(words.items()))


def _disease_words() -> frozenset[str]:
    """The one-word names of the shipped MeSH disease headings ("detox" is not one; "cold" is)."""
    from voiceassist.query.terminology import DISEASES_FILE

    with gzip.open(DISEASES_FILE, "rt", encoding="utf-8") as lines:
        return frozenset(name for line in lines if not line.startswith("#") and line.count("\t") == 3
                         for name in line.rstrip("\n").split("\t")[3].split("|") if " " not in name)


def write_setting_words(wordnet: Path = WORDNET) -> None:
    copyright_text = _LICENCE.read_text(encoding="utf-8")
    start = copyright_text.index("Permission to use")
    end = copyright_text.index("agrees to preserve same.", start) + len("agrees to preserve same.")
    roots = ", ".join(f"{name} ({offset}, {kind})" for offset, name, kind in ROOTS)
    header = ["# Who asks, where, of what source: word<TAB>person|place|source, the lemmas of WordNet 3.0's noun",
              "# synsets under",
              f"# {roots}",
              "# (Debian's wordnet-base 1:3.0; local/voiceassist_local/evaluation/setting_data.py), less the",
              "# concept layer's clinical vocabulary. Its licence:",
              *(f"# {line.strip().lstrip('.')}".rstrip() for line in copyright_text[start:end].splitlines())]
    lines = [f"{word}\t{kind}" for word, kind in setting_words(wordnet).items()]
    SETTING_FILE.write_text("\n".join(header + lines) + "\n", encoding="utf-8")


def main() -> int:
    write_setting_words()
    print(SETTING_FILE)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
