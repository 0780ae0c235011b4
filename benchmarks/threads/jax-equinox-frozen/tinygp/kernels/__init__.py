from tinygp.kernels.base import Kernel as Kernel
