"""What may leave the machine: environment variables from an allowlist, secrets redacted.

Three layers, each usable alone:
- `allowed_env`: only variables whose names matter for TensorFlow on a GPU, secret-named ones blanked;
- `redact_report`: every string (and key) of a report dict through `redact_text`, and every
  value under a secret-looking key replaced by `<redacted>`; meant for every report, every format;
- `anonymize`: `report --anonymize` also replaces hostname, user name, home directory, GPU UUIDs
  and serial numbers, IP addresses, /etc/hosts names and TF_CONFIG peers with stable placeholders
  (the same input always gives the same output).

Redaction works by structure, never by guessing at random-looking words: a value after a
secret-looking name (`HF_TOKEN=...`, `"db_password": "..."`, `--db-password VALUE`,
`Authorization: Basic ...`, `?sig=...`, `X-Goog-Signature=...`), URL user information
(`https://user:pw@host`, `user:pw@host:port`), `curl -u user:pw`, `-p PASSWORD` where it is clearly
one (sshpass, mysql, after `-u USER`), private-key blocks, and the shapes of well-known tokens
(hf_, ghp_, github_pat_, glpat-, xoxb-, sk-, nvapi-, AKIA..., AIza..., JWTs). Every pass is linear
in its input: literal anchors, bounded look-behind, no nested or overlapping quantifiers.
"""

from __future__ import annotations

import bisect
import functools
import getpass
import json
import os
import re
import socket
from collections.abc import Iterable, Mapping
from typing import Any, Callable

REDACTED = "<redacted>"


class _Lazy:
    """A regular expression compiled on first use: most runs never anonymize, and most texts hold
    none of the token shapes (compiling them all costs a quick check more than its checks)."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern, self.flags = pattern, flags
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:
        if self._compiled is None:
            self._compiled = re.compile(self.pattern, self.flags)
        return getattr(self._compiled, name)

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

# --- secret names ---------------------------------------------------------------------------------

# Anywhere in a name (separators removed): these always name a secret.
STRONG_WORDS = ("password", "passwd", "passphrase", "secret", "token", "credential", "apikey",
                "privatekey", "authorization", "accesskey")
# As a whole part of a name (NGC_KEY, X-Goog-Signature, --auth, ?sig=): a secret when the name has
# other parts, is a flag, an environment variable or a query parameter; alone ("key", "signature")
# it is an ordinary field name.
WEAK_WORDS = frozenset({"key", "keys", "pass", "pwd", "pw", "sig", "signature", "auth", "session",
                        "cookie", "encryption", "encrypt", "cred", "creds", "private", "otp"})
_PARTS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_WEAK_STEMS = ("key", "pass", "pw", "sig", "auth", "session", "cookie", "encrypt", "cred", "private", "otp")
_NOT_ALNUM = re.compile(r"[^a-z0-9]+")
_STRONG = re.compile("|".join(STRONG_WORDS))
_WEAK = re.compile("|".join(_WEAK_STEMS))
# Searched in the lowercased text.
_HIT = re.compile(r"pass|secret|token|cred|key|auth|sig|session|cookie|encrypt|pwd|private")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
SEPARATORS = frozenset("=: \t\"'")


@functools.lru_cache(maxsize=4096)
def is_secret_name(name: str, context: str = "key") -> bool:
    """Whether a variable, key, flag or parameter name says its value is a secret.

    context: "env" (an environment variable), "flag" (--name), "query" (?name=), "key" (a JSON
    or report key, or NAME=value in text)."""
    name = name.strip().lstrip("-")[:200]
    if not name:
        return False
    compact = _NOT_ALNUM.sub("", name.lower())
    if _STRONG.search(compact):
        return True
    if not _WEAK.search(compact):
        return False
    parts = [p.lower() for p in _PARTS.findall(name)]
    if not any(p in WEAK_WORDS for p in parts):
        return False
    return len(parts) >= 2 or context in ("env", "flag", "query")


# --- redacting text ---------------------------------------------------------------------------------

_KEY_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_KEY_RUN = re.compile(r"[A-Za-z0-9_.\-]*")
_BLANKS = re.compile(r"[ \t]*")
_BARE_VALUE = re.compile(r"[^\s\"'<>,;&|(){}\[\]]*")
_DQ_BODY = re.compile(r'(?:[^"\\\n]|\\.)*')
_SQ_BODY = re.compile(r"[^'\n]*")
_SCHEMES = frozenset({
    "basic", "bearer", "token", "digest", "negotiate", "ntlm", "aws4-hmac-sha256", "apikey",
})
# Token shapes. Each look-behind excludes every character its body may hold, so no two attempts
# scan the same characters: linear whatever the text.
# (literals one of which the text must hold, pattern): the literals spare most texts the search.
_TOKENS = [
    (("hf_", "gh"), _Lazy(r"(?<![A-Za-z0-9_])(?:hf|ghp|gho|ghs|ghu|ghr)_[A-Za-z0-9]{16,}")),
    (("github_pat_",), _Lazy(r"(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{20,}")),
    (("glpat-", "sk-", "nvapi-"), _Lazy(r"(?<![A-Za-z0-9_-])(?:glpat|sk|nvapi)-[A-Za-z0-9_-]{20,}")),
    (("xox",), _Lazy(r"(?<![A-Za-z0-9-])xox[abposr]-[A-Za-z0-9-]{10,}")),
    (("AKIA", "ASIA"), _Lazy(r"(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])")),
    (("AIza",), _Lazy(r"(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])")),
    (("eyJ",), _Lazy(r"(?<![A-Za-z0-9_.-])eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}")),
    (("earer", "EARER"), _Lazy(r"(?i)(?<![A-Za-z0-9_])bearer[ \t]+[A-Za-z0-9._~+/=-]{8,}")),
    # Slack webhooks: the path is the credential (https://api.slack.com/messaging/webhooks)
    (("hooks.slack.com/",), _Lazy(r"(?<=hooks\.slack\.com/)(?:services|workflows|triggers)/[A-Za-z0-9/_-]+")),
    # Anaconda channel tokens: https://conda.anaconda.org/t/<TOKEN>/channel
    # (https://docs.anaconda.com/anacondaorg/user-guide/tasks/work-with-tokens/)
    (("/t/",), _Lazy(r"(?<=/t/)[A-Za-z0-9][A-Za-z0-9_-]{7,}(?=/)")),
]
_NETRC_PASSWORD = _Lazy(r"(?<![\w.-])(?:password|passwd)[ \t]+([^\s]+)")
_USER_FLAG = _Lazy(r"(?<!\S)(?:-u|--user)(?:[ \t]+|=)([^\s'\"]+)")
_P_FLAG = _Lazy(r"(?<!\S)-p(?:[ \t]+([^\s'\"-][^\s'\"]*)|([^\s'\"]+))")
_PASSWORD_TOOLS = _Lazy(r"(?<![\w-])(?:sshpass|mysql\w*|mariadb\w*)(?![\w-])")
_COMMAND_END = _Lazy(r"[\n;|&]")
_USERINFO_STOP = frozenset(" \t\r\n\"'`/@=,;()[]<>{}|&?#\\")


def _value_ok(value: str) -> bool:
    """A value worth redacting: not empty, not a placeholder or a $VARIABLE, not a small number."""
    if len(value) < 3 or value[0] in "<$%*" or value.startswith("{{"):
        return False
    return not (value.isdigit() and len(value) < 6)


def _assignments(text: str, spans: list[tuple[int, int]]) -> None:
    """Spans of values given to secret-looking names: NAME=v, NAME: v, "name": "v", --name v."""
    n, pos, floor = len(text), 0, 0
    lowered = text.translate(_ASCII_LOWER)  # same length, so positions carry over
    search, run, key_chars, secret = _HIT.search, _KEY_RUN.match, _KEY_CHARS, is_secret_name
    while True:
        hit = search(lowered, pos)
        if hit is None:
            return
        start, end = hit.span()
        limit = start - 128 if start - 128 > floor else floor
        while start > limit and text[start - 1] in key_chars:
            start -= 1
        end = pos = floor = run(text, end).end()
        if end < n and text[end] not in SEPARATORS:
            continue  # no "=", ":", quote or blank after the name: not an assignment
        key = text[start:end]
        before = text[start - 1] if start else ""
        context = "flag" if key[:1] == "-" else "query" if before in ("?", "&") else "key"
        if not secret(key, context):
            continue
        j = end
        quoted_key = before in ("'", '"') and j < n and text[j] == before
        if quoted_key:
            j += 1
        j = _BLANKS.match(text, j).end()
        if j < n and text[j] in "=:" and text[j: j + 3] != "://" and text[j: j + 2] != "==":
            j = _BLANKS.match(text, j + 1).end()
        elif context == "flag" and j > end and j < n and text[j] not in "-\r\n":
            pass  # --password VALUE
        else:
            continue
        if j >= n:
            continue
        if text[j] in "\"'":
            body = (_DQ_BODY if text[j] == '"' else _SQ_BODY).match(text, j + 1)
            value_start, value_end = j + 1, body.end()
            if _value_ok(text[value_start:value_end]):
                spans.append((value_start, value_end))
            pos = floor = min(n, value_end + 1)
            continue
        if quoted_key:
            continue  # "password": null / 12 in JSON: no string to hide, and the JSON stays valid
        value_end = _BARE_VALUE.match(text, j).end()
        value = text[j:value_end]
        cut = value.find(":/")  # token=abc:/usr/lib (a path list): the secret ends at the ':'
        if cut > 0:
            value, value_end = value[:cut], j + cut
        if value.lower() in _SCHEMES:  # Authorization: Basic <credentials>
            k = _BLANKS.match(text, value_end).end()
            if k > value_end:
                j, value_end = k, _BARE_VALUE.match(text, k).end()
                value = text[j:value_end]
        if _value_ok(value):
            spans.append((j, value_end))
        pos = floor = max(pos, value_end)


def _userinfo(text: str, spans: list[tuple[int, int]]) -> None:
    """`user:password@` in URLs (`https://u:p@host`) and bare `u:p@host:port`."""
    floor = 0
    at = text.find("@")
    while at >= 0:
        start = at
        limit = max(floor, at - 256)
        while start > limit and text[start - 1] not in _USERINFO_STOP:
            start -= 1
        left = text[start:at]
        user, colon, password = left.partition(":")
        if colon and password and not password.startswith("<") and start < at:
            spans.append((start, at))
        elif not colon and text[max(0, start - 3):start] == "://" and _token_like(left):
            spans.append((start, at))  # https://TOKEN@github.com: a token alone as the user
        floor = at + 1
        at = text.find("@", at + 1)


_PEM_BODY = re.compile(r"[A-Za-z0-9+/=\r\n]*")  # a key's base64 lines (matched backwards)


def _marker(text: str, at: int) -> int:
    """The end of a `-----BEGIN/END ... PRIVATE KEY-----` marker starting at `at`, or -1."""
    close = text.find("-----", at + 9, at + 90)
    return close + 5 if close >= 0 and "PRIVATE KEY" in text[at:close] else -1


def _token_like(value: str) -> bool:
    """A URL's user part that is a credential, not a name: long, letters and digits mixed."""
    return len(value) >= 16 and any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def _netrc(text: str, spans: list[tuple[int, int]]) -> None:
    """`password SECRET` (and `passwd`) in a .netrc, whose words are separated by blanks only."""
    lowered = text.translate(_ASCII_LOWER)
    if "machine" not in lowered and "default" not in lowered:
        return
    for m in _NETRC_PASSWORD.finditer(lowered):
        if _value_ok(text[m.start(1):m.end(1)]):
            spans.append(m.span(1))


def _private_keys(text: str, spans: list[tuple[int, int]]) -> None:
    """Private-key blocks: from BEGIN to END (or to the end of a text cut short), and a body whose
    BEGIN line was cut away (a trimmed log keeps only its end): the base64 lines before its END."""
    pos, n = 0, len(text)
    begin, end = text.find("-----BEGIN ", pos), text.find("-----END ", pos)
    while begin >= 0 or end >= 0:
        if begin >= 0 and (end < 0 or begin < end):
            body = _marker(text, begin)
            if body < 0:
                pos = begin + 11
            else:
                end = end if end >= body else text.find("-----END ", body)
                spans.append((body, end if end >= 0 else n))
                pos = end + 9 if end >= 0 else n
        else:  # an END with no BEGIN before it
            if _marker(text, end) >= 0:  # back over the whole lines of base64 just before it
                start = end - _PEM_BODY.match(text[pos:end][::-1]).end()
                if start > pos and text[start - 1] != "\n":
                    start = text.find("\n", start, end) + 1 or end
                if start < end:
                    spans.append((start, end))
            pos = end + 9
        if begin >= 0 and begin < pos:
            begin = text.find("-----BEGIN ", pos)
        if end >= 0 and end < pos:
            end = text.find("-----END ", pos)


def _flags(text: str, spans: list[tuple[int, int]]) -> None:
    """`curl -u user:password`; `-p PASSWORD` after sshpass/mysql or a `-u USER` in the same command."""
    users = []
    for m in _USER_FLAG.finditer(text):
        users.append(m.start())
        value = m.group(1)
        colon = value.find(":")
        if colon >= 0 and _value_ok(value[colon + 1:] + "xx"):
            spans.append((m.start(1) + colon + 1, m.end(1)))
    if "-p" not in text:
        return
    # Where each command starts, and where a password tool or -u USER appears: searched once each.
    starts = [m.end() for m in _COMMAND_END.finditer(text)]
    markers = sorted(users + [m.start() for m in _PASSWORD_TOOLS.finditer(text)])
    for m in _P_FLAG.finditer(text):
        group = 1 if m.group(1) is not None else 2
        if not _value_ok(m.group(group) + "xx"):
            continue
        i = bisect.bisect_right(starts, m.start())
        command_start = starts[i - 1] if i else 0
        k = bisect.bisect_left(markers, command_start)
        if k < len(markers) and markers[k] < m.start():
            spans.append((m.start(group), m.end(group)))


def _apply(text: str, spans: list[tuple[int, int]]) -> str:
    if not spans:
        return text
    spans.sort()
    out, last = [], 0
    for start, end in spans:
        if end <= last:
            continue
        start = max(start, last)
        out.append(text[last:start])
        out.append(REDACTED)
        last = end
    out.append(text[last:])
    return "".join(out)


def _dense(text: str) -> bool:
    """Whether a text holds more secret-like spots than any log does: an '@', a key marker or a
    -p/-u flag every 32 characters, or a secret-like word (key, token, session...) every 16, in a
    text over 32 KB. Counted at C speed, so a hostile field costs milliseconds per MB here instead
    of seconds in the passes."""
    if len(text) <= 4096 * 8:
        return False
    spots = text.count("@") + text.count("-----") + text.count(" -p") + text.count(" -u")
    words = len(_HIT.findall(text.translate(_ASCII_LOWER)))
    return spots > max(4096, len(text) >> 5) or words > len(text) >> 4


def redact_text(text: str) -> str:
    """Replace anything in free text that is a credential by its structure (see the module doc).
    A text denser with secret-like spots than any log (see `_dense`) is replaced whole."""
    if not isinstance(text, str) or not text:
        return text
    if _dense(text):
        return f"{REDACTED} ({len(text)} characters denser with secret-like text than any log)"
    for find in (_private_keys, _assignments, _userinfo, _flags, _netrc):
        spans: list[tuple[int, int]] = []
        find(text, spans)
        text = _apply(text, spans)
    for literals, pattern in _TOKENS:
        if any(literal in text for literal in literals) and pattern.search(text):
            text = pattern.sub(_token_sub, text)
    return text


def trim_redacted(text: str, limit: int) -> str:
    """The head and tail of a long text (`proc.trim`), its secrets redacted first: a key block the
    cut would split loses its header, and with it what marks its body as a secret. A text within
    the limit is left whole (the report redacts it)."""
    if len(text) <= limit:
        return text
    from tfdoctor.proc import trim

    return trim(redact_text(text), limit)


def _token_sub(match: re.Match[str]) -> str:
    found = match.group(0)
    if found[:6].lower() == "bearer":
        return found[: len(found) - len(found[6:].lstrip(" \t"))] + REDACTED
    return REDACTED


def is_allowed(name: str) -> bool:
    if name.startswith(DENIED_PREFIXES):
        return False
    return name in ALLOWED_NAMES or name.startswith(ALLOWED_PREFIXES)


def allowed_env(env: Mapping[str, str]) -> dict[str, str]:
    """The allowlisted variables, each value redacted where it looks like a secret."""
    return {
        name: REDACTED if is_secret_name(name, "env") else redact_text(value)
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


def _secret_key(key: str) -> bool:
    # An UPPER_CASE key is an environment variable's name (system.env): judged as one.
    return is_secret_name(key, "env" if key.isupper() and len(key) > 2 else "key")


def redact_report(data: Any) -> Any:
    """Every string in a report (keys included) redacted; values under secret-named keys blanked."""
    return _walk(data, redact_text, _secret_key)


# --- anonymize --------------------------------------------------------------------------------

HOST, USER, HOME = "<hostname>", "<user>", "<home>"
_UUID = _Lazy(
    r"(?<![A-Za-z0-9-])(GPU|MIG)-[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}(?![A-Za-z0-9])"
)
_SERIAL_VALUE = r"(?!N/A\b)([A-Za-z0-9][A-Za-z0-9_-]{3,64})"  # not "N/A", "[N/A]", "Not Supported"
_SERIAL_TEXT = [
    _Lazy(r"(?i)(<serial>[ \t]*)" + _SERIAL_VALUE + r"(?=[ \t]*<)"),  # nvidia-smi -q -x
    _Lazy(r"(?i)(Serial Number[ \t]*:[ \t]*)" + _SERIAL_VALUE + r"(?=[ \t]*$)", re.M),  # nvidia-smi -q
]
_SERIAL_KEY = _Lazy(r"(?i)(serial|serial_number|board_serial)")
_UUID_KEY = _Lazy(r"(?i)(uuid|gpu_uuid|mig_uuid)")
_NAME_TOKEN = _Lazy(r"[A-Za-z0-9_.-]+")
_ADDRESS_TOKEN = _Lazy(r"(?<![\w.:%])[0-9A-Fa-f.:]{2,}(?:%[A-Za-z0-9_.-]{1,32})?(?![\w.:%])")
_IPV4_PORT = _Lazy(r"(?<![\w.])(\d{1,3}(?:\.\d{1,3}){3})(?=:\d{1,5}(?!\d)|<\d)")
_IPV4_AFTER = _Lazy(r"(?<=@|/)(\d{1,3}(?:\.\d{1,3}){3})(?![\w.])")
# Names that identify nobody: a host or user called so is replaced in its own fields only, never in
# free text, where the word has its ordinary meaning (/job:localhost, nvidia.com/gpu, "the root cause").
COMMON_NAMES = frozenset({
    "root", "admin", "administrator", "user", "users", "guest", "ubuntu", "debian", "centos", "fedora",
    "linux", "localhost", "localdomain", "local", "host", "hostname", "node", "worker", "master",
    "chief", "server", "client", "runner", "jovyan", "docker", "container", "default", "nvidia", "cuda",
    "python", "tensorflow", "test", "home", "none", "null", "unknown", "main", "evaluator", "job",
    "task", "replica", "device", "gpu", "cpu", "compute", "build", "work", "data", "tmp", "app",
})
_NOT_IDENTITY_IPS = frozenset({"127.0.0.1", "::1", "0.0.0.0", "::"})


def distinctive(name: str) -> bool:
    """Whether a host or user name can be told apart from ordinary words in free text."""
    return len(name) >= 4 and name.lower() not in COMMON_NAMES and not name.isdigit()


def _strings_under(data: Any, key_re: Any) -> Iterable[str]:
    if isinstance(data, dict):
        for key, value in data.items():
            if isinstance(key, str) and key_re.fullmatch(key) and isinstance(value, str):
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


@functools.lru_cache(maxsize=4096)
def _ip(text: str) -> str | None:
    """The canonical address when text is an IP address that identifies a machine, else None."""
    if len(text) > 64 or not text:
        return None
    if ":" not in text:  # IPv4 by hand: four numbers up to 255 (faster than ipaddress, same answer)
        parts = text.split(".")
        if len(parts) != 4 or not all(p.isdigit() and len(p) <= 3 and int(p) <= 255 for p in parts):
            return None
        canon = ".".join(str(int(p)) for p in parts)
        return None if canon in _NOT_IDENTITY_IPS else canon
    import ipaddress

    try:
        address = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None
    canon = str(address)
    return None if canon in _NOT_IDENTITY_IPS or address.is_unspecified else canon


def _split_host_port(address: str) -> tuple[str, str]:
    """"node1:2222" -> ("node1", ":2222"); "[fe80::1]:2222" -> ("fe80::1", ...) kept as one host."""
    if address.startswith("["):
        host, _, rest = address[1:].partition("]")
        return host, rest
    host, colon, port = address.rpartition(":")
    if colon and port.isdigit() and ":" not in host:
        return host, f":{port}"
    return address, ""


def _tf_config_hosts(text: Any) -> list[str]:
    """The hosts of every task address in a TF_CONFIG string (empty when it is not JSON)."""
    if not isinstance(text, str) or len(text) > 1_000_000:
        return []
    try:
        config = json.loads(text)
    except (ValueError, RecursionError):
        return []
    cluster = config.get("cluster") if isinstance(config, dict) else None
    hosts = []
    for addresses in (cluster.values() if isinstance(cluster, dict) else ()):
        for address in addresses if isinstance(addresses, list) else [addresses]:
            if isinstance(address, str):
                hosts.append(_split_host_port(address)[0])
    return hosts


class _Anonymizer:
    """Identifying values found in known fields, each with its placeholder (stable per report)."""

    def __init__(self, report: dict[str, Any]) -> None:
        facts = report.get("facts") if isinstance(report.get("facts"), dict) else {}
        system = facts.get("system") if isinstance(facts.get("system"), dict) else {}
        collective = facts.get("collective") if isinstance(facts.get("collective"), dict) else {}
        env = system.get("env") if isinstance(system.get("env"), dict) else {}
        my_host, my_user, my_home = _this_machine()
        self.uuids: dict[str, str] = {}
        self.serials: dict[str, str] = {}
        self.ips: dict[str, str] = {}
        self.names: dict[str, str] = {}  # host and user names -> placeholder
        for uuid in _strings_under(report, _UUID_KEY):
            self._uuid(uuid)
        for serial in _strings_under(report, _SERIAL_KEY):
            self._serial(serial)
        for host in (_get(report, "environment", "hostname"), system.get("hostname"), env.get("HOSTNAME"),
                     my_host):
            if isinstance(host, str) and host.strip():
                self.names[host] = HOST
                self.names.setdefault(host.split(".")[0], HOST)  # the short name of an FQDN
        for user in (system.get("user"), my_user):
            if isinstance(user, str) and user.strip():
                self.names.setdefault(user, USER)
        names = collective.get("local_names")
        others = list(names) if isinstance(names, list) else []
        others += _tf_config_hosts(env.get("TF_CONFIG"))
        for field in ("address",):
            if isinstance(collective.get(field), str):
                others.append(_split_host_port(collective[field])[0])
        for peer in collective.get("peers") or [] if isinstance(collective.get("peers"), list) else []:
            if isinstance(peer, dict) and isinstance(peer.get("address"), str):
                others.append(_split_host_port(peer["address"])[0])
        for name in others:
            if not isinstance(name, str) or not name.strip() or name in self.names:
                continue
            if _ip(name):
                self._ip(name)
            elif name.lower() not in ("localhost", "localhost.localdomain"):
                self.names[name] = f"<host-{sum(1 for v in self.names.values() if v.startswith('<host-'))}>"
        for key in ("local_addresses", "task_host_addresses"):
            values = collective.get(key)
            for value in values if isinstance(values, list) else []:
                if isinstance(value, str) and _ip(value):
                    self._ip(value)
        homes = {h.rstrip("/") for h in (system.get("home"), env.get("HOME"), my_home)
                 if isinstance(h, str) and len(h.rstrip("/")) > 1}
        self.homes = sorted(homes, key=len, reverse=True)
        self._homes_re = (
            re.compile("(?<![A-Za-z0-9_.~/-])(" + "|".join(re.escape(h) for h in self.homes)
                       + r")(?![A-Za-z0-9_.-])") if self.homes else None
        )
        # In free text only distinctive names, as whole tokens (never inside another word).
        self.text_names = {k: v for k, v in self.names.items() if distinctive(k)}
        self.longest = max((len(k) for k in self.text_names), default=0)

    def _uuid(self, value: str) -> str:
        if value not in self.uuids:
            prefixed = value[:4] in ("GPU-", "MIG-")
            holder = f"{value[:3] if prefixed else 'GPU'}-<uuid-{len(self.uuids)}>"
            self.uuids[value] = holder
            if prefixed and len(value) > 12:  # the same UUID written without its prefix
                bare = value[4:]
                for form in (bare, bare.lower(), bare.upper()):
                    self.uuids.setdefault(form, holder[4:])
        return self.uuids[value]

    def _serial(self, value: str) -> str:
        if value not in self.serials:
            self.serials[value] = f"<serial-{len(self.serials)}>"
        return self.serials[value]

    def _ip(self, value: str) -> str:
        canon = _ip(value) or value
        if canon not in self.ips:
            self.ips[canon] = f"<ip-{len(self.ips)}>"
        self.ips.setdefault(value, self.ips[canon])
        return self.ips[canon]

    # -- exact values in known fields -------------------------------------------------------------

    def field(self, value: str) -> str | None:
        """The placeholder when the whole value is a known identifying value, else None."""
        if value in self.names:
            return self.names[value]
        if value in self.uuids:
            return self.uuids[value]
        if value in self.serials:
            return self.serials[value]
        if value.rstrip("/") in self.homes:
            return HOME
        canon = _ip(value)
        if canon and canon in self.ips:
            return self.ips[canon]
        host, port = _split_host_port(value)
        if port and host != value:
            inner = self.field(host)
            if inner:
                return inner + port
        return None

    # -- free text -------------------------------------------------------------------------------

    def text(self, text: str) -> str:
        if not text:
            return text
        for value, holder in sorted(self.uuids.items(), key=lambda kv: -len(kv[0])):  # GPU-x before x
            if len(value) >= 8 and value in text:  # known UUIDs, also when not in the GPU-xxxx form
                text = text.replace(value, holder)
        text = _UUID.sub(lambda m: self._uuid(m.group(0)), text)
        for value, holder in self.serials.items():
            if len(value) >= 6 and value in text:
                text = re.sub(rf"(?<![A-Za-z0-9]){re.escape(value)}(?![A-Za-z0-9])", holder, text)
        for pattern in _SERIAL_TEXT:
            text = pattern.sub(lambda m: m.group(1) + self._serial(m.group(2)), text)
        if self._homes_re is not None:
            text = self._homes_re.sub(HOME, text)
        text = self._addresses(text)
        if self.text_names:
            text = _NAME_TOKEN.sub(self._name_token, text)
        return text

    def _name_token(self, match: re.Match[str]) -> str:
        token = match.group(0)
        holder = self.text_names.get(token)
        if holder is not None:
            return holder
        # "node1.cluster.example.org": a known name followed by its domain.
        dot = token.find(".")
        while 0 < dot <= self.longest:
            holder = self.text_names.get(token[:dot])
            if holder is not None:
                return holder + token[dot:]
            dot = token.find(".", dot + 1)
        return token

    def _addresses(self, text: str) -> str:
        if ":" in text:
            text = _ADDRESS_TOKEN.sub(self._ipv6_token, text)
        if "." in text:
            text = _IPV4_PORT.sub(lambda m: self._ip(m.group(1)) if _ip(m.group(1)) else m.group(0), text)
            text = _IPV4_AFTER.sub(lambda m: self._ip(m.group(1)) if _ip(m.group(1)) else m.group(0), text)
            for value, holder in self.ips.items():
                if "." in value and value in text:
                    text = re.sub(rf"(?<![\w.]){re.escape(value)}(?![\w.]|\.\d)", holder, text)
        return text

    def _ipv6_token(self, match: re.Match[str]) -> str:
        token = match.group(0)
        if token.count(":") < 2:
            return token
        canon = _ip(token)
        return self._ip(token) if canon and ":" in canon else token


# The fields that hold an identifying value whole ("*": any list index); their values are replaced
# exactly, whatever they are (a user called "os" included). Keys named like uuid/serial count too.
KNOWN_FIELDS = frozenset({
    ("environment", "hostname"),
    ("facts", "system", "hostname"), ("facts", "system", "user"), ("facts", "system", "home"),
    ("facts", "system", "env", "HOSTNAME"), ("facts", "system", "env", "USER"),
    ("facts", "system", "env", "LOGNAME"), ("facts", "system", "env", "HOME"),
    ("facts", "collective", "local_names", "*"), ("facts", "collective", "local_addresses", "*"),
    ("facts", "collective", "task_host_addresses", "*"), ("facts", "collective", "address"),
    ("facts", "collective", "peers", "*", "address"),
})


def _anonymize_walk(
    data: Any, anon: _Anonymizer, text: Callable[[str], str], path: tuple[str, ...] = ()
) -> Any:
    if isinstance(data, str):
        by_key = bool(path) and bool(_UUID_KEY.fullmatch(path[-1]) or _SERIAL_KEY.fullmatch(path[-1]))
        if path in KNOWN_FIELDS or by_key:
            exact = anon.field(data)
            if exact is not None:
                return exact
        return text(data)
    if isinstance(data, dict):
        out = {}
        for key, value in data.items():
            new_key = text(key) if isinstance(key, str) else key
            if isinstance(key, str) and _secret_key(key) and isinstance(value, str) and value:
                out[new_key] = REDACTED
            elif key == "TF_CONFIG" and isinstance(value, str):
                out[new_key] = _anonymize_tf_config(value, anon, text)
            else:
                out[new_key] = _anonymize_walk(value, anon, text, (*path, str(key))[:8])
        return out
    if isinstance(data, (list, tuple)):
        return [_anonymize_walk(item, anon, text, (*path, "*")[:8]) for item in data]
    return data


def _anonymize_tf_config(value: str, anon: _Anonymizer, text: Callable[[str], str]) -> str:
    """TF_CONFIG's task addresses replaced exactly (whatever the host is called), the rest as text."""
    try:
        config = json.loads(value)
    except (ValueError, RecursionError):
        return text(value)
    if not isinstance(config, dict):
        return text(value)

    def fix(address: Any) -> Any:
        if not isinstance(address, str):
            return address
        return anon.field(address) or text(address)

    cluster = config.get("cluster")
    if isinstance(cluster, dict):
        for job, addresses in cluster.items():
            cluster[job] = [fix(a) for a in addresses] if isinstance(addresses, list) else fix(addresses)
    return text(json.dumps(config))


def anonymize(report: dict[str, Any]) -> dict[str, Any]:
    """A redacted copy of report with hostname, user, home, GPU UUIDs and serials, IP addresses,
    /etc/hosts names and TF_CONFIG peers replaced: exactly in the fields that hold them, and in free
    text only where the value cannot be an ordinary word (see `distinctive`)."""
    anon = _Anonymizer(report)
    data = _anonymize_walk(report, anon, lambda s: anon.text(redact_text(s)))
    env = data.get("environment") if isinstance(data, dict) else None
    if isinstance(env, dict) and env.get("hostname") is not None:
        env["hostname"] = HOST
    return data
