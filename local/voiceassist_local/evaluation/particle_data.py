"""Writes `voiceassist/_data/concepts/particles.txt.gz`: the words a stop-word list of some language holds and
WordNet 3.0 does not know, which query/question_concepts.py reads as a particle or interjection where one is typed
("how fast uptitrate metformin ah, every week ok?", "sodium limit, wah", "yeah nah, can I start two drugs"):

    pip download --no-deps stopwordsiso==0.7.1 -d /tmp/stop
    apt-get install wordnet-base
    .venv/bin/python -m voiceassist_local.evaluation.particle_data /tmp/stop/stopwordsiso-0.7.1-py3-none-any.whl

Sources: stopwords-iso (stopwordsiso 0.7.1, MIT, read from its wheel, never installed), every list written in the
Latin script, English's included (it holds "ah", "oh", "eh"; Indonesian's "wah", "lah", "nah"; thirteen lists
"ja"); WordNet 3.0 (Princeton University; Debian's wordnet-base 1:3.0): a word it knows in no part of speech (its
own morphology, morphy(7WN)) names nothing WordNet files, neither a thing nor an action nor a quality, so it is a
function word, a particle or an interjection, or shorthand ("op", "bd"), which the question reader tells apart by
the concept layer's vocabulary and by where the word is typed. Choice and measurement:
docs/decisions/0024-clinical-concepts.md (session 17).
"""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

from voiceassist.query.terminology import PARTICLES_FILE
from voiceassist_local.evaluation.mixed_stop_words import _LATIN_WORD, ISO_MEMBER
from voiceassist_local.evaluation.plain_word_data import _licence, lexicographer_files


def particles(iso_wheel: Path) -> list[str]:
    import json
    import zipfile

    with zipfile.ZipFile(iso_wheel) as archive:
        lists = json.loads(archive.read(ISO_MEMBER))
    words = {w.strip().lower() for stops in lists.values() for w in stops}
    return sorted(w for w in words if _LATIN_WORD.fullmatch(w) and not lexicographer_files(w))


def main(argv: list[str]) -> int:
    header = ["# Words a Latin-script stop-word list of stopwords-iso holds (stopwordsiso 0.7.1, MIT; English's list",
              "# included) that WordNet 3.0 knows in no part of speech (Debian's wordnet-base 1:3.0), lower case;",
              "# local/voiceassist_local/evaluation/particle_data.py. WordNet's licence:",
              *_licence()]
    text = "\n".join(header + particles(Path(argv[0]))) + "\n"
    with gzip.GzipFile(PARTICLES_FILE, "wb", compresslevel=9, mtime=0) as out:  # the same words, the same bytes
        out.write(text.encode("utf-8"))
    print(PARTICLES_FILE)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
