"""What may leave the machine: environment variables from an allowlist, secrets redacted.

Three layers, each usable alone:
- `allowed_env`: only variables whose names matter for TensorFlow on a GPU, secret-named ones blanked;
- `redact_report`: every string (and key) of a report dict through `redact_text`, and every
  value under a secret-looking key replaced by `<redacted>`; meant for every report, every format;
- `anonymize`: `report --anonymize` also replaces hostname, user name, home directory, GPU UUIDs
  and serial numbers with stable placeholders (the same input always gives the same output).
"""

from __future__ import annotations

import getpass
import os
import re
import socket
from collections.abc import Iterable, Mapping
from typing import Any, Callable

REDACTED = "<redacted>"

# Names whose values matter for TensorFlow on a GPU. Prefixes end with "_".
ALLOWED_PREFIXES = ("CUDA_", "CUDNN_", "TF_", "NCCL_", "NVIDIA_", "XLA_", "NV_", "KERAS_", "TPU_")
ALLOWED_NAMES = frozenset({
    "LD_LIBRARY_PATH", "LD_PRELOAD", "PATH", "PYTHONPATH", "VIRTUAL_ENV", "CONDA_PREFIX",
    "CONDA_DEFAULT_ENV", "OMP_NUM_THREADS", "WSL_DISTRO_NAME",
    "SLURM_JOB_ID", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NODELIST", "SLURM_JOB_NODELIST",
    "KUBERNETES_SERVICE_HOST", "HOSTNAME",
})
# Terraform shares the TF_ prefix; its variables (TF_VAR_db_password=...) often hold secrets.
# Source: https://developer.hashicorp.com/terraform/cli/config/environment-variables
DENIED_PREFIXES = (
    "TF_VAR_", "TF_CLI_", "TF_TOKEN_", "TF_LOG", "TF_INPUT", "TF_WORKSPACE", "TF_IN_AUTOMATION",
    "TF_DATA_DIR", "TF_PLUGIN_CACHE", "TF_REGISTRY_", "TF_STATE_", "TF_IGNORE",
)
SECRET_NAME = re.compile(
    r"TOKEN|SECRET|PASSW|PASSWD|API_?KEY|ACCESS_?KEY|PRIVATE|CREDENTIAL|AUTH|COOKIE|SESSION", re.I
)
_SECRET_WORD = r"(?:password|passwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key)"
# Each pattern's group 1 is kept, group 2 (the secret) is replaced.
_SECRET_VALUE = [
    re.compile(r"(://)([^/\s:@]+:[^/\s@]+)(?=@)"),  # user:password@ in URLs
    re.compile(r"(?i)([?&](?:token|key|secret|password|passwd|sig|signature|access_token|api_key)=)([^&\s\"']+)"),
    # "password": "x" (JSON) and 'password': 'x' (Python repr), also under longer names: "db_password"
    re.compile(rf"(?i)(\"[\w.-]*{_SECRET_WORD}[\w.-]*\"\s*:\s*\")((?:[^\"\\]|\\.)*)"),
    re.compile(rf"(?i)('[\w.-]*{_SECRET_WORD}[\w.-]*'\s*:\s*')([^']*)"),
    # NAME=value / NAME: value on a command line or in a log: HF_TOKEN=..., --password=...
    re.compile(rf"(?i)(\b[\w.-]*{_SECRET_WORD}[\w.-]*\s*[=:]\s*)(?![\s\"'<])([^\s&\"',;:]{{6,}})"),
    re.compile(r"(?i)(bearer\s+)([A-Za-z0-9._~+/-]{8,}=*)"),
    re.compile(r"()\b((?:AKIA|ASIA)[A-Z0-9]{16})\b"),  # AWS access key ids
    re.compile(r"()\b((?:hf|ghp|gho|ghs|github_pat|glpat|xox[abpr]|sk)[-_][A-Za-z0-9_-]{16,})\b"),
    re.compile(r"()\b(eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})"),  # JWTs
    re.compile(r"()(-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$))"),
]


def redact_text(text: str) -> str:
    """Replace anything in free text that looks like a credential."""
    for pattern in _SECRET_VALUE:
        text = pattern.sub(lambda m: m.group(1) + REDACTED, text)
    return text


def is_allowed(name: str) -> bool:
    if name.startswith(DENIED_PREFIXES):
        return False
    return name in ALLOWED_NAMES or name.startswith(ALLOWED_PREFIXES)


def allowed_env(env: Mapping[str, str]) -> dict[str, str]:
    """The allowlisted variables, each value redacted where it looks like a secret."""
    return {
        name: REDACTED if SECRET_NAME.search(name) else redact_text(value)
        for name, value in sorted(env.items())
        if is_allowed(name)
    }


def _walk(data: Any, text: Callable[[str], str], key_secret: Callable[[str], bool]) -> Any:
    """A copy of data with every string passed through `text`; values under secret keys blanked."""
    if isinstance(data, str):
        return text(data)
    if isinstance(data, dict):
        out = {}
        for key, value in data.items():
            new_key = text(key) if isinstance(key, str) else key
            if isinstance(key, str) and key_secret(key) and isinstance(value, str) and value:
                out[new_key] = REDACTED
            else:
                out[new_key] = _walk(value, text, key_secret)
        return out
    if isinstance(data, (list, tuple)):
        return [_walk(item, text, key_secret) for item in data]
    return data


def redact_report(data: Any) -> Any:
    """Every string in a report (keys included) redacted; values under secret-named keys blanked."""
    return _walk(data, redact_text, lambda key: bool(SECRET_NAME.search(key)))


# --- anonymize --------------------------------------------------------------------------------

HOST, USER, HOME = "<hostname>", "<user>", "<home>"
_UUID = re.compile(r"\b(GPU|MIG)-[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}\b")
_SERIAL_VALUE = r"(?!N/A\b)([A-Za-z0-9][A-Za-z0-9_-]{3,})"  # not "N/A", "[N/A]", "Not Supported"
_SERIAL_TEXT = [
    re.compile(r"(?i)(<serial>\s*)" + _SERIAL_VALUE + r"(?=\s*<)"),  # nvidia-smi -q -x
    re.compile(r"(?i)(Serial Number\s*:\s*)" + _SERIAL_VALUE + r"(?=\s*$)", re.M),  # nvidia-smi -q
]
_SERIAL_KEY = re.compile(r"(?i)^(serial|serial_number|board_serial)$")
_UUID_KEY = re.compile(r"(?i)^(uuid|gpu_uuid|mig_uuid)$")
_NOT_NAME = "A-Za-z0-9_-"  # characters that continue a host or user name


def _strings_under(data: Any, key_re: re.Pattern[str]) -> Iterable[str]:
    if isinstance(data, dict):
        for key, value in data.items():
            if isinstance(key, str) and key_re.match(key) and isinstance(value, str):
                if value.strip() and value.strip().upper() not in ("N/A", "[N/A]", "NOT SUPPORTED"):
                    yield value
            else:
                yield from _strings_under(value, key_re)
    elif isinstance(data, list):
        for item in data:
            yield from _strings_under(item, key_re)


def _get(data: Any, *path: str) -> Any:
    for key in path:
        data = data.get(key) if isinstance(data, dict) else None
    return data


def _this_machine() -> tuple[str | None, str | None, str | None]:
    """This machine's hostname, user and home: removed too, whatever the report says."""
    try:
        user: str | None = getpass.getuser()
    except Exception:  # noqa: BLE001 - no user name is fine
        user = None
    home = os.path.expanduser("~")
    return socket.gethostname() or None, user, home if home not in ("", "~") else None


class _Anonymizer:
    """Maps identifying strings to placeholders, in the order first seen (stable per report)."""

    def __init__(self, report: dict[str, Any]) -> None:
        facts = report.get("facts") if isinstance(report.get("facts"), dict) else {}
        my_host, my_user, my_home = _this_machine()
        hosts = [_get(report, "environment", "hostname"), _get(facts, "system", "hostname"), my_host]
        hosts += [_get(facts, "system", "env", "HOSTNAME")]
        users = [_get(facts, "system", "user"), my_user]
        homes = [_get(facts, "system", "home"), my_home]
        self.uuids: dict[str, str] = {}
        self.serials: dict[str, str] = {}
        for uuid in _strings_under(report, _UUID_KEY):
            self._uuid(uuid)
        for serial in _strings_under(report, _SERIAL_KEY):
            self._serial(serial)
        self.homes = sorted({h.rstrip("/") for h in homes if isinstance(h, str) and len(h.rstrip("/")) > 1},
                            key=len, reverse=True)
        names: dict[str, str] = {}
        for host in hosts:
            if isinstance(host, str) and host.strip():
                names[host] = HOST
                names.setdefault(host.split(".")[0], HOST)  # the short name of an FQDN
        for user in users:
            if isinstance(user, str) and user.strip():
                names.setdefault(user, USER)
        # Longest first, so "node1.example.org" goes before "node1".
        self.names = sorted(names.items(), key=lambda kv: len(kv[0]), reverse=True)
        alternatives = "|".join(re.escape(n) for n, _ in self.names)
        self._names_re = (
            re.compile(rf"(?<![{_NOT_NAME}])({alternatives})(?![{_NOT_NAME}])") if self.names else None
        )
        self._homes_re = (
            re.compile("(" + "|".join(re.escape(h) for h in self.homes) + r")(?![A-Za-z0-9_.-])")
            if self.homes
            else None
        )

    def _uuid(self, value: str) -> str:
        if value not in self.uuids:
            prefix = value.split("-", 1)[0] if value[:4] in ("GPU-", "MIG-") else "GPU"
            self.uuids[value] = f"{prefix}-<uuid-{len(self.uuids)}>"
        return self.uuids[value]

    def _serial(self, value: str) -> str:
        if value not in self.serials:
            self.serials[value] = f"<serial-{len(self.serials)}>"
        return self.serials[value]

    def text(self, text: str) -> str:
        for value in list(self.uuids):  # known UUIDs, also when not in the GPU-xxxx form
            if value in text:
                text = text.replace(value, self.uuids[value])
        text = _UUID.sub(lambda m: self._uuid(m.group(0)), text)
        for value in list(self.serials):
            if len(value) >= 4 and value in text:
                text = text.replace(value, self.serials[value])
        for pattern in _SERIAL_TEXT:
            text = pattern.sub(lambda m: m.group(1) + self._serial(m.group(2)), text)
        if self._homes_re is not None:
            text = self._homes_re.sub(HOME, text)
        if self._names_re is not None:
            lookup = dict(self.names)
            text = self._names_re.sub(lambda m: lookup[m.group(1)], text)
        return text


def anonymize(report: dict[str, Any]) -> dict[str, Any]:
    """A redacted copy of report with hostname, user, home, GPU UUIDs and serials replaced."""
    anon = _Anonymizer(report)
    data = _walk(report, lambda s: anon.text(redact_text(s)), lambda key: bool(SECRET_NAME.search(key)))
    env = data.get("environment") if isinstance(data, dict) else None
    if isinstance(env, dict) and env.get("hostname") is not None:
        env["hostname"] = HOST
    return data
