"""axe-core (pinned in tests/browser/package.json, injected over the DevTools protocol, never shipped in the
page) finds no serious or critical WCAG 2.1 A/AA violation in the page's states."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.browser.chromium import BrowserError, Tab

AXE = Path(__file__).resolve().parent / "node_modules" / "axe-core" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
QUESTION = "What is the maximum daily dose of metformin?"
ANSWERED = "document.querySelector('article.turn.assistant:last-of-type')?.dataset.status"


def serious_violations(tab: Tab) -> list[dict[str, object]]:
    if not AXE.is_file():
        raise BrowserError(f"{AXE} is missing: run tests/setup.sh (make test does)")
    tab.evaluate(AXE.read_text(encoding="utf-8") + "; true")
    options = json.dumps({"runOnly": {"type": "tag", "values": TAGS}, "resultTypes": ["violations"]})
    found = tab.evaluate(f"axe.run(document, {options}).then(r => r.violations.map(v => "
                         "({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => n.target.join(' '))})))")
    return [v for v in found if v["impact"] in ("serious", "critical")]


@pytest.mark.parametrize("width", [1280, 375])
def test_an_answered_page_has_no_serious_accessibility_violation(tab: Tab, base_url: str, width: int) -> None:
    tab.viewport(width, 900, mobile=width < 600)
    tab.open(f"{base_url}/?q={quote(QUESTION)}")
    tab.wait_for(ANSWERED)

    assert serious_violations(tab) == []


def test_the_open_source_dialog_has_no_serious_accessibility_violation(tab: Tab, base_url: str) -> None:
    tab.open(f"{base_url}/?q={quote(QUESTION)}")
    tab.wait_for(ANSWERED)
    tab.click("article.turn.assistant .answer-text button.cite")
    tab.wait_for("!!document.querySelector('#passage-text mark')")

    assert serious_violations(tab) == []


def test_the_check_finds_a_planted_violation(tab: Tab, base_url: str) -> None:
    tab.open(base_url)
    tab.evaluate("document.querySelector('main').append(Object.assign(document.createElement('img'), {src: 'data:,'}))")

    assert [v["id"] for v in serious_violations(tab)] == ["image-alt"]
