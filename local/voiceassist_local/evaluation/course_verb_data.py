"""Writes `voiceassist/_data/concepts/course_verbs.tsv`, the verbs that say what happens to a course of treatment
(query/asked_action.py: "when do I restart it", "when can I switch to oral", "how do I taper it"):

    apt-get install wordnet-base
    .venv/bin/python -m voiceassist_local.evaluation.course_verb_data

The verbs come from WordNet 3.0 (Princeton University; the WordNet 3.0 licence, quoted in the file's header), read
from Debian's wordnet-base (/usr/share/wordnet/data.verb): the lemmas of the verb synsets of ROOTS and of their
direct troponyms (WordNet's hyponymy for verbs, one level: "resume, restart" is a way to continue, "step down" a
way to decrease). What is done to a course of treatment: it is begun, continued, ended, changed over to another,
made more or less, divided into portions (session 16), in the senses that take the course as their object (WordNet's
causative senses: "set in motion, cause to start", "cause to remain or last", "make smaller"; not "have an end" or
"decrease in size"): the aspectual verbs (begin, continue, end: Quirk R et al., *A Comprehensive Grammar of the
English Language*, 1985, 16.39, catenative verbs of aspect) and the verbs of change-over and of magnitude. Each
line: the lemma and the verbs of its kind (the root and its troponyms: "restart" with "resume" and "continue",
"minimise" with "reduce").
"""

from __future__ import annotations

from pathlib import Path

from voiceassist.query.terminology import COURSE_VERBS_FILE
from voiceassist_local.evaluation.setting_data import WORDNET, wordnet_synsets

_LICENCE = Path("/usr/share/doc/wordnet-base/copyright")
# (data.verb offset, WordNet 3.0 lemma, gloss): checked against the names
ROOTS: tuple[tuple[str, str], ...] = (
    ("00348746", "begin"),  # set in motion, cause to start
    ("02679899", "continue"),  # keep or maintain in unaltered condition; cause to remain or last
    ("02680814", "discontinue"),  # put an end to a state or an activity
    ("00550117", "switch"),  # lay aside, abandon, or leave for another
    ("00380159", "switch"),  # make a shift in or exchange of
    ("00381013", "convert"),  # change from one system to another or to a new plan
    ("00441445", "decrease"),  # make smaller
    ("00153263", "increase"),  # make bigger or more
    ("02467662", "divide"),  # separate into parts or portions ("split the dose": "in divided doses"; session 16)
)


def course_verbs(wordnet: Path = WORDNET) -> dict[str, set[str]]:
    """lemma (WordNet's "_" read as a space, lower case) -> the verbs of its kinds (the root's lemmas and its direct
    troponyms' lemmas: "minimise" with "reduce", "decrease"; itself included)."""
    synsets = wordnet_synsets(wordnet / "data.verb")
    verbs: dict[str, set[str]] = {}
    for offset, name in ROOTS:
        if offset not in synsets or name not in synsets[offset][0]:
            raise ValueError(f"WordNet offset {offset} is not {name}: not WordNet 3.0's data.verb?")
        kind = {lemma.replace("_", " ").lower() for kept in (offset, *synsets[offset][1]) for lemma in synsets[kept][0]}
        for lemma in kind:
            verbs.setdefault(lemma, set()).update(kind)
        # (session 16) the phrasal verbs one level further down ("bump up", a way to raise, a way to increase;
        # "scale down", "cut back"): a verb and its adverb particle, which a question may write around the object
        # ("bump the dose up": Quirk et al. 1985, 16.3-16.4); the kind is the root's
        for lower in {t for kept in synsets[offset][1] for t in synsets[kept][1]}:
            for lemma in synsets[lower][0]:
                words = lemma.lower().split("_")
                if len(words) == 2 and words[1] in PARTICLES:
                    verbs.setdefault(" ".join(words), set()).update(kind)
    return dict(sorted(verbs.items()))


# the adverb particles of English phrasal verbs (Quirk et al. 1985, 16.3: the spatial adverbs used as particles)
PARTICLES = frozenset({"up", "down", "back", "off", "out", "on", "in", "over", "away"})


def write_course_verbs(wordnet: Path = WORDNET) -> None:
    copyright_text = _LICENCE.read_text(encoding="utf-8")
    start = copyright_text.index("Permission to use")
    end = copyright_text.index("agrees to preserve same.", start) + len("agrees to preserve same.")
    roots = ", ".join(f"{name} ({offset})" for offset, name in ROOTS)
    header = ["# What happens to a course of treatment: verb<TAB>the verbs of its kind, the lemmas of WordNet 3.0's",
              "# verb synsets",
              f"# {roots}",
              "# and of their direct troponyms, and the phrasal verbs (verb and particle) one level below those",
              "# (Debian's wordnet-base 1:3.0;",
              "# local/voiceassist_local/evaluation/course_verb_data.py). Its licence:",
              *(f"# {line.strip().lstrip('.')}".rstrip() for line in copyright_text[start:end].splitlines())]
    lines = [f"{verb}\t{'|'.join(sorted(synonyms))}" for verb, synonyms in course_verbs(wordnet).items()]
    COURSE_VERBS_FILE.write_text("\n".join(header + lines) + "\n", encoding="utf-8")


def main() -> int:
    write_course_verbs()
    print(COURSE_VERBS_FILE)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
