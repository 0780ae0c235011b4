"""https://github.com/PredictiveIntelligenceLab/Physics-informed-DeepONets/issues/3 -- fixed minimally: one key per initial condition."""
import jax.numpy as np
from jax import random, vmap


def generate_one_ics_training_data(key, u0, m=101, P=101):
    t_0 = np.zeros((P, 1))
    x_0 = np.linspace(0, 1, P)[:, None]
    y = np.hstack([x_0, t_0])
    u = np.tile(u0, (P, 1))
    s = u0
    return u, y, s


N = 1000  # number of input samples
m = 101
P_ics_train = 101
key = random.PRNGKey(0)
u0_train = np.zeros((10, m))  # loaded from the data file, 10 rows in the thread
keys = random.split(key, u0_train.shape[0])
u_ics_train, y_ics_train, s_ics_train = vmap(generate_one_ics_training_data, in_axes=(0, 0, None, None))(keys, u0_train, m, P_ics_train)
