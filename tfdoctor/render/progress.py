"""What runs while it runs: a live view of the probes and the TensorFlow worker's steps.

A listener for tfdoctor.pipeline's progress events, drawn with rich's own Live display
(transient: it gives way to the report when the run ends; no cursor control of our own):

```
⠼ Checking this machine… 12.4 s
  ✓ System              Debian GNU/Linux 12 (bookworm) · Python 3.11.7         0.1 s
  – NVML                no NVIDIA driver                                       0.3 s
  ✓ TensorFlow          2.21.0, built for CUDA 12.5.1                          0.6 s
  ⠼ TensorFlow worker                                                         12.3 s
      ✓ importing TensorFlow 1.9 s
      ✓ matmul on CPU:0 0.1 s
      ⠼ matmul on GPU:0… 10.2 s
        JIT-compiling kernels for sm_120 (first run)…
```

Only for a person at a terminal: commands/check.py builds it when stdout is a terminal, TERM is
not "dumb" and the output is not --json/--markdown. Every value shown is sanitized first.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable

from tfdoctor.render import sanitize

PROBES = {
    "system": "System",
    "nvml": "NVML",
    "nvidia_smi": "nvidia-smi",
    "nvcc": "nvcc",
    "libraries": "CUDA libraries",
    "tensorflow": "TensorFlow",
    "runtime": "TensorFlow worker",
    "collective": "Cluster collective",
}
STEPS = {
    "import": "importing TensorFlow",
    "devices": "listing devices",
    "matmul": "matmul on {device}",
    "train": "training on {device}",
    "throughput": "matmul throughput on {device}",
    "mixed_precision": "mixed precision on {device}",
    "xla": "XLA jit_compile on {device}",
    "multi_gpu": "MirroredStrategy on {device}",
}
NOTHING = {"driver-not-loaded": "no NVIDIA driver loaded", "library-not-found": "no NVIDIA driver",
           "not-found": "not on PATH"}
JIT_AFTER = 8.0  # seconds a GPU step runs before a PTX-only GPU's first-run JIT is the likely reason
WORDS_WIDTH = 44
MAX_STEPS = 8  # worker steps shown at once (the latest), so the view fits a terminal


def device_name(device: Any) -> str:
    """"/device:GPU:0" -> "GPU:0"; several (MirroredStrategy) -> "N devices"."""
    text = sanitize.line(device or "")
    if "," in text:
        return f"{len(text.split(','))} devices"
    return text.replace("/device:", "").replace("/job:localhost/replica:0/task:0/", "") or "?"


def step_label(name: str, device: Any) -> str:
    template = STEPS.get(name, sanitize.line(name).replace("_", " ") + " on {device}")
    return template.format(device=device_name(device)) if "{device}" in template else template


def probe_words(name: str, facts: Any) -> tuple[str, str]:
    """(mark, a few words) for a finished probe: ✓ found, – nothing there, ✗ the probe failed."""
    f = facts if isinstance(facts, dict) else {}
    if f.get("probe_failed"):
        return "✗", sanitize.line(f.get("error") or "failed")

    def nothing(words: str) -> tuple[str, str]:
        return "–", words

    if name == "system":
        parts = [f.get("os"), f.get("python_version") and f"Python {f['python_version']}",
                 f.get("container") and f"container: {f['container']}"]
        return "✓", " · ".join(sanitize.line(p) for p in parts if p)
    if name in ("nvml", "nvidia_smi"):
        gpus = f.get("gpus") if isinstance(f.get("gpus"), list) else []
        if f.get("driver_version") or gpus:
            count = f"{len(gpus)} GPU" + ("" if len(gpus) == 1 else "s")
            return "✓", " · ".join(p for p in (f.get("driver_version") and f"driver {f['driver_version']}",
                                                count) if p)
        kind = f.get("error_kind")
        return nothing(NOTHING.get(str(kind), sanitize.line(kind or "no answer")))
    if name == "nvcc":
        return ("✓", f"CUDA {f['version']}") if f.get("version") else nothing("none")
    if name == "libraries":
        wheels = f.get("pip_nvidia") if isinstance(f.get("pip_nvidia"), dict) else {}
        return ("✓", f"{len(wheels)} NVIDIA wheel" + ("" if len(wheels) == 1 else "s")) if wheels \
            else nothing("no NVIDIA wheels")
    if name == "tensorflow":
        if not f.get("installed"):
            return nothing("not installed")
        build = f.get("build_info") if isinstance(f.get("build_info"), dict) else {}
        cuda = f", built for CUDA {build['cuda_version']}" if build.get("cuda_version") else ""
        return "✓", f"{sanitize.line(f.get('version') or '?')}{sanitize.line(cuda)}"
    if name == "runtime":
        if f.get("error"):
            return "✗", sanitize.line(f["error"])
        visible = f.get("tf_visible_gpus")
        if isinstance(visible, int):
            return "✓", f"TensorFlow sees {visible} GPU" + ("" if visible == 1 else "s")
        return nothing(sanitize.line(f.get("skipped") or "done"))
    return "✓", ""


def _sm(cc: str) -> str:
    return "sm_" + cc.replace(".", "")


class Progress:
    """A pipeline progress listener (call it with events) and its Live display (a context manager)."""

    def __init__(self, console: Any, clock: Callable[[], float] = time.monotonic) -> None:
        self.console = console
        self.clock = clock
        self.lock = threading.Lock()
        self.started = clock()
        self.probes: dict[str, dict[str, Any]] = {}
        self.steps: list[dict[str, Any]] = []
        self.caps: tuple[str, ...] = ()
        self.cc: dict[str, str] = {}  # TensorFlow device -> compute capability
        self.live: Any = None
        self.spinner: Any = None

    # --- events (any thread) -------------------------------------------------------------------

    def __call__(self, event: dict[str, Any]) -> None:
        now = self.clock()
        with self.lock:
            if event.get("event") == "probe":
                self._probe(event, now)
            elif event.get("event") == "step":
                self._step(event, now)

    def _probe(self, event: dict[str, Any], now: float) -> None:
        name = str(event.get("name"))
        entry = self.probes.setdefault(name, {"start": now, "status": "start"})
        if event.get("status") == "done":
            facts = event.get("facts")
            entry.update(status="done", seconds=event.get("seconds"))
            entry["mark"], entry["words"] = probe_words(name, facts)
            if name == "collective" and not (isinstance(facts, dict) and facts.get("requested")):
                entry["hidden"] = True
            if name == "tensorflow" and isinstance(facts, dict):
                build = facts.get("build_info") if isinstance(facts.get("build_info"), dict) else {}
                caps = build.get("cuda_compute_capabilities")
                if isinstance(caps, (list, tuple)):
                    self.caps = tuple(str(c) for c in caps)

    def _step(self, event: dict[str, Any], now: float) -> None:
        key = (event.get("name"), event.get("device"))
        if event.get("status") == "running":
            self.steps.append({"key": key, "start": now, "status": "running"})
        else:
            running = next((s for s in reversed(self.steps)
                            if s["key"] == key and s["status"] == "running"), None)
            if running is None:
                running = {"key": key, "start": now}
                self.steps.append(running)
            running.update(status=event.get("status"), seconds=event.get("seconds"))
        for gpu in event.get("gpus") or []:
            if isinstance(gpu, dict) and gpu.get("tf_device") and gpu.get("compute_capability"):
                self.cc[str(gpu["tf_device"])] = str(gpu["compute_capability"])

    # --- drawing (the Live thread) ---------------------------------------------------------------

    def jit_hint(self, device: Any, elapsed: float) -> str | None:
        """The likely reason a GPU step takes long: the first run JIT-compiles PTX for this GPU."""
        cc = self.cc.get(str(device))
        if elapsed < JIT_AFTER or not cc or not self.caps:
            return None
        from tfdoctor.compat import kernel_fit

        try:
            fit = kernel_fit(self.caps, cc)
        except ValueError:
            return None
        return f"JIT-compiling kernels for {_sm(cc)} (first run)…" if fit == "ptx" else None

    def lines(self) -> list[tuple[str, str, str]]:
        """(mark or "spin", text, style) for each line of the view, now."""
        now = self.clock()
        out = [("spin", f"Checking this machine… {now - self.started:.1f} s", "bold")]
        with self.lock:
            probes = list(self.probes.items())
            steps = [dict(s) for s in self.steps]
        for name, p in probes:
            if p.get("hidden"):
                continue
            label = f"{PROBES.get(name, sanitize.line(name)):<18}"
            if p["status"] == "done":
                words = p.get("words") or ""
                words = words if len(words) <= WORDS_WIDTH else words[: WORDS_WIDTH - 1] + "…"
                seconds = p.get("seconds")
                tail = f"  {seconds:.1f} s" if isinstance(seconds, (int, float)) else ""
                out.append((p.get("mark", "✓"), f"{label}{words:<{WORDS_WIDTH}}{tail}", ""))
            else:
                out.append(("spin", f"{label}{'':<{WORDS_WIDTH}}  {now - p['start']:.1f} s", ""))
            if name != "runtime":
                continue
            skipped = [s for s in steps if s["status"] == "skip"]
            shown = [s for s in steps if s["status"] != "skip"]
            if len(shown) > MAX_STEPS:
                done = len(shown) - MAX_STEPS
                out.append(("✓", f"    … {done} earlier step{'' if done == 1 else 's'}", "dim"))
                shown = shown[-MAX_STEPS:]
            for s in shown:
                name_, device = s["key"]
                label_ = step_label(str(name_), device)
                if s["status"] == "running":
                    elapsed = now - s["start"]
                    out.append(("spin", f"    {label_}… {elapsed:.1f} s", ""))
                    hint = self.jit_hint(device, elapsed)
                    if hint:
                        out.append((" ", f"    {hint}", "yellow"))
                else:
                    seconds = s.get("seconds")
                    tail = f" {seconds:.1f} s" if isinstance(seconds, (int, float)) else ""
                    mark = {"pass": "✓", "fail": "✗"}.get(str(s["status"]), "?")
                    out.append((mark, f"    {label_}{tail}", ""))
            if skipped:
                names = ", ".join(dict.fromkeys(step_label(str(s["key"][0]), s["key"][1]) for s in skipped))
                out.append(("–", f"    skipped: {names}", "dim"))
        return out

    def __rich__(self) -> Any:
        from rich.console import Group
        from rich.spinner import Spinner
        from rich.text import Text

        if self.spinner is None:
            self.spinner = Spinner("dots", style="cyan")
        frame = self.spinner.render(self.console.get_time())
        styles = {"✓": "green", "✗": "bold red", "–": "dim", "!": "yellow"}
        rows = []
        for n, (mark, text, style) in enumerate(self.lines()):
            body = text.lstrip(" ")
            line = Text(" " * (len(text) - len(body) + (2 if n else 0)), no_wrap=True, overflow="ellipsis")
            if mark == "spin":
                line.append_text(frame.copy() if isinstance(frame, Text) else Text("…"))
            else:
                line.append(mark, style=styles.get(mark, ""))
            line.append(" ")
            line.append(body, style=style or "")
            rows.append(line)
        return Group(*rows)

    # --- the Live display ---------------------------------------------------------------------------

    def __enter__(self) -> Progress:
        from rich.live import Live

        self.live = Live(self, console=self.console, transient=True, refresh_per_second=8,
                         redirect_stdout=False, redirect_stderr=False, vertical_overflow="ellipsis")
        self.live.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.live is not None:
            self.live.stop()
            self.live = None
