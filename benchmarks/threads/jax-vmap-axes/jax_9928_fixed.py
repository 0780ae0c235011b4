"""https://github.com/jax-ml/jax/issues/9928 -- fixed: one in_axes entry per positional argument, None for param."""
import jax
import jax.numpy as jnp


class MipNerfModel:
    def __call__(self, arg1, arg2, param):
        def _fn(arg1, arg2, param):
            return arg1 * param + arg2

        fn = jax.vmap(_fn, (0, 0, None))
        out = fn(arg1, arg2, param)
        return out


MipNerfModel()(jnp.ones((4, 3)), jnp.ones((4, 3)), 2.0)
