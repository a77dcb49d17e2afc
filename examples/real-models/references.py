"""Reference log evidences of the real-model suite, computed outside occam with numpy and scipy.

Each model is written again here from its .mjs file's description, and integrated by the most exact means
at hand: in closed form (conjugate models), by adaptive quadrature (one or two dimensions, after integrating
out what is Gaussian), or by importance sampling from a Student-t fitted at the posterior mode (the standard
error from the weights, two independent runs that must agree, and Pareto k-hat of the weights' tail below
0.5). Random intercepts are integrated by Gauss-Hermite quadrature inside each importance weight.

Usage (from the repository's folder, about ten minutes):
    python3 examples/real-models/references.py > examples/real-models/references.json
"""
import csv
import json
import math
import os
import sys

import numpy as np
from scipy import integrate, optimize, special, stats

HERE = os.path.dirname(os.path.abspath(__file__))
LOG_2PI = math.log(2 * math.pi)
RNG = np.random.default_rng(20261127)


def read(name):
    with open(os.path.join(HERE, name)) as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def erfc_nr(v):
    """Numerical Recipes' erfcc, the approximation the probit models' files use."""
    z = np.abs(v)
    t = 1 / (1 + 0.5 * z)
    poly = -z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (
        -0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))))
    r = t * np.exp(poly)
    return np.where(v >= 0, r, 2 - r)


def log_phi_nr(z):
    """log Φ as the probit models' files write it: log of erfcc's Φ, or the asymptotic series' first
    term below −30 (birthwt-probit.mjs; bacteria-glmm.mjs never reaches there near its mass)."""
    z = np.asarray(z, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        tail = -0.5 * z * z - np.log(-np.minimum(z, -30.0)) - 0.5 * LOG_2PI
        return np.where(z < -30, tail, np.log(0.5 * erfc_nr(-z / math.sqrt(2))))


# --------------------------------------------------------------------------------------------------------
# Importance sampling from a Student-t at the mode.

def importance_sampling(log_joint, x0, draws=400_000, df=5, inflate=1.2, chunk=20_000):
    """log Z of exp(log_joint) (vectorised over rows) by a t proposal at the mode, with its standard error
    and Pareto k-hat; log_joint takes an (m, d) array."""
    neg = lambda x: -float(log_joint(np.atleast_2d(x))[0])
    mode = optimize.minimize(neg, x0, method="BFGS", options={"gtol": 1e-8}).x
    mode = optimize.minimize(neg, mode, method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 20000}).x
    d = len(mode)
    h = 1e-4 * np.maximum(1, np.abs(mode))
    H = np.zeros((d, d))
    f0 = neg(mode)
    for i in range(d):
        for j in range(i, d):
            ei = np.zeros(d); ei[i] = h[i]
            ej = np.zeros(d); ej[j] = h[j]
            H[i, j] = H[j, i] = (neg(mode + ei + ej) - neg(mode + ei - ej) - neg(mode - ei + ej) + neg(mode - ei - ej)) / (4 * h[i] * h[j])
    cov = np.linalg.inv(H) * inflate ** 2
    proposal = stats.multivariate_t(loc=mode, shape=cov, df=df)
    logw = []
    for start in range(0, draws, chunk):
        x = proposal.rvs(size=chunk, random_state=RNG)
        logw.append(log_joint(x) - proposal.logpdf(x))
    logw = np.concatenate(logw)
    m = logw.max()
    w = np.exp(logw - m)
    log_z = m + math.log(w.mean())
    se = w.std(ddof=1) / (w.mean() * math.sqrt(len(w)))
    tail = np.sort(w)[-int(min(0.2 * len(w), 3 * math.sqrt(len(w)))):]
    k_hat = stats.genpareto.fit(tail - tail[0], floc=0)[0]
    return log_z, se, k_hat


def two_runs(log_joint, x0, **kw):
    a = importance_sampling(log_joint, x0, **kw)
    b = importance_sampling(log_joint, x0, **kw)
    z = (a[0] - b[0]) / math.hypot(a[1], b[1])
    if abs(z) > 3 or max(a[2], b[2]) > 0.5:
        sys.exit(f"importance sampling runs disagree or have heavy weights: {a} {b}")
    w = np.array([1 / a[1] ** 2, 1 / b[1] ** 2])
    return float((w @ [a[0], b[0]]) / w.sum()), float(1 / math.sqrt(w.sum())), max(a[2], b[2])


def normal_logpdf(x, sd):
    return -0.5 * (LOG_2PI + 2 * np.log(sd)) - x ** 2 / (2 * sd ** 2)


# --------------------------------------------------------------------------------------------------------
# The models.

def pima(inputs):
    header, rows = read("pima.csv")
    y = np.array([1.0 if r[header.index("type")] == "Yes" else 0.0 for r in rows])
    cols = np.array([[float(r[header.index(c)]) for r in rows] for c in inputs]).T
    cols = (cols - cols.mean(0)) / cols.std(0, ddof=1)
    X = np.column_stack([np.ones(len(y)), cols])

    def log_joint(B):
        eta = B @ X.T
        return normal_logpdf(B, 10).sum(1) + (y * eta - np.logaddexp(0, eta)).sum(1)

    return two_runs(log_joint, np.zeros(X.shape[1]))


def birthwt_probit():
    _, rows = read("birthwt.csv")
    low = np.array([float(r[0]) for r in rows])
    lwt = np.array([float(r[1]) for r in rows])
    x = (lwt - lwt.mean()) / lwt.std(ddof=1)
    sign = 2 * low - 1

    def log_joint(a, b):
        eta = a + b * x
        return normal_logpdf(a, 10) + normal_logpdf(b, 10) + log_phi_nr(sign * eta).sum()

    mode = optimize.minimize(lambda t: -log_joint(*t), [0.0, 0.0], method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-12}).x
    top = log_joint(*mode)
    f = lambda b, a: math.exp(log_joint(a, b) - top)
    value, err = integrate.dblquad(f, mode[0] - 2, mode[0] + 2, mode[1] - 2, mode[1] + 2, epsabs=0, epsrel=1e-10)
    return top + math.log(value), err / value, "quadrature"


def bacteria_glmm(nodes=60):
    _, rows = read("bacteria.csv")
    y = np.array([float(r[0]) for r in rows])
    trt = [r[1] for r in rows]
    X = np.column_stack([np.ones(len(y)), [t == "drug" for t in trt], [t == "drug+" for t in trt], [float(r[2]) / 10 for r in rows]]).astype(float)
    ids = sorted(set(r[3] for r in rows), key=[r[3] for r in rows].index)
    child = np.array([ids.index(r[3]) for r in rows])
    sign = 2 * y - 1
    gh_x, gh_w = np.polynomial.hermite.hermgauss(nodes)
    G = len(ids)

    def log_joint(P):
        # P: rows (β₀, β_drug, β_drug+, β_week, s = log σ²); the prior of σ² moved to s with its Jacobian.
        out = np.empty(len(P))
        for k, p in enumerate(P):
            beta, s = p[:4], p[4]
            sigma = math.exp(0.5 * s)
            eta = X @ beta
            b = math.sqrt(2) * sigma * gh_x  # nodes for b ~ N(0, σ²)
            terms = log_phi_nr(sign[:, None] * (eta[:, None] + b[None, :]))  # (n, nodes)
            per_group = np.zeros((G, nodes))
            np.add.at(per_group, child, terms)
            lik = special.logsumexp(per_group, b=gh_w[None, :] / math.sqrt(math.pi), axis=1).sum()
            prior = normal_logpdf(beta, 5).sum() - 2 * math.log1p(math.exp(s)) + s
            out[k] = lik + prior
        return out

    return two_runs(log_joint, np.array([0.0, 0.0, 0.0, 0.0, 0.0]), draws=60_000, chunk=2000)


def eight_schools():
    y = np.array([28, 8, -3, 7, -1, 1, 18, 12], float)
    s = np.array([15, 10, 16, 11, 9, 11, 10, 18], float)

    def given_tau(tau):
        # ∫ N(μ; 0, 5²) Π N(y_j; μ, s_j² + τ²) dμ, in closed form.
        v = s ** 2 + tau ** 2
        precision = 1 / 25 + (1 / v).sum()
        mean = (y / v).sum() / precision
        log_norm = -0.5 * (np.log(2 * np.pi * v)).sum() - 0.5 * (y ** 2 / v).sum() - 0.5 * math.log(25) + 0.5 * math.log(1 / precision)
        return log_norm + 0.5 * precision * mean ** 2

    half_cauchy = lambda tau: math.log(2 / (math.pi * 5)) - math.log1p((tau / 5) ** 2)
    top = given_tau(1.0)
    # τ = 5 tan(πu/2) maps u ∈ (0, 1) onto (0, ∞), and the half-Cauchy prior onto U(0, 1).
    f = lambda u: math.exp(given_tau(5 * math.tan(math.pi * u / 2)) - top)
    value, err = integrate.quad(f, 0, 1, epsabs=0, epsrel=1e-12, limit=200)
    return top + math.log(value), err / value, "quadrature"


def warpbreaks():
    _, rows = read("warpbreaks.csv")
    counts = np.array([float(r[0]) for r in rows])
    X = np.array([[1, r[1] == "B", r[2] == "M", r[2] == "H"] for r in rows], float)
    log_fact = special.gammaln(counts + 1).sum()

    def log_joint(B):
        eta = B @ X.T
        return normal_logpdf(B, 10).sum(1) + (counts * eta - np.exp(eta)).sum(1) - log_fact

    return two_runs(log_joint, np.array([3.0, 0, 0, 0]))


def stackloss():
    _, rows = read("stackloss.csv")
    data = np.array([[float(v) for v in r] for r in rows])
    X = np.column_stack([np.ones(len(data)), data[:, :3]])
    y = data[:, 3]
    nu = 4.0
    sds = np.array([100, 10, 10, 10.0])
    const = special.gammaln((nu + 1) / 2) - special.gammaln(nu / 2) - 0.5 * math.log(nu * math.pi)

    def log_joint(P):
        # P: rows (β₀ … β₃, log σ); the half-normal prior of σ moved to log σ with its Jacobian.
        B, ls = P[:, :4], P[:, 4]
        sigma = np.exp(ls)
        r = y[None, :] - B @ X.T
        lik = (const - ls[:, None] - (nu + 1) / 2 * np.log1p(r ** 2 / (nu * sigma[:, None] ** 2))).sum(1)
        prior = normal_logpdf(B, sds).sum(1) + math.log(2) + normal_logpdf(sigma, 10) + ls
        return lik + prior

    return two_runs(log_joint, np.array([-40.0, 0.7, 1.3, -0.1, math.log(3)]))


def states_income():
    _, rows = read("states.csv")
    income = np.array([float(r[0]) for r in rows])
    grad = np.array([float(r[1]) for r in rows])
    x = grad - grad.mean()
    n = len(income)
    X = np.column_stack([np.ones(n), x])
    m0 = np.array([4000.0, 0.0])
    L0 = np.diag([0.01, 1.0])
    a0, b0 = 2.0, 2 * 500.0 ** 2
    Ln = L0 + X.T @ X
    mn = np.linalg.solve(Ln, L0 @ m0 + X.T @ income)
    an = a0 + n / 2
    bn = b0 + 0.5 * (income @ income + m0 @ L0 @ m0 - mn @ Ln @ mn)
    log_z = (-n / 2 * LOG_2PI + 0.5 * (np.linalg.slogdet(L0)[1] - np.linalg.slogdet(Ln)[1])
             + a0 * math.log(b0) - an * math.log(bn) + special.gammaln(an) - special.gammaln(a0))
    return float(log_z), 0.0, "closed form"


def gamma_poisson(counts, shape, rate):
    s, n = counts.sum(), len(counts)
    return (shape * math.log(rate) - special.gammaln(shape) + special.gammaln(shape + s)
            - (shape + s) * math.log(rate + n) - special.gammaln(counts + 1).sum())


def coal():
    _, rows = read("coal.csv")
    counts = np.array([float(r[1]) for r in rows])
    # The change point c ∈ (1850 + k, 1851 + k] puts the first k years before it (k = 1 … 112),
    # each with prior mass 1/112; a segment without years contributes 1.
    terms = []
    for k in range(1, len(counts) + 1):
        first, rest = counts[:k], counts[k:]
        term = gamma_poisson(first, 2.0, 1.0) + (gamma_poisson(rest, 2.0, 1.0) if len(rest) else 0.0)
        terms.append(term - math.log(len(counts)))
    return float(special.logsumexp(terms)), 0.0, "closed form"


def discoveries():
    _, rows = read("discoveries.csv")
    counts = np.array([float(r[1]) for r in rows])
    return float(gamma_poisson(counts, 2.0, 0.5)), 0.0, "closed form"


def entry(value, method=None):
    log_z, se, third = value
    how = third if isinstance(third, str) else method
    out = {"logZ": round(float(log_z), 6), "stdErr": float(f"{se:.2g}"), "method": how}
    if not isinstance(third, str):
        out["paretoK"] = round(float(third), 3)
    return out


IS = "importance sampling from a Student-t (5 dof) at the mode, two runs pooled"
references = {
    "pima-logistic-4": entry(pima(["npreg", "glu", "bmi", "ped"]), IS),
    "pima-logistic-5": entry(pima(["npreg", "glu", "bmi", "ped", "age"]), IS),
    "birthwt-probit": entry(birthwt_probit()),
    "bacteria-glmm": entry(bacteria_glmm(), IS + ", random intercepts by 60-point Gauss-Hermite"),
    "eight-schools-centred": entry(eight_schools()),
    "eight-schools-noncentred": entry(eight_schools()),
    "warpbreaks-poisson": entry(warpbreaks(), IS),
    "stackloss-student-t": entry(stackloss(), IS),
    "states-income": entry(states_income()),
    "coal-changepoint": entry(coal()),
    "discoveries-poisson-gamma": entry(discoveries()),
}
json.dump(references, sys.stdout, indent=2)
print()
