"""https://github.com/jax-ml/jax/issues/1168 -- nested tuples in in_axes ((2, 3), (1, 2)) to map two axes of each array at once."""
import jax
import jax.numpy as np
import numpy as onp

solve = jax.vmap(
    np.linalg.solve,
    in_axes=((2, 3), (1, 2)),
    out_axes=(1, 2))
A = np.array(onp.random.rand(3, 3, 100, 100), np.float32)
b = np.array(onp.random.rand(3, 100, 100), np.float32)

s12 = solve(A, b)
