"""The web client's security headers: one policy for the local server and for CloudFront (infra/constructs/web.py).

The page loads only its own files (no inline script or style, no frames, no plugins) and talks only to
itself and, on AWS, the API, its WebSocket and the Cognito domain given as `connect_sources`. It plays only
audio it made itself from the API's reply (`blob:`: an answer read aloud).
"""

from __future__ import annotations

from collections.abc import Sequence

ADMIN_GROUP = "admin"  # Cognito group whose members see the document panel
# The page's own origin may record (the Speak button); no frame or other origin may, and nothing else is used.
PERMISSIONS_POLICY = "camera=(), microphone=(self), geolocation=(), payment=(), usb=()"
HSTS_MAX_AGE_SECONDS = 2 * 365 * 24 * 3600


def content_security_policy(connect_sources: Sequence[str] = ()) -> str:
    connect = " ".join(["'self'", *connect_sources])
    return (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; media-src blob:; "
        f"connect-src {connect}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; object-src 'none'"
    )
