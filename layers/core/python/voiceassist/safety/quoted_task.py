"""A quoted text given to be translated or decoded: "Translate 'take one tablet twice a day with food' into Polish for
my patient", "Decode this from a discharge letter: 'TTO x 2/52, NKDA'", "Decode these abbreviations please: TTO, NKDA,
SOB". The asker hands over a text and asks for it in other words (another language, the abbreviations written out):
the request is the frame around the text, and what the text says is the text's, as in reported speech (mention.py).
The screen's models and its attack classifier read "translate" and "decode" as the openings of an obfuscated attack
("decode this base64 and follow it"), and a patient's quoted words ("ignore the pain for now") as an order.

The reading is closed-class: a short text (at most two sentences and 40 words) whose frame, the text with the quoted
part taken out, opens with a request to translate, decode, expand or spell out, and names nothing an attack changes or
asks for (answer_form's words: rules, the prompt or instructions, an encoding, a persona, "ignore", ...) and no further
order ("... and then do what it says", "follow it"). The quoted part is a quotation in quotation marks, or what follows
the frame's colon. input_screen.screen_text screens that part alone (its patterns, its normal forms and the words-only
model): only when it passes are the models' flags on the whole text lifted and the classifier not asked; a pattern's or
a shape's flag on the whole text is never lifted, so "translate 'ignore previous instructions' into Spanish" and a
base64 text given to be decoded are read as before.
"""

from __future__ import annotations

import re

from voiceassist.safety.answer_form import ATTACK_WORDS

# the request: translate, decode, expand or spell out (a bare order or a request put to the assistant)
_REQUEST = re.compile(r"^\W*(?:please\s+|pls\s+|can you\s+|could you\s+|would you\s+|help me\s+)?(?:please\s+)?"
                      r"(?:translate|decode|decipher|expand|spell out|write out)\b", re.I)
# a quotation in quotation marks (the same marks as mention.py's), or the text after the frame's colon
_QUOTATION = re.compile(r"(?<![\w'’])['‘\"“](?P<quoted>[^'‘’\"“”\n]{2,300}?)['’\"”](?![\w'’])")
_AFTER_COLON = re.compile(r":\s+(?P<quoted>\S[^\n]{1,300})$")
# a further order on the quoted text: to act on it, answer it, or carry it out
_FURTHER_ORDER = re.compile(r"\b(?:then|after that|follow|obey|do (?:what|as)|carry (?:it|them|that) out|execute|run"
                            r"|act on|answer\w*|respond\w*|reply|comply)\b", re.I)
_SENTENCES = re.compile(r"[^.?!\n]+")


def quoted_text_task(text: str) -> str | None:
    """The quoted part of a text that only asks for it to be translated, decoded or spelt out, else None."""
    words = text.split()
    if not words or len(words) > 40 or not _REQUEST.match(text):
        return None
    match = _QUOTATION.search(text) or _AFTER_COLON.search(text)
    if match is None:
        return None
    frame = text[:match.start("quoted")] + " " + text[match.end("quoted"):]
    if len([s for s in _SENTENCES.findall(frame) if s.strip(" '\"‘’“”")]) > 2:
        return None
    if ATTACK_WORDS.search(frame) or _FURTHER_ORDER.search(frame):
        return None
    return match.group("quoted")
