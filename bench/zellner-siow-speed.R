# Time R BayesFactor's regressionBF over all subsets of a CSV, to set beside
#   node dist/cli/main.js compare DATA.csv --target y --prior zellner-siow --json   (see "seconds")
# Usage: Rscript bench/zellner-siow-speed.R DATA.csv y
suppressMessages(library(BayesFactor))
args <- commandArgs(trailingOnly = TRUE)
d <- read.csv(args[1])
f <- as.formula(paste(args[2], "~ ."))
t <- system.time(bf <- regressionBF(f, data = d, whichModels = "all", rscaleCont = sqrt(2) / 4, progress = FALSE))
cat("regressionBF seconds", t[["elapsed"]], "cpu", t[["user.self"]] + t[["sys.self"]], "models", length(bf), "\n")
