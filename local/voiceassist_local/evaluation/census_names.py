"""Writes voiceassist/_data/phi/given_names.txt and surnames.txt from the 1990 US Census name files.

    .venv/bin/python -m voiceassist_local.evaluation.census_names

Source: the `names` package (MIT, a development dependency pinned in pyproject.toml), which ships the US
Census Bureau's 1990 frequency lists (public domain). The PHI recognizers read the two text files, so the
Lambda image carries ~0.1 MB of words and not the package. Surnames keep the most frequent SURNAME_LIMIT
(they cover ~85 % of the population); given names keep all 5,163.
"""

from __future__ import annotations

import importlib.resources
from importlib import metadata

from voiceassist.phi.word_lists import GIVEN_NAMES, PHI_DATA, SURNAMES

SOURCE = "names"
SURNAME_LIMIT = 15_000


def _read(file: str, limit: int | None = None) -> list[str]:
    lines = importlib.resources.files(SOURCE).joinpath(file).read_text(encoding="ascii").splitlines()
    words = [line.split()[0].lower() for line in lines if line.strip()]
    return words[:limit] if limit else words


def main() -> int:
    header = [
        f"# US Census 1990 name frequency lists, from the {SOURCE} package {metadata.version(SOURCE)} (MIT;",
        "# the Census data is public domain), lower case, made by local/voiceassist_local/evaluation/census_names.py",
    ]
    given = sorted(set(_read("dist.male.first")) | set(_read("dist.female.first")))
    (PHI_DATA / GIVEN_NAMES).write_text("\n".join([*header, *given]) + "\n", encoding="utf-8")
    surnames = _read("dist.all.last", SURNAME_LIMIT)
    (PHI_DATA / SURNAMES).write_text("\n".join([*header, f"# the {SURNAME_LIMIT} most frequent", *surnames]) + "\n",
                        encoding="utf-8")
    print(PHI_DATA / GIVEN_NAMES, PHI_DATA / SURNAMES)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
