"""TextToSpeech with Debian's espeak-ng (formant synthesis, 22,050 Hz 16-bit mono WAV), run as a subprocess.

The text goes in on stdin (never on the command line, where another user's `ps` could read it) and the WAV
comes back on stdout; nothing is written to disk or logged.
"""

from __future__ import annotations

import shutil
import subprocess

from voiceassist.errors import ModelUnavailable
from voiceassist.speech import sealed_wav, speakable

UNAVAILABLE = "speech synthesis unavailable here: install espeak-ng (Debian/Ubuntu: apt-get install espeak-ng)"


class EspeakTextToSpeech:
    name = "espeak-ng"

    def __init__(self, *, voice: str = "en-us", words_per_minute: int = 165, seconds: float = 30.0,
                 binary: str = "espeak-ng") -> None:
        self._voice = voice
        self._speed = words_per_minute
        self._seconds = seconds
        self._binary = binary

    def synthesize(self, text: str) -> bytes:
        text = speakable(text)
        executable = shutil.which(self._binary)
        if executable is None:
            raise ModelUnavailable(UNAVAILABLE)
        try:
            done = subprocess.run([executable, "--stdout", "-v", self._voice, "-s", str(self._speed)],
                                  input=text.encode("utf-8"), capture_output=True, timeout=self._seconds,
                                  check=False)
        except subprocess.TimeoutExpired as exc:
            raise ModelUnavailable(f"espeak-ng did not finish within {self._seconds:.0f} s") from exc
        if done.returncode != 0 or not done.stdout:
            # espeak-ng's stderr names the voice or option it rejected, never the text
            raise ModelUnavailable(f"espeak-ng failed (exit {done.returncode}): "
                                   f"{done.stderr.decode('utf-8', 'replace').strip()[:200]}")
        return sealed_wav(done.stdout)
