"""kill -9 of a `voiceassist serve` at random moments while it takes a 200-file drop from its incoming folder,
then a restart: every file ends as exactly one ACTIVE document (nothing lost, nothing ingested twice), and the
incoming folder ends empty."""

from __future__ import annotations

import hashlib
import random
import time
from pathlib import Path

import pytest

from tests.integration.test_crash_recovery import Server, call, in_flight

FILES = 200
KILLS = 3
pytestmark = pytest.mark.slow


def guide(n: int) -> bytes:
    return (f"# Zorbafen protocol {n}\n\nZorbafen protocol {n}: give {n + 1} mg per kg of plasma volume, "
            f"monitor renal clearance weekly and check the hepatic level after dose {n}.\n").encode()


def owns(doc_key: str, stem: str) -> bool:
    """Whether a document's key is the file's: its stem, or the metadata screen's pseudonym of it."""
    return doc_key == stem or doc_key.endswith("~" + hashlib.sha1(stem.encode()).hexdigest()[:16])


def waiting(incoming: Path, data_dir: Path) -> bool:
    return any(p.is_file() for p in incoming.iterdir()) or bool(in_flight(data_dir))


def test_kill_9_at_random_moments_of_a_folder_drop_loses_nothing_and_ingests_nothing_twice(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    incoming = data_dir / "blobs" / "incoming"
    incoming.mkdir(parents=True)
    for n in range(FILES):
        (incoming / f"zorbafen-{n:03d}.md").write_bytes(guide(n))
    seed = random.randrange(1_000_000)
    chance = random.Random(seed)
    interrupted = []
    for _ in range(KILLS):
        server = Server(data_dir, watch=True)
        try:
            server.wait_ready()
            time.sleep(chance.uniform(0.5, 6.0))  # the watcher takes files from 2 s after start-up
            server.kill()
        finally:
            server.stop()
        interrupted.append(waiting(incoming, data_dir))
        if not interrupted[-1]:
            break  # everything was done before this kill: later kills would test nothing more
    assert interrupted[0], f"seed {seed}: the first kill came too late to test anything"

    last = Server(data_dir, watch=True, log_level="WARNING")  # the watcher's warnings explain a failure
    try:
        last.wait_ready()
        deadline = time.monotonic() + 600
        while waiting(incoming, data_dir) and time.monotonic() < deadline:
            time.sleep(1)
        status, listed = call(f"{last.url}/v1/documents?limit=500")
        assert status == 200
        _, jobs = call(f"{last.url}/v1/jobs?limit=500")
    finally:
        printed = last.stop()
    stems = {f"zorbafen-{n:03d}" for n in range(FILES)}
    owners = [stem for d in listed["documents"] for stem in stems if owns(d["doc_key"], stem)]
    # exactly one document per file; else what a reader needs to find out why
    twice = sorted({stem for stem in owners if owners.count(stem) > 1})
    assert sorted(owners) == sorted(stems), (
        f"seed {seed}; missing {sorted(stems - set(owners))}, twice {twice}; "
        f"left in incoming/ {sorted(p.name for p in incoming.iterdir() if p.is_file())}; jobs not COMPLETED "
        f"{[(j['state'], j['reason']) for j in jobs['jobs'] if j['state'] != 'COMPLETED']}; "
        f"the last server printed:\n{printed[-4000:]}")
    assert {(d["status"], d["version"]) for d in listed["documents"]} == {("ACTIVE", 1)}, f"seed {seed}"
    assert not [p for p in incoming.iterdir() if p.is_file()], f"seed {seed}: files left in incoming/"
