"""https://github.com/aesara-devs/aesara/pull/187: fixed as in the PR (dfm's snippet, commit f715620) by returning the tuples args[:n_outs] / args[n_outs:] from both branches and unwrapping res[0] outside the cond."""
import jax
import jax.numpy as jnp

def jax_funcify_IfElse(n_outs):
    def ifelse(cond, *args, n_outs=n_outs):
        res = jax.lax.cond(
            cond,
            lambda _: args[:n_outs],
            lambda _: args[n_outs:],
            operand=None
        )
        return res if n_outs > 1 else res[0]

    return ifelse

ifelse = jax_funcify_IfElse(1)
print(ifelse(jnp.array(True), jnp.array([1, 2, 3]), jnp.array([-1, -2, -3])))
