# Reference Zellner–Siow log Bayes factors from R's BayesFactor, for
# test/models/linear/zellner-siow.test.ts.
#
# Run from the repository root:  Rscript bench/zellner-siow-reference.R
# Writes test/models/linear/fixtures/zellner-siow-data.csv (60 rows, inputs x1..x4, target y)
# and test/models/linear/fixtures/zellner-siow-reference.json.
#
# Needs R with the BayesFactor and jsonlite packages (Debian: r-base-core r-cran-bayesfactor).
# Afterwards format the JSON as the repository does: npx biome check --write test/models/linear/fixtures/

suppressPackageStartupMessages({
  library(BayesFactor)
  library(jsonlite)
})

fixtures <- file.path("test", "models", "linear", "fixtures")
dir.create(fixtures, showWarnings = FALSE, recursive = TRUE)

# A fixed data set: correlated inputs, two with effects (x1, x2), two without (x3, x4).
set.seed(20240611)
n <- 60
x1 <- rnorm(n)
x2 <- 0.6 * x1 + rnorm(n)
x3 <- rnorm(n, mean = 5, sd = 2)
x4 <- 0.3 * x2 + rnorm(n)
y <- 1 + 0.5 * x1 - 0.3 * x2 + rnorm(n)
# Round to 6 decimals so the CSV holds the exact numbers both R and occam use.
data <- round(data.frame(x1, x2, x3, x4, y), 6)
csv <- file.path(fixtures, "zellner-siow-data.csv")
write.csv(data, csv, row.names = FALSE, quote = FALSE)
data <- read.csv(csv)

subsets <- function(bf, rscale) {
  log_bf <- bf@bayesFactor$bf
  models <- rownames(bf@bayesFactor)
  lapply(seq_along(models), function(i) {
    terms <- strsplit(models[i], " + ", fixed = TRUE)[[1]]
    fit <- lm(reformulate(terms, "y"), data = data)
    list(
      inputs = I(terms),
      r2 = summary(fit)$r.squared,
      logBF = log_bf[i],
      properror = bf@bayesFactor$error[i]
    )
  })
}

regression <- list()
for (r in list(list(name = "medium", value = sqrt(2) / 4), list(name = "one", value = 1))) {
  bf <- regressionBF(y ~ ., data = data, whichModels = "all", rscaleCont = r$value, progress = FALSE)
  regression[[length(regression) + 1]] <- list(
    rscale = r$value,
    models = subsets(bf, r$value)
  )
}

# linearReg.R2stat on summary statistics, including extreme cases.
cases <- list(
  c(30, 1, 0.6813), c(10, 1, 0), c(1000, 5, 0), c(1000, 1, 0.999999), c(5, 3, 0.9),
  c(100000, 3, 0.3), c(50, 20, 0.5), c(200, 10, 0.05), c(20, 2, 0.99)
)
r2stat <- list()
for (rscale in c(sqrt(2) / 4, 1)) {
  for (cs in cases) {
    res <- linearReg.R2stat(N = cs[1], p = cs[2], R2 = cs[3], rscale = rscale)
    r2stat[[length(r2stat) + 1]] <- list(
      n = cs[1], k = cs[2], r2 = cs[3], rscale = rscale,
      logBF = res$bf, properror = res$properror
    )
  }
}

out <- list(
  generator = "bench/zellner-siow-reference.R",
  R = R.version.string,
  BayesFactor = as.character(packageVersion("BayesFactor")),
  data = "zellner-siow-data.csv",
  target = "y",
  regressionBF = regression,
  linearRegR2stat = r2stat
)
writeLines(toJSON(out, auto_unbox = TRUE, digits = NA, pretty = TRUE),
           file.path(fixtures, "zellner-siow-reference.json"))
cat("wrote", csv, "and", file.path(fixtures, "zellner-siow-reference.json"), "\n")
