"""Checks of the GPUs themselves (ids gpu.*): visibility and count, kernels for the compute
capability, health, and the TensorFlow-to-physical mapping."""
