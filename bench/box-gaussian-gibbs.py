#!/usr/bin/env python3
"""The mean log likelihood E_beta[log L] of the power posteriors of occam's `correlated-box-d50`
problem (uniform prior on [-10, 10]^50, L = N(theta; mu, Sigma) with AR(1) correlation 0.9), at the
first temperatures of a tempered-SMC run, by exact Gibbs sampling: each coordinate's conditional is
a normal truncated to the box. It is the reference docs/calibration.md compares the SMC cloud's
mean log likelihood with, to show that the cloud lagged behind its temperatures when its sweeps
stopped at decorrelation.

    python3 bench/box-gaussian-gibbs.py     # about a minute; needs numpy and scipy

Prints beta, E_beta[log L] and its Monte Carlo standard error (4000 chains, 150 sweeps, the last
100 kept, batches of 10 sweeps).
"""
import numpy as np
from scipy.stats import truncnorm

d, rho, amplitude, half_width = 50, 0.9, 0.5, 10.0
mu = amplitude * np.sin(np.arange(1, d + 1))
# The AR(1) precision matrix: tridiagonal.
P = np.zeros((d, d))
for i in range(d):
    P[i, i] = (1 + rho**2 if 0 < i < d - 1 else 1) / (1 - rho**2)
    if i < d - 1:
        P[i, i + 1] = P[i + 1, i] = -rho / (1 - rho**2)
log_norm = -d / 2 * np.log(2 * np.pi) - 0.5 * (d - 1) * np.log(1 - rho**2)


def log_likelihood(theta):
    x = theta - mu
    return log_norm - 0.5 * np.einsum("ij,jk,ik->i", x, P, x)


rng = np.random.default_rng(1)
for beta in [0.00066, 0.00139, 0.0023, 0.00338, 0.00463, 0.0103, 0.0204]:
    chains = 4000
    theta = rng.uniform(-half_width, half_width, (chains, d))
    means = []
    for sweep in range(150):
        for i in range(d):
            x = theta - mu
            rest = x @ P[:, i] - P[i, i] * x[:, i]
            m = mu[i] - rest / P[i, i]
            s = 1 / np.sqrt(beta * P[i, i])
            a, b = (-half_width - m) / s, (half_width - m) / s
            theta[:, i] = truncnorm.rvs(a, b, loc=m, scale=s, random_state=rng)
        if sweep >= 50:
            means.append(np.mean(log_likelihood(theta)))
    means = np.array(means)
    batches = means.reshape(-1, 10).mean(axis=1)
    print(f"{beta:.5f} {means.mean():.1f} {batches.std(ddof=1) / np.sqrt(len(batches)):.1f}")
