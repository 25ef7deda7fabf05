"""Writes `voiceassist/_data/safety/gloss.tsv`, the words in many languages that the input screen's gloss
(safety/gloss.py) writes as English, so that the English readings of an override, a jailbreak and a request for the
assistant's internals read a text in a language nobody wrote a row for:

    apt-get install dict-freedict-spa-eng dict-freedict-eng-spa ...   (every FreeDict X-eng and eng-X dictionary)
    .venv/bin/python -m voiceassist_local.evaluation.gloss_data

The dictionaries are the ones the harm lexicon is written from (`harm_lexicon_data.py`: FreeDict as Debian ships
it, the same licences, written per language in the file's header). A foreign word is written as the English word
of a gloss class (GLOSSES: "ignore", "previous", "instructions", "show", "system", "pretend", ...) when an
X-English dictionary lists one of the class's English words as a whole item of its translations ("ignorieren:
ignore"), or an English-X dictionary lists it as a translation of one ("forget: unutmak"). Turkish, Azerbaijani
and the other languages whose dictionaries give a verb in its infinitive ("unutmak", "göstermek") also give its
stem, the imperative a command is written in ("unut", "göster"); an English-X item of several words gives its
last word when the others are a particle an infinitive takes ("to forget", "etw. zeigen").

Left out, as for the harm lexicon: Latin and Esperanto, a word of one letter or of two in Latin letters, a word
with a digit, a stop or a bracket (a dictionary's note), a phrase of more than three words, a word of an unspaced
script under two characters (three if all kana), and a word that is English itself (SCOWL's common words or English
stop words: "show" is the English-Turkish dictionary's own gloss, and an English word in a text is read as
English already). Function words of other languages are kept only for the classes that are function words
(GLOSSES' pronouns, "all", "without", "no", "now"), since the English readings need "your" and "all" beside the
noun; a word given to two classes is written with the earlier class of GLOSSES.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from voiceassist.safety.gloss import GLOSS_FILE
from voiceassist_local.evaluation.harm_lexicon_data import english_pairs, entries, licence, plain

# the English word written -> the English words of the dictionaries that give it. The words are the English
# readings' own (obfuscation.OVERRIDE_WORDS["en"], code_switching's verbs, nouns and internals, signals'
# prompt requests, jailbreak_shapes' frames), each class a word those readings read
GLOSSES: dict[str, tuple[str, ...]] = {
    "ignore": ("ignore", "to ignore", "disregard", "to disregard", "pay no attention"),
    "forget": ("forget", "to forget"),
    "bypass": ("bypass", "to bypass", "circumvent", "to circumvent", "get around", "evade"),
    "override": ("override", "to override", "overrule", "to overrule", "cancel", "to cancel", "annul"),
    "previous": ("previous", "prior", "earlier", "preceding", "former", "above-mentioned", "aforementioned"),
    "instructions": ("instruction", "instructions", "directive", "directives", "guideline", "guidelines",
                     "command", "commands", "rules", "regulations"),
    "restrictions": ("restriction", "restrictions", "limitation", "limitations", "constraint", "constraints",
                     "limit", "limits", "censorship", "censor"),
    "filters": ("filter", "filters"),
    "show": ("show", "to show", "display", "to display", "exhibit"),
    "reveal": ("reveal", "to reveal", "disclose", "to disclose", "divulge", "expose", "uncover"),
    "repeat": ("repeat", "to repeat", "reiterate"),
    "print": ("print", "to print", "print out"),
    "tell": ("tell", "to tell"),
    "system": ("system",),
    "secret": ("secret", "hidden", "confidential", "concealed"),
    "initial": ("initial", "original", "first"),
    "settings": ("settings", "setting", "configuration", "configure"),
    "password": ("password", "passwords", "watchword"),
    "pretend": ("pretend", "to pretend", "feign", "to feign", "simulate", "to simulate", "impersonate",
                "play the role"),
    "imagine": ("imagine", "to imagine", "suppose", "fancy"),
    "role": ("role", "part played"),
    "character": ("character", "persona"),
    "mode": ("mode",),
    "developer": ("developer", "programmer", "creator"),
    "unrestricted": ("unrestricted", "unlimited", "limitless", "boundless", "unbounded", "uncensored"),
    "ethics": ("ethics", "morals", "morality", "ethical", "moral", "scruples"),
    "safety": ("safety", "security"),
    "answer": ("answer", "to answer", "reply", "respond", "to respond"),
    "refuse": ("refuse", "to refuse", "decline", "reject", "deny"),
    "now": ("now", "from now on", "henceforth"),
    "without": ("without",),
    "no": ("no", "not", "none"),
    "all": ("all", "every", "everything", "whole", "entire"),
    "your": ("your", "yours", "thy", "thine"),
    "you": ("you", "thou"),
    "me": ("me", "to me"),
    "and": ("and",),
    "please": ("please", "kindly"),
}
FUNCTION_CLASSES = frozenset({"now", "without", "no", "all", "your", "you", "me", "and", "please"})
# an infinitive's ending, the imperative is what is left: Turkish and Azerbaijani -mak/-mek, Tatar and Kazakh do not
# ship; the Turkic ones only, since elsewhere an ending is no stem ("-mak" in Polish or Czech is a noun's)
INFINITIVE_ENDINGS: dict[str, tuple[str, ...]] = {"tur": ("mak", "mek"), "aze": ("mak", "mək", "mek")}
# (step 2) the imperative an order is written in, from a verb's infinitive, where one ending rule of the language's
# grammar makes it (the second person singular): Danish and Norwegian drop the infinitive's -e ("vise" -> "vis") and
# write a doubled consonant single ("glemme" -> "glem"), Swedish a second-conjugation -a ("glömma" -> "glöm"; "visa"
# stays "visa"); Italian -are -> -a,
# -ere and -ire -> -i ("dimenticare" -> "dimentica", "ripetere" -> "ripeti"); Spanish and Portuguese -ar -> -a, -er and
# -ir -> -e ("olvidar" -> "olvida", "esquecer" -> "esquece"). A form the rule does not make (a stem change: "mostrar"
# -> "muestra"; German "vergiss", Finnish "unohda") is not read. Only the verb classes' words
IMPERATIVE_ENDINGS: dict[str, tuple[tuple[str, str], ...]] = {
    "dan": (("e", ""),), "nor": (("e", ""),), "swe": (("a", ""),),
    "ita": (("are", "a"), ("ere", "i"), ("ire", "i")),
    "spa": (("ar", "a"), ("er", "e"), ("ir", "e")), "por": (("ar", "a"), ("er", "e"), ("ir", "e")),
    # (step 3) the Slavic and Baltic verbs of the -ovat / -ować / -ировать class, which the borrowed verbs of an
    # override take ("ignorovat" -> "ignoruj", "zignorować" -> "zignoruj", "ignorirati" -> "ignoriraj",
    # "игнорировать" -> "игнорируй", Bulgarian's first person "игнорирам" -> "игнорирай", Lithuanian "ignoruoti"
    # -> "ignoruok"); written without accents, as the glossary is ("ignorovať", "й")
    "ces": (("ovat", "uj"),), "slk": (("ovat", "uj"),), "pol": (("owac", "uj"),),
    "hrv": (("irati", "iraj"), ("ovati", "uj")), "srp": (("irati", "iraj"), ("ovati", "uj")),
    "slv": (("irati", "iraj"), ("ovati", "uj")),
    "rus": (("ировать", "ируй"), ("овать", "уй")), "bul": (("ам", "ай"),), "lit": (("uoti", "uok"),),
}
NORDIC = frozenset({"dan", "nor", "swe"})
VERB_CLASSES = frozenset({"ignore", "forget", "bypass", "override", "show", "reveal", "repeat", "print", "tell",
                          "pretend", "imagine", "answer", "refuse"})
# a particle an English-X dictionary writes before a verb ("etw. zeigen", "jdn. ignorieren", "to show")
# (and Romanian's infinitive particle, "a uita")
_PARTICLES = re.compile(r"^(?:etw|jdn|jdm|jds|sth|sb|qc|qn|to|se|si|sich|s'|a)\.?\s+|^s'")
# the languages of the project's stop-word lists (`_data/phi/stop_words.tsv`), by their dictionaries' codes
STOP_WORD_LANGUAGES = {"eng": "en", "deu": "de", "spa": "es", "fra": "fr", "ita": "it", "nld": "nl", "por": "pt"}
_KANA = re.compile(r"^[\u3040-\u30ff]+$")
_UNSPACED = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\u0e00-\u0e7f]")


def _items(item: str) -> list[str]:
    """The word(s) an item gives: itself, and without a leading particle (and without a closing stop: "talimat.")."""
    word = plain(item).rstrip(".;:!")
    bare = _PARTICLES.sub("", word).strip()
    return list(dict.fromkeys(w for w in (word, bare) if w))


def _kept(word: str, gloss: str, function_words: dict[str, frozenset[str]], english: frozenset[str],
          language: str) -> bool:
    if _UNSPACED.search(word):
        return len(word) >= (3 if _KANA.match(word) else 2) and len(word) <= 8
    if len(word) < 3 and word.isascii():
        return False
    if len(word.split()) > 3 or not any(c.isalpha() for c in word) or re.search(r"[\d.()/!?:]", word):
        return False
    if all(part in english for part in word.split()):
        return False
    # a function word of a language with a stop-word list is glossed only by its own language's dictionaries
    # (Kurdish "der", without, is German's and Dutch's article)
    own = STOP_WORD_LANGUAGES.get(language)
    others = [words for code, words in function_words.items() if code != own]
    if gloss in FUNCTION_CLASSES:
        return not any(word in words for words in others)
    return not any(word in words for words in function_words.values())


def glossary(function_words: dict[str, frozenset[str]], english: frozenset[str]
             ) -> tuple[dict[tuple[str, str], str], dict[str, set[str]]]:
    """(language, foreign word) -> the English word written for it, and language -> its dictionaries' licences."""
    order = {gloss: rank for rank, gloss in enumerate(GLOSSES)}
    seed_gloss: dict[str, str] = {}
    for gloss, seeds in GLOSSES.items():
        for seed in seeds:
            seed_gloss.setdefault(seed, gloss)
    found: dict[tuple[str, str], str] = {}
    licences: dict[str, set[str]] = defaultdict(set)

    def add(language: str, word: str, gloss: str, pair: str) -> None:
        words = [word] + [word[: -len(e)] for e in INFINITIVE_ENDINGS.get(language, ())
                          if word.endswith(e) and len(word) - len(e) >= 3 and " " not in word]
        if gloss in VERB_CLASSES and " " not in word:
            for ending, imperative in IMPERATIVE_ENDINGS.get(language, ()):
                form = plain(word[: -len(plain(ending))] + imperative)
                if word.endswith(plain(ending)) and len(form) >= 3:
                    # a doubled consonant is written single at the end of a Nordic word ("glemme" -> "glem")
                    words.append(form[:-1] if language in NORDIC and form[-1] == form[-2] else form)
        for each in words:
            if not _kept(each, gloss, function_words, english, language):
                continue
            key = (language, each)
            if key not in found or order[gloss] < order[found[key]]:
                found[key] = gloss
                licences[language].add(licence(pair))

    for pair, language, into_english in english_pairs():
        for headword, items in entries(pair):
            if into_english:
                glosses = {seed_gloss[p] for item in items for p in [plain(item)] if p in seed_gloss}
                for gloss in glosses:
                    for word in _items(headword):
                        add(language, word, gloss, pair)
            elif plain(headword) in seed_gloss:
                for item in items:
                    for word in _items(item):
                        add(language, word, seed_gloss[plain(headword)], pair)
    return found, licences


def write(path: Path = GLOSS_FILE) -> int:
    """Write the glossary; the number of rows."""
    from voiceassist.common_words import common_words
    from voiceassist.phi.word_lists import ENGLISH, stop_words

    lists = stop_words()
    function_words = {code: frozenset(words) for code, words in lists.items()}
    english = frozenset(common_words()) | frozenset(lists[ENGLISH])
    found, licences = glossary(function_words, english)
    lines = ["# language (ISO 639-3)<TAB>word, lower case without accents<TAB>the English word the gloss writes: the",
             "# FreeDict bilingual dictionaries (freedict.org) as Debian ships them (dict-freedict-<lang>-eng,",
             "# dict-freedict-eng-<lang>), written by voiceassist_local/evaluation/gloss_data.py (the English words:",
             "# its doc; the reading: voiceassist/safety/gloss.py). Each language's words are under the licence of",
             "# the dictionaries they came from, as the packages state it:"]
    lines += [f"#   {language}: {', '.join(sorted(licences[language]))}" for language in sorted(licences)]
    lines += ["\t".join((language, word, gloss)) for (language, word), gloss in sorted(found.items())]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(found)


if __name__ == "__main__":
    print(f"{write()} words")
