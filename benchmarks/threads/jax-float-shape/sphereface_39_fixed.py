import jax.numpy as jnp


class Dataset:
    def __init__(self, arrimage):
        self.arrimage = arrimage
        self.nparrimage = jnp.asarray(arrimage, jnp.float32).reshape(10, len(self.arrimage) // 10)


print(Dataset([0.0] * 20).nparrimage.shape)
