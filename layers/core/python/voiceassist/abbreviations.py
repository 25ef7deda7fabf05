"""Abbreviations whose final period does not end a sentence.

Clinical text is dense with them ("b.i.d.", "i.v.", "Dr.", "e.g."); splitting there would cut a dosing
instruction in two and send half of it to another chunk. Words are stored lower-case without the final
period, so "B.I.D." and "b.i.d." are one entry.
"""

from __future__ import annotations


def _word_set(words: str) -> frozenset[str]:
    return frozenset(words.split())


# Never followed by a sentence end: titles, in-sentence references and connectives introduce more text.
NEVER_FINAL: frozenset[str] = _word_set(
    """
    dr drs mr mrs ms prof sr jr st rev gen col capt lt
    fig figs tbl eq eqs ref refs nos pp p chap sect suppl eds
    e.g eg i.e ie cf vs viz approx ca incl esp resp
    """
)

# May end a sentence: the period after them is a boundary only when a capitalised word follows.
MAYBE_FINAL: frozenset[str] = _word_set(
    """
    b.i.d bid t.i.d tid q.i.d qid q.d qd q.o.d qod q.h.s qhs h.s hs p.r.n prn a.c p.c stat p.o po
    i.v iv i.m im s.c s.q sc sq s.l sl p.r pr o.d o.s o.u a.d a.s a.u q.h q4h q6h q8h q12h q.4h q.6h
    q.8h q.12h gtt gtts supp susp sol inj tab caps cap disp sig rx dx tx hx sx
    mg mcg ug g kg ml dl l mmol mol meq iu u hr hrs h min mins sec secs wk wks mo mos yr yrs mm cm in ft
    lb lbs oz temp wt ht vol
    etc al no ch inc ltd co corp dept univ assoc jan feb mar apr jun jul aug sep sept oct nov dec
    mon tue wed thu fri sat sun max avg est pt pts hosp admin conc div dil
    """
)


def abbreviation_kind(word: str) -> str | None:
    """'never' or 'maybe' for a known abbreviation (given with or without its final period), else None."""
    key = word.lower().rstrip(".")
    if key in NEVER_FINAL:
        return "never"
    if key in MAYBE_FINAL:
        return "maybe"
    return None
