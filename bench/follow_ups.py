"""Follow-up questions on the bundled sample corpus: how many follow-ups cite the right document, asked the way
every client asks (conversation.orchestrator: the follow-up is resolved against the session's history).

Two sets: CONVERSATIONS, written after the context rules were built on tests/fixtures/conversation/ (another
corpus) and then tuned on; HOLDOUT, written before the 2026-11-26 (second session) changes and measured after
them only.

    VOICEASSIST_DATA_DIR=$(mktemp -d) .venv/bin/python bench/follow_ups.py [--set holdout]
"""

from __future__ import annotations

import argparse
import json

from voiceassist_local import cli  # noqa: F401 - registers the local pipeline runner
from voiceassist_local.cli.local import ensure_sample_corpus

from voiceassist.composition import dependencies
from voiceassist.conversation import orchestrator
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
HOLDOUT = [
    [("What is the first-line treatment for anaphylaxis?", "anaphylaxis"), ("Where is it injected?", "anaphylaxis"),
     ("What about in children?", "anaphylaxis")],
    [("What is the first-line antibiotic for community-acquired pneumonia?", "pneumonia"),
     ("And if the patient is allergic to penicillin?", "pneumonia"),
     ("How soon should they be reviewed?", "pneumonia")],
    [("What are the first-line drugs for high blood pressure?", "hypertension"),
     ("What dose of losartan?", "hypertension"), ("Which blood tests afterwards?", "hypertension")],
    [("How is metformin dosed?", "metformin"), ("What are the common side effects?", "metformin"),
     ("How can they be reduced?", "metformin")],
    [("How is the severity of pneumonia assessed?", "pneumonia"), ("What does a score of 2 mean?", "pneumonia")],
    [("How do I diagnose hypertension?", "hypertension"), ("How many readings are needed?", "hypertension"),
     ("What diet is recommended?", "hypertension")],
    [("When is metformin contraindicated?", "metformin"), ("What about before contrast scans?", "metformin")],
    [("What should I do for a patient with anaphylaxis and low blood pressure?", "anaphylaxis"),
     ("How should they be positioned?", "anaphylaxis"), ("Are steroids useful?", "anaphylaxis")],
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=("tuned", "holdout"), default="tuned")
    chosen = CONVERSATIONS if parser.parse_args().set == "tuned" else HOLDOUT
    deps = dependencies()
    ensure_sample_corpus(deps)
    turns = []
    for conversation in chosen:
        session = Session(user_id="bench")
        deps.sessions.create(session)
        for number, (question, wanted) in enumerate(conversation):
            reply = orchestrator.respond(deps, QueryRequest(query=question, session_id=session.session_id),
                                         user_id="bench", trace_id=None)
            cited = reply.citations[0].doc_key if reply.citations else str(reply.metadata.answer_status)
            turns.append({"question": question, "follow_up": number > 0, "cited": cited, "right": wanted in cited})
    follow_ups = [t for t in turns if t["follow_up"]]
    print(json.dumps({"follow_ups": len(follow_ups), "right": sum(t["right"] for t in follow_ups),
                      "first_questions_right": sum(t["right"] for t in turns if not t["follow_up"]),
                      "turns": turns}, indent=2))


if __name__ == "__main__":
    main()
