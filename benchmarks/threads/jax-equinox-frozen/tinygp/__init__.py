# Minimal local stand-in for tinygp (not installed here): only tinygp.kernels.Kernel.
from tinygp import kernels as kernels
