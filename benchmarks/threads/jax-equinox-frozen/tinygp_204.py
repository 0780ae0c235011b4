"""https://github.com/dfm/tinygp/issues/204 -- as written: a subclass of tinygp's Kernel (an eqx.Module) sets self.a = 0 in __init__. tinygp/ beside it is a trimmed copy of tinygp 0.3's Kernel."""
import tinygp

class test(tinygp.kernels.Kernel):
    def __init__(self):
        self.a = 0
    def evaluate(self):
        return 0

t = test()
print(t)
