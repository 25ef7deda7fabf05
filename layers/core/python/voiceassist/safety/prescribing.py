"""A person started on, kept on, switched to or taken off a drug: the prescriber's act, whoever the person is named as
(session 19, fix20).

`act_reader.care_act` reads an act on a patient as care, and does not read it when the person is "someone" or
"somebody": that is how a harmful request names its victim ("how do I hurt somebody"). A prescriber names the patient
the same way when the act is the drug's ("how do I start somebody on metformin, like what dose to begin with", the
spoken register of blind19): the meaning model read that question as harmful and as a jailbreak, and the screen
refused it. Here "someone" or "somebody" is read as the patient when it is the object of a phrasal verb of prescribing
("start / restart / commence / initiate / put / keep / maintain / switch / change / convert / wean / take / titrate ...
on / onto / off / to / from") and a drug of the shipped drug word list (phi/word_lists.DRUG_WORDS,
drug-named-entity-recognition's dictionary: MeSH, DrugBank and Wikipedia names) stands in the four words after the
preposition ("on a statin", "onto long acting insulin"), unless the drug is given for dependence ("hooked"). The verbs
are the phrasal verbs prescribing text (the BNF's, NICE's) uses with a patient as object ("start on", "switch to",
"wean off"); WordNet 3.0 lists none of them with a person and a drug, hence the short list. Everything else care_act
guards (a harmful outcome, a result wanted of the person, concealment, something put in food) is still read on the
whole text, and `prescribed` is `clinical_practice.practice_asked`'s fifth practice.
"""

from __future__ import annotations

import re

from voiceassist.phi.word_lists import DRUG_WORDS, word_list

# the phrasal verb of prescribing, the person as its object, the preposition, and up to four words that may name the
# drug ("on a statin", "onto long acting insulin", "from oral to subcut morphine")
_VERB = (r"(?:start|starts|started|starting|restart\w*|commenc\w*|initiat\w*|put|puts|putting|keep|keeps|kept|keeping"
         r"|switch\w*|chang\w*|convert\w*|wean\w*|tak(?:e|es|ing)|took|titrat\w*|maintain\w*)")
_ANYONE = r"someone|somebody|some\s+one"
_PERSON = (_ANYONE + r"|them|him|her|patients?|people|(?:the|a|an|my|our|this|that|your)\s+(?:[\w-]+\s+)?(?:patient"
           r"|person|man|woman|lady|gentleman|guy|chap|fella|child|kid|baby|resident)")
_PRESCRIBED = re.compile(
    r"\b" + _VERB + r"\s+(?P<who>" + _PERSON + r")(?:['’]s)?\s+(?:(?:back|up|down|over)\s+)?"
    r"(?:onto|on\s+to|on|off|to|from)\s+(?P<what>[\w'’-]+(?:\s+[\w'’-]+){0,3})",
    re.I,
)
_WORD = re.compile(r"[\w-]+")
# a drug given for the person's dependence, not their treatment: WordNet 3.0's addicted.a.01 ("compulsively or
# physiologically dependent on something habit-forming") and its similar adjectives hooked, drug-addicted and
# strung-out, and stoned ("under the influence of narcotics"); "dependent" and "high" are a ward's words too
# ("insulin-dependent", "high dose") and are not read
_DEPENDENCE = re.compile(r"\b(?:addict\w*|hooked|drug-addicted|strung[- ]out|stoned)\b", re.I)


def anyone_as_patient(text: str) -> str:
    """`text` with "someone" or "somebody" written "the patient" where the act on them is a drug's prescribing: the
    phrasal verb, the person, and a drug of the shipped list in the four words after it; unchanged otherwise."""
    drugs = word_list(DRUG_WORDS)
    if _DEPENDENCE.search(text):
        return text

    def _patient(match: re.Match[str]) -> str:
        if not _a_drug(match, drugs) or not re.fullmatch(_ANYONE, match.group("who"), re.I):
            return match.group(0)
        start, end = match.span("who")
        return match.group(0)[: start - match.start()] + "the patient" + match.group(0)[end - match.start():]

    return _PRESCRIBED.sub(_patient, text)


def prescribed(text: str) -> bool:
    """Whether `text` names a person started on, kept on, switched to or taken off a drug of the shipped list."""
    drugs = word_list(DRUG_WORDS)
    return not _DEPENDENCE.search(text) and any(_a_drug(match, drugs) for match in _PRESCRIBED.finditer(text))


def _a_drug(match: re.Match[str], drugs: frozenset[str]) -> bool:
    return any(word in drugs or word.rstrip("s") in drugs
               for word in (found.lower() for found in _WORD.findall(match.group("what"))))
