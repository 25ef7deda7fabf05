"""The PHI detector a function uses, built from Settings: Presidio, Comprehend Medical or both, fail-closed."""

from __future__ import annotations

from typing import Any

from voiceassist.phi.detection import DisabledPhiDetector, FailClosedDetector, UnionPhiDetector
from voiceassist.ports import PhiDetector
from voiceassist.settings import PhiDetectorKind, PhiMode, Settings


def build_detector(settings: Settings, *, timeout_s: float | None = None,
                   comprehend_client: Any = None) -> PhiDetector:
    """The detector a function uses (docs/phi.md, "Detectors"); each detection fails closed after `timeout_s`
    (default: the settings' phi_timeout_s, 2 s).

    - mode off: the disabled detector, whatever the detector setting;
    - presidio (default): the local Presidio engine behind the fail-closed wrapper (in a worker process of its own
      with phi_worker_process);
    - comprehend_medical: Amazon Comprehend Medical DetectPHI behind the fail-closed wrapper;
    - both: the union of the two, each fail-closed, so that either failing fails the detection closed.
    """
    if settings.phi_mode is PhiMode.OFF:
        return DisabledPhiDetector()
    timeout_s = settings.phi_timeout_s if timeout_s is None else timeout_s
    detectors: list[PhiDetector] = []
    if settings.phi_detector in (PhiDetectorKind.PRESIDIO, PhiDetectorKind.BOTH):
        detectors.append(FailClosedDetector(_presidio(settings, timeout_s), timeout_s=timeout_s))
    if settings.phi_detector in (PhiDetectorKind.COMPREHEND_MEDICAL, PhiDetectorKind.BOTH):
        from voiceassist.adapters.aws.comprehend_medical_phi import ComprehendMedicalPhiDetector

        client = comprehend_client or _comprehend_client(settings)
        detectors.append(FailClosedDetector(ComprehendMedicalPhiDetector(client), timeout_s=timeout_s))
    return detectors[0] if len(detectors) == 1 else UnionPhiDetector(*detectors)


def _presidio(settings: Settings, timeout_s: float) -> PhiDetector:
    if settings.phi_worker_process:
        from voiceassist.adapters.presidio.worker import WorkerPhiDetector

        return WorkerPhiDetector(mode=settings.phi_mode, timeout_s=timeout_s)
    from voiceassist.adapters.presidio.detector import PresidioPhiDetector

    return PresidioPhiDetector(mode=settings.phi_mode)


def _comprehend_client(settings: Settings) -> Any:
    import boto3
    from botocore.config import Config

    # Few, quick retries: a slow answer fails closed (routes inside the boundary) rather than stalling.
    config = Config(retries={"max_attempts": 2, "mode": "standard"}, connect_timeout=2, read_timeout=3)
    return boto3.client("comprehendmedical", region_name=settings.region, config=config)
