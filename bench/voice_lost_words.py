"""Which misheard words lose a spoken question: each question bench/voice_answers.py lost by transcription, asked
again with one differing stretch of its transcript put back to what was said at a time. Prints JSON.

    .venv/bin/python bench/voice_lost_words.py --questions FILE ... --results OUT.txt ... [--data-dir DIR]

`--results`: bench/voice_answers.py's printed output (its JSON, after any progress lines), whose
`lost_by_transcription` lists each lost question's `said`, `repaired` (the transcript asked) and `unsure` words;
`--questions`: the answers files it read (the expected document and phrases). No audio is made or transcribed:
the said and repaired texts are aligned word by word (difflib, lower case, punctuation off) and each stretch that
differs is replaced in the repaired text by the said words, then asked through the typed pipeline with the
unsure words the stretch no longer holds. A stretch whose fix alone answers the question is the one recognition
(the prompt, the decoding) or the repair (speech.repair, speech.unsure) would have to get right; a question no
single fix answers lost more than one word, or sits on the gate (an answer status not `answered` on a transcript
nearly right), which the rows' statuses tell apart. `answered_without_final_mark`: the repaired transcript asked
with its final question mark or full stop taken off (Whisper punctuates; typed questions often end bare).
"""

from __future__ import annotations

import argparse
import json
import re
import time
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

_WORD = re.compile(r"[\w'-]+")


def words(text: str) -> list[tuple[str, int, int]]:
    """The text's words, lower case, with their spans."""
    return [(match.group().lower().strip("'-"), match.start(), match.end()) for match in _WORD.finditer(text)]


def single_fixes(said: str, heard: str) -> list[tuple[str, str, str]]:
    """(heard stretch, said stretch, the heard text with that stretch put back) for each stretch that differs."""
    said_words, heard_words = words(said), words(heard)
    matcher = SequenceMatcher(None, [w for w, _, _ in heard_words], [w for w, _, _ in said_words], autojunk=False)
    fixes = []
    for tag, h1, h2, s1, s2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        put_back = " ".join(w for w, _, _ in said_words[s1:s2])
        if h1 < h2:
            start, end = heard_words[h1][1], heard_words[h2 - 1][2]
        else:  # said words the transcript lacks go in before the next heard word (or at the end)
            start = end = heard_words[h1][1] if h1 < len(heard_words) else len(heard.rstrip(" ?.!"))
            put_back = put_back + " " if h1 < len(heard_words) else " " + put_back
        fixes.append((heard[start:end], put_back.strip(), heard[:start] + put_back + heard[end:]))
    return fixes


def results(path: str) -> dict[str, Any]:
    text = Path(path).read_text(encoding="utf-8")
    return json.loads(text[text.index("\n{") + 1 if not text.startswith("{") else 0:])


def run(args: argparse.Namespace) -> dict[str, Any]:
    # the pipeline's modules are imported here, so the tests read the alignment above without the bench's path
    from voice_answers import ask
    from voice_audio import load_set, sample_knowledge_base
    from voiceassist_local.evaluation.answers import Question, answered_correctly

    from voiceassist.models import QueryRequest

    expected = {s.text: s for name in args.questions for s in load_set(name, 0)}
    deps = sample_knowledge_base(args.data_dir)

    def answered(said: str, text: str, unsure: list[str]) -> tuple[bool, str]:
        spoken = expected[said]
        question = Question(said, True, spoken.answer.get("doc_key"), tuple(spoken.answer.get("must_contain", ())))
        response = ask(deps, QueryRequest(query=text[:4000], possibly_misheard=unsure), time.perf_counter())[0]
        return answered_correctly(question, response), response.metadata.answer_status.value

    rows = []
    for path in args.results:
        for lost in results(path)["lost_by_transcription"]:
            said, heard, unsure = lost["said"], lost["repaired"], list(lost.get("unsure", ()))
            fixes = []
            for was, now, text in single_fixes(said, heard):
                left = [word for word in unsure if word.lower() not in was.lower()]
                ok, status = answered(said, text, left)
                fixes.append({"heard": was, "said": now, "answers": ok, "status": status})
            unmarked = heard.rstrip().rstrip("?.!").rstrip()
            rows.append({"voice": lost["voice"], "said": said, "repaired": heard, "status": lost["status"],
                         "fixes": fixes, "answered_by_one_fix": [f["heard"] for f in fixes if f["answers"]],
                         "answered_without_final_mark": answered(said, unmarked, unsure)[0] if unmarked != heard
                         else None})
    return {"results": args.results, "lost": len(rows),
            "answered_by_one_fix": sum(bool(row["answered_by_one_fix"]) for row in rows),
            "answered_without_final_mark": sum(bool(row["answered_without_final_mark"]) for row in rows),
            "questions": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--questions", nargs="+", required=True, metavar="FILE", help="the answers files read")
    parser.add_argument("--results", nargs="+", required=True, metavar="OUT", help="voice_answers.py outputs")
    parser.add_argument("--data-dir", help="the sample knowledge base's folder (default: a new temporary one)")
    print(json.dumps(run(parser.parse_args()), indent=2))


if __name__ == "__main__":
    main()
