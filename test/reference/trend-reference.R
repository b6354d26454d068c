# Reference values for src/stats/trend.ts, computed by R (an implementation independent of ours).
#
# Regenerate (from the repository root):
#   Rscript test/reference/trend-reference.R test/reference/trend-reference.json
#
# Per case: x, y, and R's cor.test(x, y, method = "kendall", exact = FALSE, continuity = TRUE):
# its z statistic and two-sided p-value (the normal approximation with the tie-corrected variance
# of Kendall's S, the same as one block of the seasonal Kendall test), and the Theil–Sen slope as
# the median of all pairwise slopes with distinct x, computed here with outer().
library(jsonlite)
args <- commandArgs(trailingOnly = TRUE)
out_path <- if (length(args) >= 1) args[[1]] else "test/reference/trend-reference.json"
set.seed(20251122)
theil_sen <- function(x, y) {
  dx <- outer(x, x, "-")
  dy <- outer(y, y, "-")
  keep <- upper.tri(dx) & dx != 0
  median(dy[keep] / dx[keep])
}
make_case <- function(name, x, y) {
  t <- suppressWarnings(cor.test(x, y, method = "kendall", exact = FALSE, continuity = TRUE))
  list(name = name, x = x, y = y, z = unname(t$statistic), p = t$p.value, slope = theil_sen(x, y))
}
x1 <- cumsum(round(runif(12, 1000, 5000)))
cases <- list(
  make_case("rising heap, no ties", x1, 5e6 + 150 * x1 + round(rnorm(12, 0, 2e5))),
  make_case("flat heap with ties", x1, c(5e6, 5.1e6, 5e6, 5.2e6, 5.1e6, 5e6, 5.1e6, 5.3e6, 5e6, 5.1e6, 5.2e6, 5e6)),
  make_case("falling, ties in x and y", c(1, 2, 2, 3, 4, 4, 4, 5, 6, 7), c(9, 8, 8, 7, 7, 6, 5, 5, 3, 1)),
  make_case("short", c(10, 20, 30, 40, 50, 60), c(3, 1, 4, 1, 5, 9))
)
writeLines(toJSON(list(generatedWith = R.version.string, cases = cases), digits = NA, auto_unbox = TRUE, pretty = TRUE), out_path)
