"""Reading any pasted text into facts: the same sections the probes fill, plus the log's evidence.

`read(lines, source)` streams the text once (bounded memory whatever its size), in chunks of whole
lines: one multi-literal search per chunk (tfdoctor/logs/triggers.py) picks the lines that hold a word
some signature, code, notice, error-line rule, value reader or block finder declares (or an error log
prefix), and only those (and the lines a table or a heading before them asks for) are decoded and read;
of those, a line whose shape (its text, its numbers masked: tfdoctor/logs/shapes.py) was seen to change
nothing but counters is only counted. It returns facts:
- probe-shaped sections (system, nvidia_smi, nvcc, tensorflow, runtime) holding the versions and
  names the text shows, for `explain` (source "explain"); the checks judge them as they judge
  probed facts;
- `log`: {source, lines_read, evidence: [{kind, line, text, ...}], counts: {kind: n},
  noise: {name: n}, unrecognized: [{line, text}], unrecognized_count, provenance:
  {"tensorflow.version": line, ...}, platform_hints: [...]} — what failed, by mechanism
  (tfdoctor/logs/evidence.py) and by error code (tfdoctor/logs/codes.py); the harmless notices seen,
  by name; the error lines (tfdoctor/logs/errorlines.py) none of that explains. The checks decide
  which finding each item supports.

For the worker's own log (source "worker") only `log` is kept, without program errors, a failed import
or unrecognised lines: probes already measured the rest, and the worker's failed steps say what its
errors were.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from tfdoctor import stackerrors as se
from tfdoctor.logs import codes, errorlines, shapes, stall
from tfdoctor.logs import evidence as ev
from tfdoctor.logs import values as values_mod
from tfdoctor.logs.errorlines import is_error, severe
from tfdoctor.logs.lines import DRIVER_WORDS, MAX_LINE, VERSION_WORDS, normalize
from tfdoctor.logs.triggers import Finder, all_starts
from tfdoctor.logs.values import Values
from tfdoctor.versions import library_family, major, vtuple

MAX_ITEMS_PER_KIND = 12  # evidence items kept per mechanism (the count keeps going)
MAX_UNRECOGNIZED = 20  # unrecognised error lines kept (the count keeps going)
MAX_SEEN = 200_000  # distinct lines remembered to skip repeats
SHORT_LINE = 24  # shorter lines are read again when repeated
_NGC_DETECTED = re.compile(r"version (\d{3}\.\d{1,3}(?:\.\d{1,3})?) was detected")
QUOTE = 300  # characters of a line quoted as evidence
CHUNK = 1 << 20  # bytes read at once by the cheap pass
# One C-level scan each: a word of some harmless notice, a word of some library's error code.
# The first word of every harmless notice, and the words of every code: when the cheap pass found a line's
# trigger words (it looks for these too), a set test says whether to look further.
_NOISE_FIRST = frozenset(words[0] for _, forms in se.NOISE.values() for words in forms)
_NOISE_WORD = re.compile("|".join(sorted(re.escape(w) for w in _NOISE_FIRST)))
_CODE_WORD = re.compile("|".join(map(re.escape, codes.TRIGGERS)))
_CUDNN_VALUE = re.compile(r"(installed version|minimum supported|version \w{1,12} was built against)"
                          r"\s{0,3}:\s{0,3}(\d{3,6}(?:\.\d{1,4}){0,2})\b")
# Keras 3's sources live in keras/src/ (Keras 2's in keras/engine, keras/layers, ...): a traceback through
# them that ends in an API error (an argument, attribute, class or module that is not there) is Keras 2
# code meeting Keras 3
_KERAS3_FRAME = re.compile(r"keras[/\\]src[/\\]")
# ... of which these exist in Keras 3 alone (Keras 2.13-2.15 also has keras/src/, with engine/, backend.py)
_KERAS3_ONLY_FRAME = re.compile(r"keras[/\\]src[/\\](?:backend|ops|trainers)[/\\]|"
                                r"keras[/\\]src[/\\](?:layers[/\\]layer|models[/\\]functional)\.py")
_API_ERROR = re.compile(
    r"^(?:[\w.]{1,60}\.)?(?:ValueError|TypeError|AttributeError|ImportError|ModuleNotFoundError)\b:?\s{0,3}"
    r"[^\n]{0,200}?(?:not recognized|[Uu]nrecognized keyword|unexpected keyword argument|"
    # a module's or a Keras class's missing name, not any object's ('NoneType' has no attribute is a bug)
    r"module '(?:tf_)?keras[\w.]{0,80}' has no attribute|"
    r"'(?:Sequential|Functional|Model|\w{0,30}Layer|\w{0,30}Optimizer|Adam|SGD|RMSprop|KerasTensor)'"
    r" object has no attribute|"
    r"[Cc]ould not (?:locate|interpret|deserialize)|no longer supported|"
    # a Keras module or name that is gone (another package missing, e.g. pydot, is not Keras 3's doing)
    r"cannot import name '\w{1,60}' from '(?:tf_)?keras|No module named '(?:tf_)?keras\.|"
    r"Only instances of `?keras\.|is not supported in Keras 3)")
# The part of those API errors that names Keras's own objects or modules: without Keras 3's frames it is
# Keras 3's doing only where the paste shows TensorFlow >= 2.16 or Keras >= 3 (else the program's own bug)
_KERAS_API_ERROR = re.compile(
    r"^(?:[\w.]{1,60}\.)?(?:TypeError|AttributeError|ImportError|ModuleNotFoundError)\b:?\s{0,3}(?:"
    r"module '(?:tf_)?keras[\w.]{0,80}' has no attribute|"
    r"'(?:Sequential|Functional|\w{0,40}Model|KerasTensor|\w{0,30}Optimizer|Adam|SGD|RMSprop)'"
    r" object has no attribute|"
    r"cannot import name '\w{1,60}' from '(?:tf_)?keras|No module named '(?:tf_)?keras\.)|"
    # Keras 2 code handed a Keras 3 object (an optimizer of keras.src) it cannot interpret
    r"^(?:[\w.]{1,60}\.)?ValueError:\s{0,3}Could not interpret \w{1,30} identifier: <keras\.src\.")
TRACEBACK_WINDOW = 80  # lines from a package's frame to the exception that ends its traceback
# protobuf's own code raising an API error (a name its runtime lacks, a descriptor it refuses), or an
# import from it failing (Python 2 names no module: "cannot import name symbol_database"): the runtime
# does not match the code generated for another one (google/protobuf, or its upb core). A C++ runtime
# too old for its extension, or a library not found, is the loader's error, not protobuf's.
_PROTOBUF_FRAME = re.compile(r"google[/\\](?:protobuf|_upb)[/\\]|from google\.protobuf(?:\.\w{1,40}){0,3}"
                             r" import")
_PROTOBUF_ERROR = re.compile(r"^(?:[\w.]{1,60}\.)?(?:TypeError|AttributeError|ImportError)\b(?![^\n]{0,400}"
                             r"(?:version [`'\\]{0,2}(?:GLIBC|CXXABI)|cannot open shared object))")
# TensorFlow registering its bfloat16 NumPy type: a refusal there is a NumPy of another ABI
_BFLOAT16_FRAME = re.compile(r"_pywrap_bfloat16\.TF_bfloat16_type\(\)")
_BFLOAT16_ERROR = re.compile(r"^TypeError: Unable to convert function return value to a Python type")
# TensorFlow loading an add-on's compiled ops (tensorflow_text, tensorflow_addons, ...): refused, they were
# built against another TensorFlow (its C++ symbols are no stable ABI), unless a CUDA library is missing
_OP_LIBRARY_FRAME = re.compile(r"\bin load_op_library\b|\bTF_LoadLibrary\(")
_OP_LIBRARY_ERROR = re.compile(r"^(?:[\w.]{1,60}\.)?NotFoundError\b"
                               r"(?![^\n]{0,400}(?:libcu|libnv|cudart|cudnn|cublas))")
_ADDON_PATH = re.compile(r"[/\\](tensorflow_(?!core[/\\])[a-z_]{2,30})[/\\]")
# ... or the add-on an import statement names, as a traceback shows the line that failed (IPython's
# "----> 1 import tensorflow_addons as tfa", its frames in the add-on folded away as "3 frames")
_ADDON_IMPORT = re.compile(r"(?:-{1,8}> ?\d{1,5}\s{1,8}|\s{0,8})(?:import|from) "
                           r"(tensorflow_(?!core\b)[a-z_]{2,30})\b")
# the installed package whose op library the refusal names ("site-packages/tf_sentencepiece/_ops.so: ...")
_ADDON_LIBRARY = re.compile(r"(?:site|dist)-packages[/\\]([A-Za-z][\w-]{1,40})[/\\][^\s:]{0,200}?\.so\b")
# The standalone Keras 2 package's own code asking TensorFlow for a module or name it lacks: that Keras is
# another release than the TensorFlow beside it (tf.keras imports it)
_KERAS2_FRAME = re.compile(r"[/\\](?:site|dist)-packages[/\\]keras[/\\](?!src[/\\])")
_KERAS2_ERROR = re.compile(r"^(?:[\w.]{1,60}\.)?(?:ModuleNotFoundError|ImportError|AttributeError)\b:?\s{0,3}"
                           # (TensorFlow 2.0 and 2.1 kept their modules in tensorflow_core)
                           r"(?:No module named '?tensorflow(?:_core)?\.|"
                           r"cannot import name '?\w{1,80}'? from '?tensorflow(?:_core)?\.|"
                           r"module '?tensorflow(?:_core)?(?:\.[\w.]{1,80})?'? has no attribute|"
                           # Keras's own files failing to import a name of their own package: two Keras
                           # distributions (keras, keras-nightly, tf-keras) wrote into one keras/ folder
                           r"cannot import name '?\w{1,80}'? from '?keras\.|"
                           # ... or asking an object of TensorFlow's for an internal (a private attribute)
                           # that this release lacks (None is the program's own bug)
                           r"'(?!NoneType')\w{1,60}' object has no attribute '_[A-Za-z]\w{0,80}')")
# TensorFlow's own Python file, the last frame of a traceback, failing to import a name of its own package
# (a frame in another installed package ends that): its tensorflow folder holds files of two releases (two
# TensorFlow distributions sharing it, an install over an older one). A frame in generated *_pb2.py code is
# protobuf's (before Python 3.7 the error names no module: "cannot import name 'X'").
_TF_OWN_FRAME = re.compile(r"(?:site|dist)-packages[/\\](?:"
                           r"tensorflow(?:_core)?[/\\](?![^\s\"']{0,200}_pb2\.py)|(?P<elsewhere>\w))")
_TF_OWN_IMPORT = re.compile(r"^ImportError:? {0,3}cannot import name '?\w{1,80}'?"
                            r"(?: {0,3}$| from '?tensorflow(?:_core)?[.'])")
# An add-on's own code (tensorflow_addons, tensorflow_probability, tensorflow_text...) asking TensorFlow for
# an API it lacks: the add-on release is not the one made for this TensorFlow
_ADDON_FRAME = re.compile(r"[/\\](?:site|dist)-packages[/\\]tensorflow_(?!core[/\\])"
                          r"[a-z_]{2,30}[/\\]")
# JAX's CUDA plugin (jax_plugins/xla_cuda12) asking jax for a name it lacks: the plugin is another release's
_JAX_PLUGIN_FRAME = re.compile(r"jax_plugins[/\\]xla_cuda\d{2}[/\\]")
_JAX_API_ERROR = re.compile(r"^(?:[\w.]{1,60}\.)?(?:ImportError|AttributeError)\b:?\s{0,3}"
                            r"(?:cannot import name '?\w{1,80}'? from '?jax|"
                            r"module '?jax[\w.]{0,80}'? has no attribute)")
# TensorFlow's Windows self-check preloading the CUDA runtime or cuDNN DLL its build names, then Windows'
# "module could not be found" (WinError 126): that DLL is not on the DLL search path
_PRELOAD_CUDART = re.compile(r"WinDLL\(build_info\.cudart_dll_name\)")
_PRELOAD_CUDNN = re.compile(r"WinDLL\(build_info\.cudnn_dll_name\)")
_PRELOAD_NVCUDA = re.compile(r"WinDLL\((?:build_info\.nvcuda_dll_name|nvcuda)\)")  # the driver's own DLL
_WINERROR_126 = re.compile(r"^(?:OSError|FileNotFoundError): \[WinError 126\]")
# a traceback through a package's frames, then the exception that ends it: (frame, error, kind, via, data)
_FRAMES = ((_KERAS3_FRAME, _API_ERROR, "keras3", "keras/src traceback", {}),
           (_PROTOBUF_FRAME, _PROTOBUF_ERROR, "protobuf", "google/protobuf traceback", {}),
           (_BFLOAT16_FRAME, _BFLOAT16_ERROR, "numpy-abi", "TensorFlow's bfloat16 NumPy type", {}),
           (_OP_LIBRARY_FRAME, _OP_LIBRARY_ERROR, "pip-conflict", "an add-on's op library refused",
            {"mismatch": "addon"}),
           (_KERAS2_FRAME, _KERAS2_ERROR, "pip-conflict", "the keras package's traceback into TensorFlow",
            {"mismatch": "keras"}),
           (_ADDON_FRAME, _KERAS2_ERROR, "pip-conflict", "an add-on's traceback into TensorFlow",
            {"mismatch": "addon-version"}),
           (_TF_OWN_FRAME, _TF_OWN_IMPORT, "pip-conflict", "TensorFlow's own traceback into TensorFlow",
            {"mismatch": "tf-files"}),
           (_JAX_PLUGIN_FRAME, _JAX_API_ERROR, "pip-conflict", "JAX's CUDA plugin's traceback into jax",
            {"mismatch": "jax-plugin"}),
           (_PRELOAD_CUDART, _WINERROR_126, "dlopen-failed", "TensorFlow's preload of the CUDA runtime DLL",
            {"library": "cudart64.dll", "family": "cuda-runtime"}),
           (_PRELOAD_CUDNN, _WINERROR_126, "dlopen-failed", "TensorFlow's preload of the cuDNN DLL",
            {"library": "cudnn64.dll", "family": "cudnn"}),
           (_PRELOAD_NVCUDA, _WINERROR_126, "dlopen-failed", "TensorFlow's preload of the driver's DLL",
            {"library": "nvcuda.dll", "family": "driver"}))
# The line a traceback failed at, in protobuf's generated code (a *_pb2.py module building its
# descriptors), where the paste ends before the exception: a runtime that refuses code generated for
# another protobuf ("Descriptors cannot be created directly"). Notebooks mark the line with an arrow.
# (IPython 8 writes a frame as "File ~/env/.../tensor_shape_pb2.py:36")
_PB2_FRAME = re.compile(r'^File (?:"[^"]{1,400}_pb2\.py", line \d{1,7}|[^\s"]{1,400}_pb2\.py:\d{1,7})')
_PB2_CONTEXT = 40  # lines a notebook shows around a frame's failing line
# (protoc 3.20+ code reads them back: "_FOO = DESCRIPTOR.message_types_by_name['Foo']")
_DESCRIPTOR_CALL = re.compile(r"^(?:(?:-{1,4}>\s{0,3})?\d{1,7}\s{1,12})?"
                              r"(?:(?:\w{1,80} = )?_descriptor\.\w{0,24}Descriptor\(|"
                              r"_\w{1,80} = DESCRIPTOR\.)")
_FAILED_IMPORT = re.compile(r"(?:-{2,}>\s{0,3}\d{1,6}\s{1,4})?"
                            r"(?:import tensorflow\b|from tensorflow[\w.]{0,40} import)")


# Where a log record begins inside a line that holds several: absl's timestamp and severity ("2021-03-25
# 13:27:24.173831: I tensorflow/...")
_JOINED = re.compile(r"(?<=\s)\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3,9}: [IWEF] [\w./-]{1,200}:\d{1,6}\]")


def _exception(line: str) -> bool:
    """Whether a line opens with an exception's name ("tensorflow...NotFoundError: ...")."""
    head = line[:120].split(None, 1)[0].rstrip(":") if line else ""
    return head.endswith(("Error", "Exception"))


def _item(sig: ev.Signature, m: Any, line: str, line_no: int) -> dict[str, Any]:
    item: dict[str, Any] = {"kind": sig.kind, "line": line_no, "text": line[:QUOTE], **sig.data}
    for name, value in zip(sig.fields, m.groups()):
        if value:
            item[name] = value.strip()[:200]
    if sig.kind == "cudnn-version":  # PyTorch prints a version as a tuple: (8, 7, 0)
        for key in ("compiled", "loaded"):
            if key in item:
                item[key] = item[key].replace(", ", ".")
    elif sig.kind == "cuinit":
        item["error"] = codes.cuinit_error(item.pop("rest", ""))
    elif sig.kind == "cuda-mixed":  # the folder the library came from: the path just before its name
        item["folder"] = re.split(r"[\s:'\"]", line[max(0, m.start() - 300):m.start()])[-1]
        item["family"] = library_family(item["library"])
    elif sig.kind == "dlopen-failed" and "library" in item:
        item["family"] = library_family(item["library"])
    elif sig.kind == "pip-no-version" and item.get("package"):  # tensorflow_gpu is pip's tensorflow-gpu
        item["package"] = item["package"].replace("_", "-").lower()
    elif sig.kind == "pip-conflict":  # pip's conflict over protobuf (or NumPy 2) is that package's mismatch
        pinned = str(item.get("have") or item.get("pinned") or item.get("needs") or "").lower()
        if pinned.startswith("protobuf"):
            item["kind"] = "protobuf"
        elif pinned.startswith("numpy") and str(item.get("have_version") or "").startswith("2."):
            item["kind"] = "numpy-abi"  # NumPy 2 under code built for NumPy 1.x
    return item


# A sentence about cuDNN's failure adds nothing where the same line names the status that explains it.
_SAID_BY_CODE = {"cudnn-failed": "cudnnStatus_t"}
# Advice that names an error it may come to ("If you encounter the error 'an illegal memory access was
# encountered', set ..."): what follows it on the line is not something that happened.
_ADVICE = re.compile(r"\bif you (?:encounter|see|get|meet|hit|run into|receive|experience)\b", re.IGNORECASE)


def _optional_dependencies(items: list[dict[str, Any]]) -> None:
    """TensorRT is optional: a library its dlerror names ("Could not load dynamic library
    'libnvinfer_plugin.so.7'; dlerror: libnvrtc.so.11.1: cannot open ...") was missing for TensorRT,
    not for TensorFlow's own CUDA start-up, so it counts as TensorRT's."""
    optional = next((i["library"] for i in items if i["kind"] == "dlopen-failed"
                     and i.get("family") == "tensorrt"), None)
    if optional is None:
        return
    for item in items:
        if item["kind"] == "dlopen-failed" and item.get("family") != "tensorrt":
            item["family"], item["needed_by"] = "tensorrt", optional


_FINDERS: dict[str, Finder] = {}
# An error or fatal log prefix at a line's start ("E0101 12:00:00", "E tensorflow/...", "...: E file.cc:1]"),
# also after the quoting or indenting errorlines.severe reads past ("`F tensorflow/...", "> E ..."): such a
# line is an error line whatever its words (tfdoctor/logs/errorlines.py).
_QUOTES = ("", "`", ">", "> ", "* ", "  ", "    ", "\t")
_SEVERITY_WORDS = (": e ", ": f ", *(f"\n{quote}{level}" for quote in _QUOTES
                                      for level in ("e0", "e1", "f0", "f1", "e ", "f ")))


def _missing_dependency(items: list[dict[str, Any]], line: str, low: str) -> None:
    """ "Could not load library libcudnn_cnn_infer.so.8. Error: libnvrtc.so: cannot open shared object
    file": the loader names the file that is absent; the library that needed it is not the one missing."""
    absent = {i.get("library") for i in items if i["kind"] == "dlopen-failed"
              and (f"{i.get('library')}: cannot open shared object" in line
                   or f"error: {str(i.get('library')).lower()}" in low)}
    if absent:
        items[:] = [i for i in items if i["kind"] != "dlopen-failed" or i.get("library") in absent]


def trigger_words(signatures: Iterable[ev.Signature], source: str) -> set[str] | None:
    """Every word without which nothing in a line can be read: the signatures' anchors, the error codes'
    and harmless notices' words, the error-line rules' (and their log prefixes), the frames read, plus
    (explain) every value reader's and block finder's triggers; None when a signature declares none
    (then every line is read in full)."""
    words = {"modulenotfounderror", "import tensorflow", "from tensorflow", "segmentation fault", "keras/src",
             "keras\\src",
             "jax_plugins",
             "google/", "google\\", "_pywrap_bfloat16",
             "load_op_library", "tf_loadlibrary(",
             "_pb2.py", "_descriptor.", " = descriptor.", stall.TRIGGER, *VERSION_WORDS, *DRIVER_WORDS,
             *codes.TRIGGERS,
             *errorlines.TRIGGERS, *_SEVERITY_WORDS,
             *(forms[0] for _, all_forms in se.NOISE.values() for forms in all_forms)}
    for sig in signatures:
        if not sig.anchors:
            return None
        words.update(sig.anchors)
    return words | values_mod.triggers() if source == "explain" else words


def finder(source: str) -> Finder:
    """The cheap pass for a source (built once)."""
    if source not in _FINDERS:
        _FINDERS[source] = Finder(trigger_words(ev.SIGNATURES, source))
    return _FINDERS[source]


_KEPT = ("items", "unrecognized", "_keras_api")
# What _state leaves out: the counters and lists kept up to a cap (a quiet shape's line adds to counters
# alone, in _added; no line's reading depends on them), the bookkeeping of lines and shapes, and the
# objects it reads apart (values, the stall detector).
_VOLATILE = frozenset({"values", "finder", "_seen", "_raw_seen", "_shapes", "_skipped", "_free", "_wanted",
                       "_lit", "_context", "_paying", "_shaping", "_fresh", "_added", "_epoch", "_last",
                       "lines", "_repeatable", "_stall", "counts", "noise", "unrecognized_count", *_KEPT})


class Reader:
    """Streaming state: evidence by mechanism and the values seen."""

    def __init__(self, source: str, every_line: bool = False, by_shape: bool = True) -> None:
        self.source = source
        self.finder = finder(source)
        self.every_line = every_line
        # lines skipped by their shape (tfdoctor/logs/shapes.py), where that pays
        self._paying = shapes.Paying() if by_shape and not every_line else None
        self._shaping = self._paying is not None
        self.values = Values()
        self.items: list[dict[str, Any]] = []
        self.counts: dict[str, int] = {}
        self.lines = 0
        self._seen: set[int] = set()
        self._raw_seen: set[int] = set()  # raw lines whose line is skipped when repeated
        self._shapes: dict[int, shapes.Shape] = {}  # what the lines of each shape changed
        self._skipped: bytes | None = None  # the last line skipped by its shape (the line before the next)
        self._fresh = 0  # lines read that were not repeats
        self._added: list[tuple[str, str]] = []  # what the line being read added to: (counter, name)
        self._epoch = 0  # changes of what was read (a line skipped by its shape changes nothing of it)
        self._last: tuple[list[Any], ...] = ()  # what was read, as of the last line read (_state)
        self._wanted = False  # the next line is to be read whatever it holds (see _wants_next)
        # the next line is read in the light of the last one (_lit): its shape is learnt and skipped paired
        # with the last line's (_context; None: that line had no shape, the next is read)
        self._lit = False
        self._context: int | None = None
        self._free = True  # no table or traceback is open: a quiet shape is skipped
        self._repeatable = False
        self._module_error_at: int | None = None
        self.noise: dict[str, int] = {}
        self.unrecognized: list[dict[str, Any]] = []
        self.unrecognized_count = 0
        self._frame_at: dict[str, int] = {}  # via -> line of its package's last frame
        self._error_at: dict[str, dict[str, Any]] = {}  # via -> an exception pasted before its traceback
        self._addon: str | None = None  # the last add-on (tensorflow_text, ...) in a traceback's frames
        self._pb2_frame = -1  # the line of the last frame in protobuf's generated code
        self._cut_in_pb2: dict[str, Any] | None = None  # its failing line, until an exception ends it
        self._libcuda_opened = False  # "Successfully opened dynamic library libcuda.so.1"
        self._jax_cuda_plugin = False  # JAX's CUDA plugin (jax_plugins.xla_cuda12) named: it is installed
        self._import_at: int | None = None  # the last line importing tensorflow
        self._tf_submodule_missing = False  # "No module named 'tensorflow.keras.…'"
        self._cudnn_heading: dict[str, Any] | None = None  # "Outdated cuDNN installation found."
        self._ngc_cut: dict[str, Any] | None = None  # NGC's "built for NVIDIA Driver Release X ..., but"
        self._keras_api: list[dict[str, Any]] = []  # Keras API errors, Keras 3's where it is installed
        self._keras3_frames = False  # a traceback through files only Keras 3 has
        self._stall = stall.DeviceStall()  # minutes to create the GPU devices: PTX JIT-compiled

    def feed_chunk(self, chunk: bytes) -> None:
        """Whole lines of bytes: only those the cheap pass picks (and the lines a block or heading
        before them asks for) are decoded and read, unless their shape is known to change nothing."""
        base, pos, size = self.lines, 0, len(chunk)
        counted, count = 0, 0
        learnt = self._shapes

        def read_at(start: int) -> int:
            nonlocal counted, count
            end = chunk.find(b"\n", start)
            end = size if end < 0 else end
            raw = chunk[start:min(end, start + 4 * MAX_LINE)]
            key = hash(raw) if end - start > SHORT_LINE else None
            if key is not None and key in self._raw_seen and not self._in_block() and not self._frame_at:
                return end + 1  # the same bytes again: its line was read and would be skipped as a repeat
            shape = None
            if self._paying is not None:
                if self._shaping:
                    shape = shapes.shape(raw)
                    learnt_as = self._key(shape)
                    known = learnt.get(learnt_as) if learnt_as is not None and self._free else None
                    if known is not None and known.epoch == self._epoch:
                        self._skip(raw, known.delta)
                        self._wanted, self._lit = known.after
                        self._context = shape
                        self._paying.skipped += 1
                        return end + 1
                self._shaping = self._paying.read()
            count += chunk.count(b"\n", counted, start)  # (the lines skipped before need no number)
            counted = start
            self.lines = base + count + 1
            if self._skipped is not None:
                self._before(self._skipped)
            self._read(raw, shape)
            if key is not None and self._repeatable and len(self._raw_seen) < MAX_SEEN:
                self._raw_seen.add(key)
            return end + 1

        while pos < size and self._wanted:
            pos = read_at(pos)
        for start in all_starts(chunk) if self.every_line else self.finder.starts(chunk):
            if start < pos:
                continue
            pos = read_at(start)
            while pos < size and self._wanted:
                pos = read_at(pos)
        self.lines = base + chunk.count(b"\n") + (0 if chunk.endswith(b"\n") or not chunk else 1)

    def _key(self, shape: int | None) -> int | None:
        """What a line of this shape is learnt and skipped by: its shape, paired with the last line's where
        it is read in that line's light (None: not learnt)."""
        if shape is None or not self._lit:
            return shape
        return None if self._context is None else hash((self._context, shape))

    def _read(self, raw: bytes, shape: int | None) -> None:
        """A picked line (`shape`: its shape, None: none to learn): read, and what its shape changes
        learnt (tfdoctor/logs/shapes.py)."""
        key = self._key(shape)
        known = None if key is None else self._shapes.get(key)
        if known is None and key is not None and len(self._shapes) < shapes.MAX_SHAPES:
            self._shapes[key] = known = shapes.Shape()
        fresh, given = self._fresh, self.values.attempts
        self._physical(raw.decode("utf-8", errors="replace"))
        changed = self._settle()
        self._context = shape
        if known is None or self._fresh == fresh:  # (a repeat of a line read before says nothing)
            return
        # (a line that kept an item or gave a value is never quiet: the next one may keep or give another)
        plain = not (changed or not self._free or self.values.attempts != given or b"\r" in raw
                     or b"\\n" in raw or any(where == "kept" for where, _ in self._added))
        known.learn(shapes.delta(self._added) if plain else None, self._epoch, (self._wanted, self._lit))

    def _settle(self) -> bool:
        """After a line was read: whether it changed what was read so far (then a new epoch begins: what a
        line changes may depend on it), and whether the next line may be skipped by its shape."""
        changed = True
        if self._shaping:
            state = self._state()
            changed = state != self._last
            self._last = state
        else:
            self._last = ()  # (unknown: when shapes are learnt again, a new epoch begins)
        if changed:
            self._epoch += 1
        self._wanted = self._wants_next()
        self._lit = self._wanted or self.source == "explain" and self.values.leads
        self._free = self._shaping and not (self._in_block() or self._frame_at)
        return changed

    def _skip(self, raw: bytes, delta: shapes.Delta) -> None:
        """A line of a quiet shape: what reading it would change is its counters alone."""
        if not delta:
            self._skipped = raw  # (normalised only if a line is read next)
            return
        if self._skipped is not None:
            self._before(self._skipped)
        if not self._before(raw):
            return
        for (where, name), n in delta:
            if where == "unrecognized":
                self.unrecognized_count += n
            else:
                table = self.counts if where == "counts" else self.noise
                table[name] = table.get(name, 0) + n

    def _unseen(self, line: str) -> bool:
        """Whether a line is read: not empty, not a repeat of a longer line read before (remembered)."""
        if not line:
            return False
        key = hash(line) if len(line) > SHORT_LINE else None
        # (a table's rows repeat; so may the exception a pending traceback ends in)
        if key is not None and key in self._seen and not self._in_block() and not self._frame_at:
            return False
        if key is not None and len(self._seen) < MAX_SEEN:
            self._seen.add(key)
        return True

    def _before(self, raw: bytes) -> bool:
        """A line skipped by its shape is still the line before the next one read (values read a pair), as
        reading it would have made it: whether it was no repeat (then its counters count too)."""
        self._skipped = None
        line = normalize(raw.decode("utf-8", errors="replace"))
        if not self._unseen(line):
            return False
        if self.source == "explain":
            self.values.set_before(line)
        return True

    def _state(self) -> tuple[list[Any], ...]:
        """A cheap fingerprint of everything read so far but the counters and the lists kept up to a cap
        (what _added records): what a line's reading may depend on."""
        return (shapes.fingerprint(self, _VOLATILE), shapes.fingerprint(self._stall), self.values.state())

    def _in_block(self) -> bool:
        return self.source == "explain" and self.values.in_block

    def _wants_next(self) -> bool:
        return (self._module_error_at is not None or self._cudnn_heading is not None or self._stall.pending
                or self._ngc_cut is not None
                or self.source == "explain" and self.values.want_next)

    def _physical(self, raw: str) -> None:
        self._added.clear()
        if self._stall.pending or stall.PHRASE in raw:  # (timestamps: before normalising drops them)
            item = self._stall.feed(raw, self.lines)
            if item is not None:
                self._add(item)
        if len(raw) > 400 and raw.count("\\n") >= 3:  # output captured as a Python string: "...\n...\n"
            for part in raw.replace("\\r", "").split("\\n"):
                if part.strip():
                    self._line(normalize(part), severe(part))
        elif "\r" in raw:
            for part in raw.split("\r"):
                if part.strip():
                    self._line(normalize(part), severe(part))
        elif len(raw) > 120 and (": I " in raw or ": W " in raw or ": E " in raw) and _JOINED.search(raw, 1):
            # log records run together on one line (a web page dropped their newlines): one record each
            start = 0
            for m in _JOINED.finditer(raw, 1):
                self._line(normalize(raw[start:m.start()]), severe(raw[start:m.start()]))
                start = m.start()
            self._line(normalize(raw[start:]), severe(raw[start:]))
        else:
            line = normalize(raw)
            self._repeatable = len(line) > SHORT_LINE  # a repeat of it is skipped (see _line)
            self._line(line, severe(raw))
            return
        self._repeatable = False

    def _line(self, line: str, severe_prefix: bool = False) -> None:
        # A repeated line adds no evidence: logs repeat a lot. Short ones are cheap and may mean
        # something new in their place ("Version: 1.15.4" under a second `pip show`).
        if not self._unseen(line):
            return
        self._fresh += 1
        low = line.lower()
        words = self.finder.found(low) if self.finder.declared else None
        self.values.line_no = self.lines
        noisy = _NOISE_WORD.search(low) if words is None else not words.isdisjoint(_NOISE_FIRST)
        notice = se.noise(low) if noisy else None
        if notice:  # a harmless notice, by name: never evidence of a failure
            self.noise[notice] = self.noise.get(notice, 0) + 1
            self._added.append(("noise", notice))
            if self.source == "explain":
                self.values.feed(line, low, self.lines, words)
            return
        self._module_error(line, low)
        if "_pb2.py" in low or "_descriptor." in low or " = descriptor." in low or self._cut_in_pb2:
            self._generated_code(line, severe_prefix)
        if "successfully opened" in low and ("libcuda" in low or "nvcuda" in low):
            self._libcuda_opened = True
        if "jax_plugins" in low and "xla_cuda" in low:
            self._jax_cuda_plugin = True
        if "tensorflow_" in low:
            frame = line.lstrip().startswith("File ")
            addon = _ADDON_PATH.search(line) if frame else _ADDON_IMPORT.match(line)
            if addon:
                self._addon = addon.group(1)  # the add-on a traceback is in
        if (self._frame_at or self._error_at or "keras" in low or "google" in low or "bfloat16" in low
                or "-packages" in low and "tensorflow" in low
                or "tensorflow_" in low or "windll(" in low or "jax_plugins" in low
                or "load_op_library" in low or "tf_loadlibrary(" in low or _exception(line)):
            framed = self._frames(line, low)
        else:
            framed = False
        here: set[tuple[str, Any]] = set()
        said, said_low = line, low
        advice = _ADVICE.search(line) if "if you " in low else None
        if advice:
            said = line[:advice.start()]
            said_low = said.lower()
        coded = _CODE_WORD.search(said_low) if words is None else not words.isdisjoint(codes.TRIGGERS)
        found = [{**codes.item(code), "line": self.lines, "text": line[:QUOTE]}
                 for code in codes.in_line(said, said_low)] if coded else []
        # the code says what failed, unless it is only a program's error ("could not create cudnn handle:
        # CUDNN_STATUS_NOT_SUPPORTED" is still cuDNN failing to start)
        apis = {se.BY_NAME[i["code"]].api for i in found if not i.get("reason")}
        for sig, m in ev.match_line(said, said_low, words):
            if _SAID_BY_CODE.get(sig.kind) in apis:
                continue
            item = _item(sig, m, line, self.lines)
            if sig.data.get("reason") in se.SAID_IN_PROSE:  # on a line that reports an error?
                item["error_line"] = is_error(line, severe_prefix)
            found.append(item)
        _optional_dependencies(found)
        if len(found) > 1:
            _missing_dependency(found, line, low)
        if self._cudnn_heading is not None:
            self._cudnn_versions(low)
        if self._ngc_cut is not None:
            self._ngc_detected(line)
        for item in found:
            key = (item["kind"], item.get("library") or item.get("error") or item.get("status"))
            if key in here:  # two spellings of one failure on one line are one piece of evidence
                continue
            here.add(key)
            if self.source == "explain":
                self._item_values(item)
            if item["kind"] == "cudnn-version" and not item.get("loaded"):
                self._cudnn_heading = item
            if item["kind"] == "ngc-driver" and not item.get("have"):
                self._ngc_cut = item
            self._add(item)
        if not here and not framed and is_error(line, severe_prefix):
            self.unrecognized_count += 1
            self._added.append(("unrecognized", ""))
            if len(self.unrecognized) < MAX_UNRECOGNIZED:
                self.unrecognized.append({"line": self.lines, "text": line[:QUOTE]})
                self._added.append(("kept", "unrecognized"))
            if len(self._keras_api) < MAX_ITEMS_PER_KIND and _KERAS_API_ERROR.match(line):
                self._added.append(("kept", "keras3"))
                self._keras_api.append({"kind": "keras3", "line": self.lines, "text": line[:QUOTE],
                                        "via": "a Keras 2 API missing where Keras 3 is installed"})
        if self.source == "explain":
            self.values.feed(line, low, self.lines, words)

    def _cudnn_versions(self, low: str) -> None:
        """The versions under XLA's "Outdated cuDNN installation found." ("Installed version: 8907",
        "Minimum supported: 9100"), within a few lines."""
        item = self._cudnn_heading
        if item is None or self.lines - item["line"] > 8:
            self._cudnn_heading = None
            return
        m = _CUDNN_VALUE.search(low)
        if m and m.group(1) == "installed version":
            item["loaded"] = m.group(2)
        elif m and (m.group(1) == "minimum supported" or not item.get("compiled")):  # the minimum rules
            item["compiled"] = m.group(2)

    def _add(self, item: dict[str, Any]) -> None:
        """One piece of evidence: counted always, kept up to MAX_ITEMS_PER_KIND of its kind."""
        count = self.counts.get(item["kind"], 0)
        self.counts[item["kind"]] = count + 1
        self._added.append(("counts", item["kind"]))
        if count < MAX_ITEMS_PER_KIND:
            self.items.append(item)
            self._added.append(("kept", "items"))

    def _ngc_detected(self, line: str) -> None:
        """The driver version NVIDIA's container banner found, on the line after its "..., but"."""
        item = self._ngc_cut
        if item is None or self.lines - item["line"] > 2:
            self._ngc_cut = None
            return
        m = _NGC_DETECTED.match(line)
        if m:
            item["have"] = m.group(1)
            self._ngc_cut = None
            if self.source == "explain":
                self._item_values(item)

    def _module_error(self, line: str, low: str) -> None:
        """A notebook traceback names the error first and the failing import a few lines later
        ("ModuleNotFoundError  Traceback ..." then "----> 6 import tensorflow as tf"); a person writes the
        import, then the error it gave ("import tensorflow" then "Error: ModuleNotFoundError", or the
        process dying: "Segmentation fault (core dumped)")."""
        if "no module named 'tensorflow." in low:  # TensorFlow imported; a module of it is not there
            self._tf_submodule_missing = True
        if _FAILED_IMPORT.match(line.strip("_*`> ")):
            self._import_at = self.lines
        elif "modulenotfounderror" in low and "no module named" not in low and (
                self._import_at is not None and 0 < self.lines - self._import_at <= 2):
            self._import_at = None
            self._add({"kind": "tf-missing", "line": self.lines, "text": line[:QUOTE]})
            return
        elif low.startswith("segmentation fault") and (
                self._import_at is not None and 0 < self.lines - self._import_at <= 2):
            self._import_at = None  # the process died loading TensorFlow's native library
            self._add({"kind": "tf-native-failed", "line": self.lines, "text": line[:QUOTE],
                       "via": "the import of TensorFlow just before it"})
            return
        if low.startswith("modulenotfounderror") and "no module named" not in low:
            self._module_error_at = self.lines
        elif self._module_error_at is not None:
            if self.lines - self._module_error_at > 12:
                self._module_error_at = None
            elif _FAILED_IMPORT.match(line):
                self._module_error_at = None
                self._add({"kind": "tf-missing", "line": self.lines, "text": line[:QUOTE],
                           "via": "the import a notebook's ModuleNotFoundError points at"})

    def _frames(self, line: str, low: str) -> bool:
        """An API error at the end of a traceback through a package's own frames (Keras 3's keras/src,
        protobuf's google/protobuf): that package is not the version its caller was written for. The
        exception may also come first (an issue's title, then its traceback). Whether this line ended such
        a traceback."""
        ended = False
        for frame, error, kind, via, data in _FRAMES:
            earlier = self._error_at.get(via)
            if earlier is not None and self.lines - earlier["line"] > TRACEBACK_WINDOW:
                del self._error_at[via]
                earlier = None
            failed = "error" in low and error.match(line)  # (its message may name a file in the package)
            seen = None if failed else frame.search(line)
            if seen is not None and seen.lastgroup == "elsewhere":  # a frame in another package: not its last
                self._frame_at.pop(via, None)
                continue
            if seen is not None:
                self._frame_at[via] = self.lines
                if kind == "keras3" and _KERAS3_ONLY_FRAME.search(line):
                    self._keras3_frames = True
                if earlier is not None:
                    del self._error_at[via]
                    self._frame_item(kind, data, earlier)
                continue
            if not failed:
                at = self._frame_at.get(via)
                if at is not None and self.lines - at > TRACEBACK_WINDOW:
                    del self._frame_at[via]
                continue
            item = {"kind": kind, "line": self.lines, "text": line[:QUOTE], "via": via, **data}
            at = self._frame_at.pop(via, None)
            if at is not None and self.lines - at <= TRACEBACK_WINDOW:
                ended = self._frame_item(kind, data, item) or ended
            else:
                self._error_at[via] = item
        return ended

    def _frame_item(self, kind: str, data: dict[str, Any], item: dict[str, Any]) -> bool:
        """Record a traceback's evidence item; whether it was one."""
        if data.get("mismatch") == "addon-version" and self._addon:
            item["addon"] = self._addon
        if data.get("mismatch") == "addon":
            library = _ADDON_LIBRARY.search(str(item.get("text")))
            named = library.group(1) if library and library.group(1) != "tensorflow" else None
            addon = self._addon or named
            if not addon:
                return False  # a program's own op library: nothing says which TensorFlow it was built for
            item["addon"] = addon
        self._add(item)
        return True

    def _generated_code(self, line: str, severe_prefix: bool) -> None:
        """A traceback failing at a descriptor that protobuf's generated code builds: protobuf's, unless
        the exception that ends it is pasted too (then that line is judged)."""
        if _PB2_FRAME.match(line):
            self._pb2_frame = self.lines
        elif _DESCRIPTOR_CALL.match(line) and (
                line[0] == "-" or self._pb2_frame >= 0 and self.lines - self._pb2_frame <= _PB2_CONTEXT):
            self._cut_in_pb2 = {"kind": "protobuf", "line": self.lines, "text": line[:QUOTE],
                                "via": "a traceback cut where protobuf's generated code builds a descriptor"}
        elif self._cut_in_pb2 and is_error(line, severe_prefix):
            self._cut_in_pb2 = None

    def _item_values(self, item: dict[str, Any]) -> None:
        """Values an evidence line states outright (versions TensorFlow printed in its error)."""
        from tfdoctor.versions import cudnn_from_int

        if item.get("framework") in ("torch", "jax"):
            return  # another framework's build: TensorFlow's facts stay unknown
        if item["kind"] == "cpu-build":
            self.values.set("tensorflow.build_info.is_cuda_build", False, 6)
        elif item["kind"] == "cudnn-version":
            self.values.set("runtime.cudnn_version", cudnn_from_int(str(item.get("loaded", ""))), 6)
            self.values.set("tensorflow.build_info.cudnn_version",
                            cudnn_from_int(str(item.get("compiled", ""))), 6)
        elif item["kind"] == "lib-mismatch" and item.get("kernel"):
            self.values.set("system.proc_driver_version", item["kernel"], 5)
            self.values.set("system.libcuda_version", item.get("library"), 5)
        elif item["kind"] == "ngc-driver" and item.get("have"):  # the kernel driver the image's check read
            self.values.set("system.proc_driver_version", item["have"], 5)
        elif item["kind"] == "nvml-error":  # NVML's own answer, as the nvml probe would record it
            self.values.set("nvml.error_kind", "no-permission", 6)
            self.values.set("nvml.error", str(item["text"])[:200], 6)

    def facts(self) -> dict[str, Any]:
        if self._cut_in_pb2 and self.source == "explain" and not self.counts.get("protobuf"):
            self.items.append(self._cut_in_pb2)
            self.counts["protobuf"] = 1
            self._cut_in_pb2 = None
        if any(i.get("older") == "keras" for i in self.items):  # "from keras.src" wants a newer Keras
            self._drop(lambda i: i["kind"] == "keras3" and "from keras.src" in str(i.get("text")))
        if self._libcuda_opened:  # TensorFlow's later "libcuda ... Not found" is its diagnostics' miss
            self._drop(lambda i: i["kind"] == "no-driver" and i.get("why") == "libcuda")
        if self._tf_submodule_missing:  # the failing "from tensorflow.x import" was x's, not TensorFlow's
            self._drop(lambda i: i["kind"] == "tf-missing" and str(i.get("via", "")).startswith("the import"))
        if self._jax_cuda_plugin:  # JAX's "a CUDA-enabled jaxlib is not installed" after its plugin failed
            self._drop(lambda i: i["kind"] == "cpu-build" and i.get("framework") == "jax")
            self.values.hints["jax-cuda-plugin"] = 1  # (it loads the CUDA of its pip wheels)
        sections, provenance = self.values.facts() if self.source == "explain" else ({}, {})
        self._keras3_installed(sections)
        self._keras3_impossible(sections)
        if self.source == "explain":
            self._smi_mismatch(sections, provenance)
            self._driver_part_mismatch(sections)
        log: dict[str, Any] = {
            "source": self.source,
            "lines_read": self.lines,
            "evidence": self.items,
            "counts": dict(self.counts),
            "noise": dict(self.noise),
        }
        if self.source != "explain":  # the worker's failed steps say what its errors were (checks/runtime.py)
            log["evidence"] = [i for i in self.items if not i.get("reason") and i["kind"] != "tf-missing"]
            return {"log": log}
        log["unrecognized"], log["unrecognized_count"] = self.unrecognized, self.unrecognized_count
        log["provenance"] = provenance
        log["platform_hints"] = sorted(self.values.hints)
        return {**sections, "log": log}

    def _keras3_installed(self, sections: dict[str, Any]) -> None:
        """Keras API errors pasted without their traceback are Keras 3's where the paste shows it installed
        (TensorFlow >= 2.16, whose tf.keras it is, Keras >= 3, or files only Keras 3 has)."""
        from tfdoctor.versions import version_ge

        tf = sections.get("tensorflow") or {}
        keras = str((tf.get("distributions") or {}).get("keras") or "")
        if not self._keras_api or "keras3" in self.counts or not (
                self._keras3_frames or version_ge(str(tf.get("version") or "0"), (2, 16))
                or version_ge(keras or "0", (3, 0))):
            return
        lines = {i["line"] for i in self._keras_api}
        self.items.extend(self._keras_api)
        self.counts["keras3"] = len(self._keras_api)
        self.unrecognized = [u for u in self.unrecognized if u["line"] not in lines]
        self.unrecognized_count -= len(lines)

    def _keras3_impossible(self, sections: dict[str, Any]) -> None:
        """Keras 3 needs Python 3.9 or newer: under an older Python a Keras API error is another Keras
        release's change, and its line stays unrecognised."""
        py = vtuple((sections.get("tensorflow") or {}).get("python_version")
                    or (sections.get("runtime") or {}).get("python_version"))[:2]
        if len(py) < 2 or py >= KERAS3_PYTHON or "keras3" not in self.counts:
            return
        gone = [i for i in self.items if i["kind"] == "keras3"]
        self._drop(lambda i: i["kind"] == "keras3")
        self.unrecognized_count += len(gone)
        room = MAX_UNRECOGNIZED - len(self.unrecognized)
        self.unrecognized += [{"line": i["line"], "text": str(i.get("text") or "")[:QUOTE]}
                              for i in gone[:room]]
        self.unrecognized.sort(key=lambda u: u["line"])

    def _drop(self, unwanted: Any) -> None:
        """Forget evidence the rest of the log contradicts."""
        for item in [i for i in self.items if unwanted(i)]:
            self.items.remove(item)
            self.counts[item["kind"]] -= 1
            if not self.counts[item["kind"]]:
                del self.counts[item["kind"]]

    def _smi_mismatch(self, sections: dict[str, Any], provenance: dict[str, int]) -> None:
        """nvidia-smi's own version differs from the driver it talks to, and CUDA then failed in a way
        no device problem explains (or the banner's CUDA version is N/A: the driver's libcuda did not
        answer): the user-space libraries and the kernel module disagree. (Without such a failure it is
        only another nvidia-smi binary, a container's or WSL2's, and NVML evidently worked.)"""
        smi = sections.get("nvidia_smi") or {}
        have, lib = smi.get("smi_version"), smi.get("driver_version")
        failed = smi.get("cuda_version_na") or any(
            i["kind"] in ("cuinit", "cuda-error") and i.get("error") not in _DEVICE_ERRORS
            for i in self.items)
        # ... or the nvidia-smi is of a driver branch well before the running one, and its banner shows no
        # CUDA version the driver's libcuda answered, outside WSL 2 (whose Linux nvidia-smi numbers its
        # release apart from the Windows driver): an old driver's files left behind
        wsl = (sections.get("system") or {}).get("platform") == "wsl2" or bool(
            {"wsl", "wsl2"} & set(self.values.hints))
        older = (not wsl and not smi.get("cuda_version")
                 and (major(have) or 0) + SMI_BRANCHES <= (major(lib) or 0))
        if have and lib and have != lib and (failed or older) and "lib-mismatch" not in self.counts:
            smi.pop("smi_version")  # it becomes the split it shows, below
            provenance.pop("nvidia_smi.smi_version", None)
            line = self.values.values.get("nvidia_smi.driver_version", (None, 0, 0))[2]
            self.items.append({"kind": "lib-mismatch", "line": line, "library": have, "kernel": lib,
                               "text": f"NVIDIA-SMI {have} with Driver Version {lib}"})
            self.counts["lib-mismatch"] = 1

    def _driver_part_mismatch(self, sections: dict[str, Any]) -> None:
        """A part of the user-space driver named with another version than the loaded kernel module's
        ("libnvidia-fatbinaryloader.so.375.51" missing, kernel module 375.26): a driver update half done."""
        kernel = (sections.get("system") or {}).get("proc_driver_version")
        part = next((i for i in self.items if i["kind"] == "driver-part" and i.get("version")), None)
        if part is None:
            return
        self._drop(lambda i: i is part)  # it becomes the evidence it is, below
        if kernel and part["version"] != kernel and "lib-mismatch" not in self.counts:
            judged = {"kind": "lib-mismatch", "line": part["line"], "library": part["version"],
                      "kernel": kernel, "text": part["text"]}
        else:  # no other version to set it against: a part of the driver is missing
            judged = {**part, "kind": "dlopen-failed", "family": "driver"}
        self.items.append(judged)
        self.counts[judged["kind"]] = self.counts.get(judged["kind"], 0) + 1


# CUDA errors about the devices, not the driver's pieces: no version skew explains them (and on WSL2
# nvidia-smi's own version always differs from the Windows driver's).
_DEVICE_ERRORS = frozenset({"NO_DEVICE", "DEVICE_UNAVAILABLE", "INVALID_DEVICE", "OUT_OF_MEMORY",
                            "ILLEGAL_ADDRESS", "LAUNCH_FAILED", "NO_BINARY_FOR_GPU", "INVALID_PTX",
                            "UNSUPPORTED_PTX_VERSION", "MISALIGNED_ADDRESS", "ILLEGAL_INSTRUCTION"})
# driver branches between an nvidia-smi and the older driver it talks to, outside WSL 2, that say an old
# driver's files were left behind (a container's injected nvidia-smi is the host's own)
SMI_BRANCHES = 3
# Keras 3's oldest Python (https://pypi.org/project/keras/3.0.0/: Requires Python >=3.9)
KERAS3_PYTHON = (3, 9)


def read(lines: Iterable[str | bytes], source: str = "explain", every_line: bool = False,
         by_shape: bool = True) -> dict[str, Any]:
    """Facts from a stream of text lines, or of chunks of whole lines as bytes (see the module
    docstring). `every_line`: read every line in full, without the cheap pass (the same facts, slower);
    `by_shape=False`: read every line the cheap pass picks, whatever its shape (the same facts, slower)."""
    reader = Reader(source, every_line, by_shape)
    buf: list[bytes] = []
    size = 0
    for item in lines:
        data = item if isinstance(item, bytes) else str(item).encode("utf-8", errors="surrogatepass")
        if not data.endswith(b"\n"):
            data += b"\n"
        buf.append(data)
        size += len(data)
        if size >= CHUNK:
            reader.feed_chunk(b"".join(buf))
            buf, size = [], 0
    if buf:
        reader.feed_chunk(b"".join(buf))
    return reader.facts()


def _slices(text: str) -> Iterable[str]:
    """A string in pieces of whole lines, each at most CHUNK characters (a longer line is cut to
    MAX_LINE, as read_chunks cuts one in a file)."""
    start, size = 0, len(text)
    while start < size:
        if size - start <= CHUNK:
            yield text[start:]
            return
        end = text.rfind("\n", start, start + CHUNK)
        if end < 0:  # one line longer than CHUNK
            yield text[start:start + MAX_LINE]
            end = text.find("\n", start + CHUNK)
            if end < 0:
                return
        else:
            yield text[start:end]
        start = end + 1


def read_text(text: str, source: str = "explain", every_line: bool = False,
              by_shape: bool = True) -> dict[str, Any]:
    return read(_slices(text or ""), source, every_line, by_shape)
