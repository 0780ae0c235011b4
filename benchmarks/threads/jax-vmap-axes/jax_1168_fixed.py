"""https://github.com/jax-ml/jax/issues/1168 -- fixed as the answer gives: two applications of vmap, one axis each."""
import jax
import jax.numpy as np
import numpy as onp

solve = jax.vmap(jax.vmap(np.linalg.solve, (0, 0), 0), (0, None), 0)
A = np.array(onp.random.rand(3, 3, 100, 100), np.float32)
b = np.array(onp.random.rand(3, 100, 100), np.float32)

s12 = solve(A, b)
