"""A WordNet database folder of a few hand-written lines, for the tests of the scripts that write word tables."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from voiceassist_local.evaluation import plain_word_data, register_word_data

# the readers' caches, cleared before and after so no test reads another's (or Debian's) WordNet
_CACHED = (plain_word_data._index, plain_word_data._files, plain_word_data._exceptions, register_word_data._synsets)


def clear_caches() -> None:
    """Forget what the readers cached, so the next read is of the folder asked for."""
    for cached in _CACHED:
        cached.cache_clear()


@contextmanager
def tiny_wordnet(folder: Path, index: dict[str, list[str]], data: dict[str, list[str]]) -> Iterator[Path]:
    """`folder` holding index.POS, data.POS and an empty POS.exc for each part of speech, the caches clear."""
    for part in ("noun", "verb", "adj", "adv"):
        (folder / f"index.{part}").write_text("\n".join(index[part]) + "\n", encoding="latin-1")
        (folder / f"data.{part}").write_text("\n".join(data[part]) + "\n", encoding="latin-1")
        (folder / f"{part}.exc").write_text("", encoding="latin-1")
    clear_caches()
    try:
        yield folder
    finally:
        clear_caches()
