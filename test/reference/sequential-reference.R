# Reference values for src/stats/sequential.ts and src/stats/power.ts, computed by R with an
# independent method: the bivariate normal rectangle probability from mvtnorm::pmvnorm (Genz's
# algorithm), the final bound by uniroot; the detectable shift by qnorm.
#
# Regenerate (from the repository root):
#   apt-get install -y --no-install-recommends r-base-core r-cran-jsonlite r-cran-mvtnorm
#   Rscript test/reference/sequential-reference.R test/reference/sequential-reference.json
#
# Generated with R 4.2.2 and mvtnorm 1.1-3 (Debian bookworm); the K-look cases (`multi`) added 2026-11-26.
library(mvtnorm)
library(jsonlite)
args <- commandArgs(trailingOnly = TRUE)
out_path <- if (length(args) >= 1) args[[1]] else "test/reference/sequential-reference.json"
set.seed(1) # pmvnorm's quasi-Monte-Carlo; with abseps 1e-12 the result does not depend on it

bounds <- function(t, alpha) {
  spent1 <- 2 - 2 * pnorm(qnorm(1 - alpha / 2) / sqrt(t))
  c1 <- qnorm(1 - spent1 / 2)
  sigma <- matrix(c(1, sqrt(t), sqrt(t), 1), 2)
  # P(|Z1| < c1, |Z2| < c2) = P(|Z1| < c1) - (alpha - spent1) at the solution
  inside <- function(c2) pmvnorm(lower = c(-c1, -c2), upper = c(c1, c2), corr = sigma,
                                 algorithm = GenzBretz(abseps = 1e-12, maxpts = 1e7))[1]
  target <- (1 - spent1) - (alpha - spent1)
  c2 <- uniroot(function(c2) inside(c2) - target, c(1, 6), tol = 1e-12)$root
  list(t = t, alpha = alpha, spent1 = spent1, c1 = c1, c2 = c2,
       nominal1 = 2 * (1 - pnorm(c1)), nominal2 = 2 * (1 - pnorm(c2)))
}

cases <- list()
for (alpha in c(0.01, 0.02, 0.05)) for (t in c(1 / 3, 0.5, 2 / 3, 0.75)) cases[[length(cases) + 1]] <- bounds(t, alpha)

# K looks: each bound solves P(|Z_j| < c_j for j < k, |Z_k| < c_k) = P(|Z_j| < c_j for j < k) - spent_k,
# with corr(Z_i, Z_j) = sqrt(t_i / t_j) for t_i <= t_j.
inside <- function(ts, cs) {
  if (length(ts) == 1) return(2 * pnorm(cs) - 1)
  sigma <- outer(ts, ts, function(a, b) sqrt(pmin(a, b) / pmax(a, b)))
  pmvnorm(lower = -cs, upper = cs, corr = sigma, algorithm = Miwa(steps = 4096))[1]
}
multi_bounds <- function(ts, alpha) {
  spent_by <- 2 - 2 * pnorm(qnorm(1 - alpha / 2) / sqrt(ts))
  spent <- diff(c(0, spent_by))
  cs <- qnorm(1 - spent[1] / 2)
  for (k in 2:length(ts)) {
    before <- inside(ts[1:(k - 1)], cs)
    cs <- c(cs, uniroot(function(c) inside(ts[1:k], c(cs, c)) - (before - spent[k]), c(1, 6), tol = 1e-12)$root)
  }
  list(t = ts, alpha = alpha, spent = spent, z = cs, nominal = 2 * (1 - pnorm(cs)))
}
multi <- list()
for (alpha in c(0.02, 0.05)) for (ts in list(c(1 / 3, 2 / 3, 1), c(0.25, 0.5, 1), c(0.25, 0.5, 0.75, 1))) multi[[length(multi) + 1]] <- multi_bounds(ts, alpha)

detectable <- list()
for (hw in c(0.01, 0.025)) for (conf in c(0.95, 0.9)) for (alpha in c(0.01, 0.0097)) for (power in c(0.8, 0.9)) {
  detectable[[length(detectable) + 1]] <- list(halfWidth = hw, confidence = conf, alpha = alpha, power = power,
    shift = (qnorm(1 - alpha / 2) + qnorm(power)) * hw / qnorm((1 + conf) / 2))
}

writeLines(toJSON(list(bounds = cases, multi = multi, detectable = detectable), auto_unbox = TRUE, digits = NA, pretty = TRUE), out_path)
