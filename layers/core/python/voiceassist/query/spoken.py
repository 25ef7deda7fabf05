"""How speech reads when it is written down: the filled pauses a transcript keeps, and the clause breaks a run-on
question leaves unmarked ("he's been on it for years and his eGFR just dropped to 42 what do I do", "she is on
metformin should I hold it"), as a recogniser writes a question said in one breath, or a clinician types one.

English marks a direct question by its word order: a wh-word first, then subject-operator inversion ("what dose
should I give"), or, in a yes-no question, the operator put before its subject ("should I hold it"; Quirk R et al., A
Comprehensive Grammar of the English Language, 1985, 11.2-11.14). An indirect question keeps the statement's order
("I want to know what dose I should give"), and a relative clause has no subject after its operator ("the dose which
is usual"). So a clause begins, marked or not, where a wh-word is followed within a few words by an operator and a
subject, or where an operator is followed by one, or where "what", "how" or "why" (never relative pronouns) stands
with its operator ("what is the first tablet", "what's the most I can give"); read only inside a run of words (never
after a mark). Not a break:
an operator after a wh-word of the same run ("how much fluid per kilo do I run" is one clause); a wh-word after the
preposition that goes with it ("at what potassium do we stop": pied-piping, Quirk 11.15); the second alternative after
"or" (one alternative question, Quirk 11.20); a run that opens with a preposition or subordinator, an adverbial put
before its question ("after IM epi do they need O2", "if the CURB-65 is zero can they go home": Quirk 8.15, 15.2);
and a run of at most three words besides discourse words ("so", "okay", "um": terms.STOPWORDS and the filled
pauses), which heads the question as a heading before a colon does ("new htn workup should i get an ECG"), unless a
subject pronoun with its operator contracted makes it a clause ("she's very itchy can she have another"). Only
closed-class words are read: the operators, the subject pronouns, the wh-words, prepositions and subordinators.
"""

from __future__ import annotations

import re

from voiceassist.query.terms import STOPWORDS

# The filled pauses of spoken English as transcripts spell them: "um", "uh", "hmm", "mhm", "mmm" (the filled pauses
# OpenAI Whisper's English text normalizer removes before scoring: openai-whisper 20250625,
# whisper/normalizers/english.py, MIT), "er" (University of Rochester TRIPS/CISD annotation guidelines: um, uh, er,
# "filled pause, more common in British English") and "erm" (British English's er and erm: Wikipedia, "Filler
# (linguistics)", CC BY-SA 4.0), with "uhm" and a sound held longer ("umm", "uhhh", "hmmm"). Closed-class: never a
# topic. Typed in capitals it is the writer's abbreviation ("metformin ER": extended release), not a pause.
_FILLED_PAUSE = re.compile(r"u+[hm]+|er|erm+|hm{2,}|mhm+|m{3,}")


def filled_pause(word: str) -> bool:
    """Whether a word is a filled pause ("um", "Er", "hmm"), not an abbreviation typed in capitals ("ER")."""
    return not (len(word) > 1 and word.isupper()) and bool(_FILLED_PAUSE.fullmatch(word.lower()))


_WH = r"what|which|when|where|why|how|who"
# "it", "this" and "that" after "do" or "have" are most often their objects ("stop it and do it later", "if he has
# it"), so they are read as subjects only after "be" and the modals ("is it safe", "would that be enough")
_OPERATOR = r"can|could|should|would|will|shall|is|are|was|were|am|may|might|must"
_DO_HAVE = r"do|does|did|has|have|had"
_PERSON = r"i|we|you|he|she|they|there"
_INVERSION = rf"(?:(?:{_OPERATOR})\s+(?:{_PERSON}|it|this|that)|(?:{_DO_HAVE})\s+(?:{_PERSON}))\b"
WH_REACH = 4  # words between the wh-word and its operator ("what dose of metformin should I")
# "what", "how" and "why" are never relative pronouns, so one with its operator opens a question whatever the subject
# ("what is the first tablet", "what's the most I can give"); "which", "who", "when" and "where" may open a relative
# clause ("the dose which is usual") and need the subject pronoun after the operator
_OPENS = rf"(?:what|how|why)(?:'s|\s+(?:{_OPERATOR}|{_DO_HAVE}))\b"
_OPENING = re.compile(rf"(?<=[^\W_])\s+(?=(?:(?:{_WH})(?:\s+[^\W\d_]+){{0,{WH_REACH}}}?\s+)?{_INVERSION}|{_OPENS})",
                      re.I)
_WH_WORD = re.compile(rf"(?:{_WH})", re.I)
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
_WH_OPENING = re.compile(rf"(?:{_WH})(?:'s)?", re.I)
_MARK = re.compile(r"[,.;:?!\n\u2013\u2014\u2026]|\s-+\s")
# English's simple prepositions and subordinators (Quirk et al. 1985, 9.7 and 14.12), closed classes
_PREPOSITIONS = frozenset((  # noqa: SIM905 - a word list reads better as text
    "about above across after against along among around at before behind below beneath beside besides between "
    "beyond by despite down during except for from in inside into like near of off on onto out outside over past "
    "per since than through throughout till to toward towards under until up upon via with within without").split())
_SUBORDINATORS = frozenset((  # noqa: SIM905
    "if unless once when whenever while whilst because as though although since until till whether").split())
_ADVERBIAL_OPENINGS = _PREPOSITIONS | _SUBORDINATORS
# the discourse markers that open a spoken turn before its first clause ("so", "okay", "right", "well": Schiffrin D,
# Discourse Markers, 1987; Carter R, McCarthy M, Cambridge Grammar of English, 2006, 106-110), with the conjunctions
_DISCOURSE = frozenset("and but or so then now well right okay ok alright yeah yes also".split())  # noqa: SIM905
# a run of at most this many words before the question (discourse words aside) is its heading ("new htn workup should
# i get an ECG", "metformin should I hold it"), as wording.HEADING_WORDS before a colon: no clause of its own
HEADING_WORDS = 3
# a subject pronoun with its operator contracted ("she's", "we've", "I'm"): the run is a clause with its verb
_SUBJECT_CONTRACTED = re.compile(r"(?:i|we|you|he|she|they|it)'(?:s|m|re|ve|d|ll)")


def breaks(text: str) -> list[re.Match[str]]:
    """The unmarked clause breaks of `text` (each the whitespace before a question's opening)."""
    found: list[re.Match[str]] = []
    for match in _OPENING.finditer(text):
        start = max(found[-1].end() if found else 0, max((m.end() for m in _MARK.finditer(text, 0, match.start())),
                                                         default=0))
        run = [w.lower() for w in _WORD.findall(text[start:match.start()])]
        opening = _WORD.match(text, match.end())
        wh = opening is not None and _WH_OPENING.fullmatch(opening.group()) is not None
        said = [w for w in run if not filled_pause(w) and w not in STOPWORDS]
        first = next((w for w in run if not filled_pause(w) and w not in _DISCOURSE), "")
        told = any(_SUBJECT_CONTRACTED.fullmatch(w) for w in run)  # "she's struggling": a clause, no heading
        if ((len(said) <= HEADING_WORDS and not told) or (not wh and any(_WH_WORD.fullmatch(w) for w in run))
                or run[-1] in _PREPOSITIONS or run[-1] == "or" or first in _ADVERBIAL_OPENINGS):
            continue
        found.append(match)
    return found


def clause_ends(text: str, marks: re.Pattern[str]) -> list[re.Match[str]]:
    """The `marks` that end clauses in `text` (wording's), with its unmarked breaks, in order."""
    marked = list(marks.finditer(text))
    unmarked = [b for b in breaks(text) if not any(m.start() < b.end() and b.start() < m.end() for m in marked)]
    return sorted(marked + unmarked, key=lambda m: m.start())
