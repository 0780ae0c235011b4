"""https://github.com/patrick-kidger/equinox/issues/788 -- as written: __init__ sets self.layers and self.activation with no field declared."""
import jax
import jax.numpy as jnp
import equinox as eqx

class MLPeqx(eqx.Module):
    def __init__(self, hidden_dims):
        super().__init__()
        tmp_key = jax.random.split(jax.random.PRNGKey(0), len(hidden_dims) - 1)
        self.layers = [eqx.nn.Linear(hidden_dims[i], hidden_dims[i + 1], key=tmp_key[i]) for i in range(len(hidden_dims) - 1)]
        self.activation = jax.nn.relu

    def __call__(self, x):
        for i in range(len(self.layers) - 1):
            x = self.activation(self.layers[i](x))
        x = self.layers[-1](x)
        return x

MLP = MLPeqx(hidden_dims=[1,2,4,4,2,1])
print(MLP(jnp.ones(1)))
