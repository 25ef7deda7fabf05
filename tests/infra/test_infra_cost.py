"""Idle dev stays under $200 a month (issue 26), read from the synthesized template (infra/cost.py): the KMS and
Textract endpoints that issue 26 adds are paid for by placing dev's interface endpoints in one zone."""

from __future__ import annotations

from conftest import Synthesized

from infra.cost import idle_monthly_usd

BUDGET_USD = 200.0


def test_cost_idle_dev_stays_under_its_budget(synthesized: Synthesized) -> None:
    items = idle_monthly_usd("dev", synthesized.stacks("dev"))
    total = sum(items.values())
    print(f"\nidle dev: {items} = ${total:.2f} a month")
    assert total < BUDGET_USD, items
    assert "SageMaker endpoints" not in items  # dev's model is on Bedrock: per token, nothing idle


def test_cost_counts_every_interface_endpoint_in_each_of_its_zones(synthesized: Synthesized) -> None:
    dev = idle_monthly_usd("dev", synthesized.stacks("dev"))["interface endpoints"]
    prod = idle_monthly_usd("prod", synthesized.stacks("prod"))["interface endpoints"]
    # 9 endpoints (with KMS and Textract; Transcribe and Polly for voice), one zone (endpoint_zones)
    assert dev == round(9 * 1 * 0.01 * 730, 2)
    assert prod == round(9 * 3 * 0.01 * 730, 2)  # ... in each of prod's three zones
