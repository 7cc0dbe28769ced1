"""cuDNN: is one TensorFlow can load installed, of the major and minor TensorFlow was built with."""

from __future__ import annotations

from typing import Any

from tfdoctor import catalogue as cat
from tfdoctor import facts as fc
from tfdoctor import plan as P
from tfdoctor import versions as v
from tfdoctor.checks import check, moot_without_gpu, skipped
from tfdoctor.checks import remedies as rm
from tfdoctor.checks.cuda import cuda_target, loadable, unreachable, wheel_reachable
from tfdoctor.model import Finding, Status


def _cudnn_pin(facts: dict[str, Any], matrix: Any, wheel: str, want_major: int) -> str:
    release = fc.tf_release(matrix, facts)
    spec = fc.as_dict(getattr(release, "and_cuda", None)).get(wheel) if release is not None else None
    if isinstance(spec, str) and spec.strip():
        spec = spec.strip()
        return f"{wheel}{spec}" if spec[0] in "<>=!~" else f"{wheel}=={spec}"
    cu11 = next((w for w in rm.CU11_WHEELS if w.startswith(f"{wheel}==")), None)
    if cu11 and release is not None and v.major(release.cudnn) == want_major:
        return cu11  # 2.12/2.13: the exact wheel TensorFlow's own install guide named
    return f"{wheel}=={want_major}.*"


_JAX_WORDS = ("jax", "filteredstacktrace", "xlaruntimeerror")


def _wheel_major(facts: dict[str, Any], matrix: Any, compiled: str | None) -> int | None:
    """The CUDA major of the nvidia-cudnn wheel that fits: TensorFlow's CUDA, else the CUDA runtime
    libraries named in the log, else what the cuDNN TensorFlow was compiled with implies."""
    cuda, _ = fc.tf_cuda(facts, matrix)
    if cuda:
        return v.major(cuda)
    majors = [v.library_cuda_major(str(i.get("library")))
              for i in fc.failed_libraries(facts, "cuda-runtime")]
    if any(majors):
        return min(m for m in majors if m)
    if compiled and v.version_ge(compiled, (8, 9)):
        return 12
    if compiled and v.version_ge(compiled, (8, 6)):
        return 11
    return None


def _by_evidence(facts: dict[str, Any], matrix: Any, used: tuple[str, ...]) -> Finding | None:
    """cudnn.version-mismatch / cudnn.missing from TensorFlow's own words in the log."""
    other, cuda = fc.cudnn_for_other_cuda(facts, matrix)
    if other:
        built = other[0].get("major")
        return Finding(
            "cudnn.version-mismatch",
            Status.FAIL,
            f"The cuDNN installed is built for CUDA {built}; this environment is CUDA {cuda}",
            detail=f"cuDNN's loader looks for {other[0].get('library')}, a CUDA {built} library: each cuDNN"
            f" build is made for one CUDA major, and this one is not CUDA {v.major(cuda)}'s.",
            plan=rm.plan(facts, P.system(f"install the cuDNN build for CUDA {v.major(cuda)}",
                                         f"nvidia-cudnn-cu{v.major(cuda)} (pip), cudnn with"
                                         f" cuda-version={v.major_minor(cuda)} (conda), or the libcudnn"
                                         f" package whose version ends in +cuda{v.major_minor(cuda)} (apt)")),
            facts=used,
            evidence=fc.quote(facts, other),
        )
    mismatch = fc.log_items(facts, "cudnn-version")
    if mismatch:
        item = mismatch[0]
        loaded = v.norm_cudnn(item.get("loaded"))
        compiled = v.norm_cudnn(item.get("compiled")) or fc.tf_cudnn(facts, matrix)
        cu = _wheel_major(facts, matrix, compiled)
        tfv = fc.tf_version(facts)
        if cu and (not tfv or v.version_ge(tfv, (2, 14))):
            wheel = f"nvidia-cudnn-cu{cu}"
            pin = _cudnn_pin(facts, matrix, wheel, v.major(compiled) or 0) if tfv else f"{wheel}>={compiled}"
            fix = rm.plan(facts, rm.install(pin, why="then make sure nothing loads an older cuDNN first:"
                          " LD_LIBRARY_PATH, a conda cudnn package, or another framework"
                          " pinning nvidia-cudnn"))
        else:
            pin = f"={v.major_minor(compiled) or compiled}" if compiled else ""
            conda = f"conda install -c conda-forge cudnn{pin}"
            fix = rm.plan(facts, P.system(conda,
                                          "the cuDNN TensorFlow was compiled with; remove older cuDNN copies"
                                          " from LD_LIBRARY_PATH"))
        other = bool(loaded and compiled) and v.major(loaded) != v.major(compiled)
        why = ("a different major version, which TensorFlow cannot use" if other else
               "an older minor version than TensorFlow was compiled with; cuDNN runs only with the same or a"
               " newer minor")
        return Finding(
            "cudnn.version-mismatch",
            Status.FAIL,
            f"cuDNN {loaded or '(an older one)'} loaded, but the build needs cuDNN"
            f" {compiled or '(a newer one)'} (the version it was compiled with)",
            detail=f"The cuDNN found first at run time is {why}. Convolutions and RNNs fail on the GPU.",
            plan=fix,
            facts=used,
            evidence=fc.quote(facts, mismatch),
        )
    # XLA's "DNN library is not found" where cuDNN then failed to start or to pick an algorithm: it was
    # loaded, and that failure is what it says (cudnn.init-failed)
    unfound = [] if fc.log_items(facts, "cudnn-failed") else fc.log_items(facts, "dnn-not-found")
    mixed = {i.get("line") for i in fc.log_items(facts, "cuda-mixed")}  # found, but from two installs
    failed = [i for i in fc.failed_libraries(facts, "cudnn") if i.get("line") not in mixed]
    # (JAX words its errors as its own: "FilteredStackTrace: RuntimeError: ...", "XlaRuntimeError: ...")
    tensorflows = not any(i.get("xla") or any(w in str(i.get("text")).lower() for w in _JAX_WORDS)
                          for i in unfound)
    if unfound and not failed and tensorflows:
        return _unusable(facts, matrix, used, unfound)
    items = failed + unfound
    if not items:
        return None
    names = list(dict.fromkeys(str(i.get("library")) for i in items if i.get("library")))
    majors = {v.library_major(n) for n in names} - {None}
    want = f"cuDNN {min(majors)}" if majors else "cuDNN"
    cu = _wheel_major(facts, matrix, None)
    extra = fc.text(fc.get(facts, "runtime", "pip_cuda_extra"))
    wheels = sorted(d for d in fc.distributions(facts) if d.startswith("nvidia-cudnn-cu"))
    if extra or wheels:  # pip put a cuDNN wheel in place: the one it resolved is not the one the build loads
        return Finding(
            "cudnn.version-mismatch",
            Status.FAIL,
            f"cuDNN came from pip ({extra or wheels[0]}) yet cannot be loaded: not the version the build"
            " needs",
            detail="The CUDA extra installs cuDNN as an nvidia-cudnn wheel; a cuDNN that is there but will"
            " not load is another version than the framework was compiled against (a newer major that"
            " another package pulled in, or an older one found first on LD_LIBRARY_PATH).",
            plan=rm.plan(facts, P.system("python -m pip show nvidia-cudnn-cu12 nvidia-cudnn-cu11",
                                         "then reinstall the framework with its own pins, e.g. `python -m pip"
                                         f" install --force-reinstall '{extra or 'jax[cuda12]'}'` (keep your"
                                         " version with ==X.Y.Z), and unset LD_LIBRARY_PATH if it names"
                                         " another cuDNN")),
            facts=used + ("runtime.pip_cuda_extra",),
            evidence=fc.quote(facts, items),
        )
    return Finding(
        "cudnn.missing",
        Status.FAIL,
        f"TensorFlow cannot load {want}" + (f" ({', '.join(names[:2])})" if names else ""),
        detail="TensorFlow could not load cuDNN, which convolutions and RNNs on the GPU need;"
        " it skips the GPU.",
        plan=rm.cuda_plan(facts, matrix, cu),
        facts=used,
        evidence=fc.quote(facts, items),
    )


def _unusable(facts: dict[str, Any], matrix: Any, used: tuple[str, ...],
              items: list[dict[str, Any]]) -> Finding:
    """TensorFlow's "DNN library is not found" at a GPU operation with no cuDNN that failed to load (XLA's
    autotuner quoting it, and JAX, register a GPU without cuDNN: for them it is missing): a cuDNN
    it could not open would have kept the GPU out of its devices (TensorFlow checks cuDNN before it
    registers a GPU), so one was loaded, and its DNN support then refused it, as it does a cuDNN older
    than the one it was compiled with (its "Loaded runtime CuDNN library" line says which)."""
    compiled = fc.tf_cudnn(facts, matrix)
    cu = _wheel_major(facts, matrix, compiled)
    tfv = fc.tf_version(facts)
    if cu and (not tfv or v.version_ge(tfv, (2, 14))):
        wheel = f"nvidia-cudnn-cu{cu}"
        pin = _cudnn_pin(facts, matrix, wheel, v.major(compiled) or 0) if tfv and compiled else wheel
        fix = rm.plan(facts, rm.install(pin, why="then make sure nothing loads an older cuDNN first:"
                                        " LD_LIBRARY_PATH, a conda cudnn package, or the system's libcudnn"))
    else:
        fix = rm.plan(facts, P.system(
            "python -c 'import tensorflow as tf; print(tf.sysconfig.get_build_info()[\"cudnn_version\"])'",
            "the cuDNN it was built with; install that cuDNN (or a newer minor of its major) and take older"
            " copies off LD_LIBRARY_PATH; on Colab, keep the runtime's own TensorFlow"))
    return Finding(
        "cudnn.version-mismatch",
        Status.FAIL,
        "TensorFlow loaded a cuDNN it cannot use (\"DNN library is not found\"): most likely older than"
        + (f" the cuDNN {compiled} it was built with" if compiled else " the one it was built with"),
        detail="A cuDNN that does not load keeps the GPU out of TensorFlow's devices; this one loaded, and"
        " TensorFlow's DNN support then refused it, as it does a cuDNN older than its build's (the log's"
        " \"Loaded runtime CuDNN library\" line, where shown, gives both versions). Convolutions and RNNs"
        " fail on the GPU.",
        plan=fix,
        facts=used,
        evidence=fc.quote(facts, items),
    )


@check("cudnn.missing", "cudnn.version-mismatch", "cudnn.ok")
@moot_without_gpu
def cudnn_present(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    used = ("tensorflow.build_info.cudnn_version", "tensorflow.distributions", "libraries.loadable",
            "log.evidence")
    logged = _by_evidence(facts, matrix, used)
    if logged is not None:
        return [logged]
    cuda, why = cuda_target(facts, matrix)
    if cuda is None:
        return [skipped("cudnn.missing", "cuDNN not checked", why, used)]
    release = fc.tf_release(matrix, facts)
    built = fc.tf_cudnn(facts, matrix)
    if not built:
        return [
            skipped(
                "cudnn.missing",
                "cuDNN not checked",
                "The cuDNN version TensorFlow was built with is unknown.",
                used,
            )
        ]
    want = v.major(built)
    # the minor TF was compiled with: build_info only has the major; the matrix row has major.minor
    floor = v.vtuple(release.cudnn) if release is not None and v.major(release.cudnn) == want else (want,)
    cu = v.major(cuda)
    wheel = f"nvidia-cudnn-cu{cu}"
    dists = fc.distributions(facts)
    pin = _cudnn_pin(facts, matrix, wheel, want)
    if wheel in dists and wheel_reachable(facts, wheel) is False:
        return [unreachable(facts, [wheel], used, "cudnn.missing")]
    if wheel in dists:
        have = dists[wheel]
        if v.major(have) != want or v.vtuple(have)[:2] < floor[:2]:
            floor_text = ".".join(map(str, floor))
            return [
                Finding(
                    "cudnn.version-mismatch",
                    Status.FAIL,
                    f"cuDNN {have} ({wheel}) but TensorFlow needs cuDNN {floor_text}",
                    detail=f"TensorFlow {fc.tf_version(facts)} was built with cuDNN {floor_text}; cuDNN"
                    f" refuses to run"
                    " a build compiled against a newer minor, and a different major does not load at all.",
                    plan=rm.wheel_plan(facts, pin),
                    docs=cat.TF_PIP,
                    facts=used,
                )
            ]
        return [
            Finding(
                "cudnn.ok", Status.PASS, f"cuDNN {have} ({wheel}) for TensorFlow's cuDNN {built}", facts=used
            )
        ]
    if fc.section(facts, "libraries") is None:
        return [
            skipped(
                "cudnn.missing",
                "cuDNN not checked",
                f"No {wheel} wheel, and {fc.probe_error(facts, 'libraries')}.",
                used,
            )
        ]
    system = loadable(facts, "libcudnn", want)
    if system:
        return [
            Finding(
                "cudnn.ok",
                Status.PASS,
                f"cuDNN {want} from the system: {system[0]}",
                detail=f"No {wheel} wheel; TensorFlow will load the system cuDNN {want}.",
                facts=used,
            )
        ]
    others = [p for m in range(5, 12) if m != want for p in loadable(facts, "libcudnn", m)]
    if others:
        return [
            Finding(
                "cudnn.version-mismatch",
                Status.FAIL,
                f"Only a different cuDNN major is installed: {others[0]}",
                detail=f"TensorFlow {fc.tf_version(facts)} needs libcudnn.so.{want}.",
                plan=rm.wheel_plan(facts, pin),
                docs=cat.TF_PIP,
                facts=used,
            )
        ]
    return [
        Finding(
            "cudnn.missing",
            Status.FAIL,
            f"No cuDNN {want} for TensorFlow",
            detail=f"Neither the {wheel} wheel nor libcudnn.so.{want} in the ld cache / LD_LIBRARY_PATH"
            f" was found;"
            " TensorFlow falls back to the CPU.",
            plan=rm.wheel_plan(facts, pin),
            docs=cat.TF_PIP,
            facts=used,
        )
    ]


@check("cudnn.init-failed")
def cudnn_initialised(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    """cuDNN was loaded but could not start (a handle, its workspace, a status of its own)."""
    items = fc.log_items(facts, "cudnn-failed")
    if not items:
        return []
    status = next((str(i["status"]) for i in items if i.get("status") and i["status"] != "INIT"), None)
    title = "cuDNN failed to initialise" + (f" (CUDNN_STATUS_{status})" if status else "")
    asserted = fc.device_asserts(facts)  # (then it is what the program's own assert left behind)
    cause = "log.program-error" if asserted else None
    roomy = [i for i in fc.log_items(facts, "cudnn-report")
             if int(i.get("total") or 0) and int(i.get("free") or 0) >= int(i["total"]) // 2]
    if roomy:  # most of the GPU's memory was free when it failed: not for want of memory
        free, total = (int(roomy[0][k]) >> 20 for k in ("free", "total"))
        driver, _ = fc.driver_version(facts)
        return [Finding(
            "cudnn.init-failed",
            Status.FAIL,
            title,
            detail=f"{free} of {total} MiB of the GPU's memory were free when cuDNN failed, so memory is not"
            " the cause: the cuDNN loaded does not fit the CUDA libraries, or the driver"
            + (f" ({driver})" if driver else "") + " is older than that cuDNN and CUDA need.",
            plan=rm.plan(facts, P.system("nvidia-smi", "shows the driver and the newest CUDA it runs. Then:"),
                         P.note("install the cuDNN release made for the framework's CUDA (its pip wheel:"
                                " nvidia-cudnn-cuNN), or update the driver to one for that CUDA")),
            facts=("log.evidence",),
            evidence=fc.quote(facts, asserted[:1] + items + roomy),
            caused_by=cause,
        )]
    return [
        Finding(
            "cudnn.init-failed",
            Status.FAIL,
            title,
            detail="cuDNN was found but could not start. Most often the GPU's memory was already taken (by"
            " TensorFlow's default of reserving it all, or by another process); otherwise the cuDNN build"
            " does not match the CUDA libraries or the GPU.",
            plan=rm.memory_growth(facts, matrix),
            facts=("log.evidence",),
            evidence=fc.quote(facts, asserted[:1] + items),
            caused_by=cause,
        )
    ]
