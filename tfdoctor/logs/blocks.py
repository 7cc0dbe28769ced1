"""Tool outputs found in pasted text, each handed to the parser its probe uses.

A paste holds whole or partial outputs of the tools the probes run: the `nvidia-smi` banner and its
GPU table, `nvidia-smi -q -x` XML and `--query-gpu` CSV, `nvcc --version`, /proc/driver/nvidia/version,
/proc/version, /etc/os-release, /proc/cpuinfo's flags, `pip list` / `pip freeze` / `conda list`,
TensorFlow's build info.
This module only finds them and undoes what pasting does to them (normalize() has already removed
log prefixes, `> ` quoting and indentation; here: table rows that lost their left border), then the
probe's own pure parser reads them (tfdoctor/probes/*.py), so `explain` and `check` read one output
one way. The facts come out under the probes' keys.
"""

from __future__ import annotations

from typing import Any

from tfdoctor.probes import nvcc as nvcc_probe
from tfdoctor.probes import nvidia_smi as smi_probe
from tfdoctor.probes import system as system_probe
from tfdoctor.probes import tensorflow as tf_probe

MAX_BLOCK_LINES = 400  # lines of one block kept (an 8-GPU banner with its processes is ~60)
MAX_XML_CHARS = 2 << 20  # an `nvidia-smi -q -x` of 8 GPUs is ~200 KB
MAX_PAIRS = 2000

# Lower-case literals that start (or are) a block here: the cheap pass hands such lines on.
TRIGGERS = (
    "nvidia-smi", "driver version:", "kmd version:", "persistence-m", "0000:", "mig devices",  # the banner
    "<nvidia_smi_log", "compute_cap", "pci.bus_id",  # -q -x XML, --query-gpu CSV
    # /proc/driver/nvidia/version, and the kernel log's line as the module loads (dmesg, journalctl)
    "cuda compilation tools", "nvrm version:", "nvidia unix", "linux version ",
    "name=", "id=", "id_like=", "version_id=",  # os-release
    "build_info", "ordereddict(", "'cuda_version'", "'is_cuda_build'",
    "flags",  # /proc/cpuinfo's "flags : fpu vme ..." (lscpu's "Flags:")
    *smi_probe.OWN_FAILURES,
)
_OS_KEYS = frozenset({"NAME", "PRETTY_NAME", "ID", "ID_LIKE", "VERSION_ID"})


def _query_header(low: str) -> list[str]:
    """The fields of a `--query-gpu` CSV header line ("index, pci.bus_id, memory.total [mib]"), or []."""
    fields = [f.strip().split(" [", 1)[0] for f in low.split(",")]
    ok = all(0 < len(f) <= 40 and f.replace("_", "").replace(".", "").isalpha() for f in fields)
    return fields if ok else []


def _row_without_border(line: str) -> bool:
    """A banner row whose left "|" was lost: "0  NVIDIA B200  On  | ...", "N/A 26C P0 ... | ..."."""
    first = line.split(None, 1)[0] if line.strip() else ""
    return "|" in line and (first.isdigit() and len(first) <= 4 or first == "N/A" or first.endswith("%"))


class Blocks:
    """Streaming: `feed(line, low)` for each normalised line; `open` while a block wants the next line."""

    def __init__(self) -> None:
        self.banner: list[str] | None = None
        self.xml: list[str] | None = None
        self.xml_chars = 0
        self.query: tuple[list[str], list[str]] | None = None  # (fields, lines)
        self.smi: dict[str, Any] = {}  # parse_banner's result, merged over blocks
        self.smi_gpus: dict[int, dict[str, Any]] = {}
        self.xml_facts: dict[str, Any] | None = None
        self.nvcc: dict[str, Any] | None = None
        self.proc_driver: dict[str, Any] | None = None
        self.wsl_version: int | None = None
        self.os_release: dict[str, str] = {}
        self.build_info: dict[str, Any] | None = None
        self.cpu_flags: dict[str, bool] | None = None
        self.line_no = 0  # the line being read (set by the caller)
        self.at: dict[str, int] = {}  # section -> line where its first block began

    @property
    def open(self) -> bool:
        return self.banner is not None or self.xml is not None or self.query is not None

    def feed(self, line: str, low: str) -> None:
        if self.xml is not None:
            self._xml_line(line)
            return
        if self.banner is not None:
            if line.startswith(("|", "+", "=")) or _row_without_border(line):
                if len(self.banner) < MAX_BLOCK_LINES:
                    self.banner.append(line if line[0] in "|+=" else "| " + line)
                return
            self._end_banner()
        if self.query is not None:
            if line.count(",") + 1 == len(self.query[0]) and len(self.query[1]) < MAX_BLOCK_LINES:
                self.query[1].append(line)
                return
            self._end_query()
        if ("nvidia-smi" in low and ("version:" in low) or "persistence-m" in low or "mig devices" in low
                or line.startswith("|") and "0000:" in line):  # a table's GPU row, its header cut off
            self.banner = [line]
            self.at.setdefault("nvidia_smi", self.line_no)
        elif "<nvidia_smi_log" in low:
            self.at.setdefault("nvidia_smi", self.line_no)
            self.xml, self.xml_chars = [], 0
            self._xml_line(line[low.index("<nvidia_smi_log"):])
        elif ("compute_cap" in low or "pci.bus_id" in low) and _query_header(low):
            self.query = (_query_header(low), [])
        elif low.startswith(smi_probe.OWN_FAILURES) and (  # "No devices were found" alone on its line
                not low.startswith("no devices") or low.strip(" .") == "no devices were found"):
            kind = smi_probe.failure_kind(line)
            if kind and "error_kind" not in self.smi:
                self.smi.update(error_kind=kind, error=f"`nvidia-smi` failed: {line[:200]}")
                self.at.setdefault("nvidia_smi", self.line_no)
        elif "cuda compilation tools" in low:
            parsed = nvcc_probe.parse_nvcc_version(line)
            if parsed["version"]:
                self.nvcc = parsed
                self.at.setdefault("nvcc", self.line_no)
        elif "nvrm version:" in low or "nvidia unix" in low and "kernel module" in low:  # (or as quoted)
            version = system_probe.parse_driver_version(line)
            if version:
                self.at.setdefault("system", self.line_no)
                self.proc_driver = {"proc_driver_version": version,
                                    "proc_driver_open": "Open Kernel Module" in line}
        elif low.startswith("linux version "):
            self.wsl_version = system_probe.wsl_version(line) or self.wsl_version
            self.at.setdefault("system", self.line_no)
        elif line.split("=", 1)[0] in _OS_KEYS and "=" in line:
            self.os_release.update(system_probe.parse_os_release(line))
            self.at.setdefault("system", self.line_no)
        elif any(map(low.__contains__, ("build_info", "ordereddict(", "'cuda_version'", "'is_cuda_build'"))):
            self._build_info(line)
        elif low.startswith("flags") and self.cpu_flags is None and " sse2 " in low:  # an x86 CPU's list
            self.cpu_flags = system_probe.parse_cpu_flags(low)
            self.at.setdefault("system", self.line_no)

    def finish(self) -> None:
        if self.banner is not None:
            self._end_banner()
        if self.xml is not None:
            self._end_xml()
        if self.query is not None:
            self._end_query()

    # -- the blocks
    def _end_banner(self) -> None:
        lines, self.banner = self.banner or [], None
        try:
            parsed = smi_probe.parse_banner("\n".join(lines), partial=True)
        except smi_probe.SmiParseError:
            return
        for key in ("smi_version", "driver_version", "cuda_version", "cuda_version_na"):
            if parsed.get(key) and not self.smi.get(key):
                self.smi[key] = parsed[key]
        for gpu in parsed["gpus"]:
            self._gpu(gpu)

    def _gpu(self, gpu: dict[str, Any]) -> None:
        index = gpu.get("index")
        if not isinstance(index, int) or len(self.smi_gpus) >= 64 and index not in self.smi_gpus:
            return
        held = self.smi_gpus.setdefault(index, {})
        for key, value in gpu.items():
            if value is not None and held.get(key) is None:
                held[key] = value

    def _xml_line(self, line: str) -> None:
        assert self.xml is not None
        self.xml_chars += len(line) + 1
        if self.xml_chars <= MAX_XML_CHARS:
            self.xml.append(line)
        if "</nvidia_smi_log>" in line or self.xml_chars > MAX_XML_CHARS:
            self._end_xml()  # an unterminated or oversized document is read as far as it parses: not at all

    def _end_xml(self) -> None:
        text, self.xml = "\n".join(self.xml or []), None
        try:
            self.xml_facts = smi_probe.parse_query_xml(text, partial=True)
        except smi_probe.SmiParseError:
            return
        for key in ("driver_version", "cuda_version"):
            if self.xml_facts.get(key):
                self.smi[key] = self.xml_facts[key]
        for gpu in self.xml_facts["gpus"]:
            self._gpu(gpu)

    def _end_query(self) -> None:
        (fields, lines), self.query = self.query or ([], []), None
        rows = smi_probe.parse_query_gpu("\n".join(lines), fields)["gpus"]
        for pos, row in enumerate(rows):
            index = row.get("index")
            self._gpu({**row, "index": index if isinstance(index, int) else pos})

    def _build_info(self, line: str) -> None:
        """`build_info = OrderedDict([...])` (build_info.py), `OrderedDict([...])` or `{...}` as
        tf.sysconfig.get_build_info() prints it."""
        start = line.find("OrderedDict(")
        if start < 0:
            start = line.find("{")
        if start < 0:
            return
        if line[start - 12:start] == "collections.":
            start -= 12
        end = max(line.rfind(")"), line.rfind("}")) + 1
        try:
            info = tf_probe.parse_build_info("build_info = " + line[start:end])
        except ValueError:
            return
        if info.keys() & {"cuda_version", "cudnn_version", "is_cuda_build"}:
            self.build_info = {**(self.build_info or {}), **info}

    # -- the facts
    def facts(self) -> dict[str, dict[str, Any]]:
        """{section: {key: value}} under the probes' keys."""
        self.finish()
        out: dict[str, dict[str, Any]] = {}
        smi = dict(self.smi)
        if self.smi_gpus:
            smi["gpus"] = [self.smi_gpus[i] for i in sorted(self.smi_gpus)]
        if smi:
            out["nvidia_smi"] = smi
        if self.nvcc:
            out["nvcc"] = {"version": self.nvcc["version"],
                           "installs": [{**self.nvcc, "source": "pasted"}]}
        system: dict[str, Any] = dict(self.proc_driver or {})
        if self.cpu_flags:
            system["cpu_flags"] = self.cpu_flags
        if self.wsl_version:
            system["wsl_version"] = self.wsl_version
        osr = self.os_release
        if osr.get("PRETTY_NAME") or osr.get("NAME"):
            system["os"] = osr.get("PRETTY_NAME") or osr.get("NAME")
        for key, name in (("os_id", "ID"), ("os_id_like", "ID_LIKE"), ("os_version_id", "VERSION_ID")):
            if osr.get(name) and ("NAME" in osr or "PRETTY_NAME" in osr):
                system[key] = osr[name]
        if system:
            out["system"] = system
        if self.build_info:
            out["tensorflow"] = {"build_info": self.build_info}
        return out


def distributions(lists: list[list[tuple[str, str]]],
                  ) -> tuple[dict[str, str], dict[str, list[str]], str | None]:
    """(distributions, duplicates, TensorFlow version) from the package lists of a paste, each read by
    the tensorflow probe's own selection: a name listed twice in one list is installed twice."""
    chosen: dict[str, str] = {}
    duplicates: dict[str, list[str]] = {}
    for pairs in lists:
        dists, dups = tf_probe.select_distributions([list(p) for p in pairs[:MAX_PAIRS]])
        for name, version in dists.items():
            chosen.setdefault(name, version)
        duplicates.update(dups)
    return chosen, duplicates, tf_probe.tensorflow_version(chosen)
