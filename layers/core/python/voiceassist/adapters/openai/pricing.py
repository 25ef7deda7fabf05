"""What a chat completion cost, from list prices per 1,000 tokens.

Prices are OpenAI's published list prices in USD (checked 2025; update with the provider's page). A dated
model id ("gpt-4o-mini-2024-07-18") is priced by its longest known prefix. Self-hosted models (SageMaker,
Ollama, vLLM) cost instance hours, not tokens, so their per-request cost is reported as 0.
"""

from __future__ import annotations

from typing import NamedTuple


class Price(NamedTuple):
    prompt_per_1k: float
    completion_per_1k: float


PRICES_PER_1K: dict[str, Price] = {
    "gpt-5": Price(0.00125, 0.010),
    "gpt-5-mini": Price(0.00025, 0.002),
    "gpt-5-nano": Price(0.00005, 0.0004),
    "gpt-4.1": Price(0.002, 0.008),
    "gpt-4.1-mini": Price(0.0004, 0.0016),
    "gpt-4.1-nano": Price(0.0001, 0.0004),
    "gpt-4o": Price(0.0025, 0.010),
    "gpt-4o-mini": Price(0.00015, 0.0006),
    "gpt-4-turbo": Price(0.010, 0.030),
    "gpt-3.5-turbo": Price(0.0005, 0.0015),
}


def price_of(model: str) -> Price | None:
    """The price of the longest known model id that `model` starts with, or None for an unknown model."""
    name = model.lower()
    matches = [key for key in PRICES_PER_1K if name == key or name.startswith(key + "-")]
    return PRICES_PER_1K[max(matches, key=len)] if matches else None


def cost_usd(model: str, prompt_tokens: int, completion_tokens: int) -> float:
    price = price_of(model)
    if price is None:
        return 0.0
    dollars = prompt_tokens / 1000 * price.prompt_per_1k + completion_tokens / 1000 * price.completion_per_1k
    return round(dollars, 8)
