"""https://github.com/ginobilinie/medSynthesisV1/issues/9, ported: margins made by / 2."""

import jax.numpy as jnp

dFA = [32, 32, 16]
dSeg = [16, 16, 8]
margin1 = (dFA[0] - dSeg[0]) / 2
margin2 = (dFA[1] - dSeg[1]) / 2
margin3 = (dFA[2] - dSeg[2]) / 2
marginD = [margin1, margin2, margin3]
row, col, leng = 4, 4, 4
matFAOut = jnp.zeros([row + 2 * marginD[0], col + 2 * marginD[1], leng + 2 * marginD[2]], dtype=jnp.float16)
print(matFAOut.shape)
