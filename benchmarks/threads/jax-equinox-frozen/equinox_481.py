"""https://github.com/patrick-kidger/equinox/issues/481 -- the second snippet as written: __init__ sets self.a, which the class body does not declare."""
import equinox as eqx

class ParentTree(eqx.Module):
    def __init_subclass__(klass: type, foo: bool = False):
        if foo:
            klass.foo = True

class Tree(ParentTree):
    def __init__(self, a: int):
        self.a = a

Tree(a=1)
print("made")
