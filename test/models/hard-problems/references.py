#!/usr/bin/env python3
"""Independent references for occam's hard-problem suite (src/models/hard-problems/).

Rerun from the repository root with

    python3 test/models/hard-problems/references.py            # everything (about a minute)
    python3 test/models/hard-problems/references.py --no-pima  # quadratures only (seconds)

It needs numpy and scipy (Debian: apt-get install -y python3-numpy python3-scipy) and rewrites the
"python" section of test/models/hard-problems/references.json, keeping the other sections (the
"occam" long run and the combined "reference" written by pima-long-run.ts; after a new pima run here,
rerun `npx tsx test/models/hard-problems/pima-long-run.ts` to recombine them, and update
PIMA_REFERENCE in src/models/hard-problems/logistic-regression.ts). The TypeScript tests only read
the JSON: CI has no scipy.

Every quadrature here uses a different rule from the TypeScript code it checks (scipy's adaptive
QUADPACK or composite Gauss-Legendre where the TypeScript uses the trapezoidal rule, and the other
way round), so that agreement is evidence that both are right rather than that both share a bug.
The logistic-regression reference is an importance sampler with its own random numbers, mode finder
and proposal, written without any occam code.
"""

import json
import math
import os
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from scipy import integrate, special, stats  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
OUT = os.path.join(HERE, "references.json")


def gl_composite(f, breaks, panels, order=40):
    """Composite Gauss-Legendre of a vectorised f over consecutive segments of `breaks`."""
    x, w = np.polynomial.legendre.leggauss(order)
    total = 0.0
    for a, b in zip(breaks[:-1], breaks[1:]):
        edges = np.linspace(a, b, panels + 1)
        for lo, hi in zip(edges[:-1], edges[1:]):
            half = 0.5 * (hi - lo)
            total += half * np.sum(w * f(0.5 * (hi + lo) + half * x))
    return total


# ---------------------------------------------------------------------------------------------------
# eggbox: Z = (1/pi^2) * integral over [0, pi]^2 of exp((2 + cos u cos v)^5), by tensor Gauss-Legendre
# with panels graded towards the corners where the integrand peaks (the TypeScript uses the periodic
# trapezoidal rule instead).
def eggbox():
    shift = 243.0
    x, w = np.polynomial.legendre.leggauss(30)
    edges = np.concatenate([np.linspace(0, 0.4, 9), np.linspace(0.4, math.pi - 0.4, 11)[1:-1],
                            math.pi - np.linspace(0.4, 0, 9)])
    nodes, weights = [], []
    for lo, hi in zip(edges[:-1], edges[1:]):
        half = 0.5 * (hi - lo)
        nodes.append(0.5 * (hi + lo) + half * x)
        weights.append(half * w)
    u = np.concatenate(nodes)
    wu = np.concatenate(weights)
    c = np.cos(u)
    log_l = (2 + np.outer(c, c)) ** 5
    f = np.exp(log_l - shift) * np.outer(wu, wu)
    z = f.sum()
    log_z = shift + math.log(z) - 2 * math.log(math.pi)
    mean_log_l = float((f * log_l).sum() / z)
    # A second, independent check with scipy's adaptive dblquad on the same reduced square.
    val, err = integrate.dblquad(lambda v, uu: math.exp((2 + math.cos(uu) * math.cos(v)) ** 5 - shift),
                                 0, math.pi, 0, math.pi, epsabs=0, epsrel=1e-12)
    log_z_dblquad = shift + math.log(val) - 2 * math.log(math.pi)
    return {"logZ": log_z, "information": mean_log_l - log_z, "logZDblquad": log_z_dblquad}


# ---------------------------------------------------------------------------------------------------
# Gaussian shells: radial integral of one shell over R^d by QUADPACK, and the mass outside the box.
SHELL_R, SHELL_W, SHELL_C, SHELL_HALF = 2.0, 0.1, 3.5, 6.0


def shell_radial(rho, d):
    s = 2 * math.pi ** (d / 2) / math.gamma(d / 2)
    return s * rho ** (d - 1) * np.exp(-((rho - SHELL_R) ** 2) / (2 * SHELL_W ** 2)) / math.sqrt(
        2 * math.pi * SHELL_W ** 2)


def cap_probability(t, d):
    """P(u_1 > t) for u uniform on the unit sphere in R^d (t in [0, 1])."""
    if t >= 1:
        return 0.0
    # u_1^2 ~ Beta(1/2, (d-1)/2).
    return 0.5 * special.betainc((d - 1) / 2, 0.5, 1 - t * t)


def shells(d):
    lo, hi = SHELL_R - 30 * SHELL_W, SHELL_R + 30 * SHELL_W
    one, _ = integrate.quad(lambda r: shell_radial(r, d), lo, hi, epsabs=0, epsrel=1e-13, limit=200)
    # Mass of one shell beyond the near face of the box (distance h = 6 - 3.5 = 2.5 from its centre):
    # the marginal of the first coordinate is rho * u_1, so P(rho u_1 > h) = int p(rho) P(u_1 > h/rho).
    h = SHELL_HALF - SHELL_C
    beyond, _ = integrate.quad(lambda r: shell_radial(r, d) * cap_probability(h / r, d), h, hi,
                               epsabs=0, epsrel=1e-10, limit=200)
    truncation = beyond / one
    log_z = math.log(2 * one) - d * math.log(2 * SHELL_HALF) + math.log1p(-truncation)
    # Information: E_post[log L] - log Z; near shell k, log L = log circ_k (the other shell is e^-450
    # away), and E[(rho - r)^2] under the radial law.
    m2, _ = integrate.quad(lambda r: shell_radial(r, d) * (r - SHELL_R) ** 2, lo, hi, epsabs=0,
                           epsrel=1e-13, limit=200)
    mean_log_l = -0.5 * math.log(2 * math.pi * SHELL_W ** 2) - (m2 / one) / (2 * SHELL_W ** 2)
    log_z_full = math.log(2 * one) - d * math.log(2 * SHELL_HALF)
    return {"logZ": log_z_full, "logZBox": log_z, "truncation": truncation,
            "information": mean_log_l - log_z_full}


# ---------------------------------------------------------------------------------------------------
# Correlated Gaussian: dense matrices (the TypeScript uses the tridiagonal precision).
RHO = 0.9


def ar1(d):
    idx = np.arange(d)
    sigma = RHO ** np.abs(idx[:, None] - idx[None, :])
    mu = 0.5 * np.sin(np.arange(1, d + 1))
    return sigma, mu


def correlated_normal(d, prior_sd=3.0):
    sigma, mu = ar1(d)
    log_z = stats.multivariate_normal(np.zeros(d), sigma + prior_sd ** 2 * np.eye(d)).logpdf(mu)
    prec = np.linalg.inv(sigma) + np.eye(d) / prior_sd ** 2
    s = np.linalg.inv(prec)
    m = s @ np.linalg.solve(sigma, mu)
    _, logdet_s = np.linalg.slogdet(s)
    kl = 0.5 * (np.trace(s) / prior_sd ** 2 + m @ m / prior_sd ** 2 - d + d * math.log(prior_sd ** 2) - logdet_s)
    return {"logZ": float(log_z), "information": float(kl)}


def correlated_box(d, half=10.0):
    sigma, mu = ar1(d)
    # Union bound on the mass outside the box: each marginal is N(mu_j, 1).
    outside = float(np.sum(stats.norm.sf((half - mu)) + stats.norm.cdf((-half - mu))))
    _, logdet = np.linalg.slogdet(sigma)
    entropy = 0.5 * d * math.log(2 * math.pi * math.e) + 0.5 * logdet
    return {"logZ": -d * math.log(2 * half), "information": d * math.log(2 * half) - entropy,
            "outsideBound": outside}


# ---------------------------------------------------------------------------------------------------
# Mixture of two isotropic Gaussians on [-10, 10]^d: box masses by scipy's normal CDF.
MIX = [(0.7, -4.0, 1.0), (0.3, 4.0, 1.0)]


def mixture(d, half=10.0):
    terms = []
    mean_log_l = 0.0
    for w, m, s in MIX:
        a, b = (-half - m) / s, (half - m) / s
        mass1 = stats.norm.cdf(b) - stats.norm.cdf(a)
        terms.append(math.log(w) + d * math.log(mass1))
    log_z = float(special.logsumexp(terms)) - d * math.log(2 * half)
    for (w, m, s), t in zip(MIX, terms):
        a, b = (-half - m) / s, (half - m) / s
        mass1 = stats.norm.cdf(b) - stats.norm.cdf(a)
        # Second moment of the truncated standard normal on [a, b].
        z2 = 1 + (a * stats.norm.pdf(a) - b * stats.norm.pdf(b)) / mass1
        share = math.exp(t - (log_z + d * math.log(2 * half)))
        mean_log_l += share * (math.log(w) - 0.5 * d * math.log(2 * math.pi * s * s) - 0.5 * d * z2)
    return {"logZ": log_z, "information": mean_log_l - log_z}


# ---------------------------------------------------------------------------------------------------
# Funnel: the x-integrals are Gaussian convolutions; the v-integral by QUADPACK.
def funnel(d=10, v_sd=3.0, prior_sd=10.0):
    k = d - 1

    def log_g(v):
        return (stats.norm.logpdf(v, 0, prior_sd) + stats.norm.logpdf(v, 0, v_sd)
                - 0.5 * k * (math.log(2 * math.pi) + np.logaddexp(v, 2 * math.log(prior_sd))))

    # The v-integrand is a Gaussian N(0, 900/109) (sd 2.9) times a bounded factor: [-60, 60] holds all
    # but e^-200 of it.
    shift = float(log_g(0.0))
    z, _ = integrate.quad(lambda v: math.exp(log_g(v) - shift), -60, 60, epsabs=0, epsrel=1e-13,
                          limit=400)
    log_z = shift + math.log(z)

    def cond_log_l(v):
        return (stats.norm.logpdf(v, 0, v_sd)
                + k * (-0.5 * math.log(2 * math.pi) - 0.5 * v - 0.5 * prior_sd ** 2 / (math.exp(v) + prior_sd ** 2)))

    e, _ = integrate.quad(lambda v: math.exp(log_g(v) - shift) * cond_log_l(v), -60, 60, epsabs=0,
                          epsrel=1e-12, limit=400)
    return {"logZ": log_z, "information": e / z - log_z}


# ---------------------------------------------------------------------------------------------------
# Rosenbrock on [-5, 5]^2: the theta2-integral by erf, the theta1-integral by QUADPACK, and the whole
# double integral by dblquad as a second check.
def rosenbrock(half=5.0):
    def inner(x):
        m = x * x
        return math.sqrt(math.pi / 100) * 0.5 * (special.erfc(10 * (m - half)) - special.erfc(10 * (m + half)))

    def outer(x):
        return math.exp(-((1 - x) ** 2)) * inner(x)

    pts = [-math.sqrt(half), math.sqrt(half)]
    z, _ = integrate.quad(outer, -half, half, points=pts, epsabs=0, epsrel=1e-13, limit=400)
    log_z = math.log(z / (2 * half) ** 2)

    def m2(x):
        # integral of e^{-100(y-m)^2} (y-m)^2 over [-half, half], by QUADPACK on the narrow ridge.
        m = x * x
        lo, hi = max(-half, m - 1), min(half, m + 1)
        if lo >= hi:
            return 0.0
        v, _ = integrate.quad(lambda y: math.exp(-100 * (y - m) ** 2) * (y - m) ** 2, lo, hi, epsabs=0,
                              epsrel=1e-12, limit=200)
        return v

    e1, _ = integrate.quad(lambda x: math.exp(-((1 - x) ** 2)) * (-(1 - x) ** 2 * inner(x) - 100 * m2(x)),
                           -half, half, points=pts, epsabs=0, epsrel=1e-11, limit=400)
    mean_log_l = e1 / z
    dbl, _ = integrate.dblquad(lambda y, x: math.exp(-((1 - x) ** 2) - 100 * (y - x * x) ** 2),
                               -half, half, lambda x: max(-half, x * x - 1.5), lambda x: min(half, x * x + 1.5),
                               epsabs=0, epsrel=1e-11)
    return {"logZ": log_z, "information": mean_log_l - log_z, "logZDblquad": math.log(dbl / (2 * half) ** 2),
            "laplaceLikeApproximation": math.log(math.pi / 10 / 100)}


# ---------------------------------------------------------------------------------------------------
# Bayesian logistic regression on Ripley's Pima training set, by importance sampling.
PIMA_PRIOR_SD = 2.5


def pima_data():
    import csv

    with open(os.path.join(ROOT, "data", "sykacek", "pima-train.csv")) as fh:
        rows = list(csv.DictReader(fh))
    inputs = ["npreg", "glu", "bp", "skin", "bmi", "ped", "age"]
    x = np.array([[float(r[c]) for c in inputs] for r in rows])
    y = np.array([1.0 if r["type"].strip() == "Yes" else 0.0 for r in rows])
    xs = (x - x.mean(axis=0)) / x.std(axis=0, ddof=1)
    return np.hstack([np.ones((len(y), 1)), xs]), y


def pima_log_post_parts(theta, design, y):
    """log prior and log likelihood for a batch of parameter rows."""
    eta = theta @ design.T
    log_l = theta @ (design.T @ y) - np.logaddexp(0, eta).sum(axis=1)
    d = design.shape[1]
    log_p = -0.5 * d * math.log(2 * math.pi * PIMA_PRIOR_SD ** 2) - 0.5 * (theta ** 2).sum(axis=1) / PIMA_PRIOR_SD ** 2
    return log_p, log_l


def pima(draws, chunk=25_000, seed=20250117, dof=5.0):
    design, y = pima_data()
    n, d = design.shape
    theta = np.zeros(d)
    for _ in range(50):  # Newton's method on the concave log posterior
        p = special.expit(design @ theta)
        grad = design.T @ (y - p) - theta / PIMA_PRIOR_SD ** 2
        hess = design.T @ (design * (p * (1 - p))[:, None]) + np.eye(d) / PIMA_PRIOR_SD ** 2
        step = np.linalg.solve(hess, grad)
        theta = theta + step
        if np.max(np.abs(step)) < 1e-13:
            break
    p = special.expit(design @ theta)
    hess = design.T @ (design * (p * (1 - p))[:, None]) + np.eye(d) / PIMA_PRIOR_SD ** 2
    scale = np.linalg.inv(hess)
    chol = np.linalg.cholesky(scale)
    lp_mode, ll_mode = pima_log_post_parts(theta[None, :], design, y)
    _, logdet_h = np.linalg.slogdet(hess)
    laplace = float(lp_mode[0] + ll_mode[0] + 0.5 * d * math.log(2 * math.pi) - 0.5 * logdet_h)
    log_q_norm = (special.gammaln((dof + d) / 2) - special.gammaln(dof / 2) - 0.5 * d * math.log(dof * math.pi)
                  - np.sum(np.log(np.diag(chol))))
    rng = np.random.default_rng(seed)
    log_w = np.empty(draws)
    t0 = time.time()
    for start in range(0, draws, chunk):
        m = min(chunk, draws - start)
        z = rng.standard_normal((m, d))
        u = rng.chisquare(dof, m)
        th = theta + (z @ chol.T) / np.sqrt(u / dof)[:, None]
        q = np.sum(z * z, axis=1) * dof / u  # the Mahalanobis distance of th under the scale matrix
        log_q = log_q_norm - 0.5 * (dof + d) * np.log1p(q / dof)
        lp, ll = pima_log_post_parts(th, design, y)
        log_w[start:start + m] = lp + ll - log_q
    top = log_w.max()
    w = np.exp(log_w - top)
    mean = w.mean()
    log_z = top + math.log(mean)
    se = float(np.std(w / mean, ddof=1) / math.sqrt(draws))
    # The spread of 20 independent batch estimates: a second error bar that does not trust the variance.
    batches = [top + math.log(b.mean()) for b in np.array_split(w, 20)]
    fixed = np.array([np.zeros(d), np.linspace(-1, 1, d)])
    lp_fixed, ll_fixed = pima_log_post_parts(fixed, design, y)
    return {
        "logZ": log_z,
        "stdErr": se,
        "batchStdErr": float(np.std(batches, ddof=1) / math.sqrt(len(batches))),
        "draws": draws,
        "ess": float(w.sum() ** 2 / (w * w).sum()),
        "maxWeightShare": float(w.max() / w.sum()),
        "proposal": f"multivariate Student-t, {dof:g} dof, at the posterior mode, scale matrix the inverse Hessian",
        "seed": seed,
        "seconds": time.time() - t0,
        "laplace": laplace,
        "mode": theta.tolist(),
        "logPriorAtMode": float(lp_mode[0]),
        "logLikelihoodAtMode": float(ll_mode[0]),
        "logLikelihoodAtZero": float(ll_fixed[0]),
        "logLikelihoodAtRamp": float(ll_fixed[1]),
        "standardisedFirstRow": design[0].tolist(),
    }


def main():
    result = {
        "eggbox": eggbox(),
        **{f"shells-d{d}": shells(d) for d in (2, 5, 10)},
        **{f"correlated-box-d{d}": correlated_box(d) for d in (20, 50)},
        **{f"correlated-normal-d{d}": correlated_normal(d) for d in (20, 50)},
        **{f"mixture-d{d}": mixture(d) for d in (5, 10)},
        "funnel-d10": funnel(),
        "rosenbrock": rosenbrock(),
    }
    existing = {}
    if os.path.exists(OUT):
        with open(OUT) as fh:
            existing = json.load(fh)
    python = existing.get("python", {})
    python.update(result)
    if "--no-pima" not in sys.argv:
        python["logistic-pima"] = pima(10_000_000)
    existing["python"] = python
    existing["pythonVersions"] = {"numpy": np.__version__, "scipy": __import__("scipy").__version__}
    with open(OUT, "w") as fh:
        json.dump(existing, fh, indent=2)
        fh.write("\n")
    print(json.dumps(python, indent=2))


if __name__ == "__main__":
    main()
