"""Writes `voiceassist/_data/concepts/phrasal_verbs.tsv`, English verbs with a particle that say how a thing goes,
not what it is ("hang around", "come back", "go along"; read by query/phrasal_verbs.py):

    apt-get install wordnet-base
    .venv/bin/python -m voiceassist_local.evaluation.phrasal_verb_data

A question asks in everyday words how long a cough will "hang around" where a reference writes how long it lasts.
The verb alone ("hang") has senses of the body and of contact (an execution, a fall of cloth) and keeps its weight as
a topic; with its particle it is one WordNet 3.0 verb lemma ("hang_around": verb.stative), whose senses say how a
thing or person stays, moves or behaves. A pair is listed when WordNet writes the verb and a particle as one verb
lemma ("verb_particle", the particle one of spaCy's English stop words, which the concept layer drops anyway), every
sense of that lemma lies in the register files (register_word_data.REGISTER_FILES: the plain files, people, time,
feelings, places, relations; verbs of motion, emotion, social life, telling, competition, owning, being, weather,
thinking; and cognition and communication), none under medicine, the life sciences, mental states or scores
(register_word_data.is_medical), WordNet writes none with a capital letter, and no word the verb's derivationally
related form pointers lead to is of the clinical vocabulary (reg19's guard 2: "depend on" stays a topic, its verb
leading to "dependence"; without the guard an uncovered exam stem on what a dosing interval depends on was answered).
A lemma with a sense of the body, of change, of consumption or of contact keeps its verb a topic ("throw up", "pass
out", "break down", "go up": an increase, "cut down": a reduction).
Choice and measurement: docs/decisions/0024-clinical-concepts.md (session 20, ans20b).
"""

from __future__ import annotations

import sys
from pathlib import Path

from voiceassist.query.phrasal_verbs import PHRASAL_VERBS_FILE
from voiceassist_local.evaluation import plain_word_data as plain
from voiceassist_local.evaluation import register_word_data as register


def _particles() -> frozenset[str]:
    from voiceassist.phi.word_lists import stop_words

    return stop_words().get("en", frozenset())


def phrasal_verbs(wordnet: Path = plain.WORDNET) -> list[tuple[str, str]]:
    """(verb, particle) of every WordNet verb lemma "verb_particle" whose senses all say how, not what (the doc)."""
    from voiceassist.query.terms import stem

    particles = _particles()
    clinical = plain._clinical_stems()
    found = []
    for lemma, offsets in sorted(plain._index("verb", wordnet).items()):
        parts = lemma.split("_")
        if len(parts) != 2 or parts[1] not in particles or not plain._LETTERS.fullmatch(parts[0]):
            continue
        files = {plain._files("verb", wordnet)[offset] for offset in offsets}
        if not files <= register.REGISTER_FILES:
            continue
        if any(register.is_medical("verb", offset, wordnet) for offset in offsets):
            continue
        written = (w for offset in offsets for w in register._synsets("verb", wordnet)[offset][0])
        if any(w.lower() == lemma and w != lemma for w in written):
            continue
        # "depend on": the verb's derived noun is clinical ("dependence"), as reg19's guard 2 reads a register word
        if any(stem(derived) in clinical for derived in register.derived_words(parts[0], wordnet)):
            continue
        found.append((parts[0], parts[1]))
    return found


def write_phrasal_verbs(wordnet: Path = plain.WORDNET) -> None:
    header = ["# English verbs with a particle that say how a thing goes, not what it is: WordNet 3.0's verb lemmas",
              "# written verb_particle (the particle one of spaCy's English stop words) every sense of which lies in",
              f"# the lexicographer files {', '.join(sorted(register.REGISTER_FILES))},",
              "# none under medicine, the life sciences, mental states or scores, none capitalised (Debian's",
              "# wordnet-base 1:3.0; local/voiceassist_local/evaluation/phrasal_verb_data.py). verb<TAB>particle."]
    plain.write_pair_table(PHRASAL_VERBS_FILE, header, phrasal_verbs(wordnet))


def main(argv: list[str] | None = None) -> int:
    del argv
    write_phrasal_verbs()
    print(PHRASAL_VERBS_FILE)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
