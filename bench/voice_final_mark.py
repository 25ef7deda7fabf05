"""What a question mark at the end costs: the answerable questions of answers files asked through the typed pipeline
bare and with a "?" after them, answered correctly each way. Prints JSON.

    .venv/bin/python bench/voice_final_mark.py --questions FILE ... [--data-dir DIR]

Whisper ends a transcript it hears as a question with "?" whether or not the speaker asked it as one, so a spoken
question reaches the answer gate with the mark; this measures the gate's reading of it on written questions (their
own final ?, ! or . taken off first), which is why speech.unsure.spoken_question asks without it.
"Answered correctly" is voiceassist_local.evaluation.answers.answered_correctly, as in bench/voice_answers.py.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any


def run(args: argparse.Namespace) -> dict[str, Any]:
    from voice_answers import ask
    from voice_audio import load_set, sample_knowledge_base
    from voiceassist_local.evaluation.answers import Question, answered_correctly

    from voiceassist.models import QueryRequest

    deps = sample_knowledge_base(args.data_dir)
    sets = []
    for name in args.questions:
        items = [s for s in load_set(name, 0) if s.answer.get("answerable")]
        counts = {"bare": 0, "with_mark": 0, "lost_by_mark": 0, "gained_by_mark": 0}
        for spoken in items:
            question = Question(spoken.text, True, spoken.answer.get("doc_key"),
                                tuple(spoken.answer.get("must_contain", ())))
            bare = spoken.text.rstrip().rstrip("?!.").rstrip()
            ok = [answered_correctly(question, ask(deps, QueryRequest(query=text), time.perf_counter())[0])
                  for text in (bare, bare + "?")]
            counts["bare"] += ok[0]
            counts["with_mark"] += ok[1]
            counts["lost_by_mark"] += ok[0] and not ok[1]
            counts["gained_by_mark"] += ok[1] and not ok[0]
        sets.append({"set": name, "answerable": len(items), **counts})
    return {"sets": sets, "bare": sum(s["bare"] for s in sets), "with_mark": sum(s["with_mark"] for s in sets),
            "answerable": sum(s["answerable"] for s in sets)}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--questions", nargs="+", required=True, metavar="FILE", help="answers files by path")
    parser.add_argument("--data-dir", help="the sample knowledge base's folder (default: a new temporary one)")
    print(json.dumps(run(parser.parse_args()), indent=2))


if __name__ == "__main__":
    main()
