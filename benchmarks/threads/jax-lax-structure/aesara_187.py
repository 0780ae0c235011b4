"""https://github.com/aesara-devs/aesara/pull/187: the WIP JAX IfElse (commit 68d6392 of the PR) picks args[:n_outs] (a 1-tuple) or args[0] (a bare array) in an inner cond, so its branches differ when n_outs == 1."""
import jax
import jax.numpy as jnp

def jax_funcify_IfElse(n_outs):
    def ifelse(cond, *args, n_outs=n_outs):
        res = jax.lax.cond(
            cond,
            lambda _: jax.lax.cond(n_outs > 1, lambda _: args[:n_outs], lambda _: args[0], operand=None),
            lambda _: jax.lax.cond(n_outs > 1, lambda _: args[n_outs:], lambda _: args[1], operand=None),
            operand=None
        )
        return res

    return ifelse

ifelse = jax_funcify_IfElse(1)
print(ifelse(jnp.array(True), jnp.array([1, 2, 3]), jnp.array([-1, -2, -3])))
