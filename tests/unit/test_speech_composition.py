"""Which speech adapters each runtime builds: on AWS, Transcribe Medical and Polly with the environment's
settings (the voice routes answer instead of 501), and 501 only where no voice bucket is configured."""

from __future__ import annotations

import pytest

from voiceassist.adapters.aws.polly_tts import PollyTextToSpeech
from voiceassist.adapters.aws.transcribe_medical_stt import TranscribeMedicalSpeechToText
from voiceassist.composition import Dependencies
from voiceassist.settings import Runtime, Settings
from voiceassist.speech import VoiceNotAvailable


def test_aws_runtime_transcribes_with_transcribe_medical_and_speaks_with_polly() -> None:
    deps = Dependencies(Settings(runtime=Runtime.AWS, voice_bucket="voiceassist-dev-voice", data_key_id="key",
                                 transcribe_type="CONVERSATION", polly_voice="Matthew"))
    recognizer, speaker = deps.speech_to_text, deps.text_to_speech
    assert isinstance(recognizer, TranscribeMedicalSpeechToText) and recognizer._type == "CONVERSATION"
    assert isinstance(speaker, PollyTextToSpeech) and speaker._voice == "Matthew"


def test_aws_runtime_without_a_voice_bucket_answers_501() -> None:
    with pytest.raises(VoiceNotAvailable) as refused:
        Dependencies(Settings(runtime=Runtime.AWS)).speech_to_text  # noqa: B018 - built on first use
    assert refused.value.status_code == 501


def test_aws_runtime_keeps_streamed_voice_chunks_in_the_voice_bucket_with_the_data_key() -> None:
    from voiceassist.adapters.aws.s3_audio_chunks import S3AudioChunkStore

    deps = Dependencies(Settings(runtime=Runtime.AWS, voice_bucket="voiceassist-dev-voice", data_key_id="key"))
    store = deps.audio_chunks
    assert isinstance(store, S3AudioChunkStore) and store._bucket == "voiceassist-dev-voice"
    assert store._kms_key_id == "key"
    with pytest.raises(VoiceNotAvailable):
        Dependencies(Settings(runtime=Runtime.AWS)).audio_chunks  # noqa: B018 - built on first use
