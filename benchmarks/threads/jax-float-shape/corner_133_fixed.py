import jax

ndim, nsamples = 2, 10
key = jax.random.key(0)
data1 = jax.random.normal(key, (ndim * 4 * nsamples // 5,)).reshape([4 * nsamples // 5, ndim])
print(data1.shape)
