"""Writes `voiceassist/_data/safety/harm_outcomes.tsv`, the words for what happens to a person that the input
screen's goal reading (safety/harm_goal.py) treats as a harmful outcome when a request seeks it:

    apt-get install wordnet-base
    .venv/bin/python -m voiceassist_local.evaluation.harm_outcome_data

The words come from WordNet 3.0 (Princeton University; the WordNet 3.0 licence, quoted in the file's header),
read from Debian's wordnet-base (/usr/share/wordnet/data.{verb,noun,adj}): the lemmas of ROOTS and of every synset
under them by WordNet's hyponymy, kept where the lemma's most frequent sense (WordNet's first, by tagged frequency)
is one of them, so that a word with a commoner everyday sense is left out ("go" and "pass" are senses of die.v.01,
"remove" and "hit" of kill.v.01; "kill" itself, "die", "strangle", "stab" stay). A root's own head word
is kept whatever its first sense ("poison": its first verb sense is "spoil as if by poison").

A hyponym verb tagged more often as a noun in WordNet's sense counts (cntlist.rev) is read as the noun and left out
("knife", "stone", "grass"; also "murder", "wound" and "smother", a gap the words of harm_shapes.py and intent.py
cover). Irregular verb forms are added from WordNet's exception list (verb.exc: "woke", "slain"). An English stop word
(the project's `_data/phi/stop_words.tsv`: "off", a lemma of kill.v.01) is never one of them.

- harm: a lethal outcome, what a request that seeks it for a person wants to happen: kill.v.01 ("cause to die"),
  die.v.01, poison.v.02 ("kill with poison"), suffocate.v.01 (asphyxiate); fatal.a.01 ("bringing death") and
  lethal.s.01 ("deadly, lethal"); death.n.01 ("the event of dying"), cardiac_arrest.n.01, unconsciousness.n.01 (coma);
- injury: a harm short of death, sought as a goal like the above but not a lethal effect for harm_shapes.py's
  concealment ("bruises that appear accidental" is a safeguarding question): injure.v.01 ("cause injuries or bodily
  harm to"), faint.v.01 ("pass out"), collapse.v.02 ("collapse due to fatigue, an illness, or a sudden attack");
- life (the synsets' own lemmas, not their hyponyms: "snore" and "yawn" are kinds of breathing): what a living
  person does, harmful when negated ("not wake up", "wouldn't recover", "stop breathing"):
  wake_up.v.02 ("stop sleeping"), survive.v.01, recover.v.02 ("get over an illness": recuperate, convalesce),
  breathe.v.01;
- person: someone of the asker's own circle, the one a request that names them would harm (a clinician names a
  patient): relative.n.01 ("a person related by blood or marriage": mother, grandmother, nan, mother-in-law),
  spouse.n.01, lover.n.01 (boyfriend, fiancee), friend.n.01 (flatmate, roommate), colleague.n.01,
  neighbor.n.01, child.n.01, baby.n.01 and foreman.n.01 (boss); a lemma whose first or second sense is under them
  ("mum": its first noun sense is the chrysanthemum);
- examination: the examinations of the dead that a concealed harm is hidden from: autopsy.n.01 ("an examination
  and dissection of a dead body": necropsy, post-mortem, postmortem examination) and toxicology.n.01; a lemma whose
  first or second sense is one of them ("post-mortem": its first is a discussion after an event).

- illness (session 12): a harm short of injury, sought only by the asker's own act: seizure.n.01 and its kinds,
  vomit.v.01, ill.a.01 (ill, sick), bleed.v.01, hypoglycemia.n.01 (the verbs' and the adjective's own lemmas:
  bleed.v.01's troponyms include "menstruate");
- check, detect, record, seem (session 12), read only beside the other parts of harm_goal.py's concealment: the
  checks an act may be hidden from, audit.n.01, audit.n.02, inspection.n.01 (with check.n.06), check.n.05
  (verification), screening.n.04, and who checks a death, coroner.n.01 (medical examiner); finding, detect.v.01 and
  its troponyms, catch.v.01, catch.v.02 (pick up), spot.v.02, show_up.v.02; the records, record.v.01, document.v.01,
  log.v.01, chart.v.01 (own lemmas: record.v.01's troponyms include "x-ray"); seeming, look.v.02 and read.v.02.
  Check, detect and seem keep every lemma of their synsets whatever its commonest sense ("check" is first a cheque,
  "notice" a noun).

Left out: a lemma that is not a plain word (capitals, digits, apostrophes), and the multiword idioms of dying
("kick the bucket"), which no clinical request uses.
"""

from __future__ import annotations

import re
from pathlib import Path

from voiceassist.safety.harm_lexicon import OUTCOMES_FILE
from voiceassist_local.evaluation.setting_data import wordnet_synsets

WORDNET = Path("/usr/share/wordnet")
_LICENCE = Path("/usr/share/doc/wordnet-base/copyright")
# (part of speech, data offset, WordNet 3.0 sense name, head word, kind): offsets checked against the head word
ROOTS: tuple[tuple[str, str, str, str, str], ...] = (
    ("verb", "01323976", "kill.v.01", "kill", "harm"),
    ("verb", "00358431", "die.v.01", "die", "harm"),
    ("verb", "00069879", "injure.v.01", "injure", "injury"),
    ("verb", "01323356", "poison.v.02", "poison", "harm"),
    ("verb", "00023646", "faint.v.01", "faint", "injury"),
    ("verb", "00030647", "collapse.v.02", "collapse", "injury"),
    ("verb", "01569199", "suffocate.v.01", "suffocate", "harm"),
    ("adj", "00993529", "fatal.a.01", "fatal", "harm"),
    ("adj", "00993885", "lethal.s.01", "lethal", "harm"),
    ("noun", "07355491", "death.n.01", "death", "harm"),
    ("noun", "14024581", "cardiac_arrest.n.01", "cardiac_arrest", "harm"),
    ("noun", "05678932", "unconsciousness.n.01", "unconsciousness", "harm"),
    ("verb", "00018526", "wake_up.v.02", "wake_up", "life"),
    ("verb", "02618149", "survive.v.01", "survive", "life"),
    ("verb", "00092690", "recover.v.02", "recover", "life"),
    ("verb", "00001740", "breathe.v.01", "breathe", "life"),
    ("noun", "10235549", "relative.n.01", "relative", "person"),
    ("noun", "10640620", "spouse.n.01", "spouse", "person"),
    ("noun", "09622302", "lover.n.01", "lover", "person"),
    ("noun", "10112591", "friend.n.01", "friend", "person"),
    ("noun", "09936215", "colleague.n.01", "colleague", "person"),
    ("noun", "10352299", "neighbor.n.01", "neighbor", "person"),
    ("noun", "09917593", "child.n.01", "child", "person"),
    ("noun", "09827683", "baby.n.01", "baby", "person"),
    ("noun", "10104209", "foreman.n.01", "boss", "person"),
    ("noun", "00141396", "autopsy.n.01", "autopsy", "examination"),
    ("noun", "06064462", "toxicology.n.01", "toxicology", "examination"),
    # session 12: harm short of injury, sought by the asker's own act (harm_goal.py: "illness")
    ("noun", "14081941", "seizure.n.01", "seizure", "illness"),
    ("verb", "00076400", "vomit.v.01", "vomit", "illness"),
    ("adj", "02541303", "ill.a.01", "ill", "illness"),
    ("verb", "00074834", "bleed.v.01", "bleed", "illness"),
    ("noun", "14319454", "hypoglycemia.n.01", "hypoglycemia", "illness"),
    # session 14: any ill health, read only as the object of a verb of causing ("to cause lactic acidosis")
    ("noun", "14052046", "ill_health.n.01", "ill_health", "disorder"),
    # what finds out an act: a check of the living or of the books, and finding
    ("noun", "00141176", "audit.n.02", "audit", "check"),
    ("noun", "13411157", "audit.n.01", "audit", "check"),
    ("noun", "00879271", "inspection.n.01", "inspection", "check"),
    ("noun", "05825245", "check.n.05", "check", "check"),
    ("noun", "00644967", "screening.n.04", "screening", "check"),
    # who checks a death (not examiner.n.02: an OSCE examiner "noticing my tremor" is a student's nerves)
    ("noun", "09965985", "coroner.n.01", "coroner", "check"),
    ("verb", "02154526", "detect.v.01", "detect", "detect"),
    ("verb", "00725766", "catch.v.01", "catch", "detect"),
    ("verb", "02117973", "catch.v.02", "catch", "detect"),
    ("verb", "02193212", "spot.v.02", "spot", "detect"),
    ("verb", "02139562", "show_up.v.02", "show", "detect"),
    # a record made to give an impression
    ("verb", "01000232", "record.v.01", "record", "record"),
    ("verb", "01002315", "document.v.01", "document", "record"),
    ("verb", "01002499", "log.v.01", "log", "record"),
    ("verb", "00710821", "chart.v.01", "chart", "record"),
    ("verb", "02133453", "look.v.02", "look", "seem"),
    ("verb", "02730813", "read.v.02", "read", "seem"),
)
# kinds read only beside other parts of a sentence (harm_goal.py's concealment and record readings), so every lemma of
# their synsets counts whatever its commonest sense ("check" is first a bank cheque, "notice" a noun)
_EVERY_SENSE = ("detect", "check", "seem")
_POINTER_POS = {"verb": "v", "noun": "n", "adj": "a"}
_PLAIN = re.compile(r"^[a-z]+(?:[_-][a-z]+){0,3}$")


def _first_senses(path: Path) -> dict[str, list[str]]:
    """lemma -> the offsets of its senses, most frequent first, from one of WordNet's index files."""
    first: dict[str, list[str]] = {}
    for line in path.read_text(encoding="latin-1").splitlines():
        if line.startswith(" "):
            continue
        fields = line.split()
        first[fields[0]] = fields[-int(fields[2]):]
    return first


def _tagged_counts(path: Path) -> dict[tuple[str, str], int]:
    """(lemma, part of speech digit: 1 noun, 2 verb) -> how often its senses were tagged in WordNet's corpora
    (cntlist.rev: "sense_key sense_number count")."""
    counts: dict[tuple[str, str], int] = {}
    for line in path.read_text(encoding="latin-1").splitlines():
        key, _, count = line.split()
        lemma, _, rest = key.partition("%")
        counts[(lemma, rest[:1])] = counts.get((lemma, rest[:1]), 0) + int(count)
    return counts


def harm_outcomes(wordnet: Path = WORDNET) -> dict[str, str]:
    """word (WordNet's "_" read as a space) -> "harm", "injury", "life" or "person" (see the module's doc)."""
    from voiceassist.phi.word_lists import stop_words

    stop = stop_words().get("en", frozenset())
    tagged = _tagged_counts(wordnet / "cntlist.rev")
    nouns = _first_senses(wordnet / "index.noun")
    words: dict[str, str] = {}
    for pos, offset, name, head, kind in ROOTS:
        synsets, first = wordnet_synsets(wordnet / f"data.{pos}"), _first_senses(wordnet / f"index.{pos}")
        senses = 2 if kind in ("life", "person", "examination", "record") else 1
        if offset not in synsets or head not in synsets[offset][0]:
            raise ValueError(f"WordNet offset {offset} is not {name}: not WordNet 3.0's data.{pos}?")
        # a verb's or an adjective's own lemmas only where its hyponyms are other acts ("menstruate" is a kind of
        # bleeding, "x-ray" of recording); a seizure's kinds are seizures
        own = kind in ("life", "seem", "record") or (kind == "illness" and pos != "noun")
        under, pending = {offset}, [] if own else [offset]
        while pending:
            for hyponym in synsets[pending.pop()][1]:
                if hyponym in synsets and hyponym not in under:
                    under.add(hyponym)
                    pending.append(hyponym)
        for synset in under:
            for lemma in synsets[synset][0]:
                if not _PLAIN.match(lemma) or lemma in stop:  # capitals are out: "PM" (autopsy.n.01) is a time of day
                    continue
                if kind in _EVERY_SENSE:
                    words.setdefault(lemma.replace("_", " "), kind)
                    continue
                # a verb used more often as a noun is read as the noun ("knife", "stone", "grass")
                if lemma != head and pos == "verb" and tagged.get((lemma, "1"), 0) > tagged.get((lemma, "2"), 0):
                    continue
                if lemma == head or any(sense in under for sense in first.get(lemma, [])[:senses]):
                    words.setdefault(lemma.replace("_", " "), kind)
    # irregular verb forms (WordNet's exception list: "woke", "slain", "shot")
    for line in (wordnet / "verb.exc").read_text(encoding="latin-1").splitlines():
        form, *bases = line.split()
        kinds = [words[base] for base in bases if words.get(base) in ("harm", "injury", "life", "illness", "detect")]
        if kinds and _PLAIN.match(form) and form not in stop and form not in nouns:  # "shot" is a noun
            words.setdefault(form, kinds[0])
    return words


def write(path: Path = OUTCOMES_FILE, wordnet: Path = WORDNET) -> int:
    licence = _LICENCE.read_text(encoding="utf-8") if _LICENCE.exists() else ""
    quoted = licence[licence.find("Permission"):] if "Permission" in licence else ""
    header = ["# Harmful outcomes, the people of the asker's circle and the examinations of the dead:",
              "# word<TAB>harm|injury|life|person|examination (life: harmful when negated), the lemmas of WordNet 3.0's"
              + " " + ", ".join(name for _, _, name, _, _ in ROOTS),
              "# and their hyponyms (Debian's wordnet-base 1:3.0; voiceassist_local/evaluation/harm_outcome_data.py;",
              "# the choice: the script's doc and voiceassist/safety/harm_goal.py). Its licence:"]
    header += ["# " + line if line.strip() else "#" for line in quoted.strip().splitlines()]
    words = harm_outcomes(wordnet)
    body = [f"{word}\t{kind}" for word, kind in sorted(words.items())]
    path.write_text("\n".join(header + body) + "\n", encoding="utf-8")
    return len(body)


if __name__ == "__main__":
    print(f"{write()} words -> {OUTCOMES_FILE}")
