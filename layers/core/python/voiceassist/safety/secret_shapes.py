"""The session's secrets sent to an address the asker names (session 20, screen20; decision 0027).

**secret_sent_out** (injection, tool abuse; OWASP Top 10 for LLM Applications 2025: LLM02 sensitive information
disclosure and LLM06 excessive agency; MITRE ATLAS AML.T0086 exfiltration via an AI agent tool invocation): a
credential of the session (a session, access, bearer, refresh or API token, key or cookie; credentials; a password)
and an address outside the answer (a URL, a Windows share path, a file path, an e-mail address) in one sentence with
a verb that moves data there (send, post, append, write, upload, forward, save, attach, dump, include, set a callback
to). The assistant's answer goes to the asker; an order to carry the session's secrets to a named place is the
exfiltration itself, whatever tool carries it (a search's results file, a callback URL, a report).
A question about such an address ("why must tokens never be put in a URL?") names no address and passes; a
file path or URL with no secret of the session is the tools' own business.
"""

from __future__ import annotations

import re

from voiceassist.safety.signals import INJECTION

_SENTENCE = re.compile(r"[^.?!\n]+(?:[.?!](?=\S)[^.?!\n]*)*")
_SECRET = re.compile(
    r"\b(?:my|your|the|our|its|this|that|all|every|current|user['’]?s|users['’])\s+(?:[\w-]+\s+){0,2}?"
    r"(?:(?:session|auth|authentication|authori[sz]ation|access|bearer|refresh|id|api|oauth|jwt|csrf|login)[\s_-]*"
    r"(?:tokens?|cookies?|keys?|secrets?|ids?)|cookies?|credentials?|passwords?|passcodes?|private\s+keys?"
    r"|secret\s+keys?|api[\s_-]?keys?)\b(?!\s+(?:polic(?:y|ies)|resets?|rules?|managers?|requirements?|expiry|rotation"
    r"|changes?|strength|length|format|formats|handling|storage|settings?|banners?|consent|notice)\b)", re.I)
_ADDRESS = re.compile(
    r"\b(?:https?|ftp|wss?)://\S+|\\\\[\w.$-]+\\\S*|(?:^|\s)/(?:[\w.-]+/)+[\w.-]*|\b[\w.+-]+@[\w-]+\.[\w.]+"
    r"|\b[a-z]:\\\S+", re.I)
_MOVE = re.compile(
    r"\b(?:send|sends|sent|post|posts|posted|append|appends|appended|write|writes|written|upload|uploads|uploaded"
    r"|forward|forwards|forwarded|save|saves|saved|attach|attached|dump|dumped|include|included|copy|copied|push"
    r"|pushed|transmit|transmitted|email|e-mail|mail|export|exported|callback|webhook|pipe|piped|log|logged)\b", re.I)


def secret_sent_out(text: str) -> bool:
    """Whether a sentence orders a secret of the session carried to an address it names (the module's doc)."""
    for sentence in _SENTENCE.findall(text):
        if not _ADDRESS.search(sentence):
            continue
        for secret in _SECRET.finditer(sentence):
            # the secret as what is moved: the moving verb within ten words of it, before or after
            before = sentence[: secret.start()].split()[-10:]
            after = sentence[secret.end():].split()[:10]
            if _MOVE.search(" ".join(before + after)):
                return True
    return False


def secret_shape_kinds(text: str) -> list[tuple[str, str]]:
    """(category, kind) of the reading in one form of a text."""
    return [(INJECTION, "secret_sent_out")] if secret_sent_out(text) else []
