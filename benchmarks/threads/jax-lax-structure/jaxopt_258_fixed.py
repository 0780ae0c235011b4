"""https://github.com/google/jaxopt/issues/258: fixed as suggested in the thread by calling fun within init_state to give aux its real structure."""
from typing import Any, NamedTuple
import jax
import jax.numpy as jnp

class OptaxState(NamedTuple):
  iter_num: Any
  value: Any
  aux: Any

def fun(theta):  # has_aux=True
  return jnp.sum(theta ** 2), jnp.mean(theta)

def init_state(theta):
  _, aux = fun(theta)
  return OptaxState(iter_num=jnp.asarray(0), value=jnp.asarray(jnp.inf), aux=aux)

def solver_update(theta, state):
  (value, aux), grad = jax.value_and_grad(fun, has_aux=True)(theta)
  return theta - 0.1 * grad, OptaxState(state.iter_num + 1, value, aux)

def train(theta, state, epochs):
  def update(carry, t):
    theta, state = carry
    theta, state = solver_update(theta, state)
    return (theta, state), (state.value, state.aux)
  (theta_opt, _), (val_losses, train_losses) = jax.lax.scan(update, (theta, state), None, length=epochs)
  return val_losses, train_losses

theta = jnp.ones(3)
print(train(theta, init_state(theta), 5))
