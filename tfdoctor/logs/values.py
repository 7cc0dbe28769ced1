"""Values in pasted text -> the same facts the probes produce (with the line each came from).

Tool outputs in a paste (the nvidia-smi banner, -q -x, --query-gpu, nvcc --version,
/proc/driver/nvidia/version, /proc/version, os-release, build info, package lists) are found by
tfdoctor/logs/blocks.py and read by their probes' own parsers. Here: the forms only a paste has
(issue-template fields, `tf.__version__` and build-info prints, TensorFlow's device lines, `pip show`,
pip's install lines, paths, prose, platform and container markers) and `nvidia-smi -q` as text.

A value seen several ways keeps the most direct one (priority: a tool's output read by its probe's
parser > the tool's own wording elsewhere > a template field > a path > prose). Each reader declares
the words without which it cannot match (READERS); it runs only on a line holding one, and the cheap
pass (tfdoctor/logs/triggers.py) reads only such lines. Every regex is bounded.
"""

from __future__ import annotations

import re
from typing import Any

from tfdoctor.logs import blocks, shapes
from tfdoctor.logs.blocks import Blocks
from tfdoctor.probes import nvcc as nvcc_probe
from tfdoctor.probes import nvidia_smi as smi_probe
from tfdoctor.probes import tensorflow as tf_probe
from tfdoctor.versions import differ
from tfdoctor.worker.worker import CREATED

MAX_GPUS = 64
MAX_DISTS = 200

V3 = r"\d{1,4}\.\d{1,3}(?:\.\d{1,3})?"  # 535.104.05 / 12.2 / 2.15.0
DRIVER = r"\d{3}\.\d{1,3}(?:\.\d{1,3})?"

# (nvidia-smi's banner and -q; a markdown table's row: "| Driver Version | 535.216.03 |")
RE_DRIVER_VERSION = re.compile(rf"\bDriver Version\s{{0,30}}[:|]\s{{0,4}}({DRIVER})"
                               rf"(?:\s{{1,60}}CUDA Version:\s{{0,4}}"
                               rf"(\d{{1,2}}\.\d{{1,2}}))?")
RE_SMI_Q_CUDA = re.compile(r"^CUDA Version\s{1,40}:\s{0,4}(\d{1,2}\.\d{1,2})")
RE_PRODUCT = re.compile(r"^Product Name\s{1,40}:\s{0,4}(\S.{0,80})$")
# `nvidia-smi -q`'s "Clocks Event Reasons" (older drivers: "Clocks Throttle Reasons"), each reason active
# or not: its -q -x tag (tfdoctor/probes/nvidia_smi.py reads those) is the name in snake case, but for two.
# (The thermal ones are the "thermal" evidence's (tfdoctor/logs/evidence.py), HW Slowdown the parent of them
# and of the power brake, which say why.)
RE_Q_REASON = re.compile(r"^(Idle|Applications Clocks Setting|SW Power Cap|HW Power Brake Slowdown|"
                         r"Sync Boost|Display Clock Setting)\s{0,40}:\s{0,4}Active$")
_Q_TAGS = {"idle": "gpu_idle", "display_clock_setting": "display_clocks_setting"}
RE_SMI_ROW = re.compile(r"^\|\s{0,4}(\d{1,2})\s{1,6}(\S.{0,48}?)\s{1,40}(?:On|Off|WDDM|TCC|MCDM)"
                        r"\s{0,4}\|\s{0,4}"
                        r"[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:")
RE_SMI_MEM = re.compile(r"^\|[^|]{0,100}\|\s{0,16}(\d{1,7})MiB\s{0,3}/\s{0,3}(\d{1,7})MiB\s{0,3}\|")
RE_SMI_L = re.compile(r"(?:^|:\s{1,3})GPU (\d{1,3}): (\S.{0,80}?) \(UUID: |"
                      r"(?:^|:\s{1,3})GPU (\d{1,3}): ((?:NVIDIA|GeForce|Tesla|Quadro|TITAN|GRID|RTX|GTX)\b"
                      r"[\w .-]{0,60}?)\s{0,4}$", re.IGNORECASE)
# `nvidia-smi -L` rows joined on one line where a page dropped the newlines ("GPU 0: ... GPU 1: ...")
RE_SMI_L_JOINED = re.compile(r" (?=GPU \d{1,3}: )")
RE_KERNEL_REPORTED = re.compile(rf"kernel reported version is:?\s{{0,3}}'?({DRIVER})")
# nvidia-container-cli info: the kernel module's version
RE_NVRM_VERSION = re.compile(rf"^NVRM version:\s{{0,8}}({DRIVER})\b")
# the cuDNN an NVIDIA CUDA image sets in its environment, as a Dockerfile or a person writes it ("ENV
# CUDNN_VERSION 7.6.5.32", "`CUDNN_VERSION 8.0.4.30`"; "CUDNN_VERSION=..." is a labelled line)
RE_CUDNN_ENV = re.compile(r"\b(?:NV_)?CUDNN_VERSION\s{1,3}v?(\d{1,2}\.\d{1,2}(?:\.\d{1,3}){0,2})\b")
# Horovod's issue template: "Framework: (TensorFlow, Keras, PyTorch, MXNet) tensorflow", then "Framework
# version: 2.3.0"
# (or the answer written in the options' parentheses: "Framework: (TensorFlow)")
RE_FRAMEWORK_TF = re.compile(r"^(?:\d{1,2}\.\s{1,3})?framework\s{0,2}:\s{0,3}(?:\(\s{0,2}tensorflow\s{0,2}\)|"
                             r"(?:\([^)]{0,80}\)\s{0,3})?tensorflow\b)")
RE_FRAMEWORK_VERSION = re.compile(r"^(?:\d{1,2}\.\s{1,3})?Framework version\s{0,2}:\s{0,3}"
                                  r"v?(\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)(?![\d.])", re.IGNORECASE)
# `dkms status`: the NVIDIA kernel module built for a kernel, old and new layouts ("nvidia-current,
# 470.199.02, 5.10.0-26-amd64, x86_64: installed", "nvidia/535.104.05, 5.15.0-88-generic, x86_64: installed")
RE_DKMS = re.compile(rf"^nvidia(?:-current|-\d{{3}}|-open)?(?:/|,\s{{1,3}})({DRIVER}),\s{{1,3}}"
                     r"[\w.+-]{1,80},\s{1,3}\w{1,20}: installed\b")
# the driver's version as NVIDIA's DCGM exporter labels every metric
RE_DCGM_DRIVER = re.compile(rf"\bDCGM_FI_DRIVER_VERSION=\"({DRIVER})\"")
RE_NVML_LIBRARY = re.compile(rf"NVML library version:\s{{0,3}}({DRIVER})")
# the kernel driver's version, as TensorFlow's and XLA's cuDNN code reports it after
# CUDNN_STATUS_NOT_INITIALIZED
RE_POSSIBLY_DRIVER = re.compile(rf"Possibly insufficient driver version:\s{{0,3}}({DRIVER})")
RE_DSO_REPORTED = re.compile(rf"libcuda reported version is:?\s{{0,3}}'?({DRIVER})")
RE_DRIVER_CUDA_OLDER = re.compile(r"driver's CUDA version is (\d{1,2}\.\d{1,2}) which is older")
# ("NVIDIA 410.104", "Nvidia driver version = 465.42", "NVIDIA-SMI 440.33.01", a distribution's package:
# "nvidia-drivers-530.41.03", "nvidia-open 565.57.01", "akmod-nvidia-565.77-1.fc41")
RE_DRIVER_PROSE = re.compile(rf"(?<!insufficient )"  # (TensorFlow's cuDNN report: RE_POSSIBLY_DRIVER)
                             rf"\b(?:NVIDIA|driver|drivers|nvidia-smi|nvidia-drivers?|nvidia-open|"
                             rf"a?kmod-nvidia)(?:\s{{1,3}}|-|\s{{0,2}}[:=(]\s{{0,2}})"
                             rf"(?:drivers?\s{{1,3}}|versions?\s{{0,3}}[:=]?\s{{0,3}}|(?:is|are)\s{{1,3}}|v|\(|"
                             rf"[为是為は]\s{{0,2}}){{0,3}}"
                             rf"({DRIVER})\b(?!\+|\s{{1,3}}or (?:later|newer|higher|above))", re.IGNORECASE)
RE_DRIVER_AFTER = re.compile(rf"(?<![\d.])({DRIVER})\s{{1,3}}(?:NVIDIA\s{{1,3}})?drivers?\b", re.IGNORECASE)
# cuDNN as a person names it ("CUDA 11.1 cuDNN 8.0.5.39", "cudnn-v7.6", "cuDNN==7.4.1", "cuDNN [8.9]",
# "libcudnn 5.1", "cudnn version 为 8.9.2": normalised CJK), not a CUDA version in an archive's name
# ("cudnn-10.0-windows10-x64-v7.6.5.32.zip": RE_CUDNN_ARCHIVE reads its cuDNN)
RE_CUDNN_PROSE = re.compile(r"\b(?:lib)?cudnn(?:\s{1,2}version)?\s{0,2}(?:[为是為は]\s{0,2})?"
                            r"[-:=]{0,2}\s{0,2}[\[(]?v?(\d{1,2}\.\d{1,2}(?:\.\d{1,3}){0,2})"
                            r"(?![\d.]|-(?:linux|windows|osx|x64|macos))", re.IGNORECASE)
# What is installed: a conda list's row ("cudnn   7.6.5   cuda10.2_0"), a Debian package
# ("libcudnn8_8.1.0.77", "libcudnn8  8.1.0.77-1+cuda11.2"), a library file's full name
# ("/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.4"; TensorFlow opens cuDNN by its major alone)
RE_CUDNN_INSTALLED = re.compile(r"^cudnn\s{2,40}(\d{1,2}\.\d{1,2}(?:\.\d{1,3}){0,2})\s{2,40}\S|"
                                r"\blibcudnn\d{1,2}(?:-dev)?(?:[_=]|\s{1,40})(\d{1,2}\.\d{1,2}(?:\.\d{1,3}){0,2})\b|"
                                r"\blibcudnn(?:_\w{1,20})?\.so\.(\d{1,2}\.\d{1,2}\.\d{1,3})\b")
# an issue template's cuDNN field holding its major alone ("- cuDNN: 9")
# ("cuDNN: 7", a line of its own: "CUDNN 7")
RE_CUDNN_MAJOR_FIELD = re.compile(r"^[-*+]?\s{0,3}cudnn(?:\s{1,2}version)?(?:\s{0,2}:\s{0,2}|\s{1,2})"
                                  r"v?(\d{1,2})\s{0,3}$", re.IGNORECASE)
RE_CUDNN_ARCHIVE = re.compile(r"\bcudnn-(?:\d{1,2}\.\d-)?(?:linux|windows\d{0,2}|osx|macos)-[\w]{1,8}-v?"
                              r"(\d{1,2}\.\d{1,2}(?:\.\d{1,3}){0,2})", re.IGNORECASE)
# ldd's row for the cuDNN a binary resolves: "libcudnn.so.6 => /usr/lib/x86_64-linux-gnu/libcudnn.so.6"
RE_LEADING_VERSION = re.compile(r"^\s{0,4}(\d{1,2}\.\d{1,2}(?:\.\d{1,3}){0,2})")
RE_LDD_CUDNN = re.compile(r"^libcudnn\.so\.(\d{1,2}(?:\.\d{1,2}){0,2})\s{1,8}=>\s{0,4}/")
# dmesg wraps this message over two lines: the client (user-space library) first, then the kernel module
RE_NVRM_CLIENT = re.compile(rf"API mismatch: the client(?: '[^']{{1,80}}' \(pid \d{{1,10}}\))?"
                            rf" has the version ({DRIVER})")
RE_NVRM_KERNEL = re.compile(rf"this kernel module has the version ({DRIVER})")
RE_NCCL_CUDA_DRIVER = re.compile(r"\bcudaDriverVersion (\d{4,6})\b")
RE_CUDA_VERSION_ANY = re.compile(r"\bCUDA Version\s{0,3}:\s{0,4}(\d{1,2}\.\d{1,2})\b|"
                                 r"\bnvidia-smi\b[^.]{0,40}\bCUDA Version\s{0,3}(\d{1,2}\.\d{1,2})\b")
# a line of the CUDA version alone, as a person states it ("CUDA 9.0", "- CUDA version: 10.1", "CUDA = 12.4")
RE_CUDA_STATED = re.compile(r"^(?:[-*]\s{0,3})?CUDA(?:\s{1,2}toolkit)?(?:\s{1,2}version)?\s{0,3}[:=]?\s{0,3}"
                            r"v?(\d{1,2}\.\d)(?:\.\d{1,3})?\s{0,3}$", re.IGNORECASE)
# a person's "label: value" line ("- Driver: 590.48.01", "Host `nvcc`: 11.5", "cuDNN version = 8.6")
RE_LABELED = re.compile(r"^[\s#>*|-]{0,12}([A-Za-z][\w `/().+-]{0,40}?)[`*_]{0,4}\s{0,3}[:=]"
                        r"\s{0,24}(\S.{0,200})$")  # (a tool's report aligns its values in a column)
RE_DRIVER_VALUE = re.compile(rf"(?<![\d.])({DRIVER})(?![\d.])")
RE_CUDA_IN_VALUE = re.compile(r"\bCUDA\s{0,3}(?:Version\s{0,3}:?\s{0,3}|v)?(\d{1,2}\.\d{1,2})\b",
                              re.IGNORECASE)
RE_SHORT_VERSION = re.compile(r"(?<![\d.])v?(\d{1,2}\.\d{1,2}(?:\.\d{1,3}){0,2})(?![\d.])")
# a diagnostic report's section heading (sleap doctor's "[Python]"), then its "Version:" a few lines below
RE_SECTION = re.compile(r"^\s{0,8}\[(python|tensorflow|cudnn|nvidia driver|driver)\]\s{0,4}$")
RE_SECTION_VERSION = re.compile(r"^\s{0,8}Version\s{0,3}:\s{0,12}v?(\d{1,3}(?:\.\d{1,4}){1,3})(?![\d.])",
                                re.IGNORECASE)
SECTION_LINES = 8
_SECTION_KEYS = {"python": "tensorflow.python_version", "tensorflow": "tensorflow.version",
                 "cudnn": "runtime.cudnn_version", "nvidia driver": "nvidia_smi.driver_version",
                 "driver": "nvidia_smi.driver_version"}
RE_V_VERSION = re.compile(r"(?<![\w.])v(\d{1,2}\.\d{1,2}(?:\.\d{1,3}){0,2})(?![\d.])")
# one number of the issue template's "CUDA/cuDNN version: 10.1/7.6" (cuDNN may be its major alone)
RE_FIELD_NUMBER = re.compile(r"(?<![\d.])v?(\d{1,2}(?:\.\d{1,4}){0,3})(?![\d.])")
RE_FIELD_SPLIT = re.compile(r"\s{0,3}(?:/|,|;|&|\band\b|\+(?=\s{0,3}cudnn))\s{0,3}", re.IGNORECASE)
# Environment modules (Lmod, Tcl modules) on clusters: "module load tensorflow/2.0.0 cuda/10.1", "ml
# python3/3.6.3"; each NAME/VERSION names what the job gets
RE_MODULE_LOAD = re.compile(r"\b(?:module\s{1,4}(?:load|add|swap)|ml)\s{1,4}([^\n]{1,300})")
RE_MODULE = re.compile(r"(?<![\w/.-])([A-Za-z][\w.+-]{0,40})/v?(\d{1,2}\.\d{1,3}(?:\.\d{1,4})?)(?![\d.])")
_MODULE_KEYS = {"tensorflow": "tensorflow.version", "tensorflow-gpu": "tensorflow.version",
                "python": "tensorflow.python_version", "cudnn": "runtime.cudnn_version",
                "cuda": "nvcc.version"}
RE_DEVICE_QUERY = re.compile(r"CUDA Driver Version / Runtime Version\s{1,20}(\d{1,2}\.\d) / (\d{1,2}\.\d)")
# A release's PEP 440 tail as people paste it: a pre- or post-release ("rc3", "-rc3", "b1", ".dev20200808",
# "-beta1") and a local build's tag ("+nv19.5": NVIDIA's Jetson and NGC wheels; not a Python written after
# it: "tensorflow-gpu1.13+py3.6"). One home for every reader.
PRE = r"(?:[-_.]?(?:rc|dev|post|alpha|beta|a|b)\d{1,10})?"
LOCAL = r"(?:\+(?!py\d)[A-Za-z0-9]{1,12}(?:\.[A-Za-z0-9]{1,12}){0,3})?"
_TF_DISTS = ("tensorflow|tensorflow-gpu|tensorflow-cpu|tensorflow-intel|tensorflow-macos|tensorflow-aarch64"
             "|tf-nightly")
# the GPU package of TensorFlow before 2.1 (a CPU-only `tensorflow` beside it), by its pip or conda name
RE_GPU_PACKAGE = re.compile(r"\b(?:tensorflow|tf-nightly)[-_]gpu\b")
RE_PIP_ROW = re.compile(
    r"^([A-Za-z0-9][A-Za-z0-9._-]{0,60})\s{1,60}(\d{1,4}(?:\.[0-9A-Za-z+!]{1,12}){0,5})"
    r"(?:\s{1,60}\S{1,200}){0,2}\s{0,4}$"  # pip list (+ location), conda list (+ build, channel)
)
RE_SO_NAME = re.compile(r"[\w.+-]{1,80}\.so(?:\.\d{1,6}){0,4}")
RE_CONDA_META = re.compile(r"h[0-9a-f]{7}_\d{1,3}")  # a conda build string of a package with no code
# conda's variant selector for its TensorFlow builds (gpu, or eigen/mkl: CPU-only), in `conda list`
# ("_tflow_select  2.3.0  mkl") or in a plan that switches it ("_tflow_180_select: 1.0-gpu --> 3.0-eigen")
RE_TFLOW_SELECT = re.compile(r"^_tflow(?:_\d{1,3})?_select(?::\s{1,40}\S{1,40}\s{1,40}-->\s{1,10}[\d.]{1,10}"
                             r"-(\w{1,10})|\s{1,40}[\d.]{1,10}\s{1,40}(\w{1,10})\b)")
RE_PIP_EQ = re.compile(r"\b(" + _TF_DISTS + r"|keras|tf-keras|numpy|protobuf|tf)(?:\[[\w,-]{1,30}\])?"
                       r"\s{0,2}==\s{0,2}(\d{1,4}"
                       r"(?:\.[0-9A-Za-z]{1,12}){0,4}(?:-(?:rc|alpha|beta|dev|post)\d{1,10})?" + LOCAL + ")",
                       re.IGNORECASE)
RE_DIST_DASH = re.compile(r"\b(tensorflow(?:[-_](?:gpu|cpu|intel))?)-(\d{1,2}\.\d{1,3}(?:\.\d{1,3})?"
                          + PRE + r")(?![\d-])", re.IGNORECASE)
RE_DIST_SPACE = re.compile(r"\b(tensorflow(?:-gpu|-cpu|-intel)?) (\d{1,2}\.\d{1,3}\.\d{1,3}\S{0,12}) "
                           r"(?:requires|has requirement|depends on)")
# pip's legacy list format (the default before pip 10, `--format=legacy` until pip 18): "numpy (1.13.3)",
# "mypkg (0.1, /src/mypkg)" (not `pip search`'s "name (version)  - summary": what PyPI has)
RE_PIP_LEGACY = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]{0,60}) \((\d{1,4}(?:\.[0-9A-Za-z+!]{1,12}){0,5})"
                           r"(?:, [^()]{1,200})?\)$")
# a `pip freeze` row; pip's resolver names installed distributions ("tensorflow-gpu 2.11.0 requires ...")
# (`pip freeze`, and a person's "TensorFlow == 1.15.0" line of what is installed)
RE_FREEZE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]{0,60}) ?== ?(\d{1,4}(?:\.[0-9A-Za-z+!]{1,12}){0,5})$")
RE_REQUIRER = re.compile(r"^(?:ERROR: )?([A-Za-z0-9][A-Za-z0-9._-]{0,60}) "
                         r"(\d{1,4}(?:\.[0-9A-Za-z+!]{1,12}){0,5}) (?:requires|has requirement) ")
# pip naming a distribution the environment already holds: "Requirement already satisfied: numpy>=1.16
# in ./lib/python3.8/site-packages (from tensorflow) (1.19.5)"; before pip 10: "tensorflow-gpu==1.0.1 in ..."
RE_SATISFIED = re.compile(r"^Requirement already (?:satisfied|up-to-date)(?: \(use --upgrade to upgrade\))?: "
                          r"([A-Za-z0-9][A-Za-z0-9._-]{0,60})(?:\[[\w,-]{0,60}\])?(?:==([\w.+!]{1,30}))?"
                          r"[^ ]{0,60} in \S{1,400}(?: \(from [^)]{0,200}\))?(?: \((\d[\w.+!]{0,30})\))?")
RE_INSTALLED = re.compile(r"\b([A-Za-z][A-Za-z0-9._-]{0,60})-(\d{1,4}(?:\.[0-9A-Za-z+]{1,12}){0,5})\b")
RE_WHEEL = re.compile(r"\b(" + _TF_DISTS.replace("-", "_") + r"|" + _TF_DISTS + r")-"
                      r"(\d{1,2}\.\d{1,3}\.\d{1,3}"
                      r"(?:\.post\d{1,3}|rc\d{1,2}|\.dev\d{1,10})?)"
                      # a local build's tag: tensorflow-1.12.0.a6d8ffa.AVX2.CUDA10-cp27
                      r"(?:[.+][\w.]{1,40}?)?"
                      r"(?:-(cp\d{2,3})|\.dist-info)", re.IGNORECASE)
# the libraries auditwheel vendored into a wheel sit in "<distribution>.libs" beside its package: a path
# through it names the TensorFlow distribution installed ("site-packages/tensorflow_cpu_aws.libs/libgomp-...")
RE_WHEEL_LIBS = re.compile(r"[/\\](tensorflow(?:_cpu_aws|_cpu|_aarch64|_intel|_gpu)?)\.libs[/\\]",
                           re.IGNORECASE)
RE_FETCHED = re.compile(r"(?:Using cached|Downloading) (protobuf|numpy|keras|tf_keras|ml_dtypes)-"
                        r"(\d{1,4}(?:\.\d{1,6}){1,3})-", re.IGNORECASE)
RE_TF_FIELD = re.compile(  # (not another package's field: "imagej-tensorflow version: 1.0.1")
    r"(?<![\w-])(?:Tensor ?Flow|tf)(?:[-_ ](?:gpu|cpu|nightly))?`?(?:\s{1,3}version)?[*_]{0,2}\s{0,3}"
    r"(?:\(use command below\))?"
    r"\s{0,3}(?:[:=]|\s-)\s{0,24}`?(?:tens[eo]rflow(?:-gpu|-cpu)?\s{1,3})?(?:v\.?\s?)?"
    r"(?:tf\s{0,2})?(?:v\d[\w.-]{0,40}\s{1,4})?"
    # (TensorFlow's majors are 0-2: NGC's image tags, tensorflow:20.03-tf2, are year.month)
    r"([0-2]\.\d{1,3}(?:\.\d{1,3})?" + PRE + LOCAL + r")\b"
    r"(?![.\d]{0,8}-[1-9]\d{0,5}-g[0-9a-f]{6})",  # (a git describe, v1.12.1-45908-g9af48cb079: past the tag)
    re.IGNORECASE,
)
# a git describe (v1.12.1-45908-g9af48cb079): a build that many commits past that tag (a nightly), not it
# (with 0 commits, 2.16.1-0-g5bc9d26649c, it is the release)
RE_GIT_DESCRIBE = re.compile(r"\bv?(\d{1,2}\.\d{1,3}(?:\.\d{1,3})?)(?:-rc\d{1,2})?-([1-9]\d{0,5})"
                             r"-g[0-9a-f]{6,40}\b")
RE_VERSION_VALUE = re.compile(r"(\d{1,2}\.\d{1,3}(?:\.\d{1,3})?" + PRE + LOCAL + ")")
RE_GIT_VERSION = re.compile(r"\bv\d{1,2}\.\d{1,3}\.\d{1,3}(?:-rc\d{1,2})?-\d{1,6}-g[0-9a-f]{6,40}\W{1,6}"
                            r"(\d{1,2}\.\d{1,3}\.\d{1,3}" + PRE + ")")
# ("tensorflow(0.12)", but not pip search's "tensorflow (1.12.0)  - ...", which names what PyPI has)
# a TensorFlow release as people write it in prose ("2.15", "2.16.0rc1", "2.15.0-dev20231005")
_TF_RELEASE = r"[0-2]\.\d{1,2}(?:\.\d{1,2})?(?:-?(?:rc|alpha|beta)\d{1,2}|[-.]dev\d{8})?" + LOCAL
RE_TF_PROSE = re.compile(r"\b(?:tf|tensorflow)(?:-nightly)?(?:[- ]?gpu)?"
                         r"(?:\s?\((?![\d.]{1,12}\)\s{1,40}-\s)|\s{0,2})"
                         r"(?:(?:updated|upgraded|downgraded)\s{1,2})?"
                         r"(?:to\s{1,2}(?:the\s{1,2}latest\s{1,2})?)?(?:version\s{0,2}\(?)?"
                         r"(?:(?:is|was|of|==?|是|為|为)\s{0,2})?`?"
                         r"(?:v\.?\s?)?(" + _TF_RELEASE + r")\b", re.IGNORECASE)
# ... its version attribute written with its value ("`tf.__version__` = 2.10.0", "tf.__version__: '2.15.0'")
RE_TF_ATTR_VALUE = re.compile(r"\b(?:tf|tensorflow)\.(?:__version__|version\.VERSION|VERSION)`?\s{0,2}"
                              r"(?:==?|:|->|is:?)\s{0,2}[`'\"]?v?(" + _TF_RELEASE + r")(?![\d.])")
# ... a change of release ("upgraded TensorFlow from version 2.12.0 to 2.15.0"): the release it went to
RE_TF_FROM_TO = re.compile(r"\b(?:tf|tensorflow)(?:[- ]?gpu)?\s{1,2}from\s{1,2}(?:version\s{1,2})?v?"
                           r"[\w.+-]{1,40}?\s{1,2}to\s{1,2}(?:version\s{1,2})?v?(" + _TF_RELEASE + r")\b",
                           re.IGNORECASE)
# TensorFlow 1.x's API, where no version is shown: its v1 namespace, and the deprecation wrapper of 1.14/1.15
# naming the tf.compat.v1 home of a 1.x name (in 2.x those names are gone, not deprecated)
RE_TF1_API = re.compile(r"\btensorflow\._api\.v1\b|\bdeprecation_wrapper\.py\b|"
                        r"\bThe name tf\.[\w.]{1,80} is deprecated\. Please use tf\.compat\.v1\.")
# an add-on's import check names the TensorFlow installed (TensorFlow Probability, TensorFlow Addons)
RE_ADDON_SAW = re.compile(r"\b(?:Detected an installation of version|"
                          r"versions? of TensorFlow you are currently using is)\s{1,3}"
                          r"(\d{1,2}\.\d{1,3}\.\d{1,3}(?:-?(?:rc|dev|alpha|beta)\d{1,10})?)")
# the source tree a Windows build of TensorFlow 1.x logs its files from
# ("c:\\l\\work\\tensorflow-1.1.0\\tensorflow\\core\\...")
RE_BUILD_TREE = re.compile(r"[\\/]tensorflow-(\d\.\d{1,2}\.\d{1,2}" + PRE + r")[\\/]tensorflow[\\/]"
                           r"(?:core|stream_executor|compiler|python|contrib)[\\/]", re.IGNORECASE)
RE_DOCKER_TAG = re.compile(r"\btensorflow/tensorflow:(\d{1,2}\.\d{1,3}\.\d{1,3})\b|"
                           r"\bTensorFlow/(\d{1,2}\.\d{1,3}\.\d{1,3})-|"  # the image; an HPC module;
                           # the C library's archive: libtensorflow-cpu-windows-x86_64-2.5.0.zip
                           r"\blibtensorflow(?:-gpu|-cpu)?-(?:linux|windows|darwin)-\w{1,8}-(\d{1,2}\.\d{1,3}\.\d{1,3})\.")
# the official models' benchmark logger's run info ("Benchmark run: {... 'tensorflow_version': {'version':
# '1.12.0', 'git_hash': ...}")
RE_RUN_INFO = re.compile(r"""['"]tensorflow_version['"]:\s{0,3}\{\s{0,3}['"]version['"]:\s{0,3}['"]"""
                         r"""(\d{1,2}\.\d{1,3}(?:\.\d{1,3})?)['"]""")
RE_QUOTED_VERSION = re.compile(r"^'(\d{1,2}\.\d{1,3}\.\d{1,3}\S{0,12})'$")
RE_VERSION_ATTR = re.compile(r"\b([a-z_][a-z0-9_]{0,30})\.__version__")
_MODULE_DIST = {"np": "numpy", "pd": "pandas", "tfp": "tensorflow-probability", "hub": "tensorflow-hub",
                "tfa": "tensorflow-addons", "tf_keras": "tf-keras"}
RE_PY_BANNER = re.compile(r"(?:^|\s)Python (\d\.\d{1,2}\.\d{1,2})(?:\s{1,3}[(|]|$)")
# sys.version as Python prints it, wherever a tool shows it (JAX's print_environment_info: "3.11.5 (main,
# Sep 11 2023, 13:54:46) [GCC 11.2.0]", reticulate's "version: 3.7.1 (default, Dec 10 2018, 22:54:23) ...")
RE_SYS_VERSION = re.compile(r"(?<![\w.])(\d\.\d{1,2}\.\d{1,2})(?:[abrc+]{1,2}\d{0,2})?(?: \|[^|\n]{1,60}\|)?"
                            r" \([\w.:/ -]{1,40}, "
                            r"[A-Z][a-z]{2} {1,2}\d{1,2} \d{4}, \d\d:\d\d:\d\d\)")
RE_PY_FIELD = re.compile(r"(?<![A-Za-z0-9]-)\bpython[*_`]{0,2}(?:[ _]version)?[*_`]{0,2}\s{0,3}"
                         r"(?:[:=]|==)\s{0,3}\(?"
                         r"(?:py(?:thon)?\s{0,2})?"
                         r"v?(\d\.\d{1,2}(?:\.\d{1,2})?)(?!\.?\d)",
                         re.IGNORECASE)
RE_PY_PROSE = re.compile(r"\bpython(?:-|\s{0,2})(?:version\s{0,2}(?:is\s{0,2})?)?"
                         r"(?:v\.?\s?)?([23]\.\d{1,2}(?:\.\d{1,2})?)(?!\.?\d)",
                         re.IGNORECASE)
# The Python an environment holds: a conda list's python row ("python  3.12.9  h9e4cc4f_1_cpython
# conda-forge"); the build string of a compiled package's row, built for one Python ("tensorflow  2.11.1
# cuda112py39h01bd6f0_0", "absl-py  0.8.1  py37_0"); an extension module's warning naming the Python
# running it ("compiletime version 3.5 of module '...' does not match runtime version 3.6")
RE_CONDA_PYTHON = re.compile(r"^python\s{2,40}(\d\.\d{1,2}\.\d{1,2})\s{2,40}\S")
RE_CONDA_PY_BUILD = re.compile(r"(?:^|[a-z\d_])py(3)(\d{1,2})(?:h[0-9a-f]{7}|_\d{1,3}$)")
RE_PY_RUNTIME = re.compile(r"\bdoes not match runtime version (\d\.\d{1,2})\b")
# site-packages paths, Windows install folders, conda env names, TF's Windows build paths (...\PY\36\...)
RE_PY_PATH = re.compile(r"[/\\]python(\d\.\d{1,2})[/\\]|[/\\](?:Python|PY[/\\])(3\d{1,2})(?:_64|-32)?[/\\]|"
                        # python-3.8.5-env/, a tool cache's Python/3.10.19/x64, python/2.7.10-anaconda/
                        r"python3?[-/\\](\d\.\d{1,2}\.\d{1,2})(?:-[a-z]{1,12}|[/\\]|$)|"
                        # macOS's user site (~/Library/Python/3.6/lib/python/site-packages), pip3.6
                        r"[/\\]Library[/\\]Python[/\\](\d\.\d{1,2})[/\\]|\bpip(3\.\d{1,2})\s",
                        re.IGNORECASE)
# pyenv choosing the interpreter ("pyenv shell 3.10.4", "pyenv install 3.10.4")
RE_PYENV = re.compile(r"\bpyenv (?:install|shell|global|local|virtualenv) (\d\.\d{1,2}\.\d{1,2})\b")
# a Windows Python's width: its install folder ("...\Python37-32\...") or its banner ("[MSC v.1916 32 bit
# (Intel)]", "64 bit (AMD64)")
RE_PY_BITS = re.compile(r"[/\\]Python3\d{1,2}(-32)[/\\]|"
                        r"\[MSC v\.\d{4} (32|64) bit \((?:Intel|AMD64|ARM64)\)\]", re.IGNORECASE)
RE_PY_TAG = re.compile(r"-cp(\d)(\d{1,2})-")
# JAX's device list naming a GPU ("jax.devices (10 total, 10 local): [cuda(id=0) ...]", "[CudaDevice(id=0)]")
RE_JAX_GPU = re.compile(r"\b(?:cuda|gpu)\(id=\d{1,3}\)|\b(?:Gpu|Cuda)Device\(id=\d{1,3}")
# Ray runs tasks and Tune trials in worker processes whose output it prefixes ("(pid=3343) ...",
# "(TrainTrainable pid=12, ip=10.0.0.2) ...") and reports the GPUs its running trials hold of the cluster's
# ("Resources requested: 1/8 CPUs, 0/1 GPUs", Ray 2's "Logical resource usage: 4.0/8 CPUs, 0/1 GPUs").
# A task that requests no GPU runs with CUDA_VISIBLE_DEVICES set to none:
# https://docs.ray.io/en/latest/ray-core/scheduling/accelerators.html
RE_RAY_WORKER = re.compile(r"\((?:[\w.:-]{1,80} )?pid=\d{1,10}(?:, ip=[\w.:-]{1,64})?\)|\(raylet\)|\bray::\w")
RE_RAY_GPUS = re.compile(r"(?:resources requested|logical resource usage): [^|\n]{0,120}?"
                         r"\b(\d{1,4})(?:\.\d{1,3})?/(\d{1,4})(?:\.\d{1,3})? GPUs?\b", re.IGNORECASE)
# a pip command or requirement naming a framework's CUDA extra: pip installs CUDA and cuDNN as nvidia-* wheels
RE_PIP_CUDA_EXTRA = re.compile(r"\b((?:tensorflow|jax|jaxlib)\[(?:and-cuda|cuda1\d(?:_pip)?|cuda)\])",
                               re.IGNORECASE)
# A batch scheduler's job script or environment: Slurm, PBS/Torque, LSF (GPU nodes under one usually run
# their GPUs in Exclusive Process mode, one job's process per GPU)
RE_SCHEDULER = re.compile(
    r"(?P<slurm>^#SBATCH\b|\bs(?:run|batch|alloc)\b|\$\{?SLURM_[A-Z]|\bslurmstepd\b)"
    r"|(?P<pbs>^#PBS\b|\$\{?PBS_[A-Z]|\bqsub\b)"
    r"|(?P<lsf>^#BSUB\b|\$\{?LSB_[A-Z]|\bbsub\b|\bjsrun\b)")  # (jsrun: LSF's launcher on IBM's Summit)
# PyTorch's collect_env: the CUDA its build needs (the driver is judged against it where TensorFlow's is not
# shown)
RE_PYTORCH_CUDA = re.compile(r"CUDA used to build PyTorch:\s{0,4}(\d{1,2}\.\d{1,2})\b", re.IGNORECASE)
# the end of the folder TensorFlow was imported from, as a traceback's frames show it (the first one shown is
# the one imported; TensorFlow 2.0-2.1's own code is in tensorflow_core): what the tensorflow probe records as
# its location
RE_TF_PACKAGE = re.compile(r"[/\\](?:site|dist)-packages[/\\]tensorflow(?:_core)?[/\\]")
RE_HEADING = re.compile(r"^[\s#>*-]{0,12}(tensorflow version|python version|"
                        r"os platform and "
                        r"distribution|tensorflow installed from|cuda/cudnn version|"
                        r"gpu models? and (?:memory|configuration))"
                        r"\b[^:]{0,60}:?"
                        r"\**\s{0,3}(.{0,120})$", re.IGNORECASE)
RE_BUILD_KV = re.compile(r"""['"(]?(cuda_version|cudnn_version|is_cuda_build|cuda_version_number|"""
                         r"""cudnn_version_number)"""
                         r"""['"]?\s{0,3}[:,]\s{0,3}['"]?"""
                         r"""(True|False|true|false|64_\d{1,4}|\d{1,4}(?:\.\d{1,4}){0,3})""")
RE_BUILD_CAPS = re.compile(r"cuda_compute_capabilities['\"]?\s{0,3}[:,]\s{0,3}\[([^\]]{0,400})\]")
RE_CUDNN_LOADED = re.compile(r"Loaded cuDNN version (\d{3,6})")
RE_CREATING = re.compile(r"Creating TensorFlow device \(/(?:device:)?gpu:(\d{1,3})"
                         r"(?: with (\d{1,7}) MB memory)?\)\s{0,3}->"
                         r"\s{0,3}\(device: (\d{1,3}), name: ([^,]{1,120}), pci bus id: ([^,)]{1,40})"
                         r"(?:, compute capability: (\d{1,2}\.\d))?", re.IGNORECASE)
RE_MIXED_GPU = re.compile(r"Your GPUs?: ([^,\n]{1,80}), compute capability (\d{1,2}\.\d)")
# PyTorch's check of each GPU against its build ("Found GPU0 GeForce GT 720 which is of cuda capability 3.5.")
RE_TORCH_GPU = re.compile(r"Found GPU(\d{1,2}) (.{1,80}?) which is of (?:cuda|compute) capability "
                          r"(?:\(CC\) )?(\d{1,2}\.\d)")
RE_IGNORING = re.compile(r"Ignoring (?:visible )?gpu device \(device: (\d{1,3}), name: ([^,()]{1,120}?)"
                         r"(?:, pci bus id: [^,)]{1,40})?(?:,? compute capability: (\d{1,2}\.\d))?\)"
                         r"(?: with Cuda compute capability (\d{1,2}\.\d))?", re.IGNORECASE)
RE_FOUND = re.compile(r"Found device (\d{1,3}) with properties")
# Grappler's DeviceProperties of a registered GPU (grappler/clusters/utils.cc), printed in its cost model's
# "Error in PredictCost()" warnings: the CUDA and cuDNN versions are the ones TensorFlow was compiled with
RE_GRAPPLER_DEVICE = re.compile(r'type: "GPU" vendor: "NVIDIA" model: "([^"]{1,120})"[^{}]{0,120}'
                                r'environment \{ key: "architecture" value: "(\d{1,2}\.\d)" \} environment \{'
                                r' key: "cuda" value: "(\d{4,6})" \} environment \{ key: "cudnn" value:'
                                r' "(\d{3,6})" \}')
RE_NAME_CC = re.compile(r"name: ([^\n]{1,120}?)\s{1,8}"
                        r"(?:computeCapability: (\d{1,2}\.\d)|major: (\d{1,2}) minor: (\d))")
RE_NAME_LINE = re.compile(r"^name: ([^\n]{1,120}?)(?:\s{2,}|\s{1,4}(?:major|computeCapability):|$)")
RE_PCI_LINE = re.compile(r"^pciBusID:?\s{0,3}([0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.\d)\s{0,3}$")
# nvidia-container-cli info's fields ("Model:          TITAN Xp", "Architecture:   6.1")
RE_CLI_FIELD = re.compile(r"^(CUDA version|Device Index|Model|Bus Location|Architecture):\s{1,20}"
                          r"(\S.{0,120})$")
RE_MAJOR_MINOR = re.compile(r"^major: (\d{1,2}) minor: (\d)")
# (newer XLA: "StreamExecutor [0]: NVIDIA GeForce RTX 4060 Laptop GPU, Compute Capability 8.9 (Driver:
# 13.0.0[580.126.9]; Runtime: 12.8.0; Toolkit: 12.9.0; DNN: 9.10.2)")
RE_XLA_DEVICE = re.compile(r"StreamExecutor (?:device \((\d{1,3})\)|\[(\d{1,3})\]): ([^,]{1,120}), "
                           r"Compute Capability (\d{1,2}\.\d)"
                           r"(?: \(Driver: (\d{1,2}\.\d{1,2})[.\d]{0,4}\[(\d{3}\.\d{1,3}\.\d{1,3})\];"
                           r"[^)]{0,80}?DNN: (\d{1,2}\.\d{1,2}(?:\.\d{1,3})?))?")
RE_DEVICE_QUERY_NAME = re.compile(r'^Device (\d{1,3}): "([^"]{1,120})"')
RE_DEVICE_QUERY_CC = re.compile(r"CUDA Capability Major/Minor version number:\s{1,20}(\d{1,2})\.(\d)")
RE_TOTAL_MEMORY = re.compile(r"totalMemory:\s{0,3}(\d{1,6}(?:\.\d{1,3})?)\s{0,2}([GM])i?B")
RE_NUM_GPUS = re.compile(r"Num GPUs Available:?\s{0,3}(\d{1,3})")
RE_NO_GPUS = re.compile(r"\bGPUs?\b[^\n\[]{0,60}[?:=]\s{0,3}\[ {0,2}\]\s{0,3}$|"
                        r"list_physical_devices\(['\"]GPU['\"]\)\)?`?\s{0,3}"
                        r"(?:#\s{0,3})?(?:->|=>|:)?\s{0,3}(?:\[ {0,2}\]|"
                        # a person's words: "... list_physical_devices('GPU')` returns an empty list"
                        r"(?:returns?|returned|gives?|gave|shows?|outputs?|prints?)\s{1,3}(?:an?\s{1,3})?"
                        r"(?:empty|\[\]))|"
                        # a script's print of tf.test.is_gpu_available() ("Is there a GPU available: False")
                        r"\bGPU (?:is )?available\s{0,3}[:?=]?\s{0,3}False\s{0,3}$")
# a person's words for the answer under the call: "returns emplty list []", "returns an empty list"
RE_EMPTY_ANSWER = re.compile(r"^(?:it\s{1,3})?(?:returns?|returned|gives?|gave|shows?|outputs?|prints?)\b"
                             r"[^\n]{0,30}?(?:\[\]|\bempty\b)")
# a placement TensorFlow refuses because it registered no GPU at all (not "no supported kernel for GPU
# devices", an op without a GPU kernel): TensorFlow 0.x-2.x
RE_NO_GPU_REGISTERED = re.compile(
    r"Could not satisfy explicit device specification '[^'\n]{0,80}GPU:\d{1,3}' because no devices matching"
    r" that specification are registered|"
    # StreamExecutor asked for a CUDA device where none is usable (TensorFlow 1.x's XLA device, JAX)
    r"no supported devices found for platform CUDA|"
    # Ray's worker given a GPU whose TensorFlow lists none ("GPUs were assigned to this worker by Ray, but
    # TensorFlow reports GPU acceleration is disabled")
    r"(?<=but )TensorFlow reports GPU acceleration is disabled", re.IGNORECASE)
# ops whose kernels are all GPU kernels (cuDNN's RNNs): a model using them asks for a GPU (NCCL's collectives
# are nccl.unsupported-platform's)
RE_GPU_ONLY_OP = re.compile(r"\bOp 'Cudnn\w{0,30}'")
# device_lib.list_local_devices(): a GPU TensorFlow registered, as its description
RE_DEVICE_DESC = re.compile(r'physical_device_desc: "device: (\d{1,3}), name: ([^,"]{1,120}), pci bus id: '
                            r'([^,"]{1,40})(?:, compute capability: (\d{1,2}\.\d))?')
# the placement log's device mapping: a GPU TensorFlow registered ("/job:localhost/replica:0/task:0/
# device:GPU:0 -> device: 0, name: GeForce GTX 1080, pci bus id: 0000:01:00.0, compute capability: 6.1")
RE_DEVICE_MAPPING = re.compile(r"device:GPU:(\d{1,3}) -> device: (\d{1,3}), name: ([^,\n]{1,120}), "
                               r"pci bus id: ([^,\n]{1,40})(?:, compute capability: (\d{1,2}\.\d))?")
RE_XLA_GPU = re.compile(r"physical_device:XLA_GPU:\d{1,3}|device_type:\s{0,2}\"XLA_GPU\"|"
                        # Keras's device list ("only has: ['/cpu:0', '/xla_gpu:0']"), a person's words
                        r"'/xla_gpu:\d{1,3}'|\bdevice type is XLA_GPU\b|"
                        # the placement log's device mapping (log_device_placement=True)
                        r"device:XLA_GPU:\d{1,3} -> device: XLA_GPU device", re.IGNORECASE)
# the device types a kernel lookup had to choose from ("No OpKernel was registered ... Registered devices:
# [CPU, XLA_CPU, XLA_GPU]"): XLA's GPU device without TensorFlow's own means TensorFlow registered no GPU
RE_REGISTERED_DEVICES = re.compile(r"Registered devices: \[([\w, ]{1,120})\]")
# the placer's list when a node asked for a device it does not have ("was explicitly assigned to
# /device:GPU:0 but available devices are [ /job:localhost/replica:0/task:0/device:CPU:0, ...XLA_GPU:0 ]")
RE_AVAILABLE_DEVICES = re.compile(r"available devices are \[([^\]\n]{1,2000})\]")
RE_DEVICE_TYPE = re.compile(r"device:(\w{1,20}):\d")
# Session.list_devices() printed: "[_DeviceAttributes(/job:localhost/replica:0/task:0/device:CPU:0, CPU, 26)]"
RE_DEVICE_ATTRIBUTES = re.compile(r"_DeviceAttributes\([^,()\n]{1,200}, (\w{1,20}),")
RE_PHYSICAL_GPU = re.compile(r"PhysicalDevice\(name='/physical_device:GPU:(\d{1,3})'")
# tf.config.list_physical_devices() printed whole, as a list: the device types TensorFlow registered
_PHYSICAL = r"PhysicalDevice\(name='/physical_device:\w{1,20}:\d{1,3}', device_type='\w{1,20}'\)"
RE_PHYSICAL_LIST = re.compile(rf"^`?\[({_PHYSICAL}(?:, ?{_PHYSICAL}){{0,31}})\]")
RE_PHYSICAL_TYPE = re.compile(r"device_type='(\w{1,20})'")
# ... unless the call asked for one type only ("list_physical_devices('CPU')")
RE_ONE_TYPE_ASKED = re.compile(r"list_physical_devices\(\s{0,3}(?:device_type\s{0,3}=\s{0,3})?['\"](?!gpu)",
                               re.IGNORECASE)
RE_ADDING_VISIBLE = re.compile(r"Adding visible gpu devices?: ([\d, ]{1,200})$")
RE_CVD_VARIABLE = re.compile(r"CUDA_VISIBLE_DEVICES=\$\{?([A-Za-z_]\w{0,40})\}?(?![\w}:-])")
RE_CVD = re.compile(
    r"CUDA_VISIBLE_DEVICES['\"\]]{0,2}\s{0,3}[=:]\s{0,3}(['\"\[]?)([\w,.-]{0,4096})(['\"\]]?)")
# A program's option choosing a GPU by index ("gputouse=1", "--gpu 1", "--gpu_id=2"): such programs set
# CUDA_VISIBLE_DEVICES to it ("--gpus N" is a count in most tools: not read)
RE_GPU_CHOSEN = re.compile(r"(?:\bgputouse|--gpu(?:[-_]ids?)?|\bgpu_ids?)\s{0,2}[= ]\s{0,2}['\"]?(\d{1,2})\b"
                           r"(?![.\d]|,\s{0,2}\d)")  # (not a list: "--gpu 0,1")
# the NVIDIA Container Toolkit's device list as a container's environment shows it ("void", "none": no GPU)
RE_NVD = re.compile(r"NVIDIA_VISIBLE_DEVICES['\"\]]{0,2}\s{0,3}[=:]\s{0,3}['\"]?([\w,:.-]{1,400})")
RE_DEVICE_ORDER = re.compile(
    r"CUDA_DEVICE_ORDER['\"\]]{0,2}\s{0,3}[=:]\s{0,3}['\"]?(PCI_BUS_ID|FASTEST_FIRST)\b")
# an LD_LIBRARY_PATH assignment as written (export, env listing, a Dockerfile's ENV): its value unexpanded
RE_LD_PATH = re.compile(r"\bLD_LIBRARY_PATH\s{0,3}=\s{0,3}(['\"]?)([^\s'\"]{1,4096})")
_NOT_SET = ("unset", "not-set", "undefined", "null")  # a report's word for a variable not set
RE_CVD_ECHOED = re.compile(r"[\w,.-]{1,4096}")  # the line under `echo $CUDA_VISIBLE_DEVICES` (MIG-<uuid>,...)
# nvidia-smi's table: the third row of a GPU ends with its MIG mode; the MIG devices table lists instances
RE_SMI_MIG_MODE = re.compile(r"^\|[^|]{0,80}\|[^|]{0,80}\|\s{0,40}(Enabled|Disabled)(\*?)\s{0,4}\|$")
RE_SMI_MIG_ROW = re.compile(r"^\|\s{0,4}(\d{1,2})\s{1,6}(\d{1,3})\s{1,6}(\d{1,3})\s{1,6}(\d{1,3})\s{0,4}\|"
                            r"\s{0,20}\d{1,7}MiB\s{0,3}/\s{0,3}(\d{1,7})MiB")
RE_SMI_L_MIG = re.compile(r"^MIG (\d{1,2}g\.\d{1,4}gb)\s{1,10}Device\s{1,4}(\d{1,2}): "
                          r"\(UUID: (MIG-[\w/-]{1,80})\)")
# TF_CONFIG as set or printed: `export TF_CONFIG='{...}'`, `TF_CONFIG={...}`, a Python dict in
# os.environ["TF_CONFIG"] = json.dumps({...}), Estimator's "TF_CONFIG environment variable: {...}"
RE_TF_CONFIG = re.compile(r"TF_CONFIG['\"\]]{0,2}(?: environment variable)?\s{0,3}[=:]\s{0,3}"
                          r"(?:json\.dumps\(\s{0,3})?(['\"]?)\s{0,3}(\{.*)")
RE_K8S_VALUE = re.compile(r"^-?\s{0,3}value:\s{0,3}(['\"]?)\s{0,3}(\{.*)")  # under `- name: TF_CONFIG`
MAX_TF_CONFIG_LINES = 60
# what a template field adds to the OS: its own hint "(e.g., Linux Ubuntu 16.04)", a "(WSL)" note
# The GPU a person names in a field ("GPU model and memory: GeForce GTX 1070, Compute Capability 6.1, 8Gb",
# "- GPU: 2 x RTX 2080 Super"): a brand or a model number (A100, K80), up to a separator, without the count
# before it or a memory size after it.
GPU_FIELDS = frozenset({"gpu", "gpus", "gpu(s)", "gpu model", "gpu model and memory", "gpu type", "gpu name",
                        "graphics card", "graphic card", "graphics", "video card", "gpu devices",
                        "gpu models and configuration"})  # (PyTorch's collect_env, its issue templates)
# a stated GPU's compute capability as its own field ("GPU compute capability: 3.5")
CC_FIELDS = frozenset({"compute capability", "gpu compute capability", "cuda capability",
                       "cuda compute capability", "gpu capability"})
# a GPU field answered with no GPU
RE_NO_GPU_VALUE = re.compile(r"(?:none|no(?: nvidia| dedicated| discrete)? gpus?|cpu(?:[- ]only)?)\b(?! \w)",
                             re.IGNORECASE)
RE_CC_VALUE = re.compile(r"\d{1,2}\.\d(?!\.?\d)")
RE_STATED_GPU = re.compile(r"^(?:\d{1,2}\s{0,2}[x\u00d7]?\s{1,3})?"
                           r"((?:nvidia\s{1,3})?(?:geforce|quadro|tesla|titan|"
                           r"rtx|gtx|gt |grid|jetson|[a-z]{1,2}\d{1,4}\b)[^,;()/|]{0,60})", re.IGNORECASE)
RE_STATED_TAIL = re.compile(r"(?:\.\s|\s{1,3}(?:compute capability|computeCapability:|cc\b|major:)).{0,80}$|"
                            r"\s{1,3}(?:(?:with|and|-)\s.{0,80}|\d{1,3}\s{0,2}(?:gb|gib|mb)"
                            r"(?:\s{1,2}(?:of\s)?(?:memory|ram|vram|gddr\w{0,4}|hbm\w{0,4}))?\s{0,3})$",
                            re.IGNORECASE)
# A GPU named in a sentence ("on my RTX 3060Ti", "显卡是A100"): GeForce and data-centre product names only
RE_PROSE_GPU = re.compile(r"(?<![A-Za-z0-9_])((?:NVIDIA )?(?:GeForce )?(?i:rtx|gtx) ?\d{3,4}"
                          r"(?: ?(?i:ti|super))?|"
                          r"(?:NVIDIA )?(?:Tesla )?(?:[AHVPBK]\d{2,3}(?:[mc](?![A-Za-z0-9]))?|L40S?)|"
                          r"(?:NVIDIA )?(?i:titan) (?i:rtx|v|xp?)|"
                          # (GeForce models before the GTX/RTX families' four digits: "GeForce 780M", "MX450")
                          r"(?:NVIDIA )?GeForce (?:GTS? |MX ?)?\d{3}(?:[MX]{1,2}|Ti)?|"
                          r"(?i:quadro) (?:RTX )?[A-Z]{0,2}\d{3,4}|RTX ?A\d{4}|"
                          # NVIDIA's boards, their GPU named by the board ("Jetson Nano", "Jetson AGX Orin")
                          r"(?i:jetson) (?i:agx |xavier |orin )?(?i:nano|tx1|tx2|xavier|orin)"
                          r"(?: (?i:nx|agx))?|"
                          # a GeForce or RTX workstation model without its brand ("I use 3080ti", "A4000")
                          r"(?:20[6-8]0|30[5-9]0|40[6-9]0|50[6-9]0) ?(?i:ti|super)|A[2-6]000)"
                          r"(?=s?(?![A-Za-z0-9_]))(?! ?(?i:series))")  # (a plural: "4 RTXA4000s")
# the rest of a data-centre GPU's name as CUDA and nvidia-smi print it: its form and memory ("Tesla
# V100-SXM2-16GB", "A100-PCIE-40GB", "V100-DGXS-32GB")
RE_NAME_SUFFIX = re.compile(r"(?:-(?:SXM\d?|PCIE|PCIe|DGXS|NVL|\d{1,3}GB)){1,3}(?![\w-])")
# a GeForce model by its number alone, on a line about the GPU ("GPU是笔记本的3070", "my GPU: 4090"), not a
# quantity ("GPU memory 4090 MiB", "3060 s")
RE_BARE_MODEL = re.compile(r"(?<![\w.:/-])((?:20[6-8]0|30[5-9]0|40[6-9]0|50[6-9]0)(?: ?(?i:ti|super))?)"
                           r"(?![\w.%/-])(?!\s{0,2}(?i:mib|mb|gb|gib|kb|w\b|mhz|ms\b|s\b|sec|seconds|steps|it/s))")
_BARE_MODEL_WORDS = ("gpu", "graphics", "video card")
_SMI_ROW_WORDS = ("mib", "n/a", "0000", "persistence", "bus-id", "processes", "default")  # an nvidia-smi row
# another vendor's GPU a person names ("the GPU is Intel (R) UHD Graphics 620", "AMD Radeon RX 580"): stated
# only where no NVIDIA GPU is named
RE_OTHER_GPU = re.compile(r"\b(Intel ?(?:\(R\) ?)?(?:UHD|HD|Iris(?: Xe| Plus| Pro)?)(?: ?Graph\w{0,5})?"
                          r"(?: ?\d{3,4})?|Iris (?:Xe|Plus|Pro)(?: ?Graph\w{0,5})?|"
                          r"(?:AMD )?Radeon(?: ?(?:RX|Pro|HD|R[579]|VII))?(?: ?\d{3,4}[A-Z]{0,2})?)",
                          re.IGNORECASE)
# a person saying the machine has no GPU at all ("My VM doesn't have GPU acceleration", "I don't have a GPU",
# "a CPU-only server"), not that TensorFlow finds none
_MACHINE = r"(?:vm|machine|laptop|computer|pc|server|node|system|instance|box|host|mac|macbook)"
RE_NO_GPU_SAID = re.compile(
    rf"(?:\b(?:i|my|this|the|our) ?{_MACHINE}? (?:does(?: not|n'?t)|do(?: not|n'?t)|did(?: not|n'?t)) have"
    rf" (?:an? |any )?|\b{_MACHINE} (?:has|with) no )(?:dedicated |discrete )?(?:nvidia )?"
    r"(?:gpus?|graphics? cards?|video cards?)\b"
    r"(?! (?:available|found|detected|visible|device|support))|"
    rf"\bcpu[- ](?:only )?{_MACHINE}s?\b", re.IGNORECASE)  # ("on a CPU node": a cluster's nodes without GPUs)


# A framework's own check saying CUDA found no GPU (PyTorch's torch.cuda.is_available(), a tool's "CUDA device
# requested but no devices found"): where a container was started without the GPU, that is why
RE_CUDA_UNAVAILABLE = re.compile(r"\bCUDA (?:is )?(?:not |un)available\b|"
                                 r"cuda\.is_available\(\)\)?\s{0,3}(?:->|=>|:|returns?|is|==)?\s{0,3}False\b|"
                                 r"\bno (?:CUDA[- ](?:capable )?)?(?:GPU )?devices? (?:were |was )?"
                                 r"(?:found|detected)\b",
                                 re.IGNORECASE)


def _asked(line: str, start: int, end: int) -> bool:
    """Whether the sentence holding line[start:end] is a question ("what if I don't have a GPU?")."""
    stop = min((i for i in (line.find(". ", end), line.find("?", end)) if i >= 0), default=len(line))
    return "?" in line[max(line.rfind(". ", 0, start), line.rfind("?", 0, start)) + 1:stop + 1]


# a person saying the work runs on the CPU, not the GPU ("it keeps running on CPU", "jax keeps falling back to
# CPU", "TensorFlow does not use my GPU")
RE_CPU_FALLBACK = re.compile(
    r"\b(?:runs?|running|ran|falls?|falling|fell)(?: back)?(?: only)? (?:on|to) (?:the |my )?cpu\b|"
    r"\b(?:does not|doesn'?t|did not|didn'?t|won'?t|can ?not|can'?t|not) (?:use|using|utili[sz]e|detect|"
    r"recogni[sz]e|find|see) (?:the |my |any )?gpus?\b|"
    r"\bonly (?:the |my )?cpu (?:is|was|gets?) used\b|\b(?:uses?|using) only (?:the |my )?cpu\b|"
    r"\bonly (?:uses?|using) (?:the |my )?cpu\b", re.IGNORECASE)
_OTHER_GPU_WORDS = ("radeon", "uhd", "iris", "intel hd", "intel(r) hd", "intel (r) hd")
_PROSE_GPU_WORDS = ("rtx", "gtx", "geforce", "tesla", "titan", "quadro", "a100", "h100", "h200", "b200",
                    "v100", "p100", "k80", "l40", "a10", "a16", "a30", "a40", "a800", "h800", "p40", "m40",
                    "m60", "t4", "0ti", "0 ti", "0super", "0 super", "a2000", "a4000", "a5000", "a6000",
                    "jetson",
                    *_BARE_MODEL_WORDS)
# A person saying their GPU is split by MIG ("enable mig", "8*[MIG-7g.40gb]", "the GPUs have been MIGed",
# "split 7-ways with MiG"), not asking whether to, nor saying it is off.
RE_MIG_WORD = re.compile(r"(?<![a-z0-9-])mig(?:ed|ged)?(?![a-z])")
RE_MIG_PROFILE = re.compile(r"\b\d{1,2}g\.\d{1,3}gb\b")
# A person saying the GPUs run in an exclusive compute mode ("the GPUs are in exclusive mode", "compute
# exclusive mode", "EXCLUSIVE_PROCESS"), not asking whether, nor saying they are not
RE_EXCLUSIVE_SAID = re.compile(r"\bexclusive[ _-]?(?:process|thread)?[ _-]?(?:compute[ _-]?)?mode\b|"
                               r"\bcompute[ _-]exclusive\b|\bexclusive_(?:process|thread)\b", re.IGNORECASE)
# (LSF's `bsub -gpu "num=4:mode=exclusive_process"` asks the scheduler for it: each job's GPUs are its own)
_EXCLUSIVE_NOT = ("?", "not ", "n't", "default mode", "prohibited", "mode=exclusive")
# The Windows build under WSL 2 or native Windows: "Windows 10 Version 1909 build 18363", "OS build
# 19042.1052", "Microsoft Windows [Version 10.0.18363.1556]", "Windows 10 20H2", "Windows 11"
RE_WIN_BUILD = re.compile(r"(?:\bOS |\bWindows\b[^.\n]{0,60}?\b)build (\d{5})\b|"
                          r"(?:\[Version|\bWindows Version:?)\s{0,3}10\.0\.(\d{5})(?:\.\d{1,5})?\b\]?|"
                          r"\bWindows 10,?\s{0,2}(?:version\s{0,2})?(1[5-9]0[1-9]|20[0-9]4|2[0-2]H[12])\b|"
                          r"\bWindows (11)\b", re.IGNORECASE)
# Windows 10's releases by their first build (https://learn.microsoft.com/en-us/windows/release-health/release-information)
_WIN10_BUILDS = {"1507": 10240, "1511": 10586, "1607": 14393, "1703": 15063, "1709": 16299, "1803": 17134,
                 "1809": 17763, "1903": 18362, "1909": 18363, "2004": 19041, "20h2": 19042, "21h1": 19043,
                 "21h2": 19044, "22h2": 19045, "11": 22000}
# gpustat's row of a GPU: "[0] Tesla V100-SXM2-16GB | 44'C,   0 % | 15836 / 16130 MB | alice(15800M)"
RE_GPUSTAT = re.compile(r"^\[(\d{1,2})\]\s{1,3}([^|\n]{2,60}?)\s{0,4}\|\s{0,4}-?\d{1,3}\s?['\u00b0]?C,"
                        r"[^|\n]{1,40}\|\s{0,8}(\d{1,7})\s{0,2}/\s{0,2}(\d{1,7})\s{0,2}MB\s{0,2}\|")
# `ls -l /dev/nvidia*`: a GPU device file (character device) and its mode, owner and group
RE_DEV_NODE = re.compile(r"^[>\s]{0,6}c([r-][w-][xsS-])([r-][w-][xsS-])([r-][w-][xtT-])[.+@]?\s{1,8}\d{1,4}"
                         r"\s{1,8}(\S{1,32})\s{1,8}(\S{1,32})\s{1,8}\d{1,4},\s{0,4}\d{1,5}\s[^\n]{1,40}?\s"
                         r"(?:/dev/)?(nvidia(?:ctl|-uvm|\d{1,3}))$")
# A person saying the GPU works only as root ("can only access the gpu when run with sudo", "not able to use
# GPU unless superuser"): the device files are closed to their user
RE_ROOT_ONLY = re.compile(r"\b(?:only|unless)\b[^.\n]{0,50}?\b(?:sudo|superuser|as root|root user)\b", re.I)
_ROOT_ONLY_GPU = ("gpu", "cuda", "nvidia", "torch", "tensorflow")
# a MIG slice named as a product (Kubernetes' nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB-MIG-3g.40gb)
RE_MIG_PRODUCT = re.compile(r"-mig-\d{1,2}g\.\d{1,3}gb\b")
# (not nvidia-smi -q's "MIG Mode" / "MIG Devices" headings)
_MIG_SAID = ("enable", "configur", "with mig", "using mig", "mig slice", "mig partition", "miged", "migged",
             "[mig-", "mig is on", "mig on", "in mig mode", "mig instances")
_MIG_NOT = ("?", "not ", "n't", "disable", "n/a", "no mig", "without mig", " off", "none", "how to",
            "how do")
_MIG_WORDS = (" mig", "[mig", "*mig", "(mig", "-mig-", "multi-instance gpu")
# A CPU's model as /proc/cpuinfo, lscpu, a template or a sentence names it (cpu.avx-missing judges it).
RE_CPU_MODEL = re.compile(
    r"\b((?:Intel(?:\(R\))?\s{1,2})?(?:Xeon(?:\(R\))?(?:\s{1,2}CPU)?\s{1,2}[A-Z]\d?-?\d{4}[A-Z]?(?:\s{1,2}v\d)?"
    r"|(?:Core\(TM\)\s{0,2}2|Core\s{0,2}2\s{1,2}(?:Duo|Quad|Extreme))(?:\s{1,2}(?:Duo|Quad|Extreme))?"
    r"(?:\s{1,2}CPU)?(?:\s{1,2}[A-Z]{1,2}\d{4})?"
    r"|(?:Core(?:\(TM\))?\s{1,2})?i[3579]-\d{3,5}[A-Z]{0,2}"
    r"|(?:Celeron|Pentium|Atom)(?:\((?:R|TM)\))?(?:\s{1,2}(?:CPU|Gold|Silver|Dual-Core|Processor)){0,2}"
    r"(?:\s{1,2}[A-Z]{0,2}\d{3,4}[A-Z]{0,2})?)"
    r"|(?:AMD\s{1,2})?(?:Phenom(?:\(tm\))?(?:\s{1,2}II)?|Athlon(?:\(tm\))?(?:\s{1,2}(?:II|64))?|Turion|Sempron"
    r"|Opteron(?:\(tm\))?(?:\s{1,2}Processor)?)(?:\s{1,2}X\d)?(?:\s{1,2}[A-Z]{0,2}\d{3,4}[A-Z]{0,2})?)\b",
    re.IGNORECASE)
_CPU_WORDS = ("xeon", "core 2", "core(tm)2", "core(tm) 2", "core2", "i3-", "i5-", "i7-", "i9-", "celeron",
              "pentium", " atom", "phenom", "athlon", "turion", "sempron", "opteron")
RE_STATED_CC = re.compile(r"(?<!required )(?<!minimum )(?:compute capability|\bcc)\s{0,3}[:=]?\s{0,3}`?"
                          r"(\d{1,2}\.\d)\b|"
                          r"\bsm_(\d{1,2})(\d)\b|"
                          r"\bmajor: (\d{1,2}) minor: (\d)\b",  # (TensorFlow 1.x's device properties)
                          re.IGNORECASE)
RE_OS_NOTE = re.compile(r"\s{0,3}\((?:e\.g\.?,?|WSL ?2?\b)[^()]{0,60}\)", re.IGNORECASE)
RE_EXAMPLE = re.compile(r"\(e\.g\.?,?[^()]{0,80}\)", re.IGNORECASE)  # a template's example, not this machine
RE_OS = re.compile(
    r"\b((?<!-)[Uu]buntu ?\d\d\.\d\d(?:\.\d{1,2})?(?: LTS)?|CentOS(?: Linux)?(?: release)? \d[\d.]{0,8}|"
    r"Rocky Linux \d[\d.]{0,6}|"
    r"Red Hat Enterprise Linux(?: Server| Workstation)?(?: release)? \d[\d.]{0,6}|Fedora(?: Linux)? \d{2}|"
    r"Debian(?: GNU/Linux)? \d{1,2}|Win(?:dows)? ?(?:7|8|10|11)\b|Amazon Linux \d{1,4}|"
    r"openSUSE(?: Leap| Tumbleweed)?(?: \d[\d.]{0,6})?|"
    r"Arch Linux|Pop!_OS \d\d\.\d\d|Linux Mint \d{1,2}(?:\.\d)?|macOS \d{2}(?:\.\d{1,2})?|"
    r"Windows Server \d{4})",
    re.IGNORECASE,
)
# (a glob naming the folder is a search list, "globs=[... /usr/lib/wsl/lib/libcudart.so*]", not this machine)
RE_WSL2 = re.compile(r"microsoft-standard-WSL2|/usr/lib/wsl/lib(?![^\s\]\"',]{0,200}\*)|\bWSL ?2\b",
                     re.IGNORECASE)
# Windows' drives as WSL mounts them, in a prompt or a path ("user@LAPTOP:/mnt/d/project$", "/mnt/c/Users")
RE_WSL_MOUNT = re.compile(r"(?:^|[\s:'\"=])/mnt/[a-z]/(?:Users/|[\w.-]{1,80}[/$ ])")
# a Linux NVIDIA driver package listed as installed (`dpkg -l`, `dpkg --get-selections`, `apt list`), or
# being installed ("sudo apt install nvidia-utils-510")
_DRIVER_PACKAGE = r"((?:lib)?nvidia-(?:compute|driver|utils|gl|kernel-common|dkms)-\d{3}(?:-server|-open)?)"
RE_DRIVER_PACKAGE = re.compile(rf"^(?:ii\s{{1,4}})?{_DRIVER_PACKAGE}(?::amd64)?(?:/\S{{1,60}})?\s{{1,60}}"
                               r"(?:install\b|\d{3}\.\d)")
RE_DRIVER_INSTALL = re.compile(r"\bapt(?:-get)?\s{1,3}(?:-y\s{1,3})?install\s{1,3}(?:-y\s{1,3})?"
                               + _DRIVER_PACKAGE + r"\b")
RE_WSL1 = re.compile(r"\d\.\d{1,2}\.\d{1,3}-\d{3,6}-Microsoft\b|\bWSL ?1\b")
RE_KERNEL = re.compile(r"\b(\d\.\d{1,2}\.\d{1,3}(?:-\d{1,5})?(?:\.\d{1,5})?-"
                       r"(?:microsoft-standard-WSL2|generic|aws|"
                       r"gcp|azure|\d{1,4}-Microsoft|[\w.]{1,30}))\b")
RE_WINDOWS = re.compile(
    r"(?:^|[\s'\"(=`])[A-Za-z]:\\|\b(?:cudart|cublas|cudnn|cufft|curand|cusolver|cusparse)64_\d{1,4}\.dll|"
    r"\bnvcuda\.dll|"
    r"^(?:\([\w.-]{1,40}\)\s{1,3})?PS (?:[A-Za-z]:\\|>)|"  # PowerShell's prompt, its path hidden or not
    r"\bWDDM\b|\btensorflow[-_]intel\b|\bwin_amd64\b|\bwin32\b|"
    r"\bWin(?:dows)? ?(?:7|8|10|11)\b|\bWindows Long Path\b|"  # (pip's hint, on Windows alone)
    # Python's platform.platform() ("Windows-10-10.0.19041-SP0") and its banner's compiler, MSVC
    r"\bWindows-(?:7|8|8\.1|10|11)-\d|\[MSC v\.\d{3,4} (?:64|32) bit|"
    r"(?:^|\s)\.\\tensorflow[/\\]|"  # TensorFlow's Windows builds log sources as .\tensorflow/core/...
    r"\\(?:Lib\\)?site-packages\\|\\AppData\\(?:Local|Roaming)\\",  # backslash paths without a drive
    re.IGNORECASE,
)
_LINUX_PATH = (r"\.so(?:\.\d{1,6}){0,4}\b|(?:^|[\s'\"(=:\[])/"
               r"(?:home|usr|opt|mnt|data|root|var|tmp|etc|srv|workspace|content|kaggle|"
               r"proc|sys|lib|lib64|scratch|nfs|gpfs|lustre|anaconda3?|miniconda3?|conda|app|code|work|nix)/")
RE_LINUX_PATH = re.compile(_LINUX_PATH)
RE_LINUX = re.compile(
    _LINUX_PATH + "|"
    r"\blinux\b|\bubuntu|\bnixos\b|\bNCCL INFO\b|\./[\w.-]{1,60}\.sh\b|"
    r"manylinux|\bcentos|\bdebian|\bfedora|\brhel\b|rocky linux|\bNUMA node\b|\bNVRM\b|\bdmesg\b|"
    r"\bmodprobe\b|"
    r"\blsmod\b|LD_LIBRARY_PATH|\w@[\w.-]{1,64}:[~/]|"
    # nvidia-smi's table header on Linux (and in WSL2, which a WSL marker decides); Windows' shows its
    # driver model there (TCC/WDDM)
    r"\bPersistence-M\b|"
    r"\b(?:Google )?Colab\b|\bKaggle (?:notebook|kernel)s?\b|\bSageMaker\b|"  # hosted runtimes run Linux
    # Debian's and Ubuntu's Python folder, the kernel's OOM killer
    r"/dist-packages/|\boom[-_](?:kill|reaper)\b|"
    # a Linux shell's word for a crash (macOS's reads "Illegal instruction: 4"), Linux wheels' platform tags,
    # and the Raspberry Pi (NVIDIA's Jetson boards: RE_JETSON)
    r"\(core dumped\)|\blinux_(?:x86_64|aarch64|armv7l)\b|\braspberry ?pi\b|\braspbian\b",
    re.IGNORECASE,
)
RE_SITE_PACKAGES = re.compile(r"/lib/python\d\.\d{1,2}/site-packages/")


def _posix_python(line: str) -> bool:
    """Whether a line names a Python's own lib/pythonX.Y/site-packages in an absolute path under any root
    but macOS's (a relative or home path, "~/venv/lib/...", says no platform)."""
    at = line.find("/lib/python")
    while at >= 0:
        if RE_SITE_PACKAGES.match(line, at):
            start = max(line.rfind(c, max(0, at - 300), at) for c in " \t'\"(=:[") + 1
            path = line[start:at]
            if path.startswith("/") and "/" in path[1:] and not RE_MACOS.match(path):  # (macOS's roots)
                return True
        at = line.find("/lib/python", at + 1)
    return False


_JETSON_WORDS = ("jetson", "jetpack", "tegra", "l4t")
RE_JETSON = re.compile(r"\b(?:Jetson|JetPack|Tegra|L4T)\b", re.IGNORECASE)
# TensorFlow built for AMD's ROCm: its package, its images and their tags, its version field (not a
# framework's report that it has no ROCm: "ROCM used to build PyTorch: N/A", JAX's "backend 'rocm'")
RE_ROCM_BUILD = re.compile(r"tensorflow[-_]rocm|rocm/tensorflow|\brocm\d|"
                           r"\bROCm(?:/MIOpen)? version:\s{0,3}\d|/opt/rocm\b", re.IGNORECASE)
# Apple's Metal plugin giving TensorFlow the Mac's GPU ("Metal device set to: Apple M1 Max", its
# PluggableDevice "name: METAL"): the GPU route on macOS, which no NVIDIA GPU takes
RE_METAL = re.compile(r"\bMetal device set to\b|\bPluggableDevice \(device: \d{1,2}, name: METAL\b")
# (its GPU's name, before TensorFlow names the plugin's device "METAL")
RE_METAL_GPU = re.compile(r"\bMetal device set to:\s{0,3}(Apple [\w ]{1,40}?)\s{0,4}$")
RE_MACOS = re.compile(r"\bDarwin\b|tensorflow-macos|tensorflow-metal|macosx_\d{1,2}|"
                      # the BSD shell's word for a signal, with its number ("Abort trap: 6"; bash on Linux
                      # prints "Aborted (core dumped)")
                      r"^(?:Abort trap: 6|Illegal instruction: 4|Segmentation fault: 11|Bus error: 10)\b|"
                      # (a root folder: "/home/lab/Users/x" is a Linux path)
                      r"(?<![\w.-])(?-i:/Users/\w|/Library/|/System/Library/|/Applications/)|/opt/homebrew/|"
                      r"\.dylib\b|OS X does not support NUMA|" + RE_METAL.pattern,
                      re.IGNORECASE)
# A person naming macOS may be naming another machine ("trained on my Mac"): a Linux path outranks it.
RE_URL = re.compile(r"\b[a-z][a-z0-9+.-]{1,12}://\S{1,2000}", re.IGNORECASE)
RE_MACOS_WORD = re.compile(r"\bmac ?OS\b|\bMac OS X\b|\bOS X\b", re.IGNORECASE)
# CUDA runs only under WSL 2; a GPU user who names WSL is on WSL 2 unless a WSL 1 kernel says otherwise.
RE_WSL = re.compile(r"(?<!non-)\bWSL\b")
RE_CONDA = re.compile(r"\b(?:ana|mini|mamba|micro)(?:conda|forge)3?\b|/envs/\w|"
                      r"conda (?:install|activate|create)|"
                      r"\|Anaconda", re.IGNORECASE)
# A container engine started on a command line (after a shell's prompt, "user@host:~/dir# "), and the flags
# that hand it the GPU: without one the container has no driver (--device /dev/nvidia0 passes the device
# files, not the driver's libraries)
RE_ENGINE_RUN = re.compile(r"^(?:[\w.-]{1,40}@[\w.-]{1,60}:[^\s$#]{0,200})?(?:[$#]\s{0,3})?(?:sudo\s{1,3})?"
                           r"(?:(nvidia-docker|docker|podman)\s{1,3}"
                           r"(?:container\s{1,3})?run|(?:singularity|apptainer)\s{1,3}(?:exec|run|shell))\b")
# (Singularity and Apptainer hand a container the host's GPU and driver libraries with --nv, or --nvccli)
RE_GPU_ACCESS = re.compile(r"--gpus\b|--runtime[= ]nvidia\b|nvidia\.com/gpu|NVIDIA_VISIBLE_DEVICES|"
                           r"--nv(?:ccli)?\b")
RE_LIBCUDA_FILE = re.compile(r"\blib(?:cuda|nvidia-ml)\.so\.(\d{3}\.\d{1,3}(?:\.\d{1,3})?)(?![\d.])")
# nvidia-docker 1's volume of the driver's user-space libraries, named for the driver it copied
RE_DRIVER_VOLUME = re.compile(r"\bnvidia_driver_(\d{3}\.\d{1,3}(?:\.\d{1,3})?)(?![\d.])")
RE_OPENED = re.compile(r"Successfully opened (?:dynamic|CUDA) library ([\w.+-]{1,80})")
RE_CONTAINER = re.compile(r"docker run\b|nvidia-docker|/\.dockerenv|\bdocker exec\b|podman run\b|"
                          r"^== TensorFlow ==$|nvidia-container-cli\b|Error response from daemon\b|"
                          r"OCI runtime (?:create )?failed|OCI runtime attempted|\bCDI devices?\b|"
                          r"Emulate Docker CLI|"
                          # Docker's (and Compose's) own refusal of --gpus without NVIDIA's runtime
                          r"could not select device driver \"[\w-]{0,40}\" with capabilities|"
                          r"\b(?:docker|podman) (?:containers?|images?)\b|\bdocker[- ]compose\b|"
                          r"docker\"\s{1,3}\"run\b|\bdocker ?hub\b|"
                          # Kubernetes: its tools and distributions
                          r"\bkubectl\b|\bkubeflow\b|\bkubernetes\b|(?<!/)\bk8s\b(?!/)|\bopenshift\b|"
                          # a Dockerfile, Docker's version, "inside a docker", an issue template's "Docker"
                          r"\bDockerfile\b|\bdocker(?: version)?:? v?\d{2}\.\d{1,2}\b|"
                          r"\b(?:in|inside|within) (?:a |the |my |our )?docker\b|:\s{0,3}Docker\s{0,3}$|"
                          # "in nvidia-pytorch docker", "installed thru singularity", AlphaFold's launchers
                          r"(?<!not )(?<!n't )\b(?:in|inside|within|thru|through|via|with|using|under) "
                          r"(?:an? |the |my |our )?"
                          r"(?:[\w.-]{1,40} )?"
                          r"(?:docker|singularity|apptainer|podman)\b|\brun_(?:docker|singularity)\.py\b|"
                          r"(?<!not )(?<!n't )\b(?:in|inside|within) (?:an? |the |my |our )?"
                          r"(?:[\w.-]{1,40} )?container\b|"
                          r"NVIDIA Release \d\d\.\d\d|"
                          # Singularity / Apptainer: a command, an image, the shell's prompt, a sentence
                          r"\b(?:singularity|apptainer)\s{1,3}(?:exec|run|shell|pull|build|instance|container|image)\b|"
                          r"\.sif\b|^(?:Singularity|Apptainer)>|"
                          # a shell in a container: docker names its host by the container's 12-hex id
                          r"\b\w{1,32}@[0-9a-f]{12}:[~/]|\[\w{1,32}@[0-9a-f]{12} |"
                          # ... as TensorFlow's CUDA diagnostics print it
                          r"\b(?:for host|hostname): [0-9a-f]{12}$", re.IGNORECASE)
_WINDOWS_KEYS = (":\\", ".dll", "wddm", "win", "[msc v.", "tensorflow-intel", "tensorflow_intel",
                 ".\\tensorflow", "\\site-packages", "ps >",
                 "\\appdata")
_LINUX_DIRS = ("home", "usr", "opt", "mnt", "data", "root", "var", "tmp", "etc", "srv", "workspace",
               "content", "kaggle", "proc", "sys", "lib", "lib64", "scratch", "nfs", "gpfs", "lustre", "app",
               "code", "work", "nix", "anaconda", "miniconda", "conda")
# a path that starts there (RE_LINUX_PATH: after a space, quote, bracket, "=" or ":"; a leading space in a
# trigger also matches at the start of a line), not TensorFlow's own tensorflow/core/data/... sources
_LINUX_PATH_KEYS = (".so", *(f"{c}/{d}" for c in " '\"(=:[" for d in _LINUX_DIRS))
_LINUX_KEYS = (*_LINUX_PATH_KEYS, "/mnt/", "linux", "ubuntu", "centos", "debian", "fedora", "rhel", "rocky",
               "/dist-packages/", "/site-packages/", "oom-kill", "oom_kill", "oom-reaper", "oom_reaper",
               "numa", "nvrm", "nixos", "nccl info", ".sh", "dmesg", "modprobe", "lsmod", "ld_library_path",
               "persistence-m",
               "@", "colab", "kaggle", "sagemaker", "(core dumped)", "raspberry", "raspbian")
_MACOS_KEYS = ("mac", "darwin", "/users/", "/library/", "homebrew", "dylib", "os x", "abort trap: 6",
               "illegal instruction: 4", "segmentation fault: 11", "bus error: 10", "metal device set to",
               "name: metal")
_OS_KEYS = ("ubuntu", "centos", "rocky", "red hat", "fedora", "debian", "windows", "win 1", "win1", "win 7",
            "win7", "win 8", "win8", "amazon linux", "opensuse",
            "arch linux", "pop!_os", "mint", "macos")


_RUN_ENGINES = ("docker", "podman", "singularity", "apptainer")  # the commands whose run lines are read
# Container engines named in a paste, by their words, as tfdoctor/probes/system.py names them (the first
# word found wins; docker when none is named)
# (podman's errors through crun, its default runtime: "Error: crun: ...")
_ENGINES = (("podman", "podman"), ("error: crun:", "podman"), ("apptainer", "apptainer"),
            ("singularity", "singularity"),
            ("kubectl", "kubernetes"), ("kubeflow", "kubernetes"), ("kubernetes", "kubernetes"),
            ("k8s", "kubernetes"), ("openshift", "kubernetes"))
_CONTAINER_KEYS = ("docker", "podman", "singularity", "apptainer", ".sif", "nvidia release",
                   "== tensorflow ==", "container", "oci runtime", "cdi device", "daemon", "@",
                   "kube", "k8s", "openshift", "could not select device driver", "for host: ", "hostname: ")


def _model(name: Any) -> str:
    """A GPU's model without its brand words and spaces ("NVIDIA RTX A6000" and "RTX A6000": "a6000")."""
    low = str(name or "").lower()
    for brand in ("nvidia", "geforce", "tesla", "quadro", "rtx", "gtx"):
        low = low.replace(brand, "")
    return low.replace(" ", "")


def _has(low: str, words: tuple[str, ...]) -> bool:
    return any(map(low.__contains__, words))


def _holds(found: frozenset[str], words: frozenset[str]) -> bool:
    return not found.isdisjoint(words)


def tf_config_value(text: str, quote: str) -> str | None:
    """The JSON TF_CONFIG holds, from the text after `TF_CONFIG=` (JSON, or a Python dict literal as
    code and Estimator's log print it); a quoted shell value that is not JSON is kept as written (that
    is what the variable holds), code that builds the dict from variables is not a value."""
    import ast
    import json

    end = _closing_brace(text)
    body = text[:end] if end else text
    try:
        return json.dumps(json.loads(body))
    except (ValueError, RecursionError):
        pass
    try:
        data = ast.literal_eval(body)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        data = None
    if isinstance(data, dict):
        return json.dumps(data)
    if quote and end:
        return body  # e.g. export TF_CONFIG='{"cluster": {worker: [...]}}': invalid JSON, as set
    return None


def _closing_brace(text: str) -> int:
    """The end of the first balanced {...} in text (0 when it never closes)."""
    depth = 0
    for i, ch in enumerate(text):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i + 1
    return 0


def _mib(value: str, unit: str) -> int:
    """'11.00', 'G' -> 11264."""
    try:
        number = float(value)
    except ValueError:
        return 0
    return int(number * 1024) if unit.upper().startswith("G") else int(number)


def _refines(value: Any, held: Any) -> bool:
    """'3.9.6' refines '3.9' (and '2.15.0.post1' refines '2.15.0'): more precise, never different."""
    return isinstance(value, str) and isinstance(held, str) and value.startswith(held + ".")


def _py_from_compact(digits: str) -> str:
    """'310' -> '3.10', '39' -> '3.9'."""
    return f"{digits[0]}.{digits[1:]}"


# Lines that state one value: (regex whose first group taking part is it, where it goes, how much it is
# trusted).
# An optional 4th item: lower-case words one of which the line must hold for the regex to be tried.
# Julia's CUDA.versioninfo(): "- driver 570.172.8 for 13.0" (the CUDA the driver supports)
# (its older form: "NVIDIA driver 460.73.1, for CUDA 11.2")
RE_JL_DRIVER = re.compile(r"^(?:- driver|NVIDIA driver) \d{3}\.\d{1,3}(?:\.\d{1,3})?,? for (?:CUDA )?"
                          r"(\d{1,2}\.\d{1,2})\b")
# The toolkit and the driver's CUDA in a person's words ("the installed CUDA Toolkit is version 12.5"; "driver
# 550.54.15 supporting CUDA Toolkit 12.4")
RE_TOOLKIT_PROSE = re.compile(r"(?<!supporting )(?<!supports )(?<!up to )\bCUDA[ -]toolkit"
                              r"(?:\s{1,3}(?:is|was))?(?:\s{1,3}version)?(?:\s{1,3}(?:is|was))?"
                              r"\s{0,3}[:=]?\s{0,3}v?(\d{1,2}\.\d{1,2})\b", re.IGNORECASE)
RE_DRIVER_SUPPORTS = re.compile(r"\bdriver\b[^\n]{0,60}?\bsupport(?:s|ing)\s{1,3}(?:up to\s{1,3})?CUDA"
                                r"(?:\s{1,3}Toolkit)?\s{1,3}(\d{1,2}\.\d{1,2})\b", re.IGNORECASE)
# PyTorch's collect_env runs `nvcc --version` for its "CUDA runtime version" (other tools: "CUDA compiler")
RE_COLLECT_NVCC = re.compile(r"^CUDA (?:runtime|compiler) version:\s{0,4}(\d{1,2}\.\d{1,2})(?:\.\d{1,3})?"
                             r"\s{0,3}$")
RE_BARE_VERSION = re.compile(r"^(\d{1,2}\.\d{1,3}\.\d{1,3}\S{0,12})$")
# a shell or interpreter prompt, or a command: what a session does next (no answer to wait for any more)
RE_PROMPT = re.compile(r"^(?:\$|>>>|\(\w{1,40}\)\s|[\w.-]{1,40}@[\w.-]{1,64}[:~]|python\d?(?:\.\d{1,2})? |"
                       r"pip\d? |import |```)")
TF_PRINT_WINDOW = 12  # lines (TensorFlow 1.x's "successfully opened CUDA library" lines on import)
_IMPORT_LOG = ("successfully opened", "dso_loader", "cpu_feature_guard", "your cpu supports", "futurewarning",
               "warning:tensorflow", "np_resource", "_np_qint")
_ONE_VALUE: tuple[tuple[Any, ...], ...] = (
    (RE_JL_DRIVER, "nvidia_smi.cuda_version", 4, ("- driver ", "nvidia driver ")),
    (RE_COLLECT_NVCC, "nvcc.version", 3, ("cuda runtime version:", "cuda compiler version:")),
    (RE_DRIVER_SUPPORTS, "nvidia_smi.cuda_version", 1, ("support",)),
    (RE_TOOLKIT_PROSE, "nvcc.version", 1, ("cuda toolkit", "cuda-toolkit")),
    (RE_SMI_Q_CUDA, "nvidia_smi.cuda_version", 5, ("cuda version",)),
    (RE_KERNEL_REPORTED, "system.proc_driver_version", 6, ("kernel reported version",)),
    (RE_POSSIBLY_DRIVER, "system.proc_driver_version", 5, ("insufficient driver version",)),
    (RE_DRIVER_CUDA_OLDER, "nvidia_smi.cuda_version", 3, ("which is older",)),
    (RE_DSO_REPORTED, "system.libcuda_version", 5, ("libcuda reported version",)),
    (RE_DEVICE_QUERY, "nvidia_smi.cuda_version", 4, ("/ runtime version",)),
    (RE_NVRM_CLIENT, "system.libcuda_version", 5, ("api mismatch",)),
    (RE_NVML_LIBRARY, "system.libcuda_version", 5, ("nvml library version",)),  # nvidia-smi on a mismatch
    (RE_NVRM_KERNEL, "system.proc_driver_version", 5, ("kernel module has the version",)),
    (RE_NVRM_VERSION, "system.proc_driver_version", 5, ("nvrm version:",)),
    (RE_DKMS, "system.proc_driver_version", 3, (": installed",)),
    (RE_CUDNN_ENV, "runtime.cudnn_version", 3, ("cudnn_version",)),
    (RE_DCGM_DRIVER, "nvidia_smi.driver_version", 4, ("dcgm_fi_driver_version",)),
    (RE_CUDA_VERSION_ANY, "nvidia_smi.cuda_version", 2, ("cuda version",)),  # nvidia-smi's words elsewhere
    (RE_DRIVER_PROSE, "nvidia_smi.driver_version", 1, ("driver", "nvidia")),
    (RE_DRIVER_AFTER, "nvidia_smi.driver_version", 1, ("driver",)),
)


# TensorFlow prints the driver's version as three integers: 515.43.04 as "515.43.4", 367.27 as "367.27.0"
_TF_PRINTED = (RE_KERNEL_REPORTED, RE_DSO_REPORTED, RE_POSSIBLY_DRIVER)


_CC_WORDS = ("capability", "cc", "sm_")  # one of which RE_STATED_CC needs


def _stated_cc(text: str) -> str | None:
    """The compute capability a person wrote beside a GPU's name ("compute capability 8.6", "CC 8.6",
    "sm_120")."""
    m = RE_STATED_CC.search(text)
    if not m:
        return None
    return m.group(1) or (f"{m.group(2)}.{m.group(3)}" if m.group(2) else f"{m.group(4)}.{m.group(5)}")


def _as_nvidia(version: str) -> str:
    """A driver version as TensorFlow prints it, written as NVIDIA does (a two-digit patch, or none)."""
    parts = version.split(".")
    if len(parts) != 3 or not parts[2].isdigit():
        return version
    return ".".join(parts[:2]) if int(parts[2]) == 0 else f"{parts[0]}.{parts[1]}.{int(parts[2]):02d}"


# What state() leaves out: the values (`changes` counts them), what a line gives whether or not it is new,
# the line before and the next's (Reader._settle reads them apart), the line counter, the blocks (apart)
_VOLATILE = frozenset({"values", "attempts", "_prev", "_prev_line", "_next", "_words", "line_no",
                       "blocks"})


def _leads(low: str) -> bool:
    """Whether a line is one whose next line _after (or a reader) reads in its light: what the next line
    gives may then depend on it, so it is not skipped by its shape (tfdoctor/logs/shapes.py)."""
    return ("__version__" in low or "tensorflow" in low or "version.version" in low
            or "is_built_with_cuda" in low or "list_physical_devices" in low
            or low.lstrip("*` ").startswith("name:")
            or low.endswith(("echo $cuda_visible_devices", "tf_config")))


_BLOCKS_VOLATILE = frozenset({"line_no"})


class Values:
    """Line-by-line state: the values seen so far, each with its priority and line number."""

    def __init__(self) -> None:
        self.values: dict[str, tuple[Any, int, int]] = {}  # "section.key" -> (value, priority, line)
        self.changes = 0  # values set (what state() counts instead of them)
        # values read, whether or not they were new: a line that gives one is never skipped by its shape
        # (the next line of that shape may give another: a GPU's index, a version)
        self.attempts = 0
        self.gpus: dict[int, dict[str, Any]] = {}  # TensorFlow's view, by device index
        self.smi_gpus: dict[int, dict[str, Any]] = {}
        self.ignored: dict[int, dict[str, Any]] = {}
        self.stated: dict[int, dict[str, Any]] = {}  # the GPU a person named in a field
        self.prose: dict[int, dict[str, Any]] = {}  # the first GPU named in a sentence
        self.other_gpu: dict[int, dict[str, Any]] = {}  # the first of another vendor's
        self._conda_channel: str | None = None  # the channel of a `conda list`'s tensorflow row
        self.lists: list[list[tuple[str, str]]] = [[]]  # package lists (name, version), in order
        self._nvrm = ""  # an NVRM "API mismatch" message so far (dmesg wraps it)
        self.libcuda_files: list[str] = []  # driver versions of libcuda/libnvidia-ml.so.VERSION files named
        self.dev_denied: list[str] = []  # GPU device files closed to other users
        self.pinned: dict[str, str] = {}  # TensorFlow packages `pip install NAME==VERSION` named
        self.dist_lines: dict[str, int] = {}
        self.blocks = Blocks()
        self.visible: set[int] = set()
        self.hints: dict[str, int] = {}
        self._heading: str | None = None
        self._section: tuple[str, int] | None = None  # a report's section ("[Python]") and its line
        self._found: int | None = None
        self._last_smi: int | None = None
        self._smi_gpu: int | None = None  # the GPU whose table rows (or -L lines) are being read
        self._tf_config: list[str] | None = None  # a TF_CONFIG value spread over lines
        self._query_device: int | None = None
        self._cli_at: int | None = None  # the line of nvidia-container-cli info's "NVRM version:"
        self._cli_device: int | None = None
        self._query_lines = 0
        self._tf_printing = 0  # lines left to the answer of a print of TensorFlow's version (its log first)
        self._run_lines = 0  # continuation lines ("\\" at the end) of a container engine's run command
        self._found_line = 0
        self._prev = ""
        self._prev_line = ""  # (as written: `_prev` is lower-cased)
        # modules whose __version__ consecutive prints asked for, and of them those whose printed value is
        # still to come (tuples: state() tells them apart by what they hold, not by their size)
        self._prints: tuple[str, ...] = ()
        self._answers: tuple[str, ...] = ()
        self._words: frozenset[str] = frozenset()
        self._next = False
        self.line_no = 0

    # -- recording
    def set(self, key: str, value: Any, priority: int, empty: bool = False) -> None:
        if value is None or value == "" and not empty:
            return
        self.attempts += 1
        old = self.values.get(key)
        if old is None or priority > old[1] and not _refines(old[0], value):
            self.values[key] = (value, priority, self.line_no)
            self.changes += 1
        elif _refines(value, old[0]):  # "3.9.6" seen after "3.9": the more precise one, same release
            self.values[key] = (value, max(priority, old[1]), self.line_no)
            self.changes += 1

    def _visible(self, index: int) -> None:
        """A GPU TensorFlow registered (or made visible)."""
        self.attempts += 1
        self.visible.add(index)

    def get(self, key: str) -> Any:
        held = self.values.get(key)
        return held[0] if held else None

    def _mig_device(self, gpu_index: int, index: int, **known: Any) -> None:
        """A MIG instance nvidia-smi lists (its table or -L): MIG is on for that GPU."""
        self._gpu(self.smi_gpus, gpu_index)
        gpu = self.smi_gpus.get(gpu_index)
        if gpu is None:
            return
        mig = gpu.setdefault("mig", {})
        mig["current"] = True
        devices = mig.get("devices") or []
        if len(devices) < MAX_GPUS and not any(d.get("index") == index for d in devices):
            devices.append({"index": index, **known})
        mig["devices"] = devices

    def _gpu(self, table: dict[int, dict[str, Any]], index: int, **known: Any) -> None:
        self.attempts += 1
        if len(table) >= MAX_GPUS and index not in table:
            return
        gpu = table.setdefault(index, {"index": index})
        for key, val in known.items():
            if val is not None and gpu.get(key) is None:
                gpu[key] = val.strip() if isinstance(val, str) else val

    def _dist(self, name: str, version: str) -> None:
        """A package seen installed: judged at the end by the tensorflow probe's own selection."""
        self.attempts += 1
        name = tf_probe.normalize(name)
        if tf_probe.of_interest(name) and sum(map(len, self.lists)) < MAX_DISTS:
            self.lists[-1].append((name, version))
            self.dist_lines.setdefault(name, self.line_no)

    # -- per line
    def feed(self, line: str, low: str, line_no: int, found: frozenset[str] | None = None) -> None:
        """Read one normalised line: what the line before announced, then every reader whose
        trigger words it holds (`found`: those words, when the caller's cheap pass knows them)."""
        self.line_no = line_no
        self._after(line, low)
        if found is None:
            spaced = " " + low  # a trigger's leading space also matches at the start of the line
            found = frozenset(w for w in triggers() if w in spaced)
        self._words = found
        if len(found) == 1:
            for reader in _BY_WORD.get(next(iter(found)), ()):
                reader(self, line, low)
        elif found:
            wanted = {i for word in found for i in _INDEX_BY_WORD.get(word, ())}
            for i in sorted(wanted):
                READERS[i][1](self, line, low)
        if self._run_lines or any(map(low.__contains__, _RUN_ENGINES)):
            self._engine_run(line)
        if line.startswith("|"):
            self._smi_table(line)  # MIG rows and modes, beside the banner its probe's parser reads
        if self._tf_config is not None or "tf_config" in low or self._prev.endswith("tf_config"):
            self._tf_config_line(line)
        if self.blocks.open or not found.isdisjoint(_BLOCK_SET):
            self.blocks.line_no = line_no
            self.blocks.feed(line, low)
        self._prev, self._prev_line = low, line
        self._next = (self._heading is not None or self._found is not None or self._query_lines > 0
                      or self._tf_printing > 0
                      or self._run_lines > 0
                      or self._tf_config is not None or self.blocks.open or bool(self._answers)
                      or any(map(low.__contains__, _ANNOUNCE)))

    def state(self) -> tuple[list[Any], list[Any]]:
        """A cheap fingerprint of what was read (see Reader._state)."""
        return shapes.fingerprint(self, _VOLATILE), shapes.fingerprint(self.blocks, _BLOCKS_VOLATILE)

    def set_before(self, line: str) -> None:
        """The line before the next one, where that line was not read (it changes nothing)."""
        self._prev, self._prev_line = line.lower(), line

    @property
    def leads(self) -> bool:
        """Whether what the next line gives may depend on the last line read (_leads)."""
        return _leads(self._prev)

    @property
    def want_next(self) -> bool:
        """Whether the next line must be read whatever it holds (the value under a heading, a table)."""
        return self._next

    @property
    def in_block(self) -> bool:
        """Inside a table or device listing, whose rows may repeat one another."""
        return self.blocks.open or self._found is not None or self._query_lines > 0

    def _after(self, line: str, low: str) -> None:
        """Values a line gives for what the line before it asked or announced."""
        prev = self._prev
        if self._tf_printing:
            self._tf_printed_late(line)
        self._printed_in_turn(line, low)
        if self._query_lines:
            self._query_lines -= 1
        if self._found is not None and self.line_no - self._found_line > 8:
            self._found = None  # "Found device N" without its memory line
        if self._heading is not None:
            if not (_has(low, _HEADING_TRIGGERS) and RE_HEADING.match(line)):  # unless it is the next heading
                self._heading_value(self._heading, line)
            self._heading = None
        if not prev:
            return
        if low.startswith("version: ") and prev.startswith("name: "):  # `pip show NAME`
            m = RE_VERSION_VALUE.fullmatch(line[9:].strip())
            if m:
                self._dist(prev[6:].strip(), m.group(1))
            if prev.startswith("name: tensorflow"):
                self.set("tensorflow.version", line.split(":", 1)[1].strip()[:30], 6)
        if "framework version" in low and RE_FRAMEWORK_TF.match(prev):  # Horovod's issue template
            m = RE_FRAMEWORK_VERSION.match(line)
            if m:
                self.set("tensorflow.version", m.group(1), 4)
        if prev.count("__version__") > 1:  # print(tf.__version__, keras.__version__) -> "2.7.0 2.8.0"
            self._versions_printed(prev, line)
        elif (("__version__" in prev or "version.version" in prev) and ("tf" in prev or "tensorflow" in prev)
                or "tensorflow" in prev and "__version__" in low):
            # (IPython answers "Out[2]: '2.0.0'")
            answer = line[line.index("]:") + 2:].strip() if line.startswith("Out[") and "]:" in line else line
            m = RE_QUOTED_VERSION.match(answer) or RE_BARE_VERSION.match(answer)
            if m:
                self._tf_answered(m.group(1))
            elif _has(low, _IMPORT_LOG):  # TensorFlow's import logs its libraries (or NumPy's warnings) first
                self._tf_printing = TF_PRINT_WINDOW
        if "is_built_with_cuda" in prev and low in ("true", "false"):
            self.set("tensorflow.build_info.is_cuda_build", low == "true", 5)
        if prev.endswith("echo $cuda_visible_devices") and RE_CVD_ECHOED.fullmatch(line.strip()):
            self.set("system.env.CUDA_VISIBLE_DEVICES", line.strip(), 3)
        if "list_physical_devices" in prev and (line.replace(" ", "") == "[]" or RE_EMPTY_ANSWER.match(low)):
            self.set("runtime.tf_visible_gpus", 0, 5)
        # tf.test.is_gpu_available()'s answer under its call, or under a print labelling it
        if low == "false" and ("is_gpu_available(" in prev or prev.rstrip(" :?").endswith("gpu available")):
            self.set("runtime.tf_visible_gpus", 0, 4)
        if low == "false" and "cuda.is_available(" in prev:  # (PyTorch's, under its call)
            self.set("runtime.cuda_unavailable_stated", prev[:200], 1)

    def _tf_printed_late(self, line: str) -> None:
        """The answer to a print of TensorFlow's __version__ that its import's log lines came before."""
        self._tf_printing -= 1
        m = RE_BARE_VERSION.match(line)
        if m or RE_PROMPT.match(line) or "print(" in line:
            self._tf_printing = 0
        if m:
            self._tf_answered(m.group(1))

    def _printed_in_turn(self, line: str, low: str) -> None:
        """Several prints of one __version__ each, then their answers in the same order
        ("print(tf.__version__)", "print(keras.__version__)", "2.15.0", "3.4.1"): name for value."""
        names = RE_VERSION_ATTR.findall(low) if "print(" in low else []
        if len(names) == 1 and not self._answers:
            self._prints = (*self._prints[-7:], names[0])
            return
        if len(self._prints) > 1:  # the answers begin (one print alone is read as the line after it)
            self._answers, self._prints = self._prints, ()
        self._prints = ()
        if not self._answers:
            return
        value = line.strip().strip("'\"")
        if not RE_VERSION_VALUE.fullmatch(value):
            self._answers = ()
            return
        name, self._answers = self._answers[0], self._answers[1:]
        if name in ("tf", "tensorflow"):
            self._tf_answered(value)
        else:
            self._dist(_MODULE_DIST.get(name, name), value)

    def _tf_answered(self, version: str) -> None:
        """TensorFlow's own __version__, printed: it imported under the Python of this session."""
        self.set("tensorflow.version", version, 6)
        self.set("runtime.tf_imported", True, 6)

    def _versions_printed(self, prev: str, line: str) -> None:
        """One print of several packages' __version__ and the line it printed, name for value."""
        names = RE_VERSION_ATTR.findall(prev)[:8]
        values = line.replace(",", " ").split()
        if len(names) != len(values) or not all(RE_VERSION_VALUE.fullmatch(x.strip("'\"")) for x in values):
            return
        for name, value in zip(names, values):
            value = value.strip("'\"")
            if name in ("tf", "tensorflow"):
                self._tf_answered(value)
            else:
                self._dist(_MODULE_DIST.get(name, name), value)

    def _heading_line(self, line: str, low: str) -> None:
        if "-g" in line:
            line = RE_GIT_DESCRIBE.sub(" ", line)
        heading = RE_HEADING.match(line)
        if heading:
            value = heading.group(2).strip(" *")
            inline = RE_VERSION_VALUE.search(line, heading.end(1), heading.start(2))  # "TF version 1.13:"
            # (a version right after the heading is its value where a later colon is a path's, an image tag's:
            # "Tensorflow version 1.13.0 from nvcr.io/nvidia/tensorflow:18.09-py3"; not in a template's
            # parenthesised hint)
            if inline and "(" not in line[heading.end(1):inline.start()]:
                value = inline.group(1)
            if value or inline:
                self._heading_value(heading.group(1).lower(), value or inline.group(1))
            else:
                self._heading = heading.group(1).lower()

    def _section_line(self, line: str, low: str) -> None:
        m = RE_SECTION.match(low)
        if m:
            self._section = (m.group(1), self.line_no)

    def _section_version(self, line: str, low: str) -> None:
        """A "Version:" under a report's section heading ("[Python]" then "  Version:     3.13.9")."""
        if self._section is None or self.line_no - self._section[1] > SECTION_LINES:
            return
        m = RE_SECTION_VERSION.match(line)
        key = _SECTION_KEYS[self._section[0]]
        if m and (key != "tensorflow.version" or RE_VERSION_VALUE.match(m.group(1))):
            self.set(key, m.group(1), 4)
            self._section = None

    def _cuda_stated(self, line: str, low: str) -> None:
        """A person's line giving the CUDA version alone ("CUDA 9.0", "- CUDA version: 10.1"): the CUDA of
        the environment, toolkit or driver (read only where its libraries fail on a newer GPU)."""
        m = RE_CUDA_STATED.match(line) if low.lstrip(" -*").startswith("cuda") and len(line) < 40 else None
        if m:
            self.set("system.cuda_stated", m.group(1), 1)

    def _labeled_line(self, line: str, low: str) -> None:
        if ":" in line[:60] or "=" in line[:60] and "cudnn" in low:
            self._labeled(line)

    def _tf_config_line(self, line: str) -> None:
        """TF_CONFIG's value, on one line or spread over several (braces counted, bounded)."""
        if self._tf_config is None:
            m = RE_TF_CONFIG.search(line) or (RE_K8S_VALUE.match(line) if self._prev.endswith("tf_config")
                                              else None)
            if not m:
                return
            self._tf_config = [m.group(1), m.group(2)[:3000]]
        else:
            self._tf_config.append(line)
        quote, text = self._tf_config[0], " ".join(self._tf_config[1:])
        depth = text.count("{") - text.count("}")
        if depth > 0 and len(self._tf_config) <= MAX_TF_CONFIG_LINES and len(text) < 8000:
            return
        self._tf_config = None
        value = tf_config_value(text, quote)
        if value is not None:
            self.set("system.env.TF_CONFIG", value, 4)

    def _labeled(self, line: str) -> None:
        """'label: value' lines a person types: the driver, nvidia-smi's CUDA, nvcc, cuDNN."""
        m = RE_LABELED.match(line)
        if not m:
            return
        label, value = m.group(1).lower(), m.group(2)
        if len(label.split()) > 4 or "kernel" in label or "file" in label or "insufficient" in label:
            return  # a sentence or TensorFlow's own "driver version file contents:", not a typed field
        field = label.replace("_", " ").strip(" *`")
        if field in ("py version", "python version", "os platform"):  # a tool's report (faceswap's, ...)
            self._heading_value("python version" if field != "os platform" else field, value)
        elif "driver" in label and "cuda" not in label:
            dm = RE_DRIVER_VALUE.search(value)
            if dm:
                self.set("nvidia_smi.driver_version", dm.group(1), 3)
        elif "nvidia-smi" in label or "nvidia smi" in label:
            cm = RE_CUDA_IN_VALUE.search(value)
            if cm:
                self.set("nvidia_smi.cuda_version", cm.group(1), 3)
        elif "nvcc" in label:
            version = nvcc_probe.parse_nvcc_version(value)["version"]
            vm = None if version else RE_SHORT_VERSION.search(value)
            if version or vm:
                self.set("nvcc.version", version or ".".join(vm.group(1).split(".")[:2]), 3)
        elif field in GPU_FIELDS:
            self._stated_gpu(value)
        elif field in CC_FIELDS and self.stated.get(0):
            cm = RE_CC_VALUE.match(value.strip())
            if cm:
                self.stated[0].setdefault("compute_capability", cm.group(0))
        elif "cudnn" in label and "cuda" not in label.replace("cudnn", ""):
            # an apt pin ("libcudnn8=8.1.1.33-1+cuda11.2") names the cuDNN first, then the CUDA it is for
            # ... and a download's name the CUDA it is for, then the cuDNN after a "v" ("11.1 (v8.0.5.39)")
            vm = RE_LEADING_VERSION.search(value) if label.startswith("libcudnn") else (
                RE_V_VERSION.search(value) or RE_SHORT_VERSION.search(value))
            if vm:
                self.set("runtime.cudnn_version", vm.group(1), 2)

    def _heading_value(self, heading: str, text: str) -> None:
        m = RE_GIT_VERSION.search(text) or RE_VERSION_VALUE.search(text)
        if heading == "tensorflow version" and m:
            self.set("tensorflow.version", m.group(1), 4)
        elif heading == "python version" and m:
            self.set("tensorflow.python_version", m.group(1), 4)
        elif heading.startswith("gpu model"):
            self._stated_gpu(text)
        elif heading == "cuda/cudnn version":
            self._cuda_cudnn_field(text)
        elif heading.startswith("os platform"):
            value = RE_OS_NOTE.sub("", text).strip(" `*:")[:80]
            if value and (RE_OS.search(value)
                          or re.search(r"linux|windows|mac|ubuntu|centos|debian", value, re.I)):
                self.set("system.os", value, 4)  # as the person wrote it

    def _cuda_cudnn_field(self, text: str) -> None:
        """The issue template's "CUDA/cuDNN version": the CUDA first, then cuDNN ("10.1/7.6", "9.0 / 7",
        "CUDA 10.1, cuDNN 7.6"), an archive's name ("cudnn-10.0-linux-x64") not read as cuDNN."""
        named = RE_CUDNN_ARCHIVE.search(text) or RE_CUDNN_PROSE.search(text)  # cuDNN by its name
        if named:
            self.set("runtime.cudnn_version", named.group(1), 3)
        parts = [p for p in RE_FIELD_SPLIT.split(text[:160]) if p.strip()][:2]
        if len(parts) == 2 and "cudnn" in parts[0].lower() and "cudnn" not in parts[1].lower():
            parts.reverse()  # "cuDNN 7.6 / CUDA 10.1"
        numbers = [RE_FIELD_NUMBER.search(p) for p in parts]
        if numbers and numbers[0] and "." in numbers[0].group(1):
            self.set("nvcc.version", ".".join(numbers[0].group(1).split(".")[:2]), 2)
        cudnn = numbers[1] if len(numbers) == 2 else None
        if (cudnn and not named and "cudnn-" not in parts[1].lower()
                and int(cudnn.group(1).split(".")[0]) <= 9):
            self.set("runtime.cudnn_version", cudnn.group(1), 3)

    def _driver_package(self, line: str, low: str) -> None:
        m = RE_DRIVER_PACKAGE.match(low) or RE_DRIVER_INSTALL.search(low)
        if m:
            self.set("system.linux_driver_package", m.group(1), 3)

    def _driver_files(self, line: str, low: str) -> None:
        """Driver libraries named with their version (an `ls -l` of the library folder, `ldd`):
        two versions of libcuda or libnvidia-ml side by side are two user-space drivers (CUDA's
        forward-compatibility copy under .../compat/ is meant to be another version); and the driver version
        of nvidia-docker 1's volume of the driver's libraries (nvidia_driver_<version>)."""
        m = RE_DRIVER_VOLUME.search(line) if "nvidia_driver_" in low else None
        if m:
            self.set("system.driver_volume", m.group(1), 3)
        if "compat" in low:
            return
        for m in RE_LIBCUDA_FILE.finditer(line):
            if m.group(1) not in self.libcuda_files and len(self.libcuda_files) < 8:
                self.libcuda_files.append(m.group(1))
            # a Linux driver's library (versioned, in the system's library folder), where on WSL2 only the
            # Windows driver's, unversioned in /usr/lib/wsl/lib, belongs
            self.set("system.linux_driver_library", m.group(0), 2)

    def _opened(self, line: str, low: str) -> None:
        """The CUDA libraries TensorFlow opened name the CUDA it was built with ("Successfully opened
        dynamic library libcudart.so.10.1")."""
        m = RE_OPENED.search(line)
        if m:
            from tfdoctor.versions import cuda_library_version, library_cuda_major

            self.set("tensorflow.build_info.cuda_version", cuda_library_version(m.group(1)), 3)
            self.set("runtime.cuda_libraries_major", library_cuda_major(m.group(1)), 3)

    def _prose_gpu(self, line: str, low: str) -> None:
        """The first GPU a person or a program's sentence names; a later sentence naming the same model may
        add its compute capability ("my A6000 ..." then "NVIDIA RTX A6000 with CUDA capability sm_86")."""
        held = self.prose.get(0)
        smi_row = line.startswith("|") and _has(low, _SMI_ROW_WORDS)  # (not an issue template's table)
        if smi_row or held and (held.get("compute_capability") or not _has(low, _CC_WORDS)):
            return  # (nvidia-smi's rows are its parser's; once a GPU is named, only its capability is wanted)
        m = RE_PROSE_GPU.search(line)
        if not m and _has(low, _BARE_MODEL_WORDS):
            m = RE_BARE_MODEL.search(line)
        if not m:
            return
        name, end = m.group(1), m.end()
        if name[0].isdigit() or name[0] == "A" and name.endswith("000"):  # no brand: "3080ti", "A4000"
            name = f"RTX {name}"
        suffix = RE_NAME_SUFFIX.match(line, end)
        if suffix:
            name, end = name + suffix.group(0), suffix.end()
        cc = _stated_cc(line[end:])
        if held is None:
            self._gpu(self.prose, 0, name=name, compute_capability=cc)
        elif cc and _model(held.get("name")) == _model(name):
            held["compute_capability"] = cc

    def _other_gpu(self, line: str, low: str) -> None:
        m = RE_OTHER_GPU.search(line) if not self.other_gpu else None
        if m:
            self._gpu(self.other_gpu, 0, name=m.group(1))

    def _no_gpu_said(self, line: str, low: str) -> None:
        m = RE_NO_GPU_SAID.search(line)
        if m and not _asked(line, m.start(), m.end()):
            self.set("system.no_gpu_stated", line[:200], 1)

    def _cuda_unavailable(self, line: str, low: str) -> None:
        if "cuda" in low and RE_CUDA_UNAVAILABLE.search(line):
            self.set("runtime.cuda_unavailable_stated", line[:200], 1)

    def _cpu_fallback_said(self, line: str, low: str) -> None:
        if RE_CPU_FALLBACK.search(line):
            self.set("runtime.cpu_fallback_stated", line[:200], 1)

    def _stated_mig(self, line: str, low: str) -> None:
        if (not line.startswith("|") and (RE_MIG_WORD.search(low) and (_has(low, _MIG_SAID)
                                                                     or RE_MIG_PROFILE.search(low))
                                          or "multi-instance gpu" in low) and not _has(low, _MIG_NOT)
                or RE_MIG_PRODUCT.search(low)):
            self.set("runtime.mig_stated", line[:200], 1)

    def _modules(self, line: str, low: str) -> None:
        """The versions of the environment modules a job loads (a CUDA module is a toolkit: nvcc's)."""
        loaded = RE_MODULE_LOAD.search(line)
        for m in RE_MODULE.finditer(loaded.group(1)) if loaded else ():
            key = _MODULE_KEYS.get(m.group(1).lower().rstrip("0123456789"))  # python3/3.6.3 is python's
            if key:
                self.set(key, m.group(2), 3)

    def _windows_build(self, line: str, low: str) -> None:
        m = RE_WIN_BUILD.search(line)
        if m is None:
            return
        exact = m.group(1) or m.group(2)  # a build number, else a release's first build
        build = int(exact) if exact else _WIN10_BUILDS.get((m.group(3) or m.group(4)).lower())
        if build and 10240 <= build < 40000:
            self.set("system.windows_build", build, 2 if exact else 1)

    def _gpustat(self, line: str, low: str) -> None:
        m = RE_GPUSTAT.match(line)
        if m:
            self._gpu(self.smi_gpus, int(m.group(1)), name=m.group(2).strip(),
                      memory_used_mib=int(m.group(3)), memory_total_mib=int(m.group(4)))

    def _device_files(self, line: str, low: str) -> None:
        """A GPU device file that a user who is neither its owner nor in its group cannot open read-write
        (the probe records those its own user cannot open), and a person saying the GPU works only as root."""
        m = RE_DEV_NODE.match(line)
        if m:
            node = f"/dev/{m.group(6)} c{''.join(m.group(1, 2, 3))} {m.group(4)}:{m.group(5)}"
            if not m.group(3).startswith("rw") and node not in self.dev_denied and len(self.dev_denied) < 8:
                self.dev_denied.append(node)
        elif (RE_ROOT_ONLY.search(line) and _has(low, _ROOT_ONLY_GPU) and "install" not in low
              and "?" not in low):
            self.set("system.root_only_stated", line[:200], 1)

    def _ld_path(self, line: str, low: str) -> None:
        """LD_LIBRARY_PATH as a line assigns it, as the system probe records the variable (the last
        assignment is the one in effect); a person naming it (not TensorFlow's dlopen message, which
        prints it whatever it holds) says it is set."""
        if "dlerror" not in low and "dso_loader" not in low:
            self.hints["ld-path-named"] = 1
        m = RE_LD_PATH.search(line)
        if m:
            self.values.pop("system.env.LD_LIBRARY_PATH", None)
            self.set("system.env.LD_LIBRARY_PATH", m.group(2), 3)

    def _cudnn_stated(self, line: str, low: str) -> None:
        """The cuDNN a person names, an archive they unpacked, or the one ldd resolves (the issue template's
        "CUDA/cuDNN version" field is read as a heading)."""
        if "cuda/cudnn" in low:
            return
        m = RE_LDD_CUDNN.match(line) or RE_CUDNN_ARCHIVE.search(line)
        if m:
            self.set("runtime.cudnn_version", m.group(1), 2)
            return
        m = RE_CUDNN_INSTALLED.search(line)
        if m:
            self.set("runtime.cudnn_version", next(g for g in m.groups() if g), 2)
            return
        m = RE_CUDNN_PROSE.search(line) or RE_CUDNN_MAJOR_FIELD.match(line)
        if m:
            self.set("runtime.cudnn_version", m.group(1), 1)

    def _stated_mode(self, line: str, low: str) -> None:
        if not line.startswith("|") and RE_EXCLUSIVE_SAID.search(line) and not _has(low, _EXCLUSIVE_NOT):
            self.set("runtime.compute_mode_stated", line[:200], 1)

    def _wsl_lib_listing(self, line: str, low: str) -> None:
        """`ls /usr/lib/wsl/lib` on one line: the libraries WSL maps in from the Windows driver (the probe
        lists the same directory)."""
        names = line.strip("`'\" ").split()
        if names and len(names) <= 64 and all(RE_SO_NAME.fullmatch(n) for n in names):
            self.set("system.wsl_libcuda", names, 3)

    def _cpu_model(self, line: str, low: str) -> None:
        m = RE_CPU_MODEL.search(line)
        if m:
            self.set("system.cpu_model", " ".join(m.group(1).split()), 2)

    def _stated_gpu(self, text: str) -> None:
        text = text.strip(" *`")
        if RE_NO_GPU_VALUE.match(text):  # "GPU models and configuration: no gpu, os x"
            self.set("system.no_gpu_stated", text[:200], 1)
            return
        if text[:3].upper() == "GPU" and ":" in text[:8]:  # faceswap's "gpu_devices: GPU_0: GeForce GT 1030"
            text = text.split(":", 1)[1].strip()
        m = RE_STATED_GPU.match(text)
        if m:
            name = RE_STATED_TAIL.sub("", m.group(1)).strip(" *`.:-")
            self._gpu(self.stated, 0, name=name, compute_capability=_stated_cc(text))

    def _versions(self, line: str, low: str) -> None:
        if "api mismatch" in low:  # the kernel's NVRM message, wrapped over "NVRM:" lines: read as one
            self._nvrm = line
        elif self._nvrm and low.startswith("nvrm:") and len(self._nvrm) < 600:
            self._nvrm += " " + line[5:].strip()
            line, low = self._nvrm, self._nvrm.lower()
        else:
            self._nvrm = ""
        m = RE_DRIVER_VERSION.search(line) if "driver version" in low else None
        if m:
            self.set("nvidia_smi.driver_version", m.group(1), 5)
            self.set("nvidia_smi.cuda_version", m.group(2), 5)
        for rx, key, priority, *gate in _ONE_VALUE:
            m = rx.search(line) if not gate or _has(low, gate[0]) else None
            if m:  # (the first group that took part: a regex may spell its value two ways)
                value = next(g for g in m.groups() if g is not None)
                self.set(key, _as_nvidia(value) if rx in _TF_PRINTED else value, priority)
        m = RE_NCCL_CUDA_DRIVER.search(line) if "cudadriverversion" in low else None
        if m:
            n = int(m.group(1))
            self.set("nvidia_smi.cuda_version", f"{n // 1000}.{n % 1000 // 10}", 5)
        m = RE_CUDNN_LOADED.search(line) if "loaded cudnn version" in low else None
        if m:
            from tfdoctor.versions import cudnn_from_int

            self.set("runtime.cudnn_version", cudnn_from_int(m.group(1)), 6)

    def _tensorflow(self, line: str, low: str) -> None:
        if "-gpu" in low or "_gpu" in low:
            if RE_GPU_PACKAGE.search(low):  # named anywhere, even without a version
                self.set("tensorflow.gpu_package_named", True, 1)
        m = RE_WHEEL.search(line)
        if m:
            self.set("tensorflow.version", m.group(2), 3)
            if m.group(3) and "not a supported wheel" not in low:  # (pip refusing it: another Python's tag)
                self.set("tensorflow.python_version", _py_from_compact(m.group(3)[2:]), 2)
            # the wheels pip fetches are what it installs (the first of each name: a resolver backtracking
            # fetches several versions of one)
            if low.startswith(("using cached ", "downloading ", "processing ")) and \
                    tf_probe.normalize(m.group(1)) not in self.dist_lines:
                self._dist(m.group(1), m.group(2))
        m = RE_WHEEL_LIBS.search(line) if ".libs" in low else None
        if m and tf_probe.normalize(m.group(1)) not in self.dist_lines:
            self._dist(m.group(1), "")  # (its version is not in the path)
        m = RE_GIT_VERSION.search(line)
        if m:
            self.set("tensorflow.version", m.group(1), 6)
        m = RE_BUILD_TREE.search(line)
        if m:
            self.set("tensorflow.version", m.group(1), 3)
        m = RE_DOCKER_TAG.search(line)  # the official image: tensorflow/tensorflow:2.15.0-gpu
        if m:
            self.set("tensorflow.version", m.group(1) or m.group(2) or m.group(3), 3)
        m = RE_TF_FIELD.search(line)
        if m:
            self.set("tensorflow.version", m.group(1), 4)
        m = RE_RUN_INFO.search(line) if "tensorflow_version" in low else None
        if m:
            self.set("tensorflow.version", m.group(1), 5)
        m = RE_ADDON_SAW.search(line) if "version" in low else None
        if m:
            self.set("tensorflow.version", m.group(1), 5)
        m = RE_DIST_SPACE.search(line) or RE_DIST_DASH.search(line)
        if m and line[max(0, m.start() - 1):m.start()] not in ("/", "\\"):
            self.set("tensorflow.version", m.group(2), 5 if m.re is RE_DIST_SPACE else 2)
        elif "version" in low and (m := RE_TF_ATTR_VALUE.search(line)):
            self.set("tensorflow.version", m.group(1), 4)
        elif " from " in low and (m := RE_TF_FROM_TO.search(line)):
            self.set("tensorflow.version", m.group(1), 2)
        elif "tensorflow" in low or "tf " in low or "tf2" in low or "tf-" in low:
            m = RE_TF_PROSE.search(RE_GIT_DESCRIBE.sub(" ", line) if "-g" in line else line)
            around = line[max(0, m.start() - 2):m.end() + 1] if m else ""  # (" / " parts words, not a path)
            if m and "/" not in around.replace(" /", " ").replace("/ ", " "):
                self.set("tensorflow.version", m.group(1), 1)
            elif "-g" in line and (m := RE_GIT_DESCRIBE.search(line)) and int(m.group(2)) < 1000:
                # its GIT_VERSION alone ("Tensorflow-gpu 'v2.1.0-rc2-17-ge5bf8de'"): a few commits past its
                # last tag, as a release's own is (TensorFlow 2.1.0's: v2.1.0-rc2-17-ge5bf8de); a nightly's
                # is thousands past an old tag (v1.12.1-45908-g9af48cb079)
                self.set("tensorflow.version", m.group(1), 1)

    def _tutorial_prints(self, line: str, low: str) -> None:
        """TensorFlow's tutorials print its version, then whether it runs eagerly ("Version:  2.11.0" then
        "Eager mode:  True"): the version line is TensorFlow's."""
        if low.startswith("eager mode:") and self._prev.startswith("version:"):
            m = RE_VERSION_VALUE.match(self._prev[8:].strip())
            if m:
                self.set("tensorflow.version", m.group(1), 4)

    def _tf1_api(self, line: str, low: str) -> None:
        if RE_TF1_API.search(line):
            self.set("tensorflow.api_major", 1, 1)

    def _sys_version(self, line: str, low: str) -> None:
        m = RE_SYS_VERSION.search(line)
        if m:
            self.set("tensorflow.python_version", m.group(1), 4)

    def _python(self, line: str, low: str) -> None:
        m = RE_PY_BITS.search(line)
        if m:
            self.set("tensorflow.python_bits", 32 if m.group(1) else int(m.group(2)), 3)
        m = RE_PY_BANNER.search(line)
        if m:
            self.set("tensorflow.python_version", m.group(1), 5)
        m = RE_PY_FIELD.search(line)
        if m:
            self.set("tensorflow.python_version", m.group(1), 4)
        m = RE_PY_PATH.search(line)
        if m:
            self.set("tensorflow.python_version", m.group(1) or m.group(3) or m.group(4) or m.group(5)
                     or _py_from_compact(m.group(2)), 3)
        m = RE_PY_PROSE.search(line) or (RE_PYENV.search(line) if "pyenv" in low else None)
        if m:
            self.set("tensorflow.python_version", m.group(1), 1)
        m = RE_CONDA_PYTHON.match(line) or RE_PY_RUNTIME.search(line)
        if m:
            self.set("tensorflow.python_version", m.group(1), 3 if m.re is RE_CONDA_PYTHON else 4)
        m = RE_PY_TAG.search(line) if "not a supported wheel" not in low else None  # (refused: not its tag)
        if m and "tensorflow" in low:
            self.set("tensorflow.python_version", f"{m.group(1)}.{m.group(2)}", 2)
        m = RE_TF_PACKAGE.search(line) if "packages" in low else None
        if m:  # the path runs back from there to a space or a quote (at most 300 characters)
            start = max(line.rfind(c, max(0, m.start() - 300), m.start()) for c in " \"'") + 1
            self.set("tensorflow.location", line[start:m.end() - 1], 2)

    def _packages(self, line: str, low: str) -> None:
        m = RE_TFLOW_SELECT.match(line) if low.startswith("_tflow") else None
        if m and (m.group(1) or m.group(2)) in ("gpu", "eigen", "mkl"):
            self.set("tensorflow.build_info.is_cuda_build", (m.group(1) or m.group(2)) == "gpu", 3)
            return
        m = RE_FETCHED.match(line) if low.startswith(("using cached ", "downloading ")) else None
        if m and m.group(1).lower() not in self.dist_lines:  # packages TensorFlow pins, as pip fetches them
            self._dist(m.group(1), m.group(2))
            return
        if (low.startswith(("package ", "# packages in environment", "# name ")) and "version" in low
                and self.lists[-1]):
            self.lists.append([])  # a new `pip list` / `conda list`: its own duplicates
            return
        row = line[2:] if line.startswith("- ") else line  # (a row pasted as a Markdown list item)
        m = RE_PIP_ROW.match(row)
        # (nvidia-smi's banner cell copied out of its table, "NVIDIA-SMI 440.33.01", is no distribution)
        if m and not line[0].isdigit() and m.group(1).lower() != "nvidia-smi":
            cols = row.split()
            build, channel = (cols + ["", ""])[2:4]
            name = m.group(1).lower()
            if name in ("tensorflow", "tensorflow-base") and build.startswith(("eigen_", "mkl_", "gpu_")):
                # conda's build string says which TensorFlow it is: eigen_/mkl_ CPU-only, gpu_ CUDA
                self.set("tensorflow.build_info.is_cuda_build", build.startswith("gpu_"), 4)
            py = RE_CONDA_PY_BUILD.search(build) if "py" in build else None
            if py:  # a compiled package conda built for one Python
                self.set("tensorflow.python_version", f"{py.group(1)}.{py.group(2)}", 2)
            if name == "tensorflow":
                self._conda_channel = channel
            elif (name == "tensorflow-gpu" and RE_CONDA_META.fullmatch(build)
                  and channel == self._conda_channel):
                return  # conda's tensorflow-gpu metapackage over the tensorflow row of its own channel
            self._dist(m.group(1), m.group(2))
            return
        m = RE_SATISFIED.match(line) if low.startswith("requirement already ") else None
        if m and (m.group(3) or m.group(2)):  # (its "from" part may pin TensorFlow: read on)
            self._dist(m.group(1), m.group(3) or m.group(2))
        if "successfully installed" in low:
            for pm in RE_INSTALLED.finditer(line[line.lower().index("successfully installed") + 22:]):
                self._dist(pm.group(1), pm.group(2))
            return
        m = RE_FREEZE.match(line) or RE_PIP_LEGACY.match(line)
        if m:  # a `pip freeze` row is an installed distribution, like a `pip list` row
            self._dist(m.group(1), m.group(2))
            return
        command = "pip install" in low or "pip3 install" in low
        for pm in RE_PIP_EQ.finditer(line) if "==" in line else ():
            name = pm.group(1).lower()
            if name.startswith(("tensorflow", "tf-")) or name == "tf":
                self.set("tensorflow.version", pm.group(2), 2)
                if command and name != "tf":  # the package a person installed, pinned
                    self.pinned.setdefault(tf_probe.normalize(name), pm.group(2))

    def _pytorch_cuda(self, line: str, low: str) -> None:
        m = RE_PYTORCH_CUDA.search(line)
        if m:
            self.set("runtime.pytorch_cuda", m.group(1), 6)

    def _ray(self, line: str, low: str) -> None:
        """Output from a Ray worker, and the GPUs Ray's running trials hold of the cluster's (the most any
        status line shows)."""
        m = RE_RAY_GPUS.search(line)
        if m:
            held = max(int(m.group(1)), self.get("runtime.ray_gpus_requested") or 0)
            self.values["runtime.ray_gpus_requested"] = (held, 5, self.line_no)
            self.set("runtime.ray_gpus_total", int(m.group(2)), 5)
        if RE_RAY_WORKER.search(line):
            self.set("runtime.ray_worker", True, 5)

    def _pip_cuda_extra(self, line: str, low: str) -> None:
        m = RE_PIP_CUDA_EXTRA.search(line)
        if m:
            self.set("runtime.pip_cuda_extra", m.group(1), 3)

    def _scheduler(self, line: str, low: str) -> None:
        m = RE_SCHEDULER.search(line)
        if m:
            self.set("system.scheduler", m.lastgroup, 3)
            self.hints["linux"] = 1  # (Slurm, PBS and LSF's GPU nodes run Linux)

    def _container_cli(self, line: str, low: str) -> None:
        """`nvidia-container-cli info`: the driver, the CUDA it supports, then each GPU (index, model, bus
        location, architecture = compute capability), as the container runtime sees them."""
        if low.startswith("nvrm version:"):
            self._cli_at, self._cli_device = self.line_no, None
            return
        if self._cli_at is None or self.line_no - self._cli_at > 8 + 8 * MAX_GPUS:
            self._cli_at = None
            return
        m = RE_CLI_FIELD.match(line)
        if not m:
            return
        key, value = m.group(1).lower(), m.group(2).strip()
        if key == "cuda version" and RE_SHORT_VERSION.fullmatch(value):
            self.set("nvidia_smi.cuda_version", value, 4)
        elif key == "device index" and value.isdigit():
            self._cli_device = int(value)
            self._gpu(self.smi_gpus, self._cli_device)
        elif self._cli_device is not None and key == "model":
            self._gpu(self.smi_gpus, self._cli_device, name=value[:120])
        elif self._cli_device is not None and key == "bus location":
            self._gpu(self.smi_gpus, self._cli_device, pci_bus_id=value[:40])
        elif self._cli_device is not None and key == "architecture" and RE_CC_VALUE.fullmatch(value):
            self._gpu(self.smi_gpus, self._cli_device, compute_capability=value)

    def _slurm_no_devices(self, line: str, low: str) -> None:
        """Slurm's CUDA_VISIBLE_DEVICES for a job step given no GPU, wherever the text shows the value (a
        program failing to parse it: "invalid literal for int() with base 10: 'NoDevFiles'")."""
        if "NoDevFiles" in line:
            self.set("system.env.CUDA_VISIBLE_DEVICES", "NoDevFiles", 2)

    def _jax_devices(self, line: str, low: str) -> None:
        listed = len(RE_JAX_GPU.findall(line)) if "device" in low else 0
        if listed:
            self.set("runtime.jax_gpus", listed, 5)

    def _no_gpu_registered(self, line: str, low: str) -> None:
        """TensorFlow saying it registered no GPU: a placement refused for want of one, StreamExecutor finding
        no usable CUDA device, or a kernel lookup's list of the device types registered without GPU."""
        m = RE_NO_GPU_REGISTERED.search(line)
        if m:
            self.set("runtime.tf_visible_gpus", 0, 5)
            self.set("runtime.gpu_reason", m.group(0), 1)
            if m.group(0).startswith("Could not satisfy"):  # the program placed an op on a GPU
                self.set("runtime.gpu_asked", line[:200], 1)
            return
        m = RE_REGISTERED_DEVICES.search(line)
        listed = None if m else RE_AVAILABLE_DEVICES.search(line)
        if m:
            types = {t.strip() for t in m.group(1).split(",")}
        elif listed:
            types = set(RE_DEVICE_TYPE.findall(listed.group(1)))
        elif "_deviceattributes(" in low:  # Session.list_devices(), printed
            types = set(RE_DEVICE_ATTRIBUTES.findall(line))
        else:
            physical = RE_PHYSICAL_LIST.match(line)
            asked_one = physical and RE_ONE_TYPE_ASKED.search(self._prev)
            types = set(RE_PHYSICAL_TYPE.findall(physical.group(1))) if physical and not asked_one else set()
        if types and "GPU" not in types:
            if "XLA_GPU" in types:
                self.set("runtime.xla_gpus", 1, 1)
            self.set("runtime.tf_visible_gpus", 0, 3)
            self.set("runtime.gpu_reason", line[:200], 1)
            # an op with GPU kernels alone, or one the program placed on a GPU
            if RE_GPU_ONLY_OP.search(line) or "explicitly assigned to /device:gpu" in low:
                self.set("runtime.gpu_asked", line[:200], 1)

    def _requirer(self, line: str, low: str) -> None:
        m = RE_REQUIRER.match(line)  # pip's resolver names an installed distribution, once a line per need
        if m and (tf_probe.normalize(m.group(1)), m.group(2)) not in self.lists[-1]:
            self._dist(m.group(1), m.group(2))

    def _build_info(self, line: str, low: str) -> None:
        from tfdoctor.versions import norm_cuda, norm_cudnn

        for key, val in RE_BUILD_KV.findall(line):
            key = key.replace("_number", "")
            if key == "is_cuda_build":
                self.set("tensorflow.build_info.is_cuda_build", val.lower() == "true", 6)
            elif key == "cuda_version":
                self.set("tensorflow.build_info.cuda_version", norm_cuda(val), 6)
            else:
                self.set("tensorflow.build_info.cudnn_version", norm_cudnn(val), 6)
        m = RE_BUILD_CAPS.search(line)
        if m:
            caps = re.findall(r"(?:sm|compute)_\d{2,3}[af]?", m.group(1))
            if caps:
                self.set("tensorflow.build_info.cuda_compute_capabilities", caps, 6)

    def _grappler_device(self, line: str, low: str) -> None:
        """Grappler's description of a GPU TensorFlow registered (its cost model's warnings print it): the
        model, its compute capability, and the CUDA and cuDNN TensorFlow was compiled with."""
        from tfdoctor.versions import norm_cudnn

        m = RE_GRAPPLER_DEVICE.search(line)
        if m:
            self._gpu(self.gpus, 0, name=m.group(1), compute_capability=m.group(2))
            n = int(m.group(3))  # CUDA_VERSION: 1000 * major + 10 * minor
            self.set("tensorflow.build_info.cuda_version", f"{n // 1000}.{n % 1000 // 10}", 5)
            self.set("tensorflow.build_info.cudnn_version", norm_cudnn(m.group(4)), 5)

    def _gpu_lines(self, line: str, low: str) -> None:
        m = CREATED.search(line)  # the worker's own reader of these lines
        if m:
            index = int(m.group(1).rsplit(":", 1)[1])  # TensorFlow's GPU:N
            self._visible(index)
            pci = None if m.group(5) == "<undefined>" else m.group(5)
            self._gpu(self.gpus, int(m.group(3)), name=m.group(4), compute_capability=m.group(6),
                      pci_bus_id=pci, memory_mib=int(m.group(2)), tf_device=f"/device:GPU:{index}")
            return
        m = RE_CREATING.search(line)
        if m:
            self._visible(int(m.group(1)))
            self._gpu(self.gpus, int(m.group(3)), name=m.group(4), compute_capability=m.group(6),
                      pci_bus_id=m.group(5).strip(), tf_device=f"/device:GPU:{m.group(1)}")
            return
        m = RE_DEVICE_DESC.search(line) if "physical_device_desc" in low else None
        if m:
            self._visible(int(m.group(1)))
            self._gpu(self.gpus, int(m.group(1)), name=m.group(2), compute_capability=m.group(4),
                      pci_bus_id=m.group(3).strip())
            return
        m = RE_DEVICE_MAPPING.search(line) if " -> device: " in line else None
        if m:
            self._visible(int(m.group(1)))
            self._gpu(self.gpus, int(m.group(2)), name=m.group(3).strip(), compute_capability=m.group(5),
                      pci_bus_id=m.group(4).strip(), tf_device=f"/device:GPU:{m.group(1)}")
            return
        m = RE_MIXED_GPU.search(line)
        if m:
            self._gpu(self.gpus, 0, name=m.group(1), compute_capability=m.group(2))
        m = RE_TORCH_GPU.search(line) if "which is of" in low else None
        if m:
            self._gpu(self.gpus, int(m.group(1)), name=m.group(2), compute_capability=m.group(3))
        m = RE_IGNORING.search(line)
        if m:
            cc = m.group(3) or m.group(4)  # TF 2.x puts it inside the brackets, TF 1.x after them
            self._gpu(self.ignored, int(m.group(1)), name=m.group(2), compute_capability=cc)
        m = RE_XLA_DEVICE.search(line)
        if m:
            index = int(m.group(1) or m.group(2))
            self._gpu(self.gpus, index, name=m.group(3), compute_capability=m.group(4))
            self._visible(index)  # XLA compiles for the GPUs TensorFlow registered
            if m.group(5):  # the driver's CUDA and version, and the cuDNN loaded
                self.set("nvidia_smi.cuda_version", m.group(5), 4)
                self.set("nvidia_smi.driver_version", _as_nvidia(m.group(6)), 4)
                self.set("runtime.cudnn_version", m.group(7), 4)
        m = RE_FOUND.search(line)
        if m:
            self._found, self._found_line = int(m.group(1)), self.line_no
            self.set("runtime.tf_native", True, 1)  # (TensorFlow's GPU device code ran: it imported)
            if "gpu_device" in low:  # TensorFlow's GPU device code runs in a CUDA (or ROCm) build only
                self.set("tensorflow.build_info.is_cuda_build", True, 1)
        if self._found is not None and low.startswith("pcibusid"):  # TF 1.x-2.0: the device's own line
            m = RE_PCI_LINE.match(line)
            if m:
                self._gpu(self.gpus, self._found, pci_bus_id=m.group(1))
        if self._found is None and low.startswith("major:") and "memoryclockrate" in low:
            # TensorFlow 1.x's device properties pasted without their "Found device N" line: its name above
            named = RE_NAME_LINE.match(self._prev_line.lstrip("*` "))
            m = RE_MAJOR_MINOR.match(line)
            if named and m:
                name = named.group(1)
                index = next((i for i, g in self.gpus.items() if g.get("name") == name), len(self.gpus))
                self._gpu(self.gpus, index, name=name, compute_capability=f"{m.group(1)}.{m.group(2)}")
        if self._found is not None and low.startswith(("name:", "major:")):
            m = RE_NAME_LINE.match(line)
            if m:
                self._gpu(self.gpus, self._found, name=m.group(1))
            m = RE_MAJOR_MINOR.match(line)
            if m:
                self._gpu(self.gpus, self._found, compute_capability=f"{m.group(1)}.{m.group(2)}")
        if self._found is not None:
            m = RE_NAME_CC.search(line)
            if m:
                cc = m.group(2) or (f"{m.group(3)}.{m.group(4)}" if m.group(3) else None)
                self._gpu(self.gpus, self._found, name=m.group(1), compute_capability=cc)
            m = RE_TOTAL_MEMORY.search(line)
            if m:
                self._gpu(self.gpus, self._found, memory_total_mib=_mib(m.group(1), m.group(2)))
                self._found = None
        m = RE_DEVICE_QUERY_NAME.match(line)
        if m:
            self._query_device = int(m.group(1))
            self._gpu(self.smi_gpus, self._query_device, name=m.group(2))
        m = RE_DEVICE_QUERY_CC.search(line)
        if m and self._query_device is not None:
            self._gpu(self.smi_gpus, self._query_device, compute_capability=f"{m.group(1)}.{m.group(2)}")
        listed = False
        for row in RE_SMI_L_JOINED.split(line) if line.startswith("GPU ") else (line,):
            m = RE_SMI_L.search(row)
            if m:
                listed = True
                self._smi_gpu = int(m.group(1) or m.group(3))
                self._gpu(self.smi_gpus, self._smi_gpu, name=m.group(2) or m.group(4))
        if not listed and low.startswith("mig ") and self._smi_gpu is not None:
            m = RE_SMI_L_MIG.match(line)
            if m:
                self._mig_device(self._smi_gpu, int(m.group(2)), profile=m.group(1), uuid=m.group(3))
        m = RE_PRODUCT.match(line)
        if m:
            self._gpu(self.smi_gpus, len(self.smi_gpus), name=m.group(1))
        m = RE_Q_REASON.match(line) if low.endswith(": active") else None
        if m:  # (of the GPU whose -q block this is: the last one named)
            index = max(len(self.smi_gpus) - 1, 0)
            self._gpu(self.smi_gpus, index)
            reasons = self.smi_gpus[index].setdefault("throttle_reasons", [])
            tag = m.group(1).lower().replace(" ", "_")
            reason = smi_probe.THROTTLE_TAGS[_Q_TAGS.get(tag, tag)]
            if reason not in reasons:
                reasons.append(reason)
        m = RE_NUM_GPUS.search(line)
        if m:
            self.set("runtime.tf_visible_gpus", int(m.group(1)), 6)
        for pm in RE_PHYSICAL_GPU.finditer(line):
            self._visible(int(pm.group(1)))
        # TensorFlow 2.0-2.3 lists an XLA device for a GPU CUDA itself answered (unless the list names the GPU
        # too: Keras's "this machine only has: ['/cpu:0', '/xla_gpu:0', '/gpu:0']", after the devices asked)
        has = low[low.find("only has"):] if "only has" in low else low
        if "xla_gpu" in low and "/gpu:" not in has and "device:gpu:" not in has:
            listed = len(RE_XLA_GPU.findall(line))
            if listed:
                self.set("runtime.xla_gpus", listed, 2)
        m = RE_ADDING_VISIBLE.search(line)
        if m:
            self.visible.update(int(x) for x in re.findall(r"\d{1,3}", m.group(1)))
        if RE_NO_GPUS.search(line):
            self.set("runtime.tf_visible_gpus", 0, 5)
        if "device query" in low or "cuda capable device" in low:
            self._query_lines = 40  # deviceQuery: each device's name, then its capability lines
        if "skipping registering gpu devices" in low:
            self.hints["gpus-skipped"] = 1

    def _smi_table(self, line: str) -> None:
        m = RE_SMI_ROW.match(line)
        if m:
            idx = int(m.group(1))
            self._gpu(self.smi_gpus, idx, name=m.group(2))
            self._last_smi = self._smi_gpu = idx
            return
        m = RE_SMI_MIG_MODE.match(line)
        if m and self._smi_gpu is not None:
            gpu = self.smi_gpus.get(self._smi_gpu)
            if gpu is not None and "mig" not in gpu:
                # "Enabled*": a change pending until the GPU resets; instances unknown until listed
                gpu["mig"] = {"current": m.group(1) == "Enabled", "devices": None}
                if m.group(2):
                    gpu["mig"]["pending"] = m.group(1) != "Enabled"
            return
        m = RE_SMI_MIG_ROW.match(line)
        if m:
            self._mig_device(int(m.group(1)), int(m.group(4)), gpu_instance_id=int(m.group(2)),
                             compute_instance_id=int(m.group(3)), memory_total_mib=int(m.group(5)))
            return
        m = RE_SMI_MEM.match(line)
        if m and self._last_smi is not None:
            self._gpu(self.smi_gpus, self._last_smi, memory_used_mib=int(m.group(1)),
                      memory_total_mib=int(m.group(2)))
            self._last_smi = None

    def _engine_run(self, line: str) -> None:
        """Whether a container was started with the GPU: True once any run command (or its continuation
        lines) hands it over, False for a run command that does not."""
        if self._run_lines:
            self._run_lines -= 1  # a continuation line of the command
        else:
            m = RE_ENGINE_RUN.match(line)
            if not m:
                return
            if self.get("system.container_gpu_access") is None:
                self.set("system.container_gpu_access", False, 1)
            if m.group(1) == "nvidia-docker":
                self.set("system.container_gpu_access", True, 7)
            self._run_lines = 8
        if RE_GPU_ACCESS.search(line):
            self.set("system.container_gpu_access", True, 7)
        if not line.endswith("\\"):
            self._run_lines = 0

    def _platform(self, line: str, low: str) -> None:
        hints = self.hints
        if "(e.g" in low:  # "OS Platform and Distribution (e.g., Linux Ubuntu 16.04):"
            line = RE_EXAMPLE.sub(" ", line)
            low = line.lower()
        if "://" in line:  # a link names pages, not this machine ("/t/macos-gpu-tensorflow-metal/81"), but
            # a wheel's is the file installed here ("pip install https://.../tensorflow-...-macosx_14_0_arm64.whl")
            line = RE_URL.sub(lambda m: m.group(0).rsplit("/", 1)[-1] if m.group(0).endswith(".whl") else " ",
                              line)
            low = line.lower()
        if "gpu" not in hints and ("gpu" in low or "cuda" in low or "nvidia" in low) and not (
                _has(low, _HEADING_TRIGGERS) and RE_HEADING.match(line)):  # an issue template's field name
            hints["gpu"] = 1
        if "nvidia-smi" in low:  # the person or the paste has nvidia-smi's view (its GPU numbers)
            hints["nvidia-smi-named"] = 1
        if "colab" in low or "kaggle" in low:  # a hosted notebook: its GPU runtimes come with the driver
            hints["hosted-notebook"] = 1
        if _has(low, _JETSON_WORDS) and RE_JETSON.search(line):  # NVIDIA's boards: their own TensorFlow
            hints["jetson"] = hints["linux"] = 1  # (they run Linux alone, L4T)
        if "rocm" in low and RE_ROCM_BUILD.search(line):  # AMD's images install their build as `tensorflow`
            hints["rocm"] = 1
        if "/mnt/" in low and RE_WSL_MOUNT.search(line):
            hints["wsl"] = 1
        if ("wsl" in low or "microsoft" in low) and (
                "dxcore" not in low or "assuming a wsl" in low):  # (the container toolkit asking which it is)
            if RE_WSL2.search(line):
                hints["wsl2"] = 1
            elif RE_WSL1.search(line):
                hints["wsl1"] = 1
            elif RE_WSL.search(line):
                hints["wsl"] = 1
            km = RE_KERNEL.search(line)
            if km:
                self.set("system.kernel", km.group(1), 3)
        words = self._words
        if "windows" not in hints and _holds(words, _WINDOWS_SET) and RE_WINDOWS.search(line):
            hints["windows"] = 1
        if "linux" not in hints and _holds(words, _LINUX_SET) and (
                RE_LINUX.search(line) or _posix_python(line)):
            hints["linux"] = 1
        if "linux_path" not in hints and _holds(words, _LINUX_PATH_SET) and RE_LINUX_PATH.search(line):
            hints["linux_path"] = 1
        if "metal" not in hints and _holds(words, _MACOS_SET) and RE_METAL.search(line):
            hints["metal"] = 1
            gpu = RE_METAL_GPU.search(line)
            if gpu:
                self._gpu(self.gpus, 0, name=gpu.group(1))
        if "macos" not in hints and _holds(words, _MACOS_SET):
            if RE_MACOS.search(line):
                hints["macos"] = 1
            elif RE_MACOS_WORD.search(line):
                hints["macos_word"] = 1
        if "conda" not in hints and ("conda" in low or "/envs/" in low or "forge" in low) \
                and RE_CONDA.search(line):
            hints["conda"] = 1
        # once per log (a second time for the engine's name: podman, as tfdoctor/probes/system.py names it)
        # (an image's path names no engine: "nvcr.io/nvidia/k8s/cuda-sample")
        engine = next((name for word, name in _ENGINES
                       if word in low and not (word == "k8s" and "/k8s/" in low)), None)
        if (("container" not in hints or engine and "engine" not in hints) and _holds(words, _CONTAINER_SET)
                and RE_CONTAINER.search(line)):
            hints["container"] = 1
            if engine:
                hints["engine"] = engine
        if _holds(words, _OS_SET):
            om = RE_OS.search(line)
            if om:
                self.set("system.os", om.group(1), 2)
        if "cuda_visible_devices" in low:
            hints["cvd-named"] = 1  # the text chooses GPUs by CUDA's numbers, whether or not it shows how
            var = RE_CVD_VARIABLE.search(line)  # set from a shell variable: its value is not in the text
            if var:
                self.set("system.env.CUDA_VISIBLE_DEVICES", f"${{{var.group(1)}}}", 3)
            m = None if var else RE_CVD.search(line)
            # an empty value hides every GPU: only when the line shows it set to nothing (quotes, or `=` at
            # the end), not a name cut short
            # (nor a string that code goes on to use: os.environ["CUDA_VISIBLE_DEVICES"] = ",".join(ids))
            # (nor a report's word for a variable not set: DeePMD's "CUDA_VISIBLE_DEVICES: unset")
            if m and (m.group(2) or m.group(1) and m.group(3) or m.end() == len(line.rstrip())) \
                    and line[m.end():m.end() + 1] not in (".", "(", "[", "+", "%", "*") \
                    and m.group(2).lower() not in _NOT_SET:
                self.set("system.env.CUDA_VISIBLE_DEVICES", m.group(2), 3, empty=True)
        if ("gputouse" in low or "--gpu" in low or "gpu_id" in low) and (m := RE_GPU_CHOSEN.search(line)):
            self.set("runtime.gpu_index_chosen", int(m.group(1)), 2)
        if "nvidia_visible_devices" in low:
            m = RE_NVD.search(line)
            if m:
                self.set("system.env.NVIDIA_VISIBLE_DEVICES", m.group(1), 3)
        if "cuda_device_order" in low:
            m = RE_DEVICE_ORDER.search(line)
            if m:
                self.set("system.env.CUDA_DEVICE_ORDER", m.group(1), 3)

    def _tool_outputs(self) -> None:
        """The versions the tool outputs in the paste state, as their probes' parsers read them: they
        outrank every other wording."""
        found = self.blocks.facts()
        last = self.line_no
        for section, values in found.items():
            self.line_no = self.blocks.at.get(section, last)
            for key, value in values.items():
                if key not in ("gpus", "build_info", "installs"):
                    self.set(f"{section}.{key}", value, 7)
        self.line_no = last
        _dists, _dups, tf = blocks.distributions(self.lists)
        if tf:
            name = next((n for n, v in _dists.items() if v == tf), "")
            self.line_no = self.dist_lines.get(name, self.line_no)
            self.set("tensorflow.version", tf, 5)
        if self.blocks.nvcc:
            self.values.setdefault("nvcc.installs", ([{**self.blocks.nvcc, "source": "pasted"}], 7, 0))
        if self.blocks.wsl_version:  # /proc/version, read as the system probe reads it
            self.hints["wsl2" if self.blocks.wsl_version == 2 else "wsl1"] = 1
        if found.get("nvidia_smi", {}).get("driver_version"):
            self.hints["nvidia-smi"] = 1

    def _capability_by_model(self) -> None:
        """A GPU model has one compute capability: one that any source states for a model (TensorFlow's
        device lines, a person's "GPU model: GeForce 960M, compute capability: 5.0") is that of every
        listed GPU of the same model whose own listing shows none (nvidia-smi's rows show none)."""
        known = {_model(g.get("name")): g["compute_capability"]
                 for table in (self.stated, self.prose, self.ignored, self.gpus) for g in table.values()
                 if g.get("name") and g.get("compute_capability")}
        for table in (self.gpus, self.ignored, self.smi_gpus) if known else ():
            for gpu in table.values():
                if not gpu.get("compute_capability") and _model(gpu.get("name")) in known:
                    gpu["compute_capability"] = known[_model(gpu.get("name"))]

    # -- the facts
    def platform(self) -> str | None:
        h = self.hints
        if h.get("wsl2") or h.get("wsl") and not h.get("wsl1"):
            return "wsl2"
        if h.get("windows"):
            return "windows"
        if h.get("macos") or h.get("macos_word") and not h.get("linux_path"):
            return "macos"  # macOS paths look like Linux ones; a macOS marker decides
        if h.get("linux") or h.get("wsl1"):
            return "linux"
        return None

    def facts(self) -> tuple[dict[str, Any], dict[str, int]]:
        """(probe-shaped sections, provenance {"section.key": line})."""
        out: dict[str, Any] = {}
        provenance: dict[str, int] = {}

        def put(path: str, value: Any, line: int | None) -> None:
            parts = path.split(".")
            node = out
            for part in parts[:-1]:
                node = node.setdefault(part, {})
            node[parts[-1]] = value
            if line:
                provenance[path] = line

        self._tool_outputs()
        for path, (value, _prio, line) in sorted(self.values.items()):
            put(path, value, line)
        plat = self.platform()
        if plat:
            put("system.platform", plat, None)
        if self.hints.get("wsl1"):
            put("system.wsl_version", 1, None)
        if self.hints.get("conda"):
            put("system.conda", True, None)
        if self.hints.get("container"):
            engine = self.hints.get("engine")
            put("system.container", engine or "docker", None)
        if len(self.libcuda_files) > 1:
            put("system.libcuda_files", list(self.libcuda_files), None)
        if self.dev_denied:
            put("system.dev_nvidia_denied", list(self.dev_denied), None)
        dists, duplicates, listed = blocks.distributions(self.lists)
        if not dists and len(self.pinned) == 1:  # no list shows what is installed: the one package pinned
            dists = dict(self.pinned)
        imported = self.get("tensorflow.version") if self.get("runtime.tf_imported") else None
        dist = tf_probe.tensorflow_dist(dists)
        if imported and listed and dist and not duplicates.get(dist) and differ(imported, listed):
            # (TensorFlow's own __version__ is not the release the package list shows: another copy of it,
            # elsewhere on sys.path, is the one imported)
            duplicates[dist] = [listed, imported]
        if dists:
            put("tensorflow.distributions", dists, None)
        if duplicates:
            put("tensorflow.duplicates", duplicates, None)
        for key, value in self.blocks.facts().get("tensorflow", {}).get("build_info", {}).items():
            if key not in (out.get("tensorflow") or {}).get("build_info", {}):
                put(f"tensorflow.build_info.{key}", value, None)
        self._capability_by_model()
        gpus = [self.gpus[i] for i in sorted(self.gpus)]
        if gpus:
            put("runtime.gpus", gpus, None)
            if (any(g.get("tf_device") for g in gpus)
                    and self.get("tensorflow.build_info.is_cuda_build") is None):
                put("tensorflow.build_info.is_cuda_build", True, None)  # TensorFlow created a GPU device
        tf = out.get("tensorflow")
        if isinstance(tf, dict) and (tf.get("version") or tf.get("build_info") or tf.get("api_major")):
            tf["installed"] = True
        if self.visible and self.get("runtime.tf_visible_gpus") is None:
            put("runtime.tf_visible_gpus", len(self.visible), None)
        elif not self.visible and self.get("runtime.tf_visible_gpus") is None and (
                self.hints.get("gpus-skipped") or self.get("tensorflow.build_info.is_cuda_build") is False):
            put("runtime.tf_visible_gpus", 0, None)  # TensorFlow said it registers none, or cannot
        for gpu in self.blocks.smi_gpus.values():  # the banner, -q -x, --query-gpu: the probe's own parsers
            self._gpu(self.smi_gpus, gpu["index"], **{k: v for k, v in gpu.items() if k != "index"})
        # a pasted snapshot's moment is unknown: the memory in use may be the program's own
        smi = [{**g, "memory_may_be_own": True} if "memory_used_mib" in g else g
               for g in (self.smi_gpus[i] for i in sorted(self.smi_gpus))]
        if smi:
            put("nvidia_smi.gpus", smi, None)
        for section, values in self.blocks.facts().items():
            for key, value in values.items():
                if key not in ("gpus", "build_info") and (out.get(section) or {}).get(key) is None:
                    put(f"{section}.{key}", value, None)
        if self.ignored:
            put("runtime.gpus_ignored", [self.ignored[i] for i in sorted(self.ignored)], None)
        stated = self.stated or self.prose or self.other_gpu
        if stated:
            put("runtime.gpus_stated", list(stated.values()), None)
        return out, provenance


# The readers of a line, each with the lower-case words without which it cannot match: it runs on a
# line holding one, and the cheap pass (tfdoctor/logs/triggers.py) hands on only lines holding one of
# any reader's. A reader whose words are () runs on every line the engine reads.
_HEADING_TRIGGERS = ("version", "platform", "installed from", "gpu model")
_TF_TRIGGERS = (
    *(f"tensorflow{c}" for c in "-_ :=*(12v["), "tensorflow/tensorflow:", "tensorflow/1", "tensorflow/2",
    *(f"tf{c}" for c in "-_ :=*(12v["), "__version__", "version.version", "-g", "tf-nightly", "tensor flow",
    "framework:",  # (Horovod's template names it: RE_FRAMEWORK_TF)
)
_PACKAGE_TRIGGERS = (*_TF_TRIGGERS, "keras", "numpy", "protobuf", "nvidia-", "intel-tensorflow", "jax",
                     "successfully installed", "requirement already ", "package", "# name", "_tflow",
                     *tf_probe.CONDA_CUDA)
_GPU_TRIGGERS = (
    "created device", "created tensorflow device", "creating tensorflow device", "your gpu", "ignoring",
    "streamexecutor device", "found device", "name: ", "major:", "totalmemory", "device query",
    "cuda capable device", "capability major/minor", *(f"device {i}" for i in range(10)), "(uuid:",
    ": nvidia", ": geforce", ": tesla", ": quadro", ": titan", ": grid", ": rtx", ": gtx", "product name",
    "num gpus", "list_physical_devices", "physical_device:gpu", "adding visible gpu device", "[]",
    "gpu available", "gpu is available",
    "skipping registering gpu devices", "xla_gpu", "pcibusid", "which is of",
    "mib /",  # (nvidia-smi's memory row: read under its GPU's row where no banner opened the table)
    ": active",  # (nvidia-smi -q's clocks event reasons)
)
_PLATFORM_TRIGGERS = ("gpu", "cuda", "nvidia", "wsl", "microsoft", *_WINDOWS_KEYS, *_LINUX_KEYS, *_MACOS_KEYS,
                      "conda", "/envs/", "forge", *_CONTAINER_KEYS, *_OS_KEYS, "cuda_visible_devices",
                      "cuda_device_order", "nvidia_visible_devices", "gputouse", "--gpu", "gpu_id", "rocm",
                      *_JETSON_WORDS)
READERS: tuple[tuple[tuple[str, ...], Any], ...] = (
    (_HEADING_TRIGGERS, Values._heading_line),
    (("[python]", "[tensorflow]", "[cudnn]", "[driver]", "[nvidia driver]"), Values._section_line),
    (("version:", "version :"), Values._section_version),
    (("version", "nvrm", "release", "driver", "nvidia"), Values._versions),
    (("driver", "nvcc", "cudnn", "nvidia-smi", "nvidia smi", "gpu", "graphic", "video card", "py_version",
      "python_version", "os_platform", "capability"), Values._labeled_line),
    (_TF_TRIGGERS, Values._tensorflow),
    (("cuda",), Values._cuda_stated),
    (("python", "-cp", "\\py\\", "pip3.", "pyenv "), Values._python),
    ((" (main, ", " (default, ", ") [gcc", ") [msc", ") [clang"), Values._sys_version),
    (("_api.v1", "deprecation_wrapper", "please use tf.compat.v1."), Values._tf1_api),
    (("eager mode:",), Values._tutorial_prints),
    (_PACKAGE_TRIGGERS, Values._packages),
    (("is_cuda_build", "cuda_version", "cudnn_version", "compute_capabilities"), Values._build_info),
    (('vendor: "nvidia" model:',), Values._grappler_device),
    ((" requires ", " has requirement "), Values._requirer),
    (("used to build pytorch",), Values._pytorch_cuda),
    (("(id=",), Values._jax_devices),
    (("nodevfiles",), Values._slurm_no_devices),
    (("nvrm version:", "cuda version:", "device index:", "model:", "bus location:", "architecture:"),
     Values._container_cli),
    (("#sbatch", "srun", "sbatch", "salloc", "slurm_", "slurmstepd", "#pbs", "pbs_", "qsub", "#bsub", "lsb_",
      "bsub", "jsrun"), Values._scheduler),
    (("[and-cuda]", "[cuda"), Values._pip_cuda_extra),
    (("pid=", "(raylet)", "ray::", "resources requested", "logical resource usage"), Values._ray),
    (("registered devices:", "no devices matching", "no supported devices found", "available devices are",
      "gpu acceleration is disabled",
      "_deviceattributes(", "[physicaldevice("), Values._no_gpu_registered),
    (("successfully opened",), Values._opened),
    (("libcuda.so.", "libnvidia-ml.so.", "nvidia_driver_"), Values._driver_files),
    (("nvidia-compute-", "nvidia-driver-", "nvidia-utils-", "nvidia-gl-", "nvidia-kernel-common-",
      "nvidia-dkms-"), Values._driver_package),
    (_PROSE_GPU_WORDS, Values._prose_gpu),
    (_OTHER_GPU_WORDS, Values._other_gpu),
    (("have a gpu", "have any gpu", "have gpu", "have a dedicated gpu", "have a discrete gpu", "with no ",
      "have a graphic", "have any graphic", "have graphic", "have an nvidia", "have any nvidia",
      "have a video card", "have any video card",
      "has no ", "cpu-only", "cpu only", "cpu node", "cpu machine", "cpu instance", "cpu server", "cpu vm"),
     Values._no_gpu_said),
    (("on cpu", "to cpu", "on the cpu", "to the cpu", " gpu", "only cpu", "only the cpu", "my cpu", "only us",
      "using only", "uses only"),
     Values._cpu_fallback_said),
    (("cuda is not", "cuda not", "cuda is un", "cuda un", "cuda.is_available(", "devices found",
      "device found", "devices detected", "device detected", "devices were", "device was"),
     Values._cuda_unavailable),
    (_MIG_WORDS, Values._stated_mig),
    (("exclusive",), Values._stated_mode),
    (("ld_library_path",), Values._ld_path),
    (("cudnn",), Values._cudnn_stated),
    ((" mb |",), Values._gpustat),
    (("windows", "os build", "[version 10.0."), Values._windows_build),
    (("/dev/nvidia", "nvidiactl", "sudo", "superuser", "as root", "root user"), Values._device_files),
    (("module load", "module add", "module swap", " ml "), Values._modules),
    (_CPU_WORDS, Values._cpu_model),
    (("libdxcore.so", "libd3d12.so"), Values._wsl_lib_listing),
    (("tf_config",), lambda self, line, low: None),  # read in feed (it spans lines); declared here
    (_GPU_TRIGGERS, Values._gpu_lines),
    (_PLATFORM_TRIGGERS, Values._platform),
)
_BLOCK_SET = frozenset(blocks.TRIGGERS)
_INDEX_BY_WORD: dict[str, tuple[int, ...]] = {}
for _i, (_words, _reader) in enumerate(READERS):
    for _w in dict.fromkeys(_words):
        _INDEX_BY_WORD[_w] = (*_INDEX_BY_WORD.get(_w, ()), _i)
_BY_WORD = {w: tuple(READERS[i][1] for i in idx) for w, idx in _INDEX_BY_WORD.items()}  # in READERS order
_WINDOWS_SET, _LINUX_SET = frozenset(_WINDOWS_KEYS), frozenset(_LINUX_KEYS)
_LINUX_PATH_SET, _CONTAINER_SET = frozenset(_LINUX_PATH_KEYS), frozenset(_CONTAINER_KEYS)
_MACOS_SET, _OS_SET = frozenset(_MACOS_KEYS), frozenset(_OS_KEYS)
# Words on a line that make the engine read the next one too, whatever it holds.
_ANNOUNCE = ("version", "name: ", "is_built_with_cuda", "list_physical_devices", "tf_config",
             "echo $cuda_visible_devices", "is_gpu_available(", "gpu available", "cuda.is_available(")


def triggers() -> frozenset[str]:
    """Every word a value reader or block finder here declares (see READERS)."""
    return _TRIGGERS


_TRIGGERS = frozenset({w for words, _reader in READERS for w in words} | set(blocks.TRIGGERS))
