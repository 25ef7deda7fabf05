"""Indexing jobs: list (by state), get, retry."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Query
from pydantic import BaseModel

from routes.identity import admin, audit_accepted
from voiceassist import service
from voiceassist.composition import dependencies
from voiceassist.models import IndexingJob, JobState

router = Router()


class JobList(BaseModel):
    jobs: list[IndexingJob]


@router.get("/jobs", summary="List indexing jobs, newest first")
def list_jobs(state: Annotated[JobState | None, Query()] = None,
              limit: Annotated[int, Query(ge=1, le=500)] = 100) -> JobList:
    admin(router, "job.list")
    return JobList(jobs=[shown(job) for job in dependencies().jobs.list(state=state, limit=limit)])


@router.get("/jobs/<job_id>", summary="Get an indexing job and its progress")
def get_job(job_id: str) -> IndexingJob:
    admin(router, "job.read", job_id)
    return shown(dependencies().jobs.get(job_id))


def shown(job: IndexingJob) -> IndexingJob:
    """A job whose document's metadata the PHI screen has not yet run on (docs/phi.md) shows its doc_id as doc_key."""
    return job.model_copy(update={"doc_key": job.doc_id}) if job.metadata_screened is False else job


@router.post("/jobs/<job_id>/retry", summary="Retry a FAILED job (at most 3 attempts)")
def retry_job(job_id: str) -> Response[IndexingJob]:
    who = admin(router, "job.retry", job_id)
    service.ensure_ingestion_capacity(dependencies())
    job = service.retry_job(dependencies(), job_id)
    audit_accepted(who, "job.retry", job_id)
    return Response(status_code=202, body=shown(job), content_type="application/json")
