"""`make models`: stage the Llama weights into the environment's model-artifacts bucket, with checksums.

The weights come from a local folder (SOURCE=...), or are first fetched from the model hub into one with the
operator's own `huggingface-cli` login (HUB=meta-llama/Llama-3.1-8B-Instruct; the licence must be accepted on
the hub). Every file goes up in one PUT carrying its SHA-256, which S3 verifies before it stores the object
(Llama 3.1 8B's shards are under S3's 5 GiB single-PUT limit), and is read back with head-object; a SHA256SUMS
manifest goes last: the preflight looks for it, so a half-finished upload never counts as staged.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from pathlib import Path

from infra.config import EnvironmentConfig
from infra.ops.shell import Shell

MANIFEST = "SHA256SUMS"
SINGLE_PUT_LIMIT = 5 * 1024**3
# What the LMI container reads; anything else in a checkout of the hub repository (original/, .cache) is skipped.
WEIGHT_SUFFIXES = (".safetensors", ".json", ".model", ".txt", ".tiktoken")


class StagingError(RuntimeError):
    pass


@dataclass(frozen=True)
class StagedFile:
    name: str
    sha256_hex: str

    @property
    def sha256_base64(self) -> str:
        return base64.b64encode(bytes.fromhex(self.sha256_hex)).decode()


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def weight_files(source: Path) -> list[Path]:
    files = sorted(p for p in source.iterdir() if p.is_file() and p.suffix in WEIGHT_SUFFIXES and p.name != MANIFEST)
    if not any(p.suffix == ".safetensors" for p in files) or not (source / "config.json").is_file():
        raise StagingError(f"{source} holds no model (config.json and *.safetensors expected)")
    return files


def fetch_from_hub(shell: Shell, repository: str, target: Path) -> Path:
    shell.run(["huggingface-cli", "download", repository, "--local-dir", str(target),
               "--exclude", "original/*"], stream=True)
    return target


def stage(shell: Shell, config: EnvironmentConfig, source: Path) -> list[StagedFile]:
    bucket, prefix = config.model_artifacts_bucket_name, config.llm.model_data_prefix
    staged = []
    for path in weight_files(source):
        if path.stat().st_size > SINGLE_PUT_LIMIT:
            raise StagingError(f"{path.name} is over 5 GiB: re-shard the weights (save_pretrained max_shard_size)")
        local = StagedFile(path.name, sha256_of(path))
        _put(shell, bucket, prefix + path.name, path, local)
        head = shell.aws("s3api", "head-object", "--bucket", bucket, "--key", prefix + path.name,
                         "--checksum-mode", "ENABLED")
        remote = str(head.get("ChecksumSHA256", "")).split("-")[0]
        if remote != local.sha256_base64:
            raise StagingError(f"{path.name}: S3 holds checksum {remote or 'none'}, the file is {local.sha256_base64}")
        staged.append(local)
    manifest = source.parent / f".{source.name}.{MANIFEST}"
    manifest.write_text("".join(f"{f.sha256_hex}  {f.name}\n" for f in staged))
    _put(shell, bucket, prefix + MANIFEST, manifest, StagedFile(MANIFEST, sha256_of(manifest)))
    return staged


def _put(shell: Shell, bucket: str, key: str, path: Path, local: StagedFile) -> None:
    """One PUT with the file's SHA-256: S3 refuses the object if the bytes it received differ."""
    shell.aws("s3api", "put-object", "--bucket", bucket, "--key", key, "--body", str(path),
              "--checksum-algorithm", "SHA256", "--checksum-sha256", local.sha256_base64)
