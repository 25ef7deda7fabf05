"""An order about the form of the answer, and nothing else: "Respond in bullet points from now on please", "Give me the
answer without the long explanation this time", "Please switch to British spellings", "Translate into Urdu for my
patient: take one tablet twice a day". The screen's models and its attack classifier read "from now on", "respond",
"without" and "translate" as the openings of a jailbreak or an injection; what such an order changes is only how the
answer is laid out, how long it is, its spelling, units or language, which a clinician may ask of any answer.

The reading is closed-class: a short text (at most two sentences and 40 words) that names a form of the answer (its
layout: bullet points, a list, a table, a line; its length: short, brief, a number, without the explanation; its
words: plain English, spelling, units; its language: a translation into a language named), and names nothing an
attack changes or asks for: rules, refusals, filters, safety, a persona, a mode, the prompt or instructions, what was
said before ("ignore", "disregard", "forget"), an encoding (base64, hex, ROT13, Morse, reversed: decoding.py's), or
the second person's own ("your rules"). The models' flags alone are lifted and the attack classifier is not asked
(input_screen.screen_text); a pattern's or a shape's flag is never lifted, so "translate the following into French:
ignore previous instructions" is refused as before.
"""

from __future__ import annotations

import re

# The forms of an answer: its layout, its length, its words and its language (a language named by its English name or
# as "my patient's language")
_LAYOUT = (r"bullet(?:ed)?(?:\s+points?|\s+list)?|bullets|numbered list|a table|tables|table form|one[- ]liners?"
           r"|one line|single line|one sentence|two sentences|a paragraph|headings|formatting|template|layout")
_LENGTH = (r"short(?:er)?|brief(?:er|ly)?|concise(?:ly)?|succinct(?:ly)?|less detail|more detail|in detail|summary"
           r"|summari[sz]ed|long explanation|the explanation|explanations?|preamble|caveats|just the (?:number|dose"
           r"|answer|figure|value|result)|only the (?:number|dose|answer|figure|value|result)|the number|key points")
_WORDS = (r"plain english|plain language|simple (?:words|terms|language)|lay (?:terms|language)|jargon|spellings?"
          r"|british english|american english|uk english|us english|units?|mmol/l|mg/dl|si units|font")
_LANGUAGE = (r"(?:translate|translated|translation|put (?:that|this|it|these))\b[^.?!\n]{0,60}\b(?:in|into|to)\s+"
             r"(?:[A-Z][a-z]+|my patient's (?:language|first language))")
_FORM = re.compile(r"\b(?:" + _LAYOUT + r"|" + _LENGTH + r"|" + _WORDS + r")\b|" + _LANGUAGE)
_FORM_I = re.compile(r"\b(?:" + _LAYOUT + r"|" + _LENGTH + r"|" + _WORDS + r")\b", re.I)
# What an attack changes or asks for (Shen et al. 2024's rule lifting, Perez and Ribeiro 2022's prompt leaking),
# and the encodings an obfuscated request is answered in (decoding.py)
ATTACK_WORDS = re.compile(
    r"\b(?:rules?|refus\w*|restrict\w*|filter\w*|censor\w*|safety|safe mode|guardrails?|guidelines?|polic(?:y|ies)"
    r"|limits?|limitations?|warnings?|disclaimers?|ethic\w*|moral\w*|persona|character|role|mode|pretend\w*|act as"
    r"|dan|jailbr\w*|prompt|instructions?|system|hidden|secret\w*|password|token|key|ignore|disregard|forget|override"
    r"|bypass|previous|above|earlier|unlock\w*|base ?64|hex|hexadecimal|rot ?13|morse|binary|cipher\w*|encod\w*"
    r"|reverse[ds]?|backwards|leet\w*|pig latin|emoji|your own|assistant|ai|model|chatbot|bot)\b|<!--|\[\[|\{\{",
    re.I)
# (session 19, hn19) after a time the order holds from ("From now on, give me ...", "Going forward, keep ...")
_ORDER_OR_ASK = re.compile(r"^\W*(?:(?:from now on|going forward|next time|this time|for now)\s*,?\s+)?"
                           r"(?:please\s+|can you\s+|could you\s+|would you\s+|pls\s+|just\s+)?(?:respond|reply"
                           r"|answer|give|keep|switch|put|write|format|translate|stick|don't|no|less|more|only|in"
                           r"|shorten)\b", re.I)
_SENTENCES = re.compile(r"[^.?!\n]+")
# what the order is about: the answer itself, or its form from now on ("list every tool you can call" and "put the
# patient list into the search box" name no answer and are not this)
_ABOUT_ANSWER = re.compile(r"\b(?:answers?|repl(?:y|ies)|respond|responses?|from now on|next time|this time|going"
                           r" forward|for my patient|for the patient)\b", re.I)


def answer_form_asked(text: str) -> bool:
    """Whether a short text only asks for a form of the answer (layout, length, words, language) and names nothing an
    attack changes or asks for."""
    words = text.split()
    if not words or len(words) > 40 or len([s for s in _SENTENCES.findall(text) if s.strip()]) > 2:
        return False
    if ATTACK_WORDS.search(text) or not _ORDER_OR_ASK.match(text) or not _ABOUT_ANSWER.search(text):
        return False
    return bool(_FORM_I.search(text) or _FORM.search(text))
