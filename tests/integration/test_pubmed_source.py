"""PubMed as the composition builds it from Settings, against the local E-utilities stub."""

from __future__ import annotations

import boto3
from moto import mock_aws

from tests.support.pubmed_stub import PubMedStub
from voiceassist.adapters.aws.secrets_manager import api_key_in as ncbi_api_key
from voiceassist.composition import Dependencies
from voiceassist.settings import Settings


def test_pubmed_is_not_available_without_a_base_url() -> None:
    assert Dependencies(Settings()).external_sources == {}


def test_pubmed_reads_its_ncbi_key_from_secrets_manager_on_its_first_search() -> None:
    with mock_aws(), PubMedStub() as stub:
        arn = boto3.client("secretsmanager", region_name="us-east-1").create_secret(
            Name="pubmed", SecretString="ncbi-test-key")["ARN"]
        deps = Dependencies(Settings(pubmed_base_url=stub.base_url, pubmed_secret_arn=arn,
                                     pubmed_email="ops@example.org"))
        literature = deps.external_sources.get("pubmed")
        assert literature is not None and stub.requests == []  # built without a call: no search yet

        hits = literature.search("metformin chronic kidney disease", top_k=2, deadline_s=5)

    assert [h.source for h in hits] == ["pubmed"] * len(hits) and hits
    assert all(h.chunk.metadata.pmid and h.chunk.metadata.url for h in hits)
    esearch = stub.requests_to("esearch")[0]
    assert (esearch.params["api_key"], esearch.params["email"]) == ("ncbi-test-key", "ops@example.org")
    assert "ncbi-test-key" not in esearch.path  # the key travels in the body, never in a URL


def test_the_ncbi_key_is_read_from_the_secret_infra_creates_and_its_empty_placeholder_means_no_key() -> None:
    assert ncbi_api_key('{"api_key": "", "placeholder": "x7Hq"}') is None  # as deployed, before an operator
    assert ncbi_api_key('{"api_key": "abc123"}') == "abc123"
    assert ncbi_api_key("abc123\n") == "abc123"
    assert ncbi_api_key("") is None
