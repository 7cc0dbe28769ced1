"""tfdoctor: does TensorFlow really train on this machine's NVIDIA GPU, and if not, why."""

__version__ = "0.1.0"
