"""Writes voiceassist/_data/concepts/elements.tsv: the chemical elements' symbols, names and common ion charges
(`symbol<TAB>name<TAB>charges`, the name in lower case, the charges comma-separated and signed), read by
query/concepts.py to read an element's symbol typed with a charge or beside a value ("K+", "k+", "Ca2+", "K 5.9",
"at what K level") as the ion or analyte it names.

    pip download --no-deps periodictable==2.1.0 -d /tmp/pt
    .venv/bin/python -m voiceassist_local.evaluation.elements /tmp/pt/periodictable-2.1.0-py3-none-any.whl

Source, read from its wheel (never installed, never imported): periodictable 2.1.0 (Paul Kienzle, NIST; "Periodictable
is in the public domain"), `periodictable/core.py`'s `element_base`: `Z: (name, symbol, common ions, uncommon
ions)`, the ions from Wikipedia's list of oxidation states of the elements. Only the common ions are kept: a
charge typed after a symbol names the element's ion when it is one of them ("K+", "Cl-", "Ca2+"), not when it is
rare ("O-" is blood group O negative, oxygen's common ion is 2-). The neutron (Z 0, symbol "n") is left out.
"""

from __future__ import annotations

import ast
import sys
import zipfile
from pathlib import Path

from voiceassist.query.terminology import ELEMENTS_FILE

CORE_MEMBER = "periodictable/core.py"
TABLE = "element_base"


def element_table(wheel: Path) -> dict[int, tuple[str, str, list[int], list[int]]]:
    """periodictable's `element_base`, read from its source as a literal."""
    with zipfile.ZipFile(wheel) as archive:
        tree = ast.parse(archive.read(CORE_MEMBER).decode("utf-8"))
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == TABLE \
                and node.value is not None:
            table: dict[int, tuple[str, str, list[int], list[int]]] = ast.literal_eval(node.value)
            return table
    raise ValueError(f"{CORE_MEMBER} of {wheel} has no {TABLE}")


def element_lines(table: dict[int, tuple[str, str, list[int], list[int]]]) -> list[str]:
    """One line per element (by atomic number): symbol, name in lower case, common charges ("+1", "-1")."""
    return [f"{symbol}\t{name.lower()}\t{','.join(f'{c:+d}' for c in common)}"
            for number, (name, symbol, common, _uncommon) in sorted(table.items()) if number > 0]


def main(argv: list[str]) -> int:
    wheel = Path(argv[0])
    lines = element_lines(element_table(wheel))
    header = [
        "The chemical elements: symbol<TAB>name<TAB>common ion charges (comma-separated, signed).",
        "Made by local/voiceassist_local/evaluation/elements.py from periodictable 2.1.0 (Paul Kienzle, NIST;",
        "public domain), periodictable/core.py's element_base (common ions from Wikipedia's list of oxidation states).",
    ]
    ELEMENTS_FILE.write_text("\n".join([*(f"# {line}" for line in header), *lines]) + "\n", encoding="utf-8")
    print(ELEMENTS_FILE, len(lines), "elements")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
