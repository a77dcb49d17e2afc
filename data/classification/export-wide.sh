#!/bin/sh
# Two public two-class data sets with many inputs (the classify benchmark), each split in halves (alternate rows):
# the Wisconsin diagnostic breast-cancer data (Street, Wolberg & Mangasarian 1993; 569 rows, 30 inputs,
# as scikit-learn ships it: Debian's python3-sklearn) and the sonar data (Gorman & Sejnowski 1988;
# 208 rows, 60 inputs, as R's mlbench ships it: Debian's r-cran-mlbench).
set -e
cd "$(dirname "$0")"
/usr/bin/python3 - <<'PY'
import csv
from sklearn.datasets import load_breast_cancer
d = load_breast_cancer()
names = [n.replace(" ", "_") for n in d.feature_names]
rows = [[*(f"{v:.6g}" for v in x), d.target_names[t]] for x, t in zip(d.data, d.target)]
for part, chosen in (("train", rows[1::2]), ("test", rows[0::2])):
    with open(f"breast-cancer-{part}.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow([*names, "diagnosis"])
        w.writerows(chosen)
PY
Rscript -e '
library(mlbench); data(Sonar)
names(Sonar) <- c(sprintf("band%02d", 1:60), "object")
n <- nrow(Sonar)
write.csv(Sonar[seq(2, n, 2), ], "sonar-train.csv", row.names = FALSE, quote = FALSE)
write.csv(Sonar[seq(1, n, 2), ], "sonar-test.csv", row.names = FALSE, quote = FALSE)'
