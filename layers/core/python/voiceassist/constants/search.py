"""The chunk index's mapping, as infra sees it (infra imports only constants).

CHUNK_MAPPING_DIGEST is the first 16 hex digits of the SHA-256 of the chunk mapping's fields
(adapters/aws/opensearch_bodies.index_body at the embedding dimension, JSON with sorted keys). The search
bootstrap custom resource carries it, so a deploy after a mapping change runs the bootstrap, which adds the new
fields to the live index. tests/unit/test_opensearch_bodies.py fails when the mapping changes and this does not.
"""

CHUNK_MAPPING_DIGEST = "a9f6c32577b59cb2"
