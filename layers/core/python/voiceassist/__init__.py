"""VoiceAssist domain package: models, ports, adapters and the plain functions the Lambda stages call."""

__version__ = "0.1.0"
