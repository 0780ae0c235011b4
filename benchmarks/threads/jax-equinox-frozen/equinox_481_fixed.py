"""https://github.com/patrick-kidger/equinox/issues/481 -- fixed: the field a declared in the class body."""
import equinox as eqx

class ParentTree(eqx.Module):
    def __init_subclass__(klass: type, foo: bool = False):
        if foo:
            klass.foo = True

class Tree(ParentTree):
    a: int
    def __init__(self, a: int):
        self.a = a

Tree(a=1)
print("made")
