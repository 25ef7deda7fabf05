"""NCBI E-utilities payloads -> PubMed articles -> search hits.

ESearch (retmode=json) gives the ranked PMIDs; EFetch (db=pubmed, retmode=xml, rettype=abstract) gives the
records as a PubmedArticleSet of PubmedArticle (journal citations) and PubmedBookArticle (NCBI Bookshelf
chapters such as StatPearls, frequent answers to clinical questions).

XML is parsed with expat directly, so that the parser can refuse what an attacker would use: any entity
declaration (the "billion laughs" and external-entity attacks need one) and any internal DTD subset. A plain
DOCTYPE with a public identifier is accepted because every real EFetch answer starts with one; expat never
fetches the DTD it names.

Messages of PubMedPayloadError describe the payload's shape only, never its text, which can echo the query.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Any
from xml.parsers import expat

from voiceassist.models import Chunk, DocumentMetadata, SearchHit, SourceType

SOURCE_NAME = "pubmed"
MAX_AUTHORS = 3  # enough to cite ("Smith J, Lee K, Ng P"); the rest stay on PubMed
MAX_TITLE_CHARS = 1000  # DocumentMetadata.title's limit
# cl100k_base averages about four characters per token on English prose. PubMed hits are never chunked or
# embedded, the count only feeds prompt budgeting, which trims by an exact count anyway (generation.py).
CHARS_PER_TOKEN = 4
ARTICLE_URL = "https://pubmed.ncbi.nlm.nih.gov/{pmid}/"

_PMID = re.compile(r"[0-9]{1,10}")
_YEAR = re.compile(r"\b(1[89][0-9]{2}|20[0-9]{2}|2100)\b")
_UNLABELLED = "UNLABELLED"  # NCBI's Label for the unlabelled part of a structured abstract


class PubMedPayloadError(ValueError):
    """NCBI answered, but not with something usable (malformed, or an error payload)."""


@dataclass(frozen=True, slots=True)
class PubMedArticle:
    pmid: str
    title: str
    abstract: str  # "" when the record has none
    authors: list[str] = field(default_factory=list)
    year: int | None = None
    doi: str | None = None


# --------------------------------------------------------------------------- ESearch


def parse_esearch(body: bytes) -> list[str]:
    """PMIDs in ESearch's relevance order, without duplicates; [] when nothing matched.

    An "ERROR" (or a top-level "error", as on throttling) is a failure. An "errorlist" is not: NCBI uses it for
    phrases it could not match, and still returns whatever the rest of the query found.
    """
    try:
        payload = json.loads(body)
    except (UnicodeDecodeError, ValueError):
        raise PubMedPayloadError(f"ESearch returned {len(body)} bytes that are not JSON") from None
    if not isinstance(payload, dict):
        raise PubMedPayloadError("ESearch returned JSON without an esearchresult object")
    if "error" in payload:
        raise PubMedPayloadError("NCBI returned an error object instead of search results")
    result = payload.get("esearchresult")
    if not isinstance(result, dict):
        raise PubMedPayloadError("ESearch returned JSON without an esearchresult object")
    if "ERROR" in result:
        raise PubMedPayloadError("NCBI reported an ESearch error (esearchresult.ERROR)")
    ids = result.get("idlist", [])
    if not isinstance(ids, list):
        raise PubMedPayloadError("ESearch returned an idlist that is not a list")
    pmids = [pmid for pmid in ids if isinstance(pmid, str) and _PMID.fullmatch(pmid)]
    return list(dict.fromkeys(pmids))


# --------------------------------------------------------------------------- EFetch


def parse_efetch(body: bytes) -> dict[str, PubMedArticle]:
    """Articles of an EFetch PubmedArticleSet by PMID. An <ERROR> answer is a PubMedPayloadError."""
    root = parse_xml(body)
    if root.tag == "ERROR" or root.find("ERROR") is not None:
        raise PubMedPayloadError("NCBI reported an EFetch error (<ERROR>)")
    if root.tag != "PubmedArticleSet":
        raise PubMedPayloadError(f"EFetch returned <{root.tag[:40]}> instead of a PubmedArticleSet")
    articles: dict[str, PubMedArticle] = {}
    for record in root:
        article = None
        if record.tag == "PubmedArticle":
            article = _journal_article(record)
        elif record.tag == "PubmedBookArticle":
            article = _book_article(record)
        if article is not None:
            articles.setdefault(article.pmid, article)
    return articles


def parse_xml(body: bytes) -> ET.Element:
    """An element tree from untrusted XML: entity declarations and internal DTD subsets are refused."""
    builder = ET.TreeBuilder()
    parser = expat.ParserCreate()
    parser.buffer_text = True
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.StartElementHandler = builder.start
    parser.EndElementHandler = builder.end
    parser.CharacterDataHandler = builder.data

    def refuse_subset(name: str, system_id: str | None, public_id: str | None, has_internal_subset: int) -> None:
        if has_internal_subset:
            raise PubMedPayloadError("EFetch XML declares an internal DTD subset; refused")

    def refuse_entity(*args: Any) -> None:
        raise PubMedPayloadError("EFetch XML declares an entity; refused")

    def refuse_external(*args: Any) -> int:
        raise PubMedPayloadError("EFetch XML references an external entity; refused")

    parser.StartDoctypeDeclHandler = refuse_subset
    parser.EntityDeclHandler = refuse_entity
    parser.UnparsedEntityDeclHandler = refuse_entity
    parser.ExternalEntityRefHandler = refuse_external
    try:
        parser.Parse(body, True)
        return builder.close()
    except expat.ExpatError as exc:
        raise PubMedPayloadError(f"EFetch returned malformed XML (line {exc.lineno}, column {exc.offset})") from None
    except AssertionError:  # TreeBuilder.close() on a document that never opened an element
        raise PubMedPayloadError("EFetch returned an empty XML document") from None


def _journal_article(record: ET.Element) -> PubMedArticle | None:
    citation = record.find("MedlineCitation")
    article = citation.find("Article") if citation is not None else None
    pmid = _pmid(citation)
    if citation is None or article is None or pmid is None:
        return None
    title = _text(article.find("ArticleTitle")) or _text(article.find("VernacularTitle"))
    english_other = citation.find("OtherAbstract[@Language='eng']")
    abstract = _abstract(article.find("Abstract")) or _abstract(english_other)
    pub_date = article.find("Journal/JournalIssue/PubDate")
    year = _year(pub_date) or _year(article.find("ArticleDate"))
    doi = _doi(record.find("PubmedData/ArticleIdList")) or _elocation_doi(article)
    return PubMedArticle(pmid=pmid, title=title or f"PubMed article {pmid}", abstract=abstract,
                         authors=_authors(article.find("AuthorList")), year=year, doi=doi)


def _book_article(record: ET.Element) -> PubMedArticle | None:
    document = record.find("BookDocument")
    pmid = _pmid(document)
    if document is None or pmid is None:
        return None
    title = _text(document.find("ArticleTitle")) or _text(document.find("Book/BookTitle"))
    author_list = document.find("AuthorList[@Type='authors']")
    if author_list is None:
        author_list = document.find("AuthorList")
    doi = _doi(document.find("ArticleIdList")) or _doi(record.find("PubmedBookData/ArticleIdList"))
    return PubMedArticle(pmid=pmid, title=title or f"PubMed article {pmid}",
                         abstract=_abstract(document.find("Abstract")), authors=_authors(author_list),
                         year=_year(document.find("Book/PubDate")), doi=doi)


def _pmid(parent: ET.Element | None) -> str | None:
    """The record's <PMID> when it is a well-formed one."""
    pmid = (parent.findtext("PMID") or "").strip() if parent is not None else ""
    return pmid if _PMID.fullmatch(pmid) else None


def _text(element: ET.Element | None) -> str:
    """All text of an element with inline markup flattened; <sup> becomes "^" so "10<sup>9</sup>" stays 10^9."""
    if element is None:
        return ""
    parts: list[str] = []

    def walk(node: ET.Element) -> None:
        parts.append(node.text or "")
        for child in node:
            if child.tag == "sup":
                parts.append("^")
            walk(child)
            parts.append(child.tail or "")

    walk(element)
    return " ".join("".join(parts).split())


def _abstract(abstract: ET.Element | None) -> str:
    """Abstract text; the sections of a structured abstract keep their labels ("METHODS: ...")."""
    if abstract is None:
        return ""
    sections = []
    for part in abstract.findall("AbstractText"):
        text = _text(part)
        label = " ".join((part.get("Label") or "").split())
        if text and label and label.upper() != _UNLABELLED:
            text = f"{label}: {text}"
        if text:
            sections.append(text)
    return " ".join(sections)


def _authors(author_list: ET.Element | None) -> list[str]:
    """Up to MAX_AUTHORS names as PubMed cites them: "Last FM", or a group's collective name."""
    names: list[str] = []
    for author in author_list.findall("Author") if author_list is not None else []:
        if author.get("ValidYN") == "N":  # a misspelt name NCBI keeps only for searching
            continue
        last = _text(author.find("LastName"))
        initials = _text(author.find("Initials")) or "".join(p[0] for p in _text(author.find("ForeName")).split())
        name = f"{last} {initials}".strip() if last else _text(author.find("CollectiveName"))
        if name:
            names.append(name)
        if len(names) == MAX_AUTHORS:
            break
    return names


def _year(date: ET.Element | None) -> int | None:
    """<Year>, else the first year of a <MedlineDate> such as "2019 Nov-Dec" or "1998 Dec-1999 Jan"."""
    if date is None:
        return None
    for text in (date.findtext("Year"), date.findtext("MedlineDate")):
        match = _YEAR.search(text or "")
        if match:
            return int(match.group(1))
    return None


def _doi(article_ids: ET.Element | None) -> str | None:
    """The record's own DOI (PubmedData/ArticleIdList, never the ReferenceList's ids of cited works)."""
    for article_id in article_ids.findall("ArticleId") if article_ids is not None else []:
        if article_id.get("IdType") == "doi" and _text(article_id):
            return _text(article_id)
    return None


def _elocation_doi(article: ET.Element) -> str | None:
    for location in article.findall("ELocationID"):
        if location.get("EIdType") == "doi" and location.get("ValidYN") != "N" and _text(location):
            return _text(location)
    return None


# --------------------------------------------------------------------------- hits


def rank_score(rank: int) -> float:
    """1 / (1 + rank) for ESearch's 0-based rank: 1.0, 0.5, 0.33, ...

    ESearch gives an order, not a score. The reciprocal rank keeps scores in (0, 1], falling fastest at the
    top, where PubMed's relevance order is most informative, and it is the same shape the fusion code uses
    (reciprocal rank fusion), so nothing downstream reads it as a calibrated similarity.
    """
    return 1.0 / (1 + rank)


def article_hit(article: PubMedArticle, *, rank: int) -> SearchHit:
    """A PubMed article with an abstract as one search hit, its abstract the excerpt (the title is metadata)."""
    doc_key = f"pmid:{article.pmid}"
    doc_id = f"pubmed_{article.pmid}_v1"
    text = article.abstract
    metadata = DocumentMetadata(
        doc_key=doc_key, title=article.title[:MAX_TITLE_CHARS], source_type=SourceType.PUBMED,
        authors=tuple(article.authors), year=article.year, doi=article.doi, pmid=article.pmid,
        url=ARTICLE_URL.format(pmid=article.pmid),
    )
    chunk = Chunk(chunk_id=f"{doc_id}:00000", doc_id=doc_id, doc_key=doc_key, version=1, ordinal=0, text=text,
                  token_count=max(1, -(-len(text) // CHARS_PER_TOKEN)), metadata=metadata)
    return SearchHit(chunk=chunk, score=rank_score(rank), source=SOURCE_NAME)
