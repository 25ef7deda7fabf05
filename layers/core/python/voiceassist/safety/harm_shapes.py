"""Harm asked in clinical words, read as two parts of one sentence rather than one phrase: the blind writers' harmful
requests that passed every earlier shape (intent.py, signals.py) name a drug and a dose as a clinician would, and
differ from a toxicology question only by what else the sentence says (HarmBench's semantic categories, Mazeika M
et al., ICML 2024: chemical and biological harm, illegal activity, fraud).

- **lethal_concealed**: a death or a lethal effect, and its concealment from whoever would find it (no trace, not
  showing at autopsy or on a tox screen, looking natural, blamed on something else, in someone who does not know).
  "What is the lethal dose of insulin" and "how is insulin overdose detected post-mortem" are each one part only.
  The lethal effect is read in the words below and in harm_goal.py's WordNet outcomes ("cardiac arrest", "coma",
  "suffocate").
- **covert_administration**: a medicine given to a person without their knowledge, and that person a relative, a
  colleague or anyone not a patient in care ("secretly give my partner"); put into a relative's food or drink only
  with a covert or harmful aim in the same sentence ("crush into my boss's tea to make him vomit"; "crush amoxicillin
  into my child's food" is a care question). Covert administration to a patient who lacks capacity is a care
  decision (NICE NG67, 1.15) and is not this.
- **falsified_record**: a record, data or a reading falsified, fabricated or backdated, or changed so that it looks
  otherwise or so that whoever reviews it (a coroner, an insurer, an auditor) will not see what happened. Amending a
  note, correcting an entry or asking what a falsified record means for a registrant pass.

The shapes were written from the kinds of misses of the blind writers' sets (bench/data/input_screen/blind6-8, all
development data now), so those sets are not held out for them; the next blind writer is the clean reading.
"""

from __future__ import annotations

import re

from voiceassist.safety.harm_lexicon import names_harm
from voiceassist.safety.signals import HARMFUL

_SENTENCE = re.compile(r"[^.?!\n]+")
_LETHAL = re.compile(
    r"\b(?:kill\w*|fatal\w*|lethal\w*|deadly|die|dies|dying|death|unsurvivable"
    r"|stops? (?:the|his|her|their|a|an)\s+(?:(?:[\w-]+\s+)?[\w-]+['’]s\s+)?heart"
    r"|stops? (?:\w+ )?breathing|hasten\w* (?:\w+ )?death|never wakes?|not wake up)\b", re.I)
# Where a death is found out: an autopsy, a toxicology screen, a coroner (a concealment names one; "hard to detect on
# an ECG" or "mistaken for a stroke" is a clinical question)
_FINDER = (r"(?:(?:an?|the)\s+)?(?:\w+\s+){0,2}?(?:autopsy|post[- ]?mortem|pm|tox(?:icology)?(?: screens?| tests?)?"
           r"|drug screens?|coroner|pathologist|forensics?|inquest|blood tests?|labs?)")
_CONCEALED = re.compile(
    r"\bwithout\s+(?:leaving\s+)?(?:a|any)\s+(?:trace|mark)s?\b|\bwithout\s+(?:anything|it)\s+showing\b"
    r"|\b(?:without|not|never|won't|doesn't|wouldn't|don't|didn't)\s+show(?:ing|s)?\s+up\s+(?:on|in|at)\s+" + _FINDER
    + r"|\b(?:hard|hardest|harder|difficult|impossible|least likely)\s+(?:for\s+(?:an?\s+|the\s+)?\w+\s+)?to\s+"
    r"(?:be\s+)?(?:detect|trace|find|spot|pick(?:ed)? up|prove)\w*\s+(?:(?:at|on|in|by|after|during)\s+)?" + _FINDER
    + r"|\bundetectable\b|\buntraceable\b"
    # (post14b, blind14 drove it: development figures) whether it would be found asked beside a lethal effect ("what
    # dose would stop a patient's heart, and would it show up at post mortem?")
    # (session 16, harm16) the finding said as what can be found, with "is" too ("would it be detectable at
    # post-mortem", "is that traceable on post-mortem toxicology")
    r"|\b(?:would|will|does|do|could|can|is|are|was|were)\s+(?:it|they|this|that)\s+(?:show\s+up|(?:be\s+)?(?:detect(?:ed"
    r"|able)|trace(?:d|able)|discover(?:ed|able)|notice(?:d|able)|identifi(?:ed|able)|picked up|found|seen|spotted))\s+"
    r"(?:on|in|at|by)\s+" + _FINDER
    + r"|\b(?:looks?|seems?|appears?)\s+(?:like\s+)?(?:an?\s+)?(?:natural|accident\w*)"
    r"|\b(?:pass(?:es)?|passed)\s+(?:off\s+)?as\b|\b(?:have it|has it|get it|gets|it gets|be)\s+blamed on\b"
    r"|\b(?:who|that)\s+(?:doesn't|does not|don't|do not|won't)\s+know\s+(?:they're|he's|she's|they are|he is|she is"
    r"|it's)\b|\bwithout\s+(?:him|her|them|anyone)\s+(?:knowing|noticing|realising|realizing)\b", re.I)
# The people a covert dose is given to who are not patients in care (intent.py's kin and victims, closed-class)
_KIN = (r"(?:partner|wife|husband|spouse|boyfriend|girlfriend|ex|mother|father|mum|mom|dad|parents?|son|daughter|child"
        r"|kids?|baby|sister|brother|grandmother|grandfather|grandma|grandpa|aunt|uncle|cousin|colleague|co-?worker|boss"
        r"|manager|neighbou?r|roommate|flatmate|friend|teacher|classmate|rival|tenant|landlord|in-laws?|stepfather"
        r"|stepmother|stepson|stepdaughter)")
_NOT_IN_CARE = r"(?:someone|somebody|(?:my|his|her|their|our|a)\s+(?:\w+\s+)?" + _KIN + ")"
_COVERT = re.compile(
    r"\b(?:secretly|covertly|quietly|discreetly|sneakily)\s+(?:give|giving|dose|dosing|feed|feeding|administer\w*|add"
    r"|adding|put|putting|slip|slipping|inject\w*)\s+(?:\w+\s+){0,3}?(?:to\s+|into\s+)?" + _NOT_IN_CARE + r"\b"
    r"|\b(?:give|giving|dose|feed|administer)\s+" + _NOT_IN_CARE + r"\b[^.?!\n]{0,40}\b(?:secretly|covertly|without"
    r" (?:him|her|them) (?:knowing|noticing))\b"
    r"|\b(?:keep|get|make)\s+(?:her|him|them|the baby|my baby|the kids?|my kids?|the child)\s+(?:knocked out"
    r"|out cold)\b", re.I)
# A medicine put into someone's food or drink: covert administration only with a covert or harmful aim in the same
# sentence ("crush amoxicillin into my child's food" and "in my mother's tea, she has dementia" are care questions)
_INTO_FOOD = re.compile(
    r"\b(?:add|put|crush|mix|stir|hide|sprinkle|dissolve|grind|slip)\w*\s+(?:\w+\s+){0,3}?(?:in|into|to)\s+"
    r"(?:someone's|somebody's|(?:my|his|her|their|a)\s+(?:\w+\s+)?" + _KIN + r"['’]s)\s+(?:\w+\s+)?(?:food|drink"
    r"|coffee|tea|meal|dinner|lunch|breakfast|water|juice|soup|bottle|milk|wine|beer)\b", re.I)
_COVERT_AIM = re.compile(
    r"\b(?:secretly|covertly|sneakily|without\s+(?:him|her|them|anyone)\s+(?:knowing|noticing|tasting|realising"
    r"|realizing)|so\s+(?:he|she|they)\s+(?:won't|wouldn't|doesn't|don't|can't|cannot)\s+(?:know|notice|taste|tell)"
    r"|(?:make|get)\s+(?:him|her|them)\s+(?:\w+\s+)?(?:ill|sick|vomit|throw up|collapse|pass out|black out"
    r"|unconscious|suffer|bleed|die)|poison\w*|knock\w*\s+(?:him|her|them)\s+out"
    # a purpose of its own: "to make him fail ...", "to cause ..." (not "to make her take it")
    r"|to\s+(?:make|get)\s+(?:him|her|them)\s+(?!take|swallow|eat|accept|drink)\w+|to\s+(?:cause|induce|trigger|provoke))\b",
    re.I)
_RECORD = (r"(?:data|readings?|results?|records?|notes?|charts?|entr(?:y|ies)|figures|numbers|observations|obs|logs?"
           r"|registers?|documentation|reports?|summar(?:y|ies)|assessments?|scores?|signatures?|audit trail)")
_FALSIFIED = re.compile(
    r"\b(?:falsify|falsifying|fabricate|fabricating|backdate|backdating|fudge|fudging|doctor|doctoring)\s+(?:\w+\s+)"
    r"{0,5}?" + _RECORD + r"\b"
    r"|\b(?:alter|change|edit|amend|modify|reword|rewrite|tweak|adjust|delete|remove|fill in|write)\w*\s+"
    r"(?:\w+['’]?\w*\s+){0,5}?" + _RECORD + r"\b[^.?!\n]{0,60}?"
    r"(?:\bso\s+(?:that\s+)?(?:it|they|the [\w-]+|my \w+|our \w+|nobody|no one)\s+"
    r"(?:looks?|seems?|appears?)\s+(?:like|as if|as though|real|genuine|legit\w*|authentic|official|lower|higher|more"
    r"|less|better|worse|normal|negative|on time)\b|\bso\s+(?:that\s+)?(?:the\s+|my\s+|our\s+)?(?:coroner|insurer"
    r"|lab|laboratory|pharmacy|pharmacist"
    r"|auditors?|police|inspectors?|regulator|court|investigators?|sponsor|family|patient)\s+(?:won't|will not|can't"
    r"|cannot|doesn't|does not|never|denies|deny)\b|\bto\s+(?:hide|cover up|conceal)\b|\bcovers?\s+(?:us|me|myself"
    r"|ourselves)\b|\blooks?\s+(?:real|genuine|legit\w*|authentic|official)\b)", re.I)

# (post14b, blind14 drove it: development figures) secrecy, a lethal outcome and a third person in one sentence ("if I
# doubled it secretly every day, would it eventually kill him?"; the secrecy the asker's: not "my dad secretly stopped
# his warfarin"), and a use on a person intended beside an evasion of
# detection ("which drugs don't show up on a tox screen? I want to use one on a patient")
_SECRETLY = re.compile(r"\b(?:i|we)\b[^.?!;\n]{0,50}?\b(?:secretly|covertly|sneakily|behind (?:his|her|their) back"
                       r"|without (?:him|her|them)"
                       r" (?:knowing|noticing|realising|realizing))\b", re.I)
_THIRD = re.compile(r"\b(?:him|her|them|someone|somebody|" + _NOT_IN_CARE + r")\b", re.I)
# (session 16, harm16) the subject left out where a sentence opens ("Want to use it on someone."), the use said as
# a plan or a deed ("I need to plan this for someone", "do it to him")
_USE_ON = re.compile(
    r"(?:\b(?:i|we)(?:'m|’m| am| are|'re)?\s+|(?:^|[.!?]\s+))(?:want|wants|plan|planning|intend|intending|going|mean"
    r"|need|would like|'d like)\s+to\s+(?:use|give|try|administer|inject|slip|do|plan)\s+(?:\w+\s+){0,3}?(?:on|to"
    r"|into|in|for)\s+(?:(?:a|an|my|the"
    r"|this|that|our|his|her|their|one)\s+)?(?:\w+\s+)?(?:patients?|residents?|person|someone|somebody|him|her|them|"
    + _KIN + r")\b", re.I)

HARM_SHAPES: dict[str, re.Pattern[str]] = {"covert_administration": _COVERT, "falsified_record": _FALSIFIED}


def harm_shape_kinds(text: str) -> list[tuple[str, str]]:
    """(category, kind) of each shape found in one form of a text."""
    kinds = [(HARMFUL, kind) for kind, pattern in HARM_SHAPES.items() if pattern.search(text)]
    sentences = _SENTENCE.findall(text)
    if (HARMFUL, "covert_administration") not in kinds and any(
            _INTO_FOOD.search(s) and _COVERT_AIM.search(s) for s in sentences):
        kinds.append((HARMFUL, "covert_administration"))
    if any((_LETHAL.search(s) or names_harm(s)) and (_CONCEALED.search(s) or (
            _SECRETLY.search(s) and _THIRD.search(s))) for s in sentences) or (
            any(_CONCEALED.search(s) for s in sentences) and _USE_ON.search(text)):
        kinds.append((HARMFUL, "lethal_concealed"))
    return kinds
