"""https://github.com/dfm/tinygp/issues/204 -- fixed: the attribute declared as a field."""
import tinygp

class test(tinygp.kernels.Kernel):
    a: int
    def __init__(self):
        self.a = 0
    def evaluate(self):
        return 0

t = test()
print(t)
