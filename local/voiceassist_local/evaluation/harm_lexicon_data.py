"""Writes `voiceassist/_data/safety/harm_lexicon.tsv`, the words in many languages that the input screen's
cross-lingual reading (safety/crosslingual.py) reads a harmful request by, whatever language it is asked in:

    apt-get install dict-freedict-spa-eng dict-freedict-eng-spa ...   (every FreeDict X-eng and eng-X dictionary)
    .venv/bin/python -m voiceassist_local.evaluation.harm_lexicon_data

The words are the FreeDict project's bilingual dictionaries (freedict.org), as Debian ships them
(/usr/share/dictd/freedict-<from>-<to>.{index,dict.dz}; each package's licence, GPL-2+ or CC-BY-SA-3.0, is
written beside its language in the file): a foreign word of an X-English dictionary whose English translations
include one of a concept's English words as a whole item ("matar: 1. butcher, slaughter 2. kill, liquidate, slay"),
and every translation of a concept's English word in an English-X dictionary ("kill: matar"). The concepts:

- lethal: a death or killing ("kill", "murder", "death", "dead", "lethal", "fatal", "deadly", "mortal", "pass away",
  "perish", "decease", "dying", "deceased", "slay", "to poison"; "die" only as "to die", since a bare "die" is
  also the gaming die and the stamping die: Spanish "dado", German "Gesenk", "Form"; the verb comes in by "pass
  away": "morir", "mourir", "dö");
- deadly (step 3): the lethal words that name an effect, not a dying ("lethal", "fatal", "deadly", "mortal");
- person_near (step 3): the asker's own circle without "someone", the parents and the children, whom a ward's
  question about a patient's death names too ("husband", "mother-in-law", "neighbour", "boss", ...);
- hidden: the act kept from others ("secretly", "covertly", "stealthily", "surreptitiously", "clandestinely",
  "furtively", "unnoticed", "unobserved", "undetected", "undetectable", "untraceable", "traceless", "without a
  trace", "on the sly");
- examination: the examination of the dead ("autopsy", "post-mortem", "postmortem", "necropsy", "coroner");
- seem and pretext: a death made to seem otherwise ("seem", "resemble", "look like", "appear" beside
  "accident", "accidental", "natural");
- negation: "not", "no", "without", "never", "nothing", "nobody", "no one", "none";
- purpose: "so that", "in order that", "in order to", "so as to";
- notice: a finding-out that a negation keeps from happening ("without anyone noticing": "notice", "detect",
  "discover", "find out", "perceive", "realise"; not "spot", whose translations are stains and places);
- kill, person and request (step 2): the killing itself ("kill", "murder", "slay", "to poison", "assassinate"),
  a person of the asker's circle or "someone" (harm_goal.py's people, WordNet 3.0's relative.n.01, spouse.n.01,
  neighbor.n.01, colleague.n.01 in their commonest words; not "person", "man", "woman", "patient", "child" or
  "baby", whom a toxicology question names: "how many iron tablets can kill a toddler"), and a request for an
  amount ("how much", "how many"); self: the reflexive that makes a killing one's own ("himself", "oneself":
  French "se", German "sich", Dutch "zichzelf"), which is a relative at risk, not a harm sought;
- wake and ill (session 18, harm18): waking ("wake up", "awaken", "awake"), harmful when a purpose negates it, and a
  harm short of death ("sick", "ill", "unwell", "unconscious", "pass out", "injure", "hurt", "harm", "poison"), read
  with its concealment; both round-tripped (below), and "faint" and "damage" are left out (German "leise", quiet;
  "Ausgabe", an expense);
- nobody and anyone (step 3): "nobody", "no one"; "anyone", "anybody" (read beside a negation: "sin que
  nadie", "ohne dass jemand"), the witnesses a killing is kept from.

Round trip (step 3): a word of kill, deadly, person_near, wake or ill that only an English-X dictionary gives (one
English word's translations list every sense: English-Spanish gives "morir" for "kill", English-Dutch "merken") is kept
only if the language's X-English dictionary lists it with one of the concept's English words, or the language has
no X-English dictionary.

A word of one letter or, in Latin letters, of two, a function word of any language of the project's stop-word
lists (`_data/phi/stop_words.tsv`: a dictionary's odd sense made German "der" a word of finding) except as a
negation or a purpose, a word with a digit, a stop or a bracket (a dictionary's note), and a phrase longer than
three words are left out. Latin and Esperanto are not read (Latin is medicine's own vocabulary in English text).
An English word (SCOWL's common words, `voiceassist/common_words.py`) given as another language's translation
is an English gloss an English-X dictionary left in ("a stain", "remove", "so that") and is left out, unless it
is one of the concepts' own English words (Portuguese "fatal", French "accident"); negations are kept (Spanish
"no"). A word of a script written without spaces must have two characters, three if all kana (Japanese "ない",
"はい" are endings and answers, not deaths and negations), since it is found inside the text.
Words are written lower case without accents (NFKD, combining marks
dropped), as the screen's reading compares them.
"""

from __future__ import annotations

import gzip
import re
from collections import defaultdict
from functools import cache
from pathlib import Path

from voiceassist.safety import crosslingual
from voiceassist.safety.crosslingual import LEXICON_FILE

DICTD = Path("/usr/share/dictd")
DOCS = Path("/usr/share/doc")
SKIPPED_LANGUAGES = {"lat", "epo", "eng"}

SEEDS: dict[str, tuple[str, ...]] = {
    "lethal": ("kill", "murder", "death", "dead", "lethal", "fatal", "deadly", "mortal", "to die", "to kill",
               "to murder", "pass away", "passaway", "perish", "decease", "dying", "deceased", "slay", "to poison"),
    "deadly": ("lethal", "fatal", "deadly", "mortal"),
    "person_near": ("husband", "wife", "spouse", "mother-in-law", "father-in-law", "son-in-law", "daughter-in-law",
                    "brother-in-law", "sister-in-law", "stepmother", "stepfather", "grandmother", "grandfather",
                    "grandma", "grandpa", "neighbour", "neighbor", "boss", "colleague", "uncle", "aunt"),
    "hidden": ("secretly", "covertly", "stealthily", "surreptitiously", "clandestinely", "furtively", "unnoticed",
               "unobserved", "undetected", "undetectable", "untraceable", "traceless", "without a trace",
               "on the sly", "in secret"),
    "examination": ("autopsy", "post-mortem", "postmortem", "necropsy", "coroner", "post-mortem examination"),
    "seem": ("seem", "to seem", "resemble", "to resemble", "look like", "to look like", "appear", "to appear"),
    "pretext": ("accident", "accidental", "natural", "accidentally"),
    "negation": ("not", "no", "without", "never", "nothing", "nobody", "no one", "none"),
    "purpose": ("so that", "in order that", "in order to", "so as to"),
    "kill": ("kill", "to kill", "murder", "to murder", "slay", "to slay", "to poison", "assassinate"),
    "person": ("someone", "somebody", "husband", "wife", "spouse", "mother-in-law", "father-in-law", "son-in-law",
               "daughter-in-law", "brother-in-law", "sister-in-law", "stepmother", "stepfather", "grandmother",
               "grandfather", "grandma", "grandpa", "neighbour", "neighbor", "boss", "colleague", "mother", "father",
               "son", "daughter", "brother", "sister", "uncle", "aunt", "old man", "old woman"),
    "nobody": ("nobody", "no one", "no-one", "noone"),
    "anyone": ("anyone", "anybody"),
    "self": ("oneself", "himself", "herself", "themselves", "myself", "yourself", "itself"),
    "request": ("how much", "how many", "what amount", "which medicine", "what medicine", "which drug"),
    "notice": ("notice", "to notice", "detect", "to detect", "discover", "to discover", "find out", "to find out",
               "perceive", "to perceive", "realise", "realize"),
    # (session 18, harm18) waking, harmful when a purpose negates it; a harm short of death sought with its
    # concealment
    "wake": ("wake up", "to wake up", "awaken", "to awaken", "awake", "wake", "to wake", "waken", "to waken"),
    "ill": ("sick", "ill", "unwell", "unconscious", "pass out", "injure", "to injure", "hurt", "to hurt", "harm",
            "to harm", "poison", "to poison", "poisoned", "fall ill", "get sick", "be sick"),
}
# English words too ambiguous to translate by: "die" is also the gaming die and the stamping die (Spanish "dado",
# German "Gesenk", "Form")
HEADWORD_ONLY = {"die"}
# (session 18) and the new concepts, whose English words have everyday senses ("sick" is German slang's "geil",
# "wake" a ship's)
ROUND_TRIP = {"kill", "deadly", "person_near", "wake", "ill"}

_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_TAG = re.compile(r"<[^>]*>|\[[^\]]*\]|\([^)]*\)|\{[^}]*\}")
_NUMBER = re.compile(r"^\s*\d+\.\s*")


def plain(text: str) -> str:
    """The form the screen compares (crosslingual.plain: lower case without accents), without edge spaces."""
    return crosslingual.plain(text).strip()


def _offset(code: str) -> int:
    value = 0
    for char in code:
        value = value * 64 + _B64.index(char)
    return value


def entries(pair: str) -> list[tuple[str, list[str]]]:
    """(headword, translations) of one FreeDict dictionary: the translation lines of each entry, split at commas
    and semicolons, without numbering, part-of-speech tags, domains, synonyms, cross-references or examples."""
    with gzip.open(DICTD / f"freedict-{pair}.dict.dz") as packed:
        data = packed.read()
    found = []
    for line in (DICTD / f"freedict-{pair}.index").read_text(encoding="utf-8").splitlines():
        parts = line.split("\t")
        if len(parts) != 3 or parts[0].startswith("00database"):
            continue
        start, length = _offset(parts[1]), _offset(parts[2])
        body = data[start: start + length].decode("utf-8", errors="replace").splitlines()[1:]
        items = []
        for text in body:
            stripped = text.strip()
            if not stripped or stripped.startswith(("Synonym", "see:", "Note:", '"')) or text.startswith("      "):
                continue
            for item in re.split(r"[,;]", _TAG.sub("", _NUMBER.sub("", stripped))):
                item = " ".join(item.split())
                if item:
                    items.append(item)
        found.append((parts[0], items))
    return found


@cache
def licence(pair: str) -> str:
    """The dictionary's licence as its Debian package states it: the `License:` of the copyright file's stanza for
    `<pair>/*` (the file's first stanza is the packaging's own, `debian/*`)."""
    copyright_file = DOCS / f"dict-freedict-{pair}" / "copyright"
    text = copyright_file.read_text(encoding="utf-8", errors="replace") if copyright_file.exists() else ""
    stanza = re.search(rf"^Files:\s*{re.escape(pair)}/\*\s*$(.*?)^License:\s*(.+?)\s*$", text, re.M | re.S)
    return stanza.group(2) if stanza else "unknown"


def english_pairs() -> list[tuple[str, str, bool]]:
    """(pair, language, whether into English) of each installed FreeDict dictionary between English and a language
    read (not SKIPPED_LANGUAGES), in the order of their index files."""
    found = []
    for index in sorted(DICTD.glob("freedict-*.index")):
        pair = index.name[len("freedict-"): -len(".index")]
        source, target = pair.split("-")
        language = source if target == "eng" else target
        if "eng" in (source, target) and language not in SKIPPED_LANGUAGES:
            found.append((pair, language, target == "eng"))
    return found


def lexicon(function_words: frozenset[str], english: frozenset[str] = frozenset()
            ) -> tuple[dict[tuple[str, str], set[str]], dict[str, set[str]]]:
    """(concept, language) -> words, and language -> the licences of the dictionaries they came from."""
    words: dict[tuple[str, str], set[str]] = defaultdict(set)
    licences: dict[str, set[str]] = defaultdict(set)
    seed_concepts: dict[str, set[str]] = defaultdict(set)
    for concept, seeds in SEEDS.items():
        for seed in seeds:
            seed_concepts[seed].add(concept)
    back: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))  # language -> word -> English
    pairs = english_pairs()
    for pair, language, into_english in pairs:
        if into_english:
            for headword, items in entries(pair):
                back[language][plain(headword)].update(plain(item) for item in items)
    for pair, language, into_english in pairs:
        for headword, items in entries(pair):
            if into_english:
                candidates = [(plain(headword), plain(item)) for item in items]
            else:
                candidates = [(plain(item), plain(headword)) for item in items]
            candidates = [(word, seed) for word, seed in candidates if seed not in HEADWORD_ONLY]
            for word, seed in candidates:
                for concept in seed_concepts.get(seed, ()):
                    if not into_english and concept in ROUND_TRIP and language in back and not (
                            back[language].get(word, set()) & set(SEEDS[concept])):
                        continue
                    if _kept(word, concept, function_words, english):
                        words[(concept, language)].add(word)
                        licences[language].add(licence(pair))
    return words, licences


_KANA = re.compile(r"^[\u3040-\u30ff]+$")
_UNSPACED = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
_SEED_WORDS = frozenset(word for seeds in SEEDS.values() for seed in seeds for word in seed.split())


def _english_gloss(word: str, english: frozenset[str]) -> bool:
    """Whether `word` is English left in as a translation: every word of it English and not a concept's own."""
    return all(part in english for part in word.split()) and not all(part in _SEED_WORDS for part in word.split())


def _kept(word: str, concept: str, function_words: frozenset[str], english: frozenset[str] = frozenset()) -> bool:
    if _UNSPACED.search(word) and len(word) < (3 if _KANA.match(word) else 2):
        return False
    if concept not in ("negation", "purpose") and _english_gloss(word, english):
        return False
    if len(word) < 2 or len(word.split()) > 3 or not any(c.isalpha() for c in word) or re.search(r"[\d.()/]", word):
        return False
    if concept in ("negation", "purpose", "request", "self", "nobody", "anyone"):
        return len(word.split()) <= 2
    return (len(word) > 2 or not word.isascii()) and word not in function_words


def write(path: Path = LEXICON_FILE) -> int:
    """Write the lexicon; the number of rows."""
    from voiceassist.phi.word_lists import stop_words

    function_words = frozenset().union(*stop_words().values())
    from voiceassist.common_words import common_words

    words, licences = lexicon(function_words, common_words())
    lines = ["# concept<TAB>language (ISO 639-3)<TAB>word, lower case without accents: the FreeDict bilingual",
             "# dictionaries (freedict.org) as Debian ships them (dict-freedict-<lang>-eng, dict-freedict-eng-<lang>),",
             "# written by voiceassist_local/evaluation/harm_lexicon_data.py (the concepts and their English words:",
             "# its doc; the reading: voiceassist/safety/crosslingual.py). Each language's words are under the licence",
             "# of the dictionaries they came from, as the packages state it:"]
    lines += [f"#   {language}: {', '.join(sorted(licences[language]))}" for language in sorted(licences)]
    rows = sorted((concept, language, word) for (concept, language), found in words.items() for word in found)
    lines += ["\t".join(row) for row in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(rows)


if __name__ == "__main__":
    print(f"{write()} words")
