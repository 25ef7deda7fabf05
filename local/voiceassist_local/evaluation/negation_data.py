"""Writes `voiceassist/_data/concepts/negation_triggers.tsv`, NegEx's trigger phrases (Chapman WW et al., "A simple
algorithm for identifying negated findings and diseases in discharge summaries", J Biomed Inform 2001;34:301-10)
as negspacy ships them (negspacy 1.1.0, MIT licence, quoted in the file's header; its `en_clinical` termset), read
by query/population.py: a group a question names inside a negation's scope ("no CKD", "not pregnant") is not the
patient's. Development time only, negspacy is no runtime dependency:

    .venv/bin/python -m pip download negspacy==1.1.0 --no-deps -d /tmp/negspacy && unzip -d /tmp/negspacy \
        /tmp/negspacy/negspacy-1.1.0-py3-none-any.whl
    .venv/bin/python -m voiceassist_local.evaluation.negation_data /tmp/negspacy

Left out (LEFT_OUT): triggers that in a question do not say the patient has not the group: "declined" (a patient
who declined dialysis is on the way to it), "versus" and "doubt" (a comparison, an uncertainty), and the rule-out
family and "evaluate for"/"test for" (NegEx's possible findings: "rule out pregnancy before isotretinoin" is about
pregnancy); among the following triggers, "declined" ("renal function declined") and "free" alone.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import voiceassist

OUT = Path(voiceassist.__file__).parent / "_data" / "concepts" / "negation_triggers.tsv"
LEFT_OUT = frozenset({"declined", "versus", "doubt", "evaluate for", "rules out", "rule out", "rule him out",
                      "rule her out", "rule patient out", "rule the patient out", "ruled out", "ruled him out",
                      "ruled her out", "ruled patient out", "ruled the patient out", "r/o", "ro", "free"})
KINDS = {"preceding_negations": "preceding", "following_negations": "following", "termination": "termination",
         "pseudo_negations": "pseudo"}


def main(root: str) -> None:
    spec = importlib.util.spec_from_file_location("termsets", Path(root) / "negspacy" / "termsets.py")
    assert spec and spec.loader
    termsets = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(termsets)
    licence = next(Path(root).glob("negspacy-*.dist-info/licenses/LICENSE")).read_text().strip().splitlines()
    lines = ["# NegEx triggers (Chapman WW et al., J Biomed Inform 2001;34:301-10) as negspacy 1.1.0's en_clinical",
             "# termset ships them: kind<TAB>phrase, kind preceding|following|termination|pseudo. Written by",
             "# voiceassist_local.evaluation.negation_data (what is left out and why). negspacy's licence:",
             *(f"# {line}".rstrip() for line in licence)]
    for key, kind in KINDS.items():
        phrases = sorted({p.lower() for p in termsets.en_clinical[key]} - LEFT_OUT)
        lines += [f"{kind}\t{p}" for p in phrases]
    OUT.write_text("\n".join(lines) + "\n")
    print(f"{OUT}: {len(lines)} lines")


if __name__ == "__main__":
    main(sys.argv[1])
