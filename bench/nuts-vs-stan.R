# NUTS in rstan on the models of bench/nuts.bench.ts, to set occam's effective draws per gradient
# evaluation beside Stan's: eight schools (non-centred), an iid 100-dimensional normal, and the centred
# eight schools' divergences. 4 chains of 1000 warm-up and 1000 kept draws, seeds 1-3; the ESS is Stan's
# split ESS without rank normalisation (rstan::monitor's n_eff, as occam's essPerParameter) of each
# parameter, its minimum and mean; gradients are the sampling
# iterations' leapfrog steps (n_leapfrog__), warm-up excluded.
# Usage (needs Debian's r-cran-rstan; rstan compiles only after ln -s /usr/include /usr/lib/R/site-library/BH/include):
#   Rscript bench/nuts-vs-stan.R
suppressMessages(library(rstan))
rstan_options(auto_write = FALSE)
schools <- list(J = 8, y = c(28, 8, -3, 7, -1, 1, 18, 12), sigma = c(15, 10, 16, 11, 9, 11, 10, 18))
noncentred <- "
data { int J; vector[J] y; vector[J] sigma; }
parameters { real mu; real<lower=0> tau; vector[J] eta; }
model { mu ~ normal(0, 5); tau ~ cauchy(0, 5); eta ~ normal(0, 1); y ~ normal(mu + tau * eta, sigma); }"
centred <- "
data { int J; vector[J] y; vector[J] sigma; }
parameters { real mu; real<lower=0> tau; vector[J] theta; }
model { mu ~ normal(0, 5); tau ~ cauchy(0, 5); theta ~ normal(mu, tau); y ~ normal(theta, sigma); }"
iid <- "parameters { vector[100] x; } model { x ~ std_normal(); }"
run <- function(name, code, data) {
  model <- stan_model(model_code = code)
  for (seed in 1:3) {
    t <- system.time(fit <- sampling(model, data = data, chains = 4, iter = 2000, warmup = 1000, seed = seed, refresh = 0))
    p <- get_sampler_params(fit, inc_warmup = FALSE)
    grads <- sum(sapply(p, function(x) sum(x[, "n_leapfrog__"])))
    divergences <- sum(sapply(p, function(x) sum(x[, "divergent__"])))
    m <- monitor(extract(fit, permuted = FALSE, inc_warmup = FALSE), warmup = 0, print = FALSE)
    ess <- m[rownames(m) != "lp__", "n_eff"]
    cat(sprintf("%s seed %d: gradients %d, min ESS %.0f, mean ESS %.0f, min ESS/grad %.4f, mean ESS/grad %.4f, divergences %d, %.1f s\n",
                name, seed, grads, min(ess), mean(ess), min(ess) / grads, mean(ess) / grads, divergences, t[["elapsed"]]))
  }
}
run("eight-schools-noncentred", noncentred, schools)
run("iid-normal-100", iid, list())
run("eight-schools-centred", centred, schools)
