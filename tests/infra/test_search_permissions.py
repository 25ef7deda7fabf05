"""The search roles (functions/search_bootstrap/handler.py) against OpenSearch Security's own rules: each request
the adapter makes is the transport actions OpenSearch names for it, each action is checked as a cluster
permission or against the index as Security does (privileges/Utils.java isClusterPerm), and the roles' action
groups expand as Security's static_action_groups.yml defines them. Sources: docs/decisions/0030."""

from __future__ import annotations

import importlib.util
import re
from fnmatch import fnmatchcase
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
ALIAS = "voiceassist-chunks"
INDEX = f"{ALIAS}-000001"  # the physical index behind the alias (opensearch_bodies.physical_index_name)

# opensearch-project/security, src/main/resources/static_config/static_action_groups.yml (the groups used here)
STATIC_ACTION_GROUPS: dict[str, list[str]] = {
    "cluster_composite_ops_ro": ["indices:data/read/mget", "indices:data/read/msearch", "indices:data/read/mtv",
                                 "indices:admin/aliases/exists*", "indices:admin/aliases/get*",
                                 "indices:data/read/scroll", "indices:admin/resolve/index"],
    "cluster_composite_ops": ["indices:data/write/bulk", "indices:admin/aliases*", "indices:data/write/reindex",
                              "cluster_composite_ops_ro"],
    "read": ["indices:data/read*", "indices:admin/mappings/fields/get*", "indices:admin/resolve/index"],
    "write": ["indices:data/write*", "indices:admin/mapping/put"],
    "crud": ["read", "write"],
    "search": ["indices:data/read/search*", "indices:data/read/msearch*", "indices:admin/resolve/index", "suggest"],
    "suggest": ["indices:data/read/suggest*"],
    "create_index": ["indices:admin/create", "indices:admin/mapping/put"],
    "manage_aliases": ["indices:admin/aliases*"],
}

# The transport actions behind each request the adapter makes (opensearch_index.py `_call` operation), by the
# NAME of OpenSearch's action classes (BulkAction, RefreshAction, SearchAction, PutMappingAction, ...); _count
# runs a SearchAction; ?refresh=true on a by-query request refreshes the index when it ends.
ACTIONS: dict[str, list[str]] = {
    "bulk": ["indices:data/write/bulk", "indices:data/write/bulk[s]", "indices:data/write/index"],
    "indices.refresh": ["indices:admin/refresh"],
    "update_by_query": ["indices:data/write/update/byquery", "indices:data/read/search", "indices:data/write/bulk[s]",
                        "indices:data/write/index", "indices:admin/refresh"],
    "delete_by_query": ["indices:data/write/delete/byquery", "indices:data/read/search",
                        "indices:data/write/bulk[s]", "indices:data/write/delete", "indices:admin/refresh"],
    "indices.put_mapping": ["indices:admin/mapping/put"],
    "search": ["indices:data/read/search"],
    "count": ["indices:data/read/search"],
    "indices.exists_alias": ["indices:admin/aliases/get"],
    "indices.get_alias": ["indices:admin/aliases/get"],
    "indices.update_aliases": ["indices:admin/aliases"],
    "indices.create": ["indices:admin/create"],
    "search_pipeline.put": ["cluster:admin/search/pipeline/put"],
}
# Run as the domain's master user by the bootstrap custom resource, never by a mapped function role.
BOOTSTRAP_ONLY = {"search_pipeline.put", "indices.create", "indices.update_aliases", "indices.get_alias"}
READER_REQUESTS = {"search", "count", "indices.exists_alias"}
WRITES = {"bulk", "indices.refresh", "update_by_query", "delete_by_query", "indices.put_mapping",
          "indices.update_aliases", "indices.create", "search_pipeline.put"}


def is_cluster_permission(action: str) -> bool:
    """Security's split (privileges/Utils.java isClusterPerm), for the actions named here."""
    return (action.startswith(("cluster:", "indices:admin/template/", "indices:admin/index_template/",
                               "indices:data/read/scroll", "indices:data/read/msearch"))
            or action in {"indices:data/write/bulk", "indices:data/read/mget", "indices:data/read/mtv",
                          "indices:data/write/reindex"})


def expand(permissions: list[str]) -> list[str]:
    patterns: list[str] = []
    for permission in permissions:
        patterns += expand(STATIC_ACTION_GROUPS[permission]) if permission in STATIC_ACTION_GROUPS else [permission]
    return patterns


def allowed(role: dict[str, Any], action: str, index: str) -> bool:
    if is_cluster_permission(action):
        return any(fnmatchcase(action, p) for p in expand(role["cluster_permissions"]))
    return any(any(fnmatchcase(index, pattern) for pattern in grant["index_patterns"])
               and any(fnmatchcase(action, p) for p in expand(grant["allowed_actions"]))
               for grant in role["index_permissions"])


def _bootstrap() -> ModuleType:
    spec = importlib.util.spec_from_file_location("search_bootstrap_handler",
                                                  REPO / "functions" / "search_bootstrap" / "handler.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def roles() -> dict[str, dict[str, Any]]:
    bootstrap = _bootstrap()
    definitions: dict[str, dict[str, Any]] = bootstrap.role_definitions(ALIAS)
    return {"reader": definitions[bootstrap.READER_ROLE], "writer": definitions[bootstrap.WRITER_ROLE]}


def test_search_permissions_cover_every_request_the_adapter_makes() -> None:
    source = (REPO / "layers/core/python/voiceassist/adapters/aws/opensearch_index.py").read_text()
    assert set(re.findall(r'self\._call\("([a-z_.]+)"', source)) == set(ACTIONS)


@pytest.mark.parametrize("request_type", sorted(set(ACTIONS) - BOOTSTRAP_ONLY))
def test_search_permissions_writer_may_make_each_ingestion_request(roles: dict[str, Any], request_type: str) -> None:
    denied = [action for action in ACTIONS[request_type] if not allowed(roles["writer"], action, INDEX)]
    assert not denied, f"{request_type}: OpenSearch Security answers 403 for {denied}"


@pytest.mark.parametrize("request_type", sorted(READER_REQUESTS))
def test_search_permissions_reader_may_search(roles: dict[str, Any], request_type: str) -> None:
    assert all(allowed(roles["reader"], action, INDEX) for action in ACTIONS[request_type])


@pytest.mark.parametrize("request_type", sorted(WRITES))
def test_search_permissions_reader_cannot_write(roles: dict[str, Any], request_type: str) -> None:
    assert not all(allowed(roles["reader"], action, INDEX) for action in ACTIONS[request_type])


def test_search_permissions_are_limited_to_the_apps_indices(roles: dict[str, Any]) -> None:
    for role in roles.values():
        assert not allowed(role, "indices:data/read/search", ".opendistro_security")
        assert not allowed(role, "indices:data/write/index", "another-index")


def test_search_permissions_bulk_is_a_cluster_permission_as_security_checks_it() -> None:
    """The 403 of issue 26: the bulk request itself is checked against cluster_permissions, which
    cluster_composite_ops_ro alone does not grant."""
    only_read = {"cluster_permissions": ["cluster_composite_ops_ro"],
                 "index_permissions": [{"index_patterns": [f"{ALIAS}*"], "allowed_actions": ["crud"]}]}
    assert not allowed(only_read, "indices:data/write/bulk", INDEX)
    assert not allowed(only_read, "indices:admin/refresh", INDEX)
