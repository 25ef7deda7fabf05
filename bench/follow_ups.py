"""Follow-up questions on the bundled sample corpus, written after the context rules were built (the rules were
tuned on tests/fixtures/conversation/, another corpus): how many follow-ups cite the right document.

    .venv/bin/python bench/follow_ups.py     # in a fresh data folder: VOICEASSIST_DATA_DIR=$(mktemp -d)
"""

from __future__ import annotations

import json

from voiceassist_local import cli  # noqa: F401 - registers the local pipeline runner
from voiceassist_local.cli.local import ensure_sample_corpus

from voiceassist import service
from voiceassist.composition import dependencies
from voiceassist.models import QueryRequest, Session

# (question, a fragment of the doc_key the first citation should come from)
CONVERSATIONS = [
    [("What is the usual starting dose of metformin?", "metformin"), ("And the maximum?", "metformin")],
    [("What are the common adverse effects of metformin?", "metformin"),
     ("Should it be stopped when eGFR is below 30?", "metformin")],
    [("How is blood pressure measured for a diagnosis of hypertension?", "hypertension"),
     ("What lifestyle changes help?", "hypertension")],
    [("What is first-line drug treatment for hypertension?", "hypertension"),
     ("What target should we aim for?", "hypertension")],
    [("What antibiotic is first-line for community-acquired pneumonia in adults?", "pneumonia"),
     ("For how long?", "pneumonia")],
    [("How do I use CURB-65 in pneumonia?", "pneumonia"), ("And what if the score is 3?", "pneumonia")],
    [("What is the adrenaline dose in anaphylaxis?", "anaphylaxis"), ("Can it be repeated?", "anaphylaxis")],
    [("My patient with type 2 diabetes takes metformin and has an eGFR of 40.", "metformin"),
     ("Can she keep taking it?", "metformin")],
]


def main() -> None:
    deps = dependencies()
    ensure_sample_corpus(deps)
    turns = []
    for conversation in CONVERSATIONS:
        session = Session(user_id="bench")
        deps.sessions.create(session)
        for number, (question, wanted) in enumerate(conversation):
            reply = service.answer(deps, QueryRequest(query=question, session_id=session.session_id), user_id="bench")
            cited = reply.citations[0].doc_key if reply.citations else str(reply.metadata.answer_status)
            turns.append({"question": question, "follow_up": number > 0, "cited": cited, "right": wanted in cited})
    follow_ups = [t for t in turns if t["follow_up"]]
    print(json.dumps({"follow_ups": len(follow_ups), "right": sum(t["right"] for t in follow_ups),
                      "first_questions_right": sum(t["right"] for t in turns if not t["follow_up"]),
                      "turns": turns}, indent=2))


if __name__ == "__main__":
    main()
