"""The evaluation lives in the local runtime (local/voiceassist_local), which is not on the domain's path."""

from __future__ import annotations

import sys
from pathlib import Path

LOCAL = Path(__file__).resolve().parents[3] / "local"
if str(LOCAL) not in sys.path:
    sys.path.insert(0, str(LOCAL))
