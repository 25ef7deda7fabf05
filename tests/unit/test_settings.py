from __future__ import annotations

from pathlib import Path

import pytest

from voiceassist import settings as s
from voiceassist.errors import InvalidInput


def test_settings_defaults_to_local_runtime() -> None:
    parsed = s.settings_from_env({})
    assert parsed.runtime is s.Runtime.LOCAL and parsed.data_dir == Path(".data")


def test_settings_parses_values_by_env_name() -> None:
    parsed = s.settings_from_env(
        {s.ENV_DATA_DIR: "/tmp/x", s.ENV_CHUNK_TOKENS: "300", s.ENV_ROUTING_MODE: "local-only"}
    )
    assert parsed.data_dir == Path("/tmp/x") and parsed.chunk_tokens == 300
    assert parsed.routing_mode.value == "local-only"


def test_settings_bad_value_names_the_variable() -> None:
    with pytest.raises(InvalidInput, match=s.ENV_CHUNK_TOKENS):
        s.settings_from_env({s.ENV_CHUNK_TOKENS: "lots"})


def test_settings_aws_runtime_requires_its_resources() -> None:
    with pytest.raises(InvalidInput, match=s.ENV_DOCUMENTS_BUCKET):
        s.settings_from_env({s.ENV_RUNTIME: "aws"})


def test_tiktoken_cache_is_shipped_in_the_package() -> None:
    env: dict[str, str] = {}
    s.configure_tiktoken_cache(env)
    cache = Path(env[s.ENV_TIKTOKEN_CACHE_DIR])
    assert len(list(cache.iterdir())) >= 2  # cl100k_base and o200k_base, under tiktoken's cache names
