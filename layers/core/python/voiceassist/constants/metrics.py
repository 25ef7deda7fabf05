"""The operator's metrics: every name, unit and dimension in one place (decision 0040).

The domain records them (voiceassist.telemetry.points and the floors' points), CloudWatch receives them as EMF on AWS,
the local SQLite store and `GET /metrics` show them under the same names, and infra builds the dashboard and
the alarms from this module. Dimensions are closed sets (a stage, a source, a tool of the registry, a model
of the configuration, a status of an enum): never a user's words, never an identifier of a person.
"""

from __future__ import annotations

from typing import Final

# ---- the query: one point per stage and per question (query/metrics.py, from QueryState at the audit step) ----
STAGE_LATENCY: Final = "StageLatency"  # ms, dimension stage (detect_phi, classify, search_<source>, ...)
QUESTIONS: Final = "Questions"  # count, dimension status (AnswerStatus: answered, no_evidence, clarification, ...)
QUESTION_LATENCY: Final = "QuestionLatency"  # ms, the sum of the question's stages
PHI_ROUTING: Final = "PhiRouting"  # count, dimensions phi (detected | none) and route (in_boundary | cloud | none)
INPUT_SCREEN_BLOCKS: Final = "InputScreenBlocks"  # count, dimension category (injection, jailbreak, harmful)
GROUNDING_BLOCKS: Final = "GroundingBlocks"  # count, dimension action (retried | abstained): the critic's refusals
MODEL_TOKENS: Final = "ModelTokens"  # count, dimensions model and kind (prompt | completion)
MODEL_COST: Final = "ModelCostUsd"  # US dollars (unit None), dimension model
# ---- the tools: one point per call (tools/executor.py, from the ToolResult it audits) --------------------------
TOOL_CALLS: Final = "ToolCalls"  # count, dimensions tool and outcome (TOOL_OUTCOMES)
TOOL_LATENCY: Final = "ToolLatency"  # ms, dimension tool
# ---- ingestion: one point per finished job (ingest/metrics.py, from the job's outcome) ------------------------
INGESTION_JOBS: Final = "IngestionJobs"  # count, dimension outcome (completed | failed)
INGESTION_FAILURES: Final = "IngestionFailures"  # count, dimension reason (the stage's error class)
INGESTION_CHUNKS: Final = "IngestionChunks"  # count: chunks made searchable (throughput)
INGESTION_DURATION: Final = "IngestionDuration"  # ms, from the job's start to its end

COUNT: Final = "Count"
MILLISECONDS: Final = "Milliseconds"
NONE: Final = "None"
UNITS: Final[dict[str, str]] = {
    STAGE_LATENCY: MILLISECONDS, QUESTIONS: COUNT, QUESTION_LATENCY: MILLISECONDS, PHI_ROUTING: COUNT,
    INPUT_SCREEN_BLOCKS: COUNT, GROUNDING_BLOCKS: COUNT, MODEL_TOKENS: COUNT, MODEL_COST: NONE,
    TOOL_CALLS: COUNT, TOOL_LATENCY: MILLISECONDS, INGESTION_JOBS: COUNT, INGESTION_FAILURES: COUNT,
    INGESTION_CHUNKS: COUNT, INGESTION_DURATION: MILLISECONDS,
}
# the dimensions each metric carries, in order (EMF declares them as one dimension set)
DIMENSIONS: Final[dict[str, tuple[str, ...]]] = {
    STAGE_LATENCY: ("stage",), QUESTIONS: ("status",), QUESTION_LATENCY: (), PHI_ROUTING: ("phi", "route"),
    INPUT_SCREEN_BLOCKS: ("category",), GROUNDING_BLOCKS: ("action",), MODEL_TOKENS: ("model", "kind"),
    MODEL_COST: ("model",), TOOL_CALLS: ("tool", "outcome"), TOOL_LATENCY: ("tool",),
    INGESTION_JOBS: ("outcome",), INGESTION_FAILURES: ("reason",), INGESTION_CHUNKS: (), INGESTION_DURATION: (),
}
# Rollups: EMF also publishes these metrics with only these dimensions (and service), so an alarm can watch the
# whole (every tool's errors, every model's cost) without naming each member (adapters/aws/emf_metrics.py).
ROLLUPS: Final[dict[str, tuple[str, ...]]] = {
    TOOL_CALLS: ("outcome",), MODEL_COST: (), INPUT_SCREEN_BLOCKS: (), GROUNDING_BLOCKS: (),
    INGESTION_FAILURES: (), QUESTIONS: (),
}
# distributions: the telemetry view and the Prometheus endpoint give their p50/p95; the others are summed
DISTRIBUTIONS: Final = frozenset({STAGE_LATENCY, QUESTION_LATENCY, TOOL_LATENCY, INGESTION_DURATION})

TOOL_OUTCOMES: Final = ("ok", "pending_confirmation", "confirmed", "refused", "rate_limited", "timeout", "error")
SCREEN_CATEGORIES: Final = ("injection", "jailbreak", "harmful", "self_harm")  # safety/input_screen.py's categories
UNKNOWN: Final = "other"  # a value outside a dimension's closed set (a tool name a model invented, say)

# The stages an operator watches, as QueryState.latency_ms names them, with their p95 budget in ms: the
# "StageP95<Stage>" alarms fire above these. Measured with `.venv/bin/python bench/query.py --queries 60` (the
# embedded stack, 10k chunks, load average 25-30, 2026-11-29): p95 detect_phi 104-219, search_knowledge_base
# 172-299, evidence 21-29, classify 1-6, assemble 1-51, grounding 0.3-50, generate_primary (an instant stub
# model) 13-19. Budgets leave ~5-10x for a cold Lambda and a loaded cluster; generation's are the model's own
# time within the 25 s Express limit (docs/operations.md, "Query latency"). Revisit with real traffic.
STAGE_BUDGETS_MS: Final[dict[str, float]] = {
    "detect_phi": 1_500,
    "input_screen": 500,
    "classify": 500,
    "search_knowledge_base": 2_000,
    "search_pubmed": 8_000,
    "evidence": 1_000,
    "generate_primary": 20_000,  # the primary tier: cloud for PHI-free questions, the in-boundary model for PHI
    "generate_fallback": 20_000,
    "generate_extractive": 1_000,
    "grounding": 1_000,
    "assemble": 500,
}
# alarms on the metrics above (infra/constructs/operator_metrics.py; docs/operations.md, "Alarms"): starting points
# chosen, not measured (no production traffic yet); each environment may need its own
ERROR_RATE_THRESHOLD: Final = 0.05  # tool calls ending in error or timeout, of all tool calls, over 15 minutes
SAFETY_BLOCKS_PER_15_MIN: Final = 20  # input-screen blocks: an attack or a broken client, either worth a look
COST_BURN_USD_PER_HOUR: Final = 5.0  # model spend in one hour, all models
INGESTION_FAILURES_PER_HOUR: Final = 3
