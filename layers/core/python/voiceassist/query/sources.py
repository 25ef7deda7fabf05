"""Which sources a question is searched in, how they become parallel searches, and how their hits merge.

Sources (`models.SourceName`):

- three partitions of our knowledge base, by the documents' `source_type`: `guidelines` (guideline),
  `drug_references` (drug_reference) and `textbooks`, which holds textbooks **and every other type**
  (journal, web, other, and PubMed abstracts ingested as documents). Every source type belongs to exactly
  one partition, so a document stays findable whatever its type; "textbooks" is the general reference shelf.
- `pubmed`: NCBI E-utilities, outside the PHI boundary; available only when a base URL is configured.

Selection (`select_sources`): the caller's `prioritize` list first, then the intent's default order, minus
excluded and unavailable sources, at most MAX_SOURCES. When PubMed is unavailable its slot goes to the next
partition, so a deployment without PubMed searches the whole knowledge base, as before sources existed.

Searching (`search_branches`): the selected partitions live in ONE index, so they are searched together,
as one branch with a source_types filter. Searched apart they would cost the cluster three searches, buy
no isolation (one cluster fails them all at once) and rank worse: min-max fusion is relative to each
search's own candidates, so every partition's best hit would score about 1.0, relevant or not. PubMed is
the other branch: a different service with its own time budget and failure.

Merging (`interleave`): the knowledge base's fused scores are relative to one query's candidates and
PubMed's are rank-based, so no arithmetic on them compares the two. The branches alternate instead, in
priority order (the branch of the first selected source leads): each source keeps its own ranking, and
neither can push the other out of the few excerpts the generator sees.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from itertools import zip_longest

from voiceassist.errors import InvalidInput
from voiceassist.models import (
    MAX_SOURCES,
    Intent,
    SearchBranch,
    SearchHit,
    SourceConfig,
    SourceKind,
    SourceName,
    SourcePreferences,
    SourceType,
)

KNOWLEDGE_BASE_BUDGET_S = 6.0  # an index search takes milliseconds; this is for a loaded or failing cluster
PUBMED_BUDGET_S = 4.0  # esearch + efetch, each with a retry, at NCBI's usual latency (Settings may change it)
LAMBDA_OVERHEAD_S = 2  # the state machine's backstop adds this to a budget (invocation, cold start)

PARTITIONS: dict[SourceName, tuple[SourceType, ...]] = {
    SourceName.TEXTBOOKS: (SourceType.TEXTBOOK, SourceType.JOURNAL, SourceType.WEB, SourceType.OTHER,
                           SourceType.PUBMED),
    SourceName.GUIDELINES: (SourceType.GUIDELINE,),
    SourceName.DRUG_REFERENCES: (SourceType.DRUG_REFERENCE,),
}

SOURCES: dict[SourceName, SourceConfig] = {
    **{name: SourceConfig(name=name.value, kind=SourceKind.KNOWLEDGE_BASE, source_types=list(types),
                          timeout_seconds=KNOWLEDGE_BASE_BUDGET_S)
       for name, types in PARTITIONS.items()},
    SourceName.PUBMED: SourceConfig(name=SourceName.PUBMED.value, kind=SourceKind.EXTERNAL,
                                    timeout_seconds=PUBMED_BUDGET_S),
}
# The sources that are SearchSource adapters (the composition root builds the configured ones), and how a
# warning names them.
EXTERNAL_SOURCES: tuple[str, ...] = tuple(name.value for name, config in SOURCES.items()
                                          if config.kind is SourceKind.EXTERNAL)
TITLES: dict[str, str] = {SourceName.PUBMED.value: "PubMed"}

_S = SourceName
# The default order per intent: where the answer to such a question is most likely written down.
INTENT_ORDER: dict[Intent, tuple[SourceName, ...]] = {
    Intent.DRUG_INFO: (_S.DRUG_REFERENCES, _S.GUIDELINES, _S.TEXTBOOKS, _S.PUBMED),
    Intent.TREATMENT: (_S.GUIDELINES, _S.DRUG_REFERENCES, _S.TEXTBOOKS, _S.PUBMED),
    Intent.GUIDELINE: (_S.GUIDELINES, _S.TEXTBOOKS, _S.DRUG_REFERENCES, _S.PUBMED),
    Intent.DIAGNOSIS: (_S.TEXTBOOKS, _S.GUIDELINES, _S.PUBMED, _S.DRUG_REFERENCES),
    Intent.CASE_CONSULTATION: (_S.GUIDELINES, _S.TEXTBOOKS, _S.PUBMED, _S.DRUG_REFERENCES),
    Intent.GENERAL: (_S.TEXTBOOKS, _S.GUIDELINES, _S.DRUG_REFERENCES, _S.PUBMED),
}


def select_sources(intent: Intent, preferences: SourcePreferences, available: Collection[str]
                   ) -> list[SourceConfig]:
    """The sources to search, most wanted first: prioritized, then the intent's order; never an excluded
    or unavailable one; at most MAX_SOURCES. Raises InvalidInput for a name that is no source."""
    unknown = sorted({str(name) for name in [*preferences.prioritize, *preferences.exclude]}
                     - {name.value for name in SourceName})
    if unknown:
        raise InvalidInput(f"unknown source {', '.join(unknown)}; known sources: "
                           + ", ".join(name.value for name in SourceName))
    excluded = {SourceName(name) for name in preferences.exclude}
    wanted = [SourceName(name) for name in preferences.prioritize] + list(INTENT_ORDER[intent])
    chosen: list[SourceName] = []
    for name in wanted:
        if name not in chosen and name not in excluded and name.value in available:
            chosen.append(name)
    return [SOURCES[name] for name in chosen[:MAX_SOURCES]]


def search_branches(sources: Sequence[SourceConfig], *, source_types: Collection[SourceType] = ()
                    ) -> list[SearchBranch]:
    """The parallel searches for the selected sources, in priority order: one for all the selected
    knowledge-base partitions (filtered to their source types, and to `source_types` when the caller
    filtered by type), one per outside source. A partition the caller's filter empties is left out."""
    branches: list[SearchBranch] = []
    partitions = [s for s in sources if s.kind is SourceKind.KNOWLEDGE_BASE]
    for source in sources:
        if source.kind is not SourceKind.KNOWLEDGE_BASE:
            branches.append(_branch(source.kind, [source.name], [], source.timeout_seconds))
        elif source is partitions[0]:
            types = [t for s in partitions for t in s.source_types if not source_types or t in source_types]
            if types:
                # Every type selected is the same search as no filter (and the cheaper query).
                branches.append(_branch(SourceKind.KNOWLEDGE_BASE, [s.name for s in partitions],
                                        [] if set(types) == set(SourceType) else types,
                                        max(s.timeout_seconds for s in partitions)))
    return branches


def _branch(kind: SourceKind, names: list[str], types: list[SourceType], budget: float) -> SearchBranch:
    return SearchBranch(kind=kind, sources=names, source_types=types, budget_seconds=budget,
                        timeout_seconds=math.ceil(budget) + LAMBDA_OVERHEAD_S)


def interleave(rankings: Sequence[Sequence[SearchHit]]) -> list[SearchHit]:
    """Round-robin over the branches' rankings, in the order given (priority): first of each, then second
    of each, and so on; each ranking keeps its own order."""
    return [hit for row in zip_longest(*rankings) for hit in row if hit is not None]
