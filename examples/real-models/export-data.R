# Writes the data sets of the real-model suite from the R packages that ship them (Debian's r-base-core
# for `datasets`, r-cran-mass and r-cran-boot). Run once: Rscript examples/real-models/export-data.R
# (from the repository's folder). Each CSV keeps the package's column names.
library(MASS)
here <- "examples/real-models"
w <- function(d, name) write.csv(d, file.path(here, name), row.names = FALSE, quote = FALSE)
# Pima Indians diabetes, the 532 complete rows (MASS::Pima.tr + MASS::Pima.te; Smith et al. 1988).
w(rbind(Pima.tr, Pima.te), "pima.csv")
# Low birth weight (MASS::birthwt; Hosmer & Lemeshow 1989): low (0/1) and the mother's weight lwt (pounds).
w(birthwt[, c("low", "lwt")], "birthwt.csv")
# Bacteria in children with otitis media (MASS::bacteria; Menard 1990): presence y, treatment trt, week, child ID.
b <- bacteria
b$y <- as.integer(b$y == "y")
w(b[, c("y", "trt", "week", "ID")], "bacteria.csv")
# Breaks in yarn (datasets::warpbreaks; Tippett 1950): counts by wool type and tension.
w(warpbreaks, "warpbreaks.csv")
# Stack loss of an ammonia plant (datasets::stackloss; Brownlee 1965).
w(stackloss, "stackloss.csv")
# British coal-mining disasters 1851-1962 (boot::coal, decimal dates; Jarrett 1979): counts per year.
data(coal, package = "boot")
years <- 1851:1962
w(data.frame(year = years, disasters = as.integer(table(factor(floor(coal$date), levels = years)))), "coal.csv")
# Numbers of great inventions and discoveries per year, 1860-1959 (datasets::discoveries; World Almanac 1975).
w(data.frame(year = 1860:1959, discoveries = as.integer(discoveries)), "discoveries.csv")
# Per capita income (dollars, 1974) and the share of high-school graduates (%, 1970) of the 50 US
# states (datasets::state.x77; U.S. Department of Commerce 1977).
w(data.frame(income = state.x77[, "Income"], hs_grad = state.x77[, "HS Grad"]), "states.csv")
# Earthquakes off Fiji since 1964 (datasets::quakes; Harvard PRIM-H project): the number of stations
# reporting each of 1000 events, with its latitude, longitude, depth (km) and Richter magnitude.
w(quakes[, c("lat", "long", "depth", "mag", "stations")], "quakes.csv")
# Weights of 50 chicks on four diets, weighed every few days from birth to day 21 (datasets::ChickWeight;
# Crowder & Hand 1990): weight (g), Time (days), Chick, Diet (as text, so that it is a factor).
cw <- as.data.frame(ChickWeight)
w(data.frame(weight = cw$weight, Time = cw$Time, Chick = as.character(cw$Chick), Diet = paste0("diet", cw$Diet)), "chickweight.csv")
