"""A spoken question's words heard unsure where PHI sits, as PHI (decision 0031, "PHI in a spoken question").

The voice routes list them (speech/phi_doubt.py; `QueryRequest.phi_unsure_words`). No detector can vouch for a name
it never saw spelled right, so the question is routed as holding PHI: each such word in the question is an entity of
type `UNSURE_SPEECH` (redacted wherever the question is logged, audited or sent redacted, and the audit record's
`phi_entity_types` says why the question stayed inside, without the words), and a question whose listed words are
no longer in its text is PHI all the same (fail closed).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from voiceassist.models import PhiEntity, PhiResult
from voiceassist.phi.detection import redact

UNSURE_SPEECH = "UNSURE_SPEECH"
WARNING = ("Some words of the spoken question were heard unsure where patient details could be (a name or a number), "
           "so the question was answered inside the PHI boundary.")


def with_unsure_speech(result: PhiResult, text: str, words: Sequence[str]) -> PhiResult:
    """`result` with every occurrence of `words` in `text` as an UNSURE_SPEECH entity, and PHI when any is listed.

    A failed detection (`result.error`: busy, timed out) is passed on unchanged: it already hides the whole text, and
    redacting only the listed words would store the rest of an unscreened question."""
    if not words or result.error is not None:
        return result
    entities = list(result.entities)
    for word in dict.fromkeys(w.lower() for w in words):
        whole = re.compile(rf"(?<![\w]){re.escape(word)}(?![\w])", re.IGNORECASE)
        matches = list(whole.finditer(text)) or list(re.finditer(rf"\w*{re.escape(word)}\w*", text, re.IGNORECASE))
        entities.extend(PhiEntity(entity_type=UNSURE_SPEECH, start=m.start(), end=m.end()) for m in matches)
    return result.model_copy(update={"contains_phi": True, "entities": entities,
                                     "redacted_text": redact(text, entities)})
