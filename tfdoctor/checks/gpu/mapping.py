"""Which physical GPU each TensorFlow GPU:n is, and CUDA's device order."""

from __future__ import annotations

import re
from typing import Any

from tfdoctor import catalogue as cat
from tfdoctor import facts as fc
from tfdoctor import plan as P
from tfdoctor.checks import check
from tfdoctor.checks import remedies as rm
from tfdoctor.model import Finding, Status

# --- TensorFlow GPU:n <-> physical GPU ----------------------------------------------------------------


def _tf_name(device: Any, i: int) -> str:
    m = re.search(r"GPU:(\d{1,4})", str(device or "")[:200])
    return f"GPU:{m.group(1)}" if m else f"GPU:{i}"


def map_devices(
    gpus: list[dict[str, Any]], tf_gpus: list[dict[str, Any]] | None, env: dict[str, str]
) -> dict[str, Any]:
    """Which physical GPU (NVML index) each TensorFlow GPU:n is.

    With the worker's devices, match by PCI bus id ("how": "pci"). Without them, predict from
    CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER ("predicted"): CUDA numbers GPUs fastest first unless
    CUDA_DEVICE_ORDER=PCI_BUS_ID, while NVML and nvidia-smi number them by PCI bus id, so with mixed
    models and no PCI_BUS_ID order the prediction is "ambiguous".
    """
    by_pci = {fc.normalize_pci(g.get("pci_bus_id")): g for g in gpus if fc.normalize_pci(g.get("pci_bus_id"))}
    if tf_gpus:
        rows = []
        for i, t in enumerate(tf_gpus):
            g = by_pci.get(fc.normalize_pci(t.get("pci_bus_id")))
            rows.append(
                {
                    "tf_device": _tf_name(t.get("tf_device"), i),
                    "nvml_index": g.get("index") if g else None,
                    "name": (g or {}).get("name") or t.get("name"),
                    "pci_bus_id": fc.normalize_pci(t.get("pci_bus_id")),
                }
            )
        return {"how": "pci", "rows": rows}
    pci_order = sorted(gpus, key=lambda g: fc.normalize_pci(g.get("pci_bus_id")) or "")
    same_model = len({g.get("name") for g in gpus}) <= 1
    known_order = env.get("CUDA_DEVICE_ORDER") == "PCI_BUS_ID" or same_model
    cvd = env.get("CUDA_VISIBLE_DEVICES")
    if cvd is None:
        chosen = pci_order
    else:
        by_index = any(t.strip().isdigit() for t in cvd.split(","))
        if by_index and not known_order:
            return {"how": "ambiguous", "rows": []}
        picked = fc.cuda_visible(cvd, pci_order)
        chosen = [pci_order[i] for i in picked or []]
    if cvd is None and not known_order:
        return {"how": "ambiguous", "rows": []}
    rows = [
        {
            "tf_device": f"GPU:{i}",
            "nvml_index": g.get("index"),
            "name": g.get("name"),
            "pci_bus_id": fc.normalize_pci(g.get("pci_bus_id")),
        }
        for i, g in enumerate(chosen)
    ]
    return {"how": "predicted", "rows": rows}


def _order_shown(facts: dict[str, Any], used: tuple[str, ...]) -> list[Finding]:
    """TensorFlow's own device list numbering mixed GPUs out of PCI bus order (a log's "Found device N"
    lines with their bus ids): nvidia-smi numbers them the other way."""
    tf_gpus = [t for t in fc.as_list(fc.get(facts, "runtime", "gpus")) if isinstance(t, dict)]
    if len(tf_gpus) < 2:
        return _indices_chosen(facts, used)
    pcis = [fc.normalize_pci(t.get("pci_bus_id")) for t in tf_gpus]
    if (len(pcis) < 2 or not all(pcis) or pcis == sorted(pcis) or len({t.get("name") for t in tf_gpus}) < 2
            or fc.env(facts).get("CUDA_DEVICE_ORDER") == "PCI_BUS_ID" or fc.log_items(facts, "cc-ignored")):
        return []
    order = ", ".join(f"GPU:{i} = {t.get('name')} ({p})" for i, (t, p) in enumerate(zip(tf_gpus, pcis)))
    if "CUDA_VISIBLE_DEVICES" not in fc.env(facts) and not fc.hinted(facts, "nvidia-smi-named"):
        # nothing here picks GPUs by nvidia-smi's numbers: the order is worth knowing, not a problem
        return [Finding("gpu.mapping", Status.PASS, f"{len(tf_gpus)} TensorFlow GPUs, numbered fastest first",
                        detail=f"{order}; nvidia-smi numbers them by PCI bus id. To choose GPUs by"
                        " nvidia-smi's numbers, set CUDA_DEVICE_ORDER=PCI_BUS_ID first.", facts=used)]
    return [_order_finding(facts, "TensorFlow numbers these mixed GPUs differently from nvidia-smi", order,
                           used)]


def _order_finding(facts: dict[str, Any], title: str, listing: str, used: tuple[str, ...]) -> Finding:
    """gpu.device-order: CUDA's numbering of mixed GPUs is not nvidia-smi's."""
    return Finding(
        "gpu.device-order",
        Status.WARN,
        title,
        detail="CUDA (and so TensorFlow's GPU:n and the indices in CUDA_VISIBLE_DEVICES) numbers GPUs fastest"
        f" first; nvidia-smi and NVML number them by PCI bus id. {listing}",
        plan=rm.plan(facts, P.env("CUDA_DEVICE_ORDER", "PCI_BUS_ID", "then GPU numbers agree with nvidia-smi"
                                  " everywhere")),
        docs=cat.NV_CUDA_ENV,
        facts=used,
    )


def _indices_chosen(facts: dict[str, Any], used: tuple[str, ...]) -> list[Finding]:
    """CUDA_VISIBLE_DEVICES choosing some of mixed GPUs that a listing (nvidia-smi, PyTorch's collect_env)
    numbers by PCI bus id: CUDA reads those indices fastest first unless CUDA_DEVICE_ORDER says otherwise."""
    env = fc.env(facts)
    value = str(env.get("CUDA_VISIBLE_DEVICES") or "")
    gpus, source = fc.gpus(facts)
    if len({g.get("name") for g in gpus}) < 2 or env.get("CUDA_DEVICE_ORDER") == "PCI_BUS_ID":
        return []
    listing = ", ".join(f"{source} {g.get('index')} = {g.get('name')}" for g in gpus[:8])
    indices = value.replace(" ", "").split(",")
    if value and all(i.isdigit() for i in indices) and len(indices) < len(gpus):
        title = f"CUDA_VISIBLE_DEVICES={value} counts these mixed GPUs fastest first, not as {source} does"
        return [_order_finding(facts, title, listing, used)]
    if not value and fc.hinted(facts, "cvd-named"):
        # GPUs chosen by CUDA_VISIBLE_DEVICES (its value not shown) among mixed models the listing numbers
        title = f"CUDA_VISIBLE_DEVICES counts these mixed GPUs fastest first, not as {source} does"
        return [_order_finding(facts, title, listing, used)]
    return []


@check("gpu.mapping", "gpu.device-order")
def device_mapping(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    used = ("nvml.gpus", "runtime.gpus", "system.env.CUDA_VISIBLE_DEVICES", "system.env.CUDA_DEVICE_ORDER")
    gpus, source = fc.gpus(facts)
    gpus = [g for g in gpus if not g.get("error")]
    if not fc.get(facts, "system", "env_complete"):  # CUDA_DEVICE_ORDER's absence says nothing
        return _order_shown(facts, used)
    if not gpus:
        return []
    env = fc.env(facts)
    tf_gpus = [t for t in fc.as_list(fc.get(facts, "runtime", "gpus")) if isinstance(t, dict)]
    out = []
    mixed = len({g.get("name") for g in gpus}) > 1
    if mixed and env.get("CUDA_DEVICE_ORDER") != "PCI_BUS_ID":
        out.append(_order_finding(facts, "CUDA numbers these mixed GPUs differently from nvidia-smi",
                                  ", ".join(f"NVML {g.get('index')} = {g.get('name')}" for g in gpus), used))
    mapping = map_devices(gpus, tf_gpus or None, env)
    rows = mapping["rows"]
    if mapping["how"] == "ambiguous" or not rows:
        return out
    lines = [
        f"{r['tf_device']} = NVML {r['nvml_index'] if r['nvml_index'] is not None else '?'} "
        f"({r['name'] or 'unknown'}, {r['pci_bus_id'] or 'no PCI id'})"
        for r in rows
    ]
    how = (
        "matched by PCI bus id from TensorFlow's device details"
        if mapping["how"] == "pci"
        else "predicted from CUDA_VISIBLE_DEVICES/CUDA_DEVICE_ORDER; a full run (without --quick) "
        "confirms it from TensorFlow's own device list"
    )
    title = lines[0] if len(lines) == 1 else f"{len(lines)} TensorFlow GPUs mapped to physical GPUs"
    return out + [
        Finding(
            "gpu.mapping",
            Status.PASS,
            title,
            detail="\n".join(lines) + f"\n({how}; {source})",
            facts=used,
            confidence="certain" if mapping["how"] == "pci" else "likely",
        )
    ]
