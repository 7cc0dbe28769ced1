"""What may leave the machine: environment variables from an allowlist, secrets redacted."""

from __future__ import annotations

import re
from collections.abc import Mapping

REDACTED = "<redacted>"

# Names whose values matter for TensorFlow on a GPU. Prefixes end with "_".
ALLOWED_PREFIXES = ("CUDA_", "CUDNN_", "TF_", "NCCL_", "NVIDIA_", "XLA_", "NV_", "KERAS_", "TPU_")
ALLOWED_NAMES = frozenset(
    {
        "LD_LIBRARY_PATH",
        "LD_PRELOAD",
        "PATH",
        "PYTHONPATH",
        "VIRTUAL_ENV",
        "CONDA_PREFIX",
        "CONDA_DEFAULT_ENV",
        "OMP_NUM_THREADS",
        "XLA_FLAGS",
        "CUDA_HOME",
        "CUDA_PATH",
        "CUDA_VISIBLE_DEVICES",
        "CUDA_DEVICE_ORDER",
        "TF_CONFIG",
        "WSL_DISTRO_NAME",
        "SLURM_JOB_ID",
        "SLURM_PROCID",
        "SLURM_LOCALID",
        "SLURM_NODELIST",
        "SLURM_JOB_NODELIST",
        "KUBERNETES_SERVICE_HOST",
        "HOSTNAME",
    }
)
SECRET_NAME = re.compile(
    r"TOKEN|SECRET|PASSW|PASSWD|API_?KEY|ACCESS_?KEY|PRIVATE|CREDENTIAL|AUTH|COOKIE|SESSION", re.I
)
# Each pattern's group 1 is kept, group 2 (the secret) is replaced.
_SECRET_VALUE = [
    re.compile(r"(://)([^/\s:@]+:[^/\s@]+)(?=@)"),  # user:password@ in URLs
    re.compile(
        r"(?i)([?&](?:token|key|secret|password|passwd|sig|signature|access_token|api_key)=)([^&\s\"']+)"
    ),
    re.compile(
        r"(?i)(\"(?:password|passwd|secret|token|api_key|apikey|access_key|private_key)\":\s*\")([^\"]*)"
    ),
    re.compile(r"(?i)(bearer\s+)([A-Za-z0-9._~+/-]{8,}=*)"),
    re.compile(r"()\b((?:AKIA|ASIA)[A-Z0-9]{16})\b"),  # AWS access key ids
    re.compile(r"()\b((?:hf|ghp|gho|ghs|github_pat|glpat|xox[abpr]|sk)[-_][A-Za-z0-9_-]{16,})\b"),
]


def redact_text(text: str) -> str:
    """Replace anything in free text that looks like a credential."""
    for pattern in _SECRET_VALUE:
        text = pattern.sub(lambda m: m.group(1) + REDACTED, text)
    return text


def is_allowed(name: str) -> bool:
    return name in ALLOWED_NAMES or name.startswith(ALLOWED_PREFIXES)


def allowed_env(env: Mapping[str, str]) -> dict[str, str]:
    """The allowlisted variables, each value redacted where it looks like a secret."""
    return {
        name: REDACTED if SECRET_NAME.search(name) else redact_text(value)
        for name, value in sorted(env.items())
        if is_allowed(name)
    }
