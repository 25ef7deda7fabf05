"""How a question is worded around its topics: scores typed with a space, and findings it negates. Read by the
evidence score's concepts (query/question_concepts.py)."""

from __future__ import annotations

import re
from functools import cache

from voiceassist.common_words import QUESTION_OPENINGS
from voiceassist.query import spoken, terminology
from voiceassist.query.expansion import CLINICAL_ABBREVIATIONS, abbreviation_meanings
from voiceassist.query.population import NUMBER_WORDS, cardinal

_SURFACE_WORD = re.compile(r"[^\W_]+(?:[-'/][^\W_]+)*")

# A score or marker typed with a space where the abbreviation list joins it with a hyphen or nothing ("curb 65":
# "CURB-65", "ca 125": "CA-125"), or with the hyphen loose as Whisper writes a spoken one ("CURB -65", "CURB - 65"):
# the listed form, so that it is one concept and a passage's "CURB-65" covers it.
_SPACED_NUMBER = re.compile(r"(?<![\w-])([A-Za-z]{2,})(?: | - | -|- )(\d{1,3})(?![\w.,/-])")
# A score said aloud has its number in English words ("curb sixty five", "gad seven"), or typed so with the hyphen of
# its written form ("CURB-sixty-five"): read as digits first (session 17).
_SPOKEN_NUMBER = re.compile(r"(?<![\w-])([A-Za-z]{2,})[ -](" + NUMBER_WORDS + r")(?![\w-])", re.I)


def joined_scores(text: str) -> str:
    """`text` with each score or marker typed with a space or with its number in words written as the abbreviation
    list writes it ("curb 65", "curb sixty five": "CURB-65")."""
    def joined(match: re.Match[str]) -> str:
        word, number = match.groups()
        if _common(word) and not _typed_as_abbreviation(word, text):  # "rapid 3 day course", "her 2 children"
            return match.group()
        for form in (f"{word.upper()}-{number}", f"{word.upper()}{number}"):
            if abbreviation_meanings(form):
                return form
        return match.group()

    def spoken(match: re.Match[str]) -> str:
        word, number = match.groups()
        if _common(word):  # "rapid three day course", "her two children"
            return match.group()
        written = f"{word} {cardinal(number)}"
        return joined_form if (joined_form := _SPACED_NUMBER.sub(joined, written)) != written else match.group()

    return _bare_score_names(_SPACED_NUMBER.sub(joined, _SPOKEN_NUMBER.sub(spoken, said_vitamins(spelt_letters(text)))))


# A vitamin said with its number in words ("B twelve", "D three", as Whisper writes a spoken "B12"): written as typed
# ("B12") where the drug dictionary names "vitamin B12" (terminology.drug_names: MeSH, DrugBank), so that the
# reference's "check B12" covers it. Capitals only, and only the letters of the numbered vitamins (B1-B12, D2-D3,
# K1-K2): a lower-case "a one" is the article and a number.
_VITAMIN_SAID = re.compile(r"(?<![\w'-])([BDK]) (" + NUMBER_WORDS + r")(?![\w'-])")


def said_vitamins(text: str) -> str:
    """`text` with each vitamin said with its number in words written with the number in digits."""
    def joined(match: re.Match[str]) -> str:
        written = f"{match.group(1)}{cardinal(match.group(2))}"
        return written if f"vitamin {written.lower()}" in terminology.drug_names() else match.group()

    return _VITAMIN_SAID.sub(joined, text)


def _bare_score_names(text: str) -> str:
    """A score named without its number where the calculator registry names it so ("a CURB score of two", "resp
    rate cutoff in curb": CURB-65, whose aliases take "curb" alone), written as the registry's title, so that a
    passage's "CURB-65" covers it: where "score", "criteria" or "points" follows it, or it ends a phrase after
    "in"/"on". Not the verb ("to curb the spread", "curb appetite"), and not with a bare value after it ("CURB 4":
    measured, that reading answered an uncovered "IV abx regimen for severe CAP inpatient, CURB 4" from the
    CURB-65 passage, as the same question with "CURB-65" written already is; decision 0027)."""
    for bare, title in _score_stems():
        text = bare.sub(title, text)
    return text


@cache
def _score_stems() -> tuple[tuple[re.Pattern[str], str], ...]:
    """(the bare name, the title) of each calculator titled NAME-NUMBER ("CURB-65") whose alias matches NAME alone."""
    from voiceassist.tools.calculators.question_patterns import CALCULATOR_ALIASES
    from voiceassist.tools.calculators.registry import CALCULATORS

    stems = []
    for name, alias in CALCULATOR_ALIASES:
        titled = re.match(r"([A-Za-z]+)-(\d+)$", CALCULATORS[name].title)
        if not titled or not re.fullmatch(alias, titled.group(1).lower()):
            continue
        stem = titled.group(1)
        named = (rf"(?<![\w-])(?:(?:(?<=\bin )|(?<=\bon )){stem}(?=\s*(?:[?!.,;)]|$))"
                 rf"|{stem}(?=\s+(?:scores?|criteria|points?)\b))")
        stems.append((re.compile(named, re.I), titled.group()))
    return tuple(stems)


# An abbreviation said letter by letter and written so ("H B A one C", "e G F R", "C T"): single letters, and the
# digits or number words said among them, each apart; at least two letters. Read as the abbreviation list writes the
# letters joined ("HbA1c", "eGFR", "CT"), when it lists them (as typed, or in any case: terminology's listed
# forms), else left as typed. A leading "a" or "I" may be the article or the asker ("is a B P of 150 high").
_LETTER_RUN = re.compile(r"(?<![\w'-])((?:[A-Za-z]|\d|" + NUMBER_WORDS + r")(?: (?:[A-Za-z]|\d|" + NUMBER_WORDS
                         + r"))+)(?![\w'-])")


def spelt_letters(text: str) -> str:
    """`text` with each abbreviation spelt out letter by letter written as the abbreviation list writes it."""
    def joined(match: re.Match[str]) -> str:
        pieces = match.group(1).split(" ")
        if sum(len(p) == 1 and p.isalpha() for p in pieces) < 2:
            return match.group()
        said = [p if len(p) == 1 else str(cardinal(p)) for p in pieces]
        # a lower-case "a" or "i" before capitals is the article or the asker; a capital one may be a letter
        starts = (1, 0) if said[0] in ("a", "i") else (0, 1) if said[0] in ("A", "I") else (0,)
        for start in starts:
            form = "".join(said[start:])
            if sum(c.isalpha() for c in form) >= 2 and (listed := _listed(form)):
                return " ".join(pieces[:start] + [listed])
        return match.group()

    return _LETTER_RUN.sub(joined, text)


def _listed(form: str) -> str | None:
    """How the abbreviation lists write `form`, as typed or in another case ("HBA1C" -> "HbA1c")."""
    if abbreviation_meanings(form):
        return form
    folded = form.lower()
    return (next((key for key in sorted(CLINICAL_ABBREVIATIONS) if key.lower() == folded), None)
            or terminology.lower_case_abbreviation(folded))


def _common(word: str) -> bool:
    return terminology.english_words().get(word.lower(), 0.0) >= terminology.COMMON_ZIPF


def _typed_as_abbreviation(word: str, text: str) -> bool:
    """A common word typed in capitals where the question is not ("HER 2 positive", "CA 125", "CD 4 count"): the
    writer marks the abbreviation."""
    return word.isupper() and not text.isupper()


# Pertinent negatives: what a question says the patient has not ("no comorbs", "no other hx", "without
# diabetes") is its context, not its topic; a passage need not name it. The pre-negation triggers and the scope
# (the next words up to a punctuation mark or a termination term, at most five words) are NegEx's: Chapman WW et
# al., "A simple algorithm for identifying negated findings and diseases in discharge summaries", J Biomed Inform
# 2001;34:301-310 (the triggers that open a scope before the finding, less "not", which in a question negates its
# verb: "what if BP is not controlled").
_NEGATION = re.compile(r"\b(?:no|without|denies|denied|nil|negative for|free of|absence of)\b", re.I)
_SCOPE_END = re.compile(r"[,.;:!?()\u2013]|\s-\s|\b(?:but|however|except|although|though|which|apart from|"
                        r"aside from|besides)\b", re.I)
NEGATION_SCOPE = 5


def negated_words(text: str) -> frozenset[str]:
    """The words (lower case) inside a negation's scope in `text` (NegEx, above)."""
    found: set[str] = set()
    for trigger in _NEGATION.finditer(text):
        rest = text[trigger.end():]
        end = _SCOPE_END.search(rest)
        scope = _SURFACE_WORD.findall(rest[:end.start()] if end else rest)[:NEGATION_SCOPE]
        found.update(w.lower() for w in scope)
    return frozenset(found)


# What is asked and what describes the patient. Clinicians tell the case and then ask ("kid 18kg stung by wasp, lips
# swelling + wheeze. epinephrine IM dose per kg pls"): the question is read as clauses, split at sentence ends and at
# the marks that separate clauses in typed text (comma, semicolon, colon, a spaced dash, an ellipsis), and a clause
# asks when it ends with a question mark, opens with an interrogative (a wh-word or an auxiliary or modal verb put
# first, English's two question forms: Quirk R et al., A Comprehensive Grammar of the English Language, 1985, 11.2-
# 11.4), holds the politeness marker of a request ("please", "pls"), or names the value it asks for (a head noun
# of the numeric answer types, ATTRIBUTE below: "max dose of amlodipine"). Without such a clause, the last one
# asks (the case comes first). Only closed-class words are read; no parser (spaCy's is loaded by the PHI detector
# only, in another function).
_CLAUSE_END = re.compile(r"\?+|[!;\n]+|\.{2,}|\u2026|\.(?=\s|$)|,(?=\s)|:(?=\s)|\s[-\u2013\u2014]+\s")
_INTERROGATIVE = QUESTION_OPENINGS | {"must"}
_OPENING_CONJUNCTION = frozenset("and so but or then ok okay also".split())  # noqa: SIM905
_REQUEST = frozenset({"please", "pls", "plz"})
# the head nouns of the NUMERIC answer types as clinical questions word them (Li X, Roth D, "Learning question
# classifiers", COLING 2002); attribute_owner.asked_owner reads whose value is asked beside them. A summary of
# readings ("home bp average", "the mean level") names the value asked as well.
ATTRIBUTE = re.compile(r"(?:doses?|dosing|dosage|targets?|goals?|rates?|levels?|cut-?offs?|thresholds?|durations?"
                        r"|frequency|intervals?|averages?|means)")


# How a letter or an exam item is framed around what it asks, which no reference repeats: a letter's salutation at its
# head ("Dear colleague,", "Dear Dr Okafor,": the salutation, the greeting and addressee before the first comma), an
# exam item's number ("Q4", "Q11.", "Question 2:") at its head and its mark allocation ("(2 marks)", "[1 mark]").
# Written as spaces (the positions of the rest kept), so they are neither topics nor a clause of their own (the
# marks were read as the clause that asks when they closed the item). Where an item is so framed, a clause opened by
# an exam's command word asks, as an interrogative does: Ofqual's command words (Fair Access by Design, 2015:
# "Describe", "Explain", "Outline", "State", "Discuss", "Justify", ...) and the exam boards' "Name" and "List".
_SALUTATION = re.compile(r"^\s*Dear(?:\s+[^\s,.;:?!]+){1,4}\s*,")
_ITEM_NUMBER = re.compile(r"^\s*(?:Q|Question\s*)\d{1,3}[a-z]?\b\s*[.:)]?", re.I)
_MARKS = re.compile(r"[(\[]\s*\d{1,2}\s*marks?\s*[)\]]\.?", re.I)
COMMAND_WORDS = frozenset((  # noqa: SIM905 - a word list reads better as text
    "analyse analyze apply argue assess calculate compare complete consider contrast criticise debate deduce define "
    "describe develop discuss estimate evaluate examine explain explore give identify illustrate interpret justify "
    "outline prove relate review state suggest summarise summarize list name").split())


def _blank(match: re.Match[str]) -> str:
    return " " * len(match.group())


# An oral or clinical examination named at the head of what it asks ("Viva:", "Viva Q:", "For my viva,", "OSCE
# station:", "Viva question,"): the examination's name frames the item as an item's number does, and no reference
# names it. Only where the name opens the text and a mark closes the frame. A licensing examination's item is framed
# the same way ("NCLEX:", "USMLE Step 2 CK q:", "PLAB 1 question,", "MRCP Part 1 -"): the examining bodies' names for
# their examinations (NCSBN's NCLEX-RN and NCLEX-PN; the USMLE's Step 1, Step 2 CK and Step 3; the GMC's PLAB 1 and 2;
# the Federation of the Royal Colleges of Physicians' MRCP(UK) Part 1, Part 2 and PACES; the RCGP's MRCGP; the
# NBOME's COMLEX; NABP's NAPLEX), with an optional part and "style"; inside a sentence the name stays a word.
_EXAM_PART = r"(?:\s*-?\s*(?:rn|pn)|\s+step\s*[123](?:\s*ck)?|\s+part\s*(?:[123]|i{1,3})|\s+paces|\s+[12])?"
_EXAM_FRAME = re.compile(r"^\s*(?:for\s+(?:the|my|a|an|your)\s+)?(?:viva(?:\s+voce)?|osce|(?:(?:nclex|usmle|plab|mrcp"
                         r"|mrcgp|comlex|naplex)" + _EXAM_PART + r"(?:[\s-]+style)?))"
                         r"(?:\s+(?:station|question|q|qn|item|practice))?\s*[:,.\-\u2013\u2014]", re.I)

# Dictation software's spoken punctuation, left as words where the dictated text was not converted: the punctuation
# each vendor documents for its dictation (Microsoft, "Use voice typing to talk instead of type on your PC": period,
# full stop, comma, question mark, exclamation mark or point, colon, semicolon, new line, new paragraph; Apple, "Dictate
# text on Mac": the same and "dash"; Google Docs, "Type with your voice": period, comma, exclamation point, question
# mark, new line, new paragraph; Nuance Dragon: the same, and "scratch that", which takes back what was said). A
# command is read as its mark only where it stands as a mark does, between two marks or a mark and the text's end
# ("seen again, comma, assuming", "keep her, question mark", "resolved, period."), never inside a phrase ("a period
# of 3 days", "her last period?", "CT colon,": a word there is the clinical word it spells).
_DICTATED_MARKS = {"period": ".", "full stop": ".", "comma": ",", "question mark": "?", "exclamation mark": "!",
                   "exclamation point": "!", "colon": ":", "semicolon": ";", "dash": "-", "new line": "\n",
                   "new paragraph": "\n", "scratch that": " "}
_DICTATED = re.compile(r"(?:(?<=^)|(?<=[,.;:?!]))(\s*)(" + "|".join(sorted(_DICTATED_MARKS, key=len, reverse=True))
                       + r")(?=\s*(?:[,.;:?!]|$))", re.I)
# Text speak (chat spellings of English words: "wht", "chk", "pls", "b4") is read as the words it spells
# (terminology.text_speak: ekphrasis's list, less every English word and the clinical vocabulary), where typed in
# lower case or capitalised, never in capitals ("XD", "BZ": an acronym).
_TYPED_WORD = re.compile(r"(?<![\w'/-])([a-z0-9]+|[A-Z][a-z0-9]+)(?![\w'/-])")


def unframed(text: str) -> str:
    """`text` with a letter's salutation, an exam item's number, its marks and an examination's name written as
    spaces, dictation's spoken punctuation written as its mark, and text speak as the words it spells."""
    text = _MARKS.sub(_blank, _ITEM_NUMBER.sub(_blank, _SALUTATION.sub(_blank, _EXAM_FRAME.sub(_blank, text))))
    return untexted(dictated(text))


def dictated(text: str) -> str:
    """`text` with each spoken punctuation command standing where a mark stands written as that mark (the
    positions of the rest kept)."""
    def mark(match: re.Match[str]) -> str:
        written = _DICTATED_MARKS[" ".join(match.group(2).lower().split())]
        return match.group(1) + written.ljust(len(match.group(2)))

    return _DICTATED.sub(mark, text)


def untexted(text: str) -> str:
    """`text` with each text-speak spelling written as the English words it spells ("wht bloods do i chk": "what
    bloods do i check")."""
    table = terminology.text_speak()

    def spelt(match: re.Match[str]) -> str:
        word = match.group(1)
        meaning = table.get(word.lower())
        if meaning is None or word.lower() in terminology.folded_abbreviations():
            return word
        return meaning.capitalize() if word[0].isupper() else meaning

    return _TYPED_WORD.sub(spelt, text)


def exam_item(text: str) -> bool:
    """Whether `text` is framed as an exam item (its number, its marks or an examination's name)."""
    return bool(_ITEM_NUMBER.match(text) or _MARKS.search(text) or _EXAM_FRAME.match(text))


def questioned_clauses(text: str) -> tuple[str, ...]:
    """The clauses of `text` that a question mark closes, in order (the surest mark of what is asked)."""
    found: list[str] = []
    position = 0
    for end in _CLAUSE_END.finditer(text):
        piece = text[position:end.start()].strip()
        position = end.end()
        if "?" in end.group() and _SURFACE_WORD.search(piece):
            found.append(piece)
    return tuple(found)


# (session 18) A value the patient is at or on is told, not asked: a clause names the value it asks unless a
# preposition of state stands before the value's noun and its value words ("Metformin at max dose 3 months, HbA1c
# still 9%, what do I add next?", "on full dose": Quirk et al. 1985, 9.7, 9.20). A heading of at most
# HEADING_WORDS words before a colon or a spaced dash at the question's head names what the asking clause after it is
# about ("Pre-op: hold metformin on the day of surgery or the day before?", "Sick day rules - should he hold ..."):
# it asks with that clause. An alternative question typed without its mark (Quirk et al. 1985, 11.20): where no "?" is
# typed, a last clause offering alternatives with "or" asks ("what to add after metformin fails - sglt2 or
# sulfonylurea"). Measured leaving one writer out (decision 0024, session 18).
MARKS_WEIGHED = True  # False: the clauses read as before session 18 (the measurement's baseline)
_STATE = frozenset({"at", "on"})
_TOLD_VALUE_WORDS = frozenset({"max", "maximum", "maximal", "full", "top", "usual", "same", "current", "starting",
                               "the", "a", "his", "her", "their", "this", "that"})


def _told_value(words: list[str], at: int) -> bool:
    """Whether the value's noun at `at` follows a preposition of state, its value words between ("at max dose")."""
    before = at - 1
    while before >= 0 and words[before] in _TOLD_VALUE_WORDS:
        before -= 1
    return before >= 0 and words[before] in _STATE
HEADING_WORDS = 3
_HEADING_END = re.compile(r":|\s[-\u2013\u2014]+\s")
_ALTERNATIVE = re.compile(r"\bor\b", re.I)


def asked_clauses(text: str) -> tuple[str, ...] | None:
    """The clauses of `text` that ask, in order; None when every clause asks or only one clause is written (the
    question has no separate description of the case)."""
    commands = COMMAND_WORDS if exam_item(text) else frozenset()
    text = unframed(text)
    clauses: list[tuple[str, bool, bool, bool]] = []  # (clause, marked as asking, naming a value, a heading)
    position = 0
    for end in [*spoken.clause_ends(text, _CLAUSE_END), None]:  # marks and run-on breaks
        piece = text[position:end.start() if end else len(text)]
        position = end.end() if end else len(text)
        surface = _SURFACE_WORD.findall(piece)
        words = [w.lower() for w in surface]
        if not words:
            continue
        # "and so", "um": a conjunction or a speaker's filled pause before the clause's first word (query/spoken.py)
        while len(words) > 1 and (words[0] in _OPENING_CONJUNCTION or spoken.filled_pause(surface[-len(words)])):
            words = words[1:]
        marked = ((end is not None and "?" in end.group()) or words[0] in _INTERROGATIVE or words[0] in commands
                  or any(w in _REQUEST for w in words))
        heading = (not clauses and end is not None and bool(_HEADING_END.fullmatch(end.group()))
                   and len(words) <= HEADING_WORDS)
        valued = any(ATTRIBUTE.fullmatch(w) and not (MARKS_WEIGHED and _told_value(words, i))
                     for i, w in enumerate(words))
        clauses.append((piece.strip(), marked, valued, heading))
    if len(clauses) < 2:
        return None
    asks = [marked or valued for _, marked, valued, _ in clauses]
    if MARKS_WEIGHED:
        if "?" not in text and _ALTERNATIVE.search(clauses[-1][0]):
            asks[-1] = True
        if clauses[0][3] and any(asks[1:]):
            asks[0] = True
    asked = tuple(clause[0] for clause, ask in zip(clauses, asks, strict=True) if ask) or (clauses[-1][0],)
    return None if len(asked) == len(clauses) else asked
