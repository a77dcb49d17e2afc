# Reference Zellner–Siow log Bayes factors of every subset of 10 inputs from R's BayesFactor, for the
# CLI test in test/cli/compare.test.ts (occam compare against regressionBF to 1e-5 in log BF).
#
# Run from the repository root:  Rscript bench/regression-bf-reference.R
# Writes test/cli/fixtures/regression-bf-10.csv (120 rows, inputs x1..x10, target y) and
# test/cli/fixtures/regression-bf-10.json. Needs R with BayesFactor and jsonlite (Debian: r-base-core
# r-cran-bayesfactor). Afterwards format the JSON as the repository does:
#   npx biome check --write test/cli/fixtures/

suppressPackageStartupMessages({
  library(BayesFactor)
  library(jsonlite)
})

fixtures <- file.path("test", "cli", "fixtures")
dir.create(fixtures, showWarnings = FALSE, recursive = TRUE)

# Correlated inputs on different scales; four with effects, six without.
set.seed(20241123)
n <- 120
z <- matrix(rnorm(n * 10), n, 10)
x <- z
x[, 2] <- 0.7 * z[, 1] + z[, 2]
x[, 4] <- 0.5 * z[, 3] - 0.5 * z[, 2] + z[, 4]
x[, 7] <- 1000 * (z[, 7] + 0.3 * z[, 6])
x[, 9] <- 0.001 * z[, 9]
y <- 2 + 0.5 * x[, 1] - 0.4 * x[, 4] + 0.0003 * x[, 7] + 0.3 * z[, 10] + rnorm(n)
data <- data.frame(x, y)
names(data) <- c(paste0("x", 1:10), "y")
# Round to 8 significant digits so the CSV holds the exact numbers both R and occam use.
data <- as.data.frame(lapply(data, signif, digits = 8))
csv <- file.path(fixtures, "regression-bf-10.csv")
write.csv(data, csv, row.names = FALSE, quote = FALSE)
data <- read.csv(csv)

rscale <- sqrt(2) / 4
bf <- regressionBF(y ~ ., data = data, whichModels = "all", rscaleCont = rscale, progress = FALSE)
models <- rownames(bf@bayesFactor)
out <- list(
  generator = "bench/regression-bf-reference.R",
  R = R.version.string,
  BayesFactor = as.character(packageVersion("BayesFactor")),
  data = "regression-bf-10.csv",
  target = "y",
  rscale = rscale,
  models = lapply(seq_along(models), function(i) {
    list(
      inputs = I(strsplit(models[i], " + ", fixed = TRUE)[[1]]),
      logBF = bf@bayesFactor$bf[i],
      properror = bf@bayesFactor$error[i]
    )
  })
)
writeLines(toJSON(out, auto_unbox = TRUE, digits = NA, pretty = FALSE),
           file.path(fixtures, "regression-bf-10.json"))
cat("wrote", csv, "and", file.path(fixtures, "regression-bf-10.json"), "with", length(models), "models\n")
