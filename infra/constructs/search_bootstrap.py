"""The custom resource that prepares the OpenSearch domain (runtime code: functions/search_bootstrap).

It runs on every deploy whose properties change: a new set of function roles, a new alias or pipeline name,
or a changed chunk mapping (`MappingVersion`: the bootstrap then adds the new fields to the live index).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from aws_cdk import CustomResource, Stack
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from infra.config import EnvironmentConfig
from infra.constructs.functions import FunctionFactory
from infra.constructs.search import Search
from voiceassist.constants.functions import FunctionSpec
from voiceassist.constants.models import DEFAULT_PRECISION, model_id
from voiceassist.constants.search import CHUNK_MAPPING_DIGEST

BOOTSTRAP = "search_bootstrap"  # its catalogue entry (voiceassist.constants.functions)


class SearchBootstrap(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: EnvironmentConfig,
        search: Search,
        factory: FunctionFactory,
        spec: FunctionSpec,
        code_dir: Path,
        readers: Iterable[lambda_.IFunction],
        writers: Iterable[lambda_.IFunction],
    ) -> None:
        super().__init__(scope, construct_id)
        self.function = factory.create_internal(spec, code_dir=code_dir, role=search.admin_role)
        search.domain.grant_read_write(search.admin_role)
        self.resource = CustomResource(
            self,
            "Resource",
            service_token=self.function.function_arn,
            resource_type="Custom::SearchBootstrap",
            properties={
                "Endpoint": f"https://{search.endpoint}",
                "Region": Stack.of(self).region,
                "IndexAlias": config.search.index_alias,
                "PipelineName": config.search.pipeline_name,
                "Dimension": str(config.search.embedding_dimension),
                # Recorded in the index mapping's _meta: which embedder's vectors the index holds.
                "EmbeddingModel": model_id(DEFAULT_PRECISION),
                "MappingVersion": CHUNK_MAPPING_DIGEST,
                "ReaderRoleArns": [fn.role.role_arn for fn in readers if fn.role],
                "WriterRoleArns": [fn.role.role_arn for fn in writers if fn.role],
            },
        )
        self.resource.node.add_dependency(search.domain)

