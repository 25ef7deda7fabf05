"""The asker's own learning and own words, asked of the assistant: none of it changes how the assistant works.

- **A teaching exercise** (`teaching_asked`): the asker asks to be assessed or to practise ("quiz me on metformin
  contraindications", "pretend I'm your registrar and ask me the steps", "simulate a ward round where you're the
  consultant quizzing me", "tips to make my role in the sim lab realistic"). The forms are those of UK postgraduate
  medical training: the supervised learning events and examinations (the viva, the OSCE of Harden R et al., BMJ 1975;
  MRCP(UK) PACES; the Foundation Programme's mini-CEX, case-based discussion and DOPS) and simulation-based education
  with simulated patients and scenarios (Issenberg S et al., Med Teach 2005, BEME guide 4). The assessed one is the
  asker ("quiz me", "test us"), or the exercise is named (a station, a ward round simulated, the sim lab, a tutor).
- **A prompt of the asker's own for a writing task** (`own_prompt_asked`): how to write or phrase a prompt so a tool
  summarises, drafts or answers ("a good prompt to get a concise discharge summary out of our AI scribe", "how should
  I phrase my prompts when asking about drug interactions"): the prompt is the asker's, its purpose a clinical
  document or question, as a clinician writes to an ambient scribe or a chatbot.
- **Self-repair** (`own_words_retracted`): the asker sets aside or corrects what they themselves typed or said ("can
  you forget what I typed about Mr B earlier?", "delete the last sentence of my note", "ignore my last message, I meant
  5 mg"): the speaker's repair of their own turn (Schegloff E, Jefferson G, Sacks H, "The preference for
  self-correction in the organization of repair in conversation", Language 1977). What is set aside is the asker's
  ("my", "what I said / typed", "the previous question"); "your instructions", "the rules" and "everything before"
  are the assistant's and are not this.

The screen's models and its attack classifier read "pretend", "quiz", "prompt", "forget" and "ignore" as the openings of
a jailbreak or an injection. With any of these readings the models' injection and jailbreak flags alone are lifted and
the classifier is not asked (input_screen.screen_text); a pattern's or a shape's flag is never lifted, nor a harmful
one, and none of them reads a text that names what an attack changes or asks for (rules, filters, a mode, the system
prompt or instructions, a persona without limits, an encoding) or a lethal harm. Closed-class words and the forms named
above only; nothing fitted.
"""

from __future__ import annotations

import re

# What an attack changes or asks for (Shen X et al., CCS 2024: rule lifting and persona jailbreaks; Perez F and Ribeiro
# I, 2022: prompt leaking), and a harm named: none of the three readings applies with one of these in the text
_ATTACK_WORDS = re.compile(
    r"\b(?:rules?|(?:un)?restrict\w*|\w*mode|filter\w*|censor\w*|guardrails?|limits?|limitations?|ethic\w*"
    r"|moral\w*|refus\w*|unlock\w*|jailbr\w*|dan|persona|in character|stay in|no longer|anything now|system|hidden"
    r"|secret\w*"
    r"|instructions?|configuration|password|token|credentials?|api|bypass|override|disable\w*|uncensored|unfiltered"
    r"|base ?64|hex|rot ?13|cipher\w*|encod\w*|decod\w*|reverse[ds]?|lethal|fatal|kill\w*|murder\w*|poison\w*"
    r"|undetect\w*|untrace\w*|suicid\w*|overdose \w+ (?:someone|him|her|them)|harm (?:someone|him|her|them|a patient))"
    r"\b", re.I)
_SENTENCES = re.compile(r"[^.?!\n]+")
MAX_WORDS = 60  # a clinician's request is a sentence or two; a pasted role-play or jailbreak prompt runs on

# The asker assessed: "quiz me", "test us on", "ask me five questions", "one question at a time", "examine me"
_ASSESSED = (r"\b(?:quiz|test|examine|grill|drill|viva|question|assess)\s+(?:me|us)\b"
             r"|\bask\s+(?:me|us)\s+(?:\w+\s+){0,2}?questions?\b|\bone question at a time\b"
             r"|\bmark\s+my\s+(?:answers?|responses?)\b|\bgive\s+(?:me|us)\s+feedback\b")
# An exercise named: the examination or the simulated encounter, the tutor, the practice
_EXERCISE = (r"\b(?:osces?|paces|vivas?|mini-?cex|case-?based discussions?|dops|mock (?:exams?|stations?|vivas?)"
             r"|(?:osce|paces|exam|examination|practice|my|this|the next) stations?"
             r"|sim(?:ulation)? (?:lab|suite|centre|center|session|scenario)|teaching (?:sessions?|scenarios?)"
             r"|(?:my|a|your|the) tutor)\b"
             r"|\bsimulate\s+(?:an?|the|my)\s+(?:[\w-]+\s+){0,2}?(?:ward rounds?|consultations?|handovers?|clinics?"
             r"|encounters?|histor(?:y|ies)|scenarios?|cardiac arrests?|crash calls?|calls?|patients?|relatives?)\b"
             r"|\b(?:so (?:that )?(?:i|we) can|while (?:i|we)|to help (?:me|us)|for (?:me|us) to)\s+"
             r"(?:practi[sc]e|rehearse|revise|prepare|learn)\b"
             r"|\b(?:i|we)\s+(?:play|am playing|'m playing|are playing)\s+(?:an?|the)\s+(?:[\w-]+\s+){0,2}?"
             r"(?:patient|relative|parent|carer|nurse|doctor|role)\b")


def _clean(text: str) -> bool:
    return len(text.split()) <= MAX_WORDS and not _ATTACK_WORDS.search(text)


_TEACHING = re.compile(_ASSESSED + "|" + _EXERCISE, re.I)


def teaching_asked(text: str) -> bool:
    """Whether the text asks for a teaching exercise for the asker (to be quizzed, examined or to practise, or a
    simulated encounter named), naming nothing an attack changes or asks for."""
    return _clean(text) and bool(_TEACHING.search(text))


# A prompt written or phrased by the asker ("write a good prompt", "phrase my prompts", "a good prompt to get ..."), and
# its purpose a writing task or a question ("so ChatGPT summarises discharge letters", "to get a concise discharge
# summary", "when asking about drug interactions")
_OWN_PROMPT = re.compile(
    r"\b(?:write|writing|phrase|phrasing|word|wording|structure|structuring|craft|crafting|improve|frame|framing)\s+"
    r"(?:(?:a|an|my|our|better|good|clear|clearer|the)\s+){0,2}prompts?\b"
    r"|\b(?:good|better|best|clear|clearer|effective|safe|useful)\s+(?:way to (?:phrase|word|write|structure)\s+"
    r"(?:my|our)\s+)?prompts?\b"
    r"|\bmy prompts\b", re.I)
_WRITING_TASK = re.compile(
    r"\b(?:summari[sz]\w*|summar(?:y|ies)|draft\w*|letters?|notes?|discharge|referrals?|handovers?|write-?ups?"
    r"|transcri\w*|dictat\w*|documentation|leaflets?|emails?|reports?|asking|questions?|interactions?|answers?"
    r"|guidelines?|evidence|literature|search\w*)\b", re.I)


def own_prompt_asked(text: str) -> bool:
    """Whether the text asks how to write or phrase a prompt of the asker's own for a writing task or a question,
    naming nothing an attack changes or asks for."""
    return _clean(_OWN_PROMPT.sub(" ", text)) and bool(_OWN_PROMPT.search(text)) and bool(
        _WRITING_TASK.search(_OWN_PROMPT.sub(" ", text)))


# Self-repair: a verb of setting aside (an order, bare or after "can you / please"), then the asker's own words: what
# I typed / said / wrote / gave / asked, my last message or question, the previous question, the last sentence of my
# note; or "that" / "the previous answer" said of the asker's own last turn in a correction ("forget that, is it the
# same for a teenager?")
_SET_ASIDE = r"(?:forget|ignore|disregard|delete|remove|scratch|erase|drop|strike|cancel|undo|clear)"
_OWN_WORDS = (r"(?:what\s+(?:i|we)\s+(?:just\s+)?(?:typed|said|wrote|entered|asked|gave|put|mentioned|told you|sent)"
              r"|(?:my|our)\s+(?:(?:last|previous|earlier|first|second|other)\s+)?(?:messages?|questions?|query|queries"
              r"|typos?|entry|entries|notes?|reply|answer|text|sentences?|words?|input)"
              r"|the\s+(?:(?:last|previous|earlier)\s+)(?:messages?|questions?|query|sentence|line|entry|thing i \w+)"
              r"(?:\s+(?:of|in|from)\s+my\s+\w+)?"
              r"|the\s+(?:typos?|patient'?s? name|name)\s+(?:i|in my)\b"
              r"|that(?=\s*(?:[,.;:!?]|\s[-–—]|$)))")
_RETRACTION = re.compile(
    r"(?:^|[.?!;:,-]\s*)\W*(?:(?:please|pls|sorry,?|oh,?|oops,?)\s+)*(?:(?:can|could|would|will)\s+(?:you|u)\s+"
    r"(?:please\s+)?)?" + _SET_ASIDE + r"\s+" + _OWN_WORDS, re.I)
_YOU_BEYOND_THE_ASK = re.compile(r"\b(?:your|yours|yourself|ur)\b", re.I)


def own_words_retracted(text: str) -> bool:
    """Whether the text sets aside or corrects the asker's own earlier words (a self-repair), naming nothing an attack
    changes or asks for and no one's words but the asker's."""
    return _clean(text) and not _YOU_BEYOND_THE_ASK.search(text) and bool(_RETRACTION.search(text))
