"""The GPUs themselves: hidden by CUDA_VISIBLE_DEVICES, compute capability vs TensorFlow's kernels,
and how many TensorFlow can use against --require-gpus."""

from __future__ import annotations

from typing import Any

from tfdoctor import catalogue as cat
from tfdoctor import facts as fc
from tfdoctor import plan as P
from tfdoctor import stackerrors
from tfdoctor import versions as v
from tfdoctor.checks import check, skipped
from tfdoctor.checks import remedies as rm
from tfdoctor.model import Finding, Status


def _cvd(facts: dict[str, Any]) -> str | None:
    value = fc.env(facts).get("CUDA_VISIBLE_DEVICES")
    return None if value is None else str(value)


@check("gpu.hidden-by-cuda-visible-devices")
def hidden_by_cuda_visible_devices(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    used = ("system.env.CUDA_VISIBLE_DEVICES", "nvml.gpus", "nvidia_smi.gpus", "system.dev_nvidia")
    unknown = fc.log_items(facts, "unknown-device")
    if unknown:
        device = unknown[0].get("device") or "?"
        return [
            Finding(
                "gpu.hidden-by-cuda-visible-devices",
                Status.FAIL,
                f"The container asked for GPU {device}, which this host does not have",
                detail="The NVIDIA Container Toolkit hands a container the GPUs its device list names"
                " (--gpus device=..., NVIDIA_VISIBLE_DEVICES, Compose's device_ids); an index at or beyond"
                " the host's GPU count, or a UUID of another machine, stops the container from starting."
                + (" This one is a variable that was never expanded (a Compose ${...} missing its $?)."
                   if "{" in device or "$" in device else ""),
                plan=rm.plan(facts, P.system("nvidia-smi -L", "the host's GPUs, by index and UUID"),
                             P.note("ask for one of them: `--gpus device=0` (or NVIDIA_VISIBLE_DEVICES=0), or"
                                    " `--gpus all`")),
                docs=cat.NV_CONTAINER,
                facts=("log.evidence",),
                evidence=fc.quote(facts, unknown),
            )
        ]
    symptom = (fc.cuda_errors(facts, "NO_DEVICE") or fc.get(facts, "runtime", "tf_visible_gpus") == 0
               or fc.get(facts, "runtime", "cpu_fallback_stated"))
    nvd = str(fc.env(facts).get("NVIDIA_VISIBLE_DEVICES") or "").strip().lower()
    if nvd in ("void", "none") and (symptom or fc.log_items(facts, "no-driver", "cuinit")):
        return [Finding(
            "gpu.hidden-by-cuda-visible-devices",
            Status.FAIL,
            f"NVIDIA_VISIBLE_DEVICES={nvd}: this container was given no GPU",
            detail="The NVIDIA Container Toolkit passes a container the GPUs NVIDIA_VISIBLE_DEVICES lists;"
            f" {nvd!r} passes none"
            + (" (and, as 'void', not the driver's libraries either)." if nvd == "void" else "."),
            plan=rm.plan(facts, P.note("start the container with --gpus all (or NVIDIA_VISIBLE_DEVICES=all,"
                                       " or the GPU indices wanted); an image or Compose file may set it to"
                                       f" {nvd}")),
            docs=cat.NV_CONTAINER,
            facts=("system.env.NVIDIA_VISIBLE_DEVICES",),
        )]
    value = _cvd(facts)
    if value is None:
        return _ray(facts) or _index_chosen(facts)
    slurm_none = value.strip() == "NoDevFiles"  # Slurm's value for a job step given no GPU: never a choice
    if not fc.get(facts, "system", "env_complete") and not symptom and not slurm_none:
        return []  # a value a text shows without a symptom (tests often hide GPUs on purpose)
    if value.startswith("${") and symptom:  # a command line's `CUDA_VISIBLE_DEVICES=${GPU_ID} ./run.py`
        return [Finding(
            "gpu.hidden-by-cuda-visible-devices",
            Status.WARN,
            f"CUDA_VISIBLE_DEVICES came from {value}, and CUDA then found no GPU",
            detail=f"The command set it from the shell variable {value}: unset, that leaves it empty, which"
            " hides every GPU, as does an index the machine does not have.",
            plan=rm.plan(facts, P.system(f"echo \"{value}\"", "set it to a GPU index from `nvidia-smi -L`"
                                         " before the command, or drop CUDA_VISIBLE_DEVICES from it")),
            docs=cat.NV_CUDA_ENV,
            facts=used,
            confidence="likely",
        )]
    gpus, source = fc.gpus(facts, dev_nodes=True)
    # without the driver's list, the GPUs a person listed as the machine's hardware (TensorFlow's own
    # list is already filtered by the variable) when the value hides them all: a partial list at worst,
    # so a warning
    named = [] if gpus or not symptom or fc.get(facts, "runtime", "gpus") else [
        g for g in fc.as_list(fc.get(facts, "runtime", "gpus_stated")) if isinstance(g, dict)]
    stated = bool(named) and fc.cuda_visible(value, named) == []
    if stated:
        gpus, source = named, "the GPUs named in the text"
    picked = fc.cuda_visible(value, gpus)
    visible = None if picked is None else len(picked)
    shown = f"CUDA_VISIBLE_DEVICES={value!r}"
    if visible is None and fc.cuda_errors(facts, "NO_DEVICE") and value.strip() and not gpus \
            and not fc.log_items(facts, "no-driver"):  # CUDA saw no device under a list it could not match
        return [
            Finding(
                "gpu.hidden-by-cuda-visible-devices",
                Status.WARN,
                f"{shown} may name a GPU this machine does not have",
                detail="CUDA found no device (CUDA_ERROR_NO_DEVICE) while this list was set: an index at"
                " or beyond the number of GPUs, or a UUID of another machine, hides every GPU, because"
                " CUDA stops reading the list at its first invalid entry.",
                plan=rm.plan(facts, P.system("nvidia-smi -L", "the GPUs here, by index and UUID"),
                             P.system("unset CUDA_VISIBLE_DEVICES",
                                      "or set it to indices or UUIDs from that list, where the program sets"
                                      " it (os.environ, a job script, ~/.bashrc)")),
                docs=cat.NV_CUDA_ENV,
                facts=used,
                confidence="likely",
            )
        ]
    if visible is None:
        return [
            skipped(
                "gpu.hidden-by-cuda-visible-devices",
                f"{shown} not verified",
                "Its indices or UUIDs could not be matched against a known GPU list.",
                used,
            )
        ]
    if visible > 0:
        of = f" of {len(gpus)} ({source})" if gpus else ""
        return [
            Finding(
                "gpu.hidden-by-cuda-visible-devices",
                Status.PASS,
                f"{shown} exposes {visible}{of} GPU{'s' if visible != 1 else ''}",
                facts=used,
            )
        ]
    if source is None and fc.get(facts, "nvml", "available") is not True:
        status, known = Status.WARN, "No GPU list is known here, but this value hides every GPU."
    elif not gpus:
        return []  # no GPU at all: nothing to hide
    else:
        status, known = (
            Status.WARN if stated else Status.FAIL,
            f"{len(gpus)} GPU(s) exist per {source}; CUDA and TensorFlow will see none.",
        )
    slurm = (" (SLURM sets NoDevFiles when the job got no GPUs: request them with --gres=gpu:N)" if slurm_none
             else "")
    indices = ",".join(str(i) for i in range(len(gpus))) or "0"
    if fc.platform(facts) == "windows":  # (cmd)
        plan = rm.plan(facts, P.system("set CUDA_VISIBLE_DEVICES=",
                                       f"or: `set CUDA_VISIBLE_DEVICES={indices}`, where the command or its"
                                       " script sets it"))
    else:
        plan = rm.plan(facts, P.system("unset CUDA_VISIBLE_DEVICES",
                                       f"or: `export CUDA_VISIBLE_DEVICES={indices}`{slurm}; find where it is"
                                       " set: `grep -n CUDA_VISIBLE_DEVICES ~/.bashrc ~/.profile"
                                       " /etc/environment`"))
    return [
        Finding(
            "gpu.hidden-by-cuda-visible-devices",
            status,
            f"{shown} hides every GPU",
            detail=known
            + " CUDA stops reading the list at the first entry that is not a valid index or GPU UUID.",
            plan=plan,
            docs=cat.NV_CUDA_ENV,
            facts=used,
        )
    ]


def _index_chosen(facts: dict[str, Any]) -> list[Finding]:
    """A program told to use GPU N (gputouse=1, --gpu 1), where CUDA then found no device: programs that
    take a GPU index set CUDA_VISIBLE_DEVICES to it, which hides every GPU of a machine with N or fewer."""
    index = fc.get(facts, "runtime", "gpu_index_chosen")
    gpus, _source = fc.gpus(facts)
    if not isinstance(index, int) or index < 1 or not fc.cuda_errors(facts, "NO_DEVICE") or len(gpus) > index:
        return []
    return [Finding(
        "gpu.hidden-by-cuda-visible-devices",
        Status.WARN,
        f"The program was told to use GPU {index}, and CUDA then found no GPU",
        detail=f"Programs that take a GPU index pass it on as CUDA_VISIBLE_DEVICES={index}; GPUs are numbered"
        f" from 0, so on a machine with {index} GPU{'s' if index != 1 else ''} or fewer that hides them all.",
        plan=rm.plan(facts, P.system("nvidia-smi -L", "the GPUs here, numbered from 0: choose one of them"
                                     " (GPU 0 on a single-GPU machine)")),
        docs=cat.NV_CUDA_ENV,
        facts=("runtime.gpu_index_chosen", "log.evidence"),
        confidence="likely",
    )]


def _ray(facts: dict[str, Any]) -> list[Finding]:
    """Ray hands a task or Tune trial only the GPUs it requests (CUDA_VISIBLE_DEVICES set to them, to none
    when it requests none): its trials hold none of the cluster's GPUs, or a worker of it found no device."""
    requested = fc.get(facts, "runtime", "ray_gpus_requested")
    total = fc.get(facts, "runtime", "ray_gpus_total")
    no_device = fc.cuda_errors(facts, "NO_DEVICE")
    if requested or total == 0:
        return []
    if fc.ray_trials_see_a_gpu(facts):
        return []  # (nothing hid the GPU; sharing it is the risk: gpu.memory-held-by-other-processes)
    if requested == 0:
        title = f"Ray's running trials hold 0 of the cluster's {total} GPU(s): they run without a GPU"
    elif fc.get(facts, "runtime", "ray_worker") and no_device:
        title = "A Ray worker found no CUDA device: Ray gave its task no GPU"
    else:
        return []
    symptom = no_device or fc.get(facts, "runtime", "tf_visible_gpus") == 0
    return [
        Finding(
            "gpu.hidden-by-cuda-visible-devices",
            Status.FAIL if symptom else Status.WARN,
            title,
            detail="Ray sets CUDA_VISIBLE_DEVICES in each worker to the GPUs its task or trial requested,"
            " and to none when it requested none (the default), so TensorFlow there sees no GPU even though"
            " the machine has one.",
            plan=rm.plan(facts, P.note(rm.RAY_REQUEST_GPUS)),
            docs=cat.RAY_GPUS,
            facts=("runtime.ray_gpus_requested", "runtime.ray_gpus_total", "runtime.ray_worker",
                   "log.evidence"),
            evidence=fc.quote(facts, no_device),
            confidence="certain" if requested == 0 else "likely",
        )
    ]


def _fit(caps: Any, cc: str) -> str | None:
    """kernel_fit, with a malformed capability treated as "nothing fits"."""
    from tfdoctor.compat import kernel_fit

    try:
        return kernel_fit(tuple(str(c) for c in caps), cc)
    except ValueError:
        return None


def _gpu_ccs(facts: dict[str, Any], matrix: Any) -> list[tuple[str, str, str]]:
    """[(name, compute capability, source)] for each GPU whose capability is known: the driver's list,
    else TensorFlow's own device lines or the GPU a person named (a pasted log); by name from the compat
    table as a last resort."""
    out = []
    gpus, source = fc.gpus(facts, dev_nodes=True)
    if not any(g.get("name") or g.get("compute_capability") for g in gpus):
        tf_gpus, tf_source = fc.tf_gpus(facts)
        if tf_gpus:
            gpus, source = tf_gpus, tf_source
    for g in gpus:
        name = str(g.get("name") or f"GPU {g.get('index', '?')}")
        cc = g.get("compute_capability")
        src = source or ""
        if not cc and g.get("name") and matrix is not None:
            model = matrix.gpu(str(g["name"]))
            cc = getattr(model, "compute_capability", None) if model is not None else None
            src = "compat matrix (by name)"
        if cc:
            out.append((name, str(cc), src))
    return out


def _own_build(facts: dict[str, Any]) -> bool:
    """A source or nightly build, or any CUDA TensorFlow on macOS (no GPU wheel for it since 1.2): its
    kernels are its builder's, not the release wheel's."""
    version = fc.tf_version(facts) or ""
    return any(mark in version for mark in ("+", "dev", "nightly")) or fc.platform(facts) == "macos"


def _tf_caps(facts: dict[str, Any], matrix: Any) -> tuple[tuple[str, ...], str]:
    caps = fc.as_list(fc.build_info(facts).get("cuda_compute_capabilities"))
    if caps:
        return tuple(str(c) for c in caps), "build_info"
    release = fc.tf_release(matrix, facts)
    if _own_build(facts):
        return (), "compat matrix"
    caps = tuple(getattr(release, "compute_capabilities", ()) or ()) if release is not None else ()
    return tuple(str(c) for c in caps), "compat matrix"


def _older_caps(facts: dict[str, Any], matrix: Any) -> tuple[str, ...]:
    """The kernels of an older release's pip wheel, where the matrix knows them; not those of a source or
    vendor build (one that opened CUDA libraries of another major than the wheel's CUDA)."""
    version = fc.tf_version(facts) or ""
    if matrix is None or not version or _own_build(facts):
        return ()
    older = matrix.older_release(version)
    opened = fc.get(facts, "runtime", "cuda_libraries_major")
    if older is None or isinstance(opened, int) and opened != v.major(older.cuda):
        return ()
    return older.compute_capabilities


@check("gpu.compute-capability-unsupported", "gpu.compute-capability-ptx-jit", "gpu.compute-capability-ok")
def compute_capability(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    used = (
        "nvml.gpus.compute_capability",
        "nvidia_smi.gpus.name",
        "tensorflow.build_info.cuda_compute_capabilities",
    )
    fid = "gpu.compute-capability-unsupported"
    logged = _by_evidence(facts, matrix, used)
    if logged:
        return logged
    if not fc.tf_installed(facts):
        # (a pasted log without TensorFlow's release: its CUDA libraries failing on a GPU newer than the
        # environment's CUDA say enough)
        cuda, older = _predating(facts, matrix) if _library_failures(facts, wrong=False) else (None, [])
        found = [_predates_finding(facts, matrix, cuda, name, cc, first, used) for name, cc, first in older]
        return found or [skipped(fid, "Compute capability not checked", "TensorFlow is not installed.", used)]
    if fc.build_info(facts).get("is_cuda_build") is False:
        return [skipped(fid, "Compute capability not checked", "TensorFlow is not a CUDA build.", used)]
    caps, caps_source = _tf_caps(facts, matrix)
    if not caps:  # an older release: its CUDA may predate the GPU's architecture
        cuda, older = _predating(facts, matrix)
        if older:
            return [_predates_finding(facts, matrix, cuda, name, cc, first, used)
                    for name, cc, first in older]
        caps = _older_caps(facts, matrix)
    if not caps:
        return [
            skipped(
                fid,
                "Compute capability not checked",
                "The compute capabilities TensorFlow was built for are unknown.",
                used,
            )
        ]
    gpus = _gpu_ccs(facts, matrix)
    if not gpus:
        return [
            skipped(fid, "Compute capability not checked", "No GPU with a known compute capability.", used)
        ]
    tfv = fc.tf_version(facts)
    built = " ".join(caps)
    findings: list[Finding] = []
    sass = []
    for name, cc, src in dict.fromkeys(gpus):
        fit = _fit(caps, cc)
        if fit == "ptx" and _ptx_too_old(facts, matrix, cc):
            fit = None
        if fit == "sass":
            sass.append(f"{name} ({cc})")
        elif fit == "ptx":
            findings.append(
                Finding(
                    "gpu.compute-capability-ptx-jit",
                    Status.WARN,
                    f"{name} (compute capability {cc}) runs TensorFlow {tfv} only by JIT-compiling PTX",
                    detail=f"TensorFlow was built for {built} ({caps_source}); no native kernels for"
                    f" {cc}. The first"
                    " run compiles them for minutes; they are cached only if the CUDA cache is big enough."
                    " Some newer GPUs fail this JIT (CUDA_ERROR_INVALID_PTX).",
                    plan=rm.plan(facts, _JIT_CACHE),
                    docs=cat.NV_JIT,
                    facts=used,
                )
            )
        else:
            findings.append(
                Finding(
                    fid,
                    Status.FAIL,
                    f"TensorFlow {tfv} has no kernels for {name} (compute capability {cc})",
                    detail=f"It was built for {built} ({caps_source}); the GPU's capability ({cc}, from"
                    f" {src}) is not covered by SASS of the same major, and "
                    + ("its PTX comes from a CUDA toolkit too old to target this GPU (Blackwell needs CUDA"
                       " 12.8 or newer)." if _ptx_too_old(facts, matrix, cc)
                       else "there is no older PTX to JIT."),
                    plan=_cc_fix(facts, matrix, cc),
                    docs=cat.NV_GPUS,
                    facts=used,
                )
            )
    if sass:
        findings.append(
            Finding(
                "gpu.compute-capability-ok",
                Status.PASS,
                f"Native TensorFlow kernels for {', '.join(sass)}",
                detail=f"TensorFlow {tfv} was built for {built}.",
                facts=used,
            )
        )
    return findings


def _predating(facts: dict[str, Any], matrix: Any) -> tuple[str | None, list[tuple[str, str, str]]]:
    """TensorFlow's CUDA, and [(name, compute capability, first CUDA for it)] of the GPUs whose architecture
    is newer than the CUDA an older TensorFlow was built with (its build info, the CUDA runtime it opened, or
    the tested configuration of a release before the matrix's first); nightly and source builds are not
    judged."""
    cuda, source = fc.tf_cuda(facts, matrix)
    opened = fc.get(facts, "runtime", "cuda_libraries_major")  # "libcudart.so.12" opened: a newer build
    if not cuda and isinstance(opened, int):  # only the major its libraries name ("libcublas.so.10")
        cuda, source = str(opened), "the CUDA libraries it opened"
    if not cuda:
        cuda, source = _unversioned_cuda(facts, matrix)
    weak = False
    if not cuda:  # the CUDA the program's environment has: conda's runtime, or (weaker) the toolkit's nvcc
        dists = fc.distributions(facts)
        kit = next((dists[n] for n in fc.CONDA_CUDA if v.vtuple(dists.get(n))[:1] >= (7,)), None)
        nvcc = fc.text(fc.get(facts, "nvcc", "version"))
        if kit:
            cuda, source = v.major_minor(kit), "its conda environment's CUDA"
        elif nvcc:
            cuda, source, weak = v.major_minor(nvcc), "the CUDA toolkit (nvcc)", True
        else:  # (a person's "CUDA 10.1": the toolkit's or the driver's)
            cuda, source, weak = fc.text(fc.get(facts, "system", "cuda_stated")), "the CUDA stated", True
        if weak and not _library_failures(facts, wrong=False):  # (TensorFlow may load other CUDA libraries)
            return None, []
    if not cuda or source == "compat matrix" or isinstance(opened, int) and opened > (v.major(cuda) or 0):
        return cuda, []
    depth = 1 if "." not in cuda else 2  # a major alone compares by major
    # (cuBLAS failing to run a GEMM, not to allocate, or cuDNN failing to execute, says more: their kernels
    # for the major's first GPUs did not run on this one; against a CUDA a person stated, only a kernel that
    # failed to execute does)
    failed = fc.log_items(facts, "cublas-failed", "cudnn-failed")
    own = any(i.get("status") == "EXECUTION_FAILED" for i in failed) or not weak and any(
        i.get("status") not in (None, "ALLOC_FAILED") for i in fc.log_items(facts, "cublas-failed"))
    older = [(name, cc, first) for name, cc, _src in dict.fromkeys(_gpu_ccs(facts, matrix))
             for first in [_first_cuda(matrix, cc, own)]
             if first and v.vtuple(cuda)[:depth] < v.vtuple(first)[:depth]]
    return cuda, older


def _unversioned_cuda(facts: dict[str, Any], matrix: Any) -> tuple[str | None, str]:
    """Where TensorFlow's release is not shown but the log shows TensorFlow 1.x's API: the newest CUDA a 1.x
    release was built with (an upper bound)."""
    if fc.get(facts, "tensorflow", "api_major") == 1:
        ones = [r.cuda for r in getattr(matrix, "older", ()) if r.version.startswith("1.")]
        if ones:
            return max(ones, key=v.vtuple), "TensorFlow 1.x (its API in the log)"
    return None, ""


def _predates_finding(facts: dict[str, Any], matrix: Any, cuda: str | None, name: str, cc: str, first: str,
                      used: tuple[str, ...]) -> Finding:
    """A GPU newer than TensorFlow's CUDA: only PTX JIT can reach it, and libraries without PTX for it
    (the cuBLAS and cuDNN of CUDA 10.0) fail; a failure of theirs in the log makes it unsupported."""
    tf = f"TensorFlow {fc.tf_version(facts) or ''}".strip()
    failed = _library_failures(facts)
    plan = _cc_fix(facts, matrix, cc) if v.major(fc.tf_version(facts)) != 1 else rm.plan(facts, P.note(
        "TensorFlow 1.x code: NVIDIA's NGC container nvcr.io/nvidia/tensorflow:<yy.mm>-tf1-py3 runs"
        " TensorFlow 1.15 built with a CUDA that knows this GPU; otherwise port the code to TensorFlow 2"
        " (`tfdoctor matrix --gpu NAME` lists the releases with kernels for it)"))
    family = f"{cc.split('.')[0]}.x" if first == _first_cuda(matrix, cc) else cc  # (see _predating)
    known = fc.tf_version(facts) or fc.tf_installed(facts)
    why = (f"GPUs of compute capability {family} need CUDA {first} or newer; "
           + (f"{tf} was built with CUDA {cuda}, so nothing it ships" if known else
              f"this environment's CUDA is {cuda}, so nothing built with it")
           + " has native code for this GPU.")
    if failed:
        return Finding("gpu.compute-capability-unsupported", Status.FAIL,
                       f"{tf} (CUDA {cuda}) predates {name} (compute capability {cc})" if known else
                       f"This environment's CUDA {cuda} predates {name} (compute capability {cc})",
                       detail=why + " Its CUDA libraries fail on it (no cuBLAS/cuDNN kernel it can run, or"
                       " kernels that compute wrongly).",
                       plan=plan, docs=cat.NV_GPUS, facts=used, evidence=fc.quote(facts, failed))
    return Finding("gpu.compute-capability-ptx-jit", Status.WARN,
                   f"{name} (compute capability {cc}) runs {tf} only by JIT-compiling PTX",
                   detail=why + " The first run JIT-compiles for minutes (cached only if the CUDA cache is"
                   " big enough); libraries without PTX for it fail.",
                   plan=rm.plan(facts, _JIT_CACHE), docs=cat.NV_JIT, facts=used)


def _library_failures(facts: dict[str, Any], wrong: bool = True) -> list[dict[str, Any]]:
    """cuBLAS or cuDNN failing (or, `wrong`, computing wrongly): what a GPU newer than their CUDA does to
    them."""
    return fc.log_items(facts, "cublas-failed", "cudnn-failed", *(("wrong-results",) if wrong else ())) + [
        i for i in fc.log_items(facts, "stack-error") if str(i.get("code")).startswith(("CUBLAS_", "CUDNN_"))]


def _first_cuda(matrix: Any, cc: str, own: bool = False) -> str | None:
    """The first CUDA toolkit with code for this compute capability's major (binary code of X.0 runs on X.y):
    the oldest first_cuda of the architectures sharing it; `own`: of its own architecture (Turing's CUDA
    10.0, not Volta's 9.0)."""
    major = cc.split(".")[0]
    firsts = [a.first_cuda for a in getattr(matrix, "architectures", ()) or ()
              if a.first_cuda and any(c == cc if own else c.split(".")[0] == major
                                      for c in a.compute_capabilities)]
    return min(firsts, key=v.vtuple) if firsts else None


def _ptx_too_old(facts: dict[str, Any], matrix: Any, cc: str) -> bool:
    cuda, _ = fc.tf_cuda(facts, matrix)
    return _jit_unreachable(matrix, cuda, cc)


def _jit_unreachable(matrix: Any, cuda: str | None, cc: str) -> bool:
    """PTX JIT cannot reach this GPU: Blackwell (compute capability 10.0 and up) needs PTX from its first
    CUDA (12.8); TensorFlow's wheels are built with CUDA 12.5 ("PTX version 8.5 does not support target
    sm_120", https://docs.nvidia.com/cuda/blackwell-compatibility-guide/)."""
    first = _first_cuda(matrix, cc) if v.vtuple(cc)[:1] >= (10,) else None
    return bool(first and cuda and v.vtuple(cuda)[:2] < v.vtuple(first)[:2])


_JIT_CACHE = P.env("CUDA_CACHE_MAXSIZE", "4294967296", "a 4 GiB JIT cache; let the first run finish once")


def _cc_fix(facts: dict[str, Any], matrix: Any, cc: str) -> P.Plan:
    py = v.vtuple(fc.python_version(facts))[:2]
    for release in fc.all_releases(matrix):
        caps = tuple(getattr(release, "compute_capabilities", ()) or ())
        fits_python = (len(py) < 2
                       or v.vtuple(release.python_min)[:2] <= py <= v.vtuple(release.python_max)[:2])
        fit = _fit(caps, cc) if caps else None
        reachable = fit != "ptx" or not _jit_unreachable(matrix, release.cuda, cc)
        if fit is not None and fits_python and reachable:
            now = fc.tf_version(facts)
            change = f" (a change from your {now})" if now else ""
            return rm.plan(facts, rm.install(
                rm.tf_requirement(release.version), why=f"TensorFlow {release.version}, the newest release"
                f" with kernels for compute capability {cc}{change}; or build TensorFlow from source with"
                f" TF_CUDA_COMPUTE_CAPABILITIES={cc}"))
    if v.vtuple(cc)[:1] >= (10,):
        return rm.plan(facts, rm.install(
            "tf-nightly", why=f"no TensorFlow release has kernels for compute capability {cc} yet; the"
            f" nightly builds or a source build with CUDA >= 12.8 and TF_CUDA_COMPUTE_CAPABILITIES={cc}"
            " do (or run in NVIDIA's TensorFlow container)"))
    return rm.plan(facts, P.note(f"Build TensorFlow from source with TF_CUDA_COMPUTE_CAPABILITIES={cc}, or"
                                 " use a newer GPU"))


# No TensorFlow wheel has kernels below this: its own message ("The minimum required Cuda capability is 3.5")
# and its install page (https://www.tensorflow.org/install/pip, hardware requirements: "CUDA architectures
# 3.5, 5.0, 6.0, 7.0, 7.5, 8.0 and higher")
WHEEL_MIN_CC = (3, 5)


def _below_every_wheel(facts: dict[str, Any], matrix: Any, used: tuple[str, ...]) -> list[Finding]:
    """TensorFlow listing no GPU where the only GPUs shown are below every wheel's minimum capability (the
    release unknown, the answer is the same for all)."""
    gpus = list(dict.fromkeys(_gpu_ccs(facts, matrix)))
    visible = fc.get(facts, "runtime", "tf_visible_gpus")
    # TensorFlow's own enumeration of the GPU ("Found device 0 with properties: ... major: 3 minor: 0") with
    # nothing after it that registers the GPU: what an official wheel does, which ignores it
    enumerated = visible is None and bool(fc.get(facts, "runtime", "gpus")) and not _own_build(facts)
    # or a person saying it runs on the CPU (any framework's prebuilt wheels start at 3.5 or later)
    said = bool(fc.get(facts, "runtime", "cpu_fallback_stated"))
    if (visible != 0 and not enumerated and not said) or not gpus or any(
            v.vtuple(cc)[:2] >= WHEEL_MIN_CC for _, cc, _ in gpus):
        return []
    name, cc, src = gpus[0]
    return [Finding(
        "gpu.compute-capability-unsupported",
        Status.FAIL,
        f"No TensorFlow release has kernels for {name} (compute capability {cc})",
        detail=f"TensorFlow's wheels start at compute capability 3.5, and {cc} ({src}) is below it;"
        + (" TensorFlow here lists no GPU." if visible == 0 else
           " the program runs on the CPU, as written here." if said and not enumerated else
           " TensorFlow here found the GPU and registered none: only a source build for it can use it."),
        plan=_cc_fix(facts, matrix, cc),
        docs=cat.NV_GPUS,
        facts=used,
        confidence="likely",
    )]


def _native(facts: dict[str, Any], matrix: Any) -> bool:
    """Whether every GPU of known compute capability has native kernels (SASS) in this build."""
    caps = _tf_caps(facts, matrix)[0]
    gpus = _gpu_ccs(facts, matrix)
    return bool(caps and gpus) and all(_fit(caps, cc) == "sass" for _, cc, _ in gpus)


def _by_evidence(facts: dict[str, Any], matrix: Any, used: tuple[str, ...]) -> list[Finding]:
    """What TensorFlow's own log says about kernels for the GPU."""
    rocm = fc.log_items(facts, "rocm-arch")
    if rocm:  # an AMD GPU under a ROCm build: its architecture is a gfx target, not a compute capability
        arch = next((f" ({i['arch']})" for i in rocm if i.get("arch")), "")
        return [Finding(
            "gpu.compute-capability-unsupported",
            Status.FAIL,
            f"This ROCm TensorFlow build has no code for the AMD GPU{arch}",
            detail="TensorFlow's ROCm builds carry code for the AMD GPU architectures (gfx targets) they"
            " list; for this GPU's there is none, so TensorFlow ignores the GPU or the HIP runtime aborts.",
            plan=rm.plan(facts, P.note("Install the ROCm and tensorflow-rocm releases that support this GPU's"
                                       " gfx target (AMD's compatibility matrix lists them)")),
            docs=cat.ROCM_GPUS,
            facts=used,
            evidence=fc.quote(facts, rocm),
        )]
    ignored = fc.log_items(facts, "cc-ignored")
    jit = fc.log_items(facts, "cc-jit")
    if any(i.get("stall_s") for i in jit) and _native(facts, matrix):  # slow for another reason
        jit = [i for i in jit if not i.get("stall_s")]
    # NVIDIA's image refusing the GPUs it was given (one started without GPUs has none: driver.missing)
    image = [] if fc.container_without_gpus(facts) else fc.log_items(facts, "image-gpu-check")
    failed = (fc.cuda_errors(facts, *stackerrors.errors_for("gpu.compute-capability-unsupported"))
              + fc.log_items(facts, "ptx-target") + image)
    cuda = fc.tf_cuda(facts, matrix)[0]
    unreachable = any(v.vtuple(cc)[:1] >= (10,) and (not cuda or _jit_unreachable(matrix, cuda, cc))
                      for _, cc, _ in _gpu_ccs(facts, matrix))
    if jit or unreachable:  # a kernel handle that is not there: none was built or JIT-compiled for this GPU
        failed += fc.cuda_errors(facts, "INVALID_HANDLE")
    if not (ignored or jit or failed):
        return _below_every_wheel(facts, matrix, used)
    ccs = [str(i["cc"]) for i in ignored + jit if i.get("cc")] + [cc for _, cc, _ in _gpu_ccs(facts, matrix)]
    cc = ccs[0] if ccs else None
    target = next((i.get("target") for i in failed if i.get("target")), None)
    if not cc and target:
        digits = str(target).rstrip("af")
        cc = f"{digits[:-1]}.{digits[-1]}"
    on = f" (compute capability {cc})" if cc else ""
    # code a newer compiler than the driver's CUDA produced, refused: the driver's doing (driver.py says so)
    past_driver = (not ignored and fc.toolkit_past_driver(facts) is not None
                   and all(i.get("error") in fc.PAST_DRIVER_ERRORS for i in failed))
    if ignored or failed:
        minimum = next((i.get("minimum") for i in ignored if i.get("minimum")), None)
        why = (f"TensorFlow ignores GPUs below compute capability {minimum}." if minimum else
               "NVIDIA's container image supports none of the GPUs it was given: its CUDA predates this GPU;"
               " an image of a newer release runs it." if image and len(image) == len(failed) else
               "TensorFlow has no kernel this GPU can run: no SASS for it, and the PTX it ships cannot be"
               " JIT-compiled for it.")
        return [
            Finding(
                "gpu.compute-capability-unsupported",
                Status.FAIL,
                f"This TensorFlow build has no kernels for the GPU{on}",
                detail=why + (" A JIT from PTX was tried and failed." if jit and failed else ""),
                plan=_cc_fix(facts, matrix, cc) if cc else rm.plan(facts, P.note(
                    "Install a TensorFlow release built for this GPU's compute capability"
                    " (`tfdoctor matrix --gpu NAME`)")),
                facts=used,
                evidence=fc.quote(facts, ignored + failed + jit),
                # with the GPU unknown, CUDA packages of two majors in the environment explain it better;
                # XLA's code for a GPU its ptxas does not know is what the driver then refuses, as is the
                # PTX XLA hands the driver to compile where it found no ptxas
                caused_by="driver.minor-version-compat" if past_driver else
                "tensorflow.conflicting-installs" if not cc and fc.conda_cuda_majors(facts) else
                "xla.ptxas-too-old" if not ignored and fc.log_items(facts, "ptxas-old") else
                "xla.toolchain-missing" if not ignored and not jit and fc.log_items(facts, "xla-tools")
                and all(i.get("error") == "INVALID_PTX" for i in failed) else None,
            )
        ]
    stalled = next((i for i in jit if i.get("stall_s")), None)
    seen = (f"TensorFlow took {stalled['stall_s']:.0f} s to create its GPU devices (line {stalled['line']}):"
            " with no native kernels (SASS) for the GPU in this build, the driver JIT-compiles PTX there. "
            if stalled else "")
    return [
        Finding(
            "gpu.compute-capability-ptx-jit",
            Status.WARN,
            f"No native kernels for the GPU{on}: TensorFlow JIT-compiles them from PTX",
            detail=f"{seen}The first run compiles kernels for minutes; they are cached only if the CUDA cache"
            " is big enough. Nothing failed after it in this log.",
            plan=rm.plan(facts, _JIT_CACHE),
            facts=used,
            evidence=fc.quote(facts, jit),
        )
    ]


@check("gpu.count-below-required", "gpu.count-ok", judges="require_gpus")
def count_required(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    used = (
        "options.require_gpus",
        "runtime.tf_visible_gpus",
        "nvml.gpus",
        "nvidia_smi.gpus",
        "system.env.CUDA_VISIBLE_DEVICES",
    )
    need = fc.as_dict(facts.get("options")).get("require_gpus")
    if need is None:
        return []
    if isinstance(need, bool) or not isinstance(need, int) or need < 0:
        return [
            skipped(
                "gpu.count-below-required",
                "GPU count not checked",
                f"--require-gpus {need!r} is not a count of GPUs (0 or more).",
                used,
            )
        ]
    if need == 0:
        return [Finding("gpu.count-ok", Status.PASS, "No GPU required (--require-gpus 0)",
                        detail="--require-gpus 0 asks for no GPU, so the count cannot fall short.",
                        facts=used)]
    have, source = _usable_gpus(facts)
    if have is None:
        return [
            Finding(
                "gpu.count-below-required",
                Status.FAIL,
                f"Could not confirm any GPU; {need} required",
                detail="Neither the TensorFlow worker nor NVML/nvidia-smi/dev nodes reported a GPU count.",
                plan=rm.plan(facts, P.note("Fix the failures above (driver, TensorFlow) and run"
                                           " `tfdoctor check` without --quick.")),
                facts=used,
            )
        ]
    if have >= need:
        return [
            Finding(
                "gpu.count-ok",
                Status.PASS,
                f"{have} GPU(s) usable, {need} required",
                detail=f"Counted by {source}.",
                facts=used,
            )
        ]
    cvd = _cvd(facts)
    hint = (P.system("unset CUDA_VISIBLE_DEVICES", "it hides GPUs"),) if cvd is not None else ()
    return [
        Finding(
            "gpu.count-below-required",
            Status.FAIL,
            f"Only {have} GPU(s) usable, {need} required",
            detail=f"Counted by {source}.",
            plan=rm.plan(facts, *hint, P.note(
                f"{'; f' if hint else 'F'}ix the failures above, or run on a machine with {need} GPUs"
                f" (SLURM: --gres=gpu:{need}; Kubernetes: nvidia.com/gpu: {need}).")),
            facts=used,
        )
    ]


def _usable_gpus(facts: dict[str, Any]) -> tuple[int | None, str]:
    runtime = fc.section(facts, "runtime")
    if runtime and runtime.get("ran"):
        seen = runtime.get("tf_visible_gpus")
        if isinstance(seen, list):
            seen = len(seen)
        if isinstance(seen, int) and not isinstance(seen, bool):
            return seen, "the TensorFlow worker (tf.config.list_physical_devices('GPU'))"
    why = (
        "the worker gave no GPU count" if runtime and runtime.get("ran") else "TensorFlow itself was not run"
    )
    gpus, source = fc.gpus(facts, dev_nodes=True)
    if source is None:
        return None, ""
    cvd = _cvd(facts)
    if cvd is None:
        return len(gpus), f"{source} ({why})"
    picked = fc.cuda_visible(cvd, gpus)
    visible = None if picked is None else len(picked)
    if visible is None:
        return len(gpus), f"{source}; CUDA_VISIBLE_DEVICES={cvd!r} could not be resolved ({why})"
    return visible, f"{source}, minus CUDA_VISIBLE_DEVICES={cvd!r} ({why})"
