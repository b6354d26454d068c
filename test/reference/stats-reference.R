# Reference values for src/stats, computed by R (an implementation independent of ours).
#
# Regenerate (from the repository root):
#   apt-get install -y --no-install-recommends r-base-core r-cran-jsonlite
#   Rscript test/reference/stats-reference.R test/fixtures/slices test/reference/stats-reference.json
#
# Generated with R 4.2.2 (Debian bookworm). Inputs are stored in the JSON (17 significant digits, so
# they round-trip exactly), so the tests never need R and never depend on R's random generator.
#
# Per Wilcoxon case the JSON holds:
#   x                 the input vector
#   nonzero, V, p, method   wilcox.test(x) (mu = 0, two-sided, exact = NULL, correct = TRUE)
#   hl                median of all n(n+1)/2 Walsh averages (i <= j) of the whole x
#   ci[]              per confidence level:
#     lower, upper      wilcox.test(x, conf.int = TRUE, tol.root = 1e-13): the root finding in R's normal
#                       branch run to (near) machine precision, so the bounds are the Walsh averages at
#                       which the corrected z statistic crosses the normal quantile
#     lowerDefaultTol, upperDefaultTol  the same with R's default tol.root = 1e-4 (what R users see)
#     reportedConf      attr(conf.int, "conf.level") as R reports it (rounded by R when not achievable)
#     achievedConf      exact branch: 1 - 2 * psignrank(qu - 1, n), the true coverage of the interval
#     estimate          R's estimate (median of Walsh averages in the exact branch; a root-finding
#                       "(pseudo)median" in the normal branch)
#     fullLower, fullUpper  (only when x has zeros) R's normal-branch interval of the whole sample, zeros
#                       included: wilcox.test(x, mu = m, exact = FALSE, ...) with m below every x, so R
#                       drops nothing (the interval itself does not depend on mu; only R's removal of
#                       x == mu before building it does).
args <- commandArgs(trailingOnly = TRUE)
data_dir <- if (length(args) >= 1) args[[1]] else "test/fixtures/slices"
out_path <- if (length(args) >= 2) args[[2]] else "test/reference/stats-reference.json"

suppressPackageStartupMessages(library(jsonlite))

# ---------- a tiny JSON writer with full double precision ----------
num <- function(v) {
  if (is.na(v)) return("null")
  if (is.infinite(v)) stop("infinite value in reference output")
  if (v == round(v) && abs(v) < 2^53) return(sprintf("%.0f", v))
  s <- sprintf("%.17g", v)
  stopifnot(as.numeric(s) == v)
  s
}
to_json <- function(v, indent = "") {
  inner <- paste0(indent, "  ")
  if (is.list(v)) {
    if (!is.null(names(v))) {
      items <- vapply(names(v), function(k) paste0(inner, '"', k, '": ', to_json(v[[k]], inner)), "")
      return(paste0("{\n", paste(items, collapse = ",\n"), "\n", indent, "}"))
    }
    if (length(v) == 0) return("[]")
    items <- vapply(v, function(e) paste0(inner, to_json(e, inner)), "")
    return(paste0("[\n", paste(items, collapse = ",\n"), "\n", indent, "]"))
  }
  if (is.character(v)) {
    stopifnot(length(v) == 1)
    return(paste0('"', v, '"'))
  }
  if (is.logical(v) && length(v) == 1 && !is.na(v)) return(if (v) "true" else "false")
  if (inherits(v, "AsIs") || length(v) != 1) {
    return(paste0("[", paste(vapply(as.numeric(v), num, ""), collapse = ", "), "]"))
  }
  num(v)
}
vec <- function(v) I(as.numeric(v)) # always written as a JSON array, even at length 1

# ---------- Wilcoxon / Hodges-Lehmann cases ----------
walsh_median <- function(x) {
  w <- outer(x, x, "+")
  median(w[!lower.tri(w)] / 2)
}

ci_entry <- function(x, conf, branch) {
  quiet <- function(expr) suppressWarnings(expr)
  tight <- quiet(wilcox.test(x, conf.int = TRUE, conf.level = conf, tol.root = 1e-13))
  loose <- quiet(wilcox.test(x, conf.int = TRUE, conf.level = conf))
  e <- list(
    confidence = conf,
    lower = tight$conf.int[[1]],
    upper = tight$conf.int[[2]],
    lowerDefaultTol = loose$conf.int[[1]],
    upperDefaultTol = loose$conf.int[[2]],
    reportedConf = attr(tight$conf.int, "conf.level"),
    estimate = unname(tight$estimate)
  )
  if (branch == "exact") {
    n <- length(x)
    qu <- qsignrank((1 - conf) / 2, n)
    if (qu == 0) qu <- 1
    e$achievedConf <- 1 - 2 * psignrank(qu - 1, n)
  }
  if (any(x == 0)) {
    m <- min(x) - 1
    full <- quiet(wilcox.test(x, mu = m, exact = FALSE, conf.int = TRUE, conf.level = conf, tol.root = 1e-13))
    e$fullLower <- full$conf.int[[1]]
    e$fullUpper <- full$conf.int[[2]]
    e$fullReportedConf <- attr(full$conf.int, "conf.level")
  }
  e
}

wilcoxon_case <- function(name, x, expect, confs = 0.95, extra = NULL) {
  t <- suppressWarnings(wilcox.test(x))
  method <- if (grepl("exact", t$method)) "exact" else "normal"
  if (method != expect) stop(sprintf("case %s: expected %s branch, R used %s", name, expect, method))
  c(list(
    name = name,
    x = vec(x),
    nonzero = sum(x != 0),
    zeros = sum(x == 0),
    ties = anyDuplicated(rank(abs(x[x != 0]))) > 0,
    V = unname(t$statistic),
    p = t$p.value,
    method = method,
    hl = walsh_median(x),
    ci = lapply(confs, function(conf) ci_entry(x, conf, method))
  ), extra)
}

no_ties <- function(x) {
  stopifnot(!anyDuplicated(abs(x)), all(x != 0))
  x
}

set.seed(20240611)
cases <- list()
add <- function(case) cases[[length(cases) + 1]] <<- case

# Small samples, no ties and no zeros: R's exact branch (n < 50).
for (n in c(5, 8, 12, 20, 30, 49)) {
  x <- no_ties(signif(rnorm(n, mean = 0.02, sd = 0.05), 12))
  add(wilcoxon_case(sprintf("exact-n%d", n), x, "exact", confs = if (n == 12) c(0.95, 0.9) else 0.95))
}
# Large samples: R's normal branch (n >= 50), including a heavy, one-sided tail like CPU steal.
for (n in c(50, 60, 120)) {
  x <- no_ties(signif(rnorm(n, mean = -0.01, sd = 0.03) - rexp(n, rate = 60) * (runif(n) < 0.2), 12))
  add(wilcoxon_case(sprintf("normal-n%d", n), x, "normal", confs = if (n == 60) c(0.95, 0.9) else 0.95))
}
# Ties in |x| (same sign and opposite sign), no zeros: normal branch even at small n.
x <- round(rnorm(25, mean = 0.2, sd = 0.6), 1)
x[x == 0] <- 0.3
x[1:2] <- c(0.4, -0.4)
add(wilcoxon_case("ties-n25", x, "normal"))
x <- round(rnorm(70, mean = 0.1, sd = 1), 1)
x[x == 0] <- -0.2
add(wilcoxon_case("ties-n70", x, "normal"))
# Zeros (dropped by the test; kept by our interval, see fullLower/fullUpper).
x <- c(0, no_ties(signif(rnorm(14, mean = 0.05, sd = 0.05), 12)))
add(wilcoxon_case("zero-one-n15", x, "normal"))
x <- c(rep(0, 6), round(rnorm(34, mean = 0.3, sd = 1), 1))
add(wilcoxon_case("zeros-ties-n40", x, "normal"))
x <- c(0, 0, 0.2, 0.5, -0.1, 0.7)
add(wilcoxon_case("zeros-tiny-n6", x, "normal", confs = c(0.95, 0.9)))
# All positive: p as small as the branch allows.
add(wilcoxon_case("all-positive-n20", no_ties(signif(0.01 + rexp(20, rate = 50), 12)), "exact"))
add(wilcoxon_case("all-positive-n60", no_ties(signif(0.01 + rexp(60, rate = 50), 12)), "normal"))
# Symmetric around 0: V = n(n+1)/4 exactly, p = 1.
signs <- ifelse(1:12 %in% c(6, 10, 11, 12), 1, -1)
add(wilcoxon_case("symmetric-exact-n12", signs * (1:12) / 100 + (1:12) * 1e-5, "exact"))
a <- signif(abs(rnorm(30, sd = 0.05)), 12)
add(wilcoxon_case("symmetric-pairs-n60", c(a, -a), "normal"))
# Confidence levels the exact branch cannot reach at small n (n = 6 at 0.99; also exact-n5 at 0.95).
add(wilcoxon_case("exact-n6-unachievable", no_ties(c(0.03, -0.01, 0.05, 0.02, 0.07, 0.04)), "exact", confs = c(0.95, 0.99)))
# Heavy ties, as in a whole-millisecond latency metric: the tie correction of the variance moves the
# interval's bounds here.
x <- sample(c(-2, -1, 1, 2, 3), 80, replace = TRUE, prob = c(0.15, 0.25, 0.3, 0.2, 0.1)) / 100
add(wilcoxon_case("ties-heavy-n80", x, "normal"))
x <- sample(c(-2, -1, 0, 1, 2, 3), 100, replace = TRUE, prob = c(0.1, 0.2, 0.35, 0.2, 0.1, 0.05)) / 100
add(wilcoxon_case("ties-zeros-heavy-n100", x, "normal"))
# One big block of equal values among continuous ones: the Walsh averages are nearly all distinct, so
# the tie term of the variance shifts the bounds by whole Walsh averages.
x <- c(rep(0.012, 30), no_ties(signif(rnorm(50, mean = 0.01, sd = 0.03), 12)))
add(wilcoxon_case("ties-block-n80", x, "normal"))
# Tiny and tied at the minimum: R evaluates W exactly at d = min(x), where both minima become zeros
# and are dropped; that value decides how far alpha must be doubled.
add(wilcoxon_case("ties-min-n6", c(-0.1, -0.1, 0.2, 0.3, 0.5, 0.6), "normal", confs = c(0.95, 0.8)))

# Real data: paired log-ratios ln(B.rps / A.rps) of 1-second slices.
for (file in c("slices-aa", "slices-ab5")) {
  d <- fromJSON(file.path(data_dir, paste0(file, ".json")))
  a_rps <- as.numeric(d$pairs$A$rps)
  b_rps <- as.numeric(d$pairs$B$rps)
  for (n in c(20, length(a_rps))) {
    x <- log(b_rps[1:n] / a_rps[1:n])
    branch <- if (n < 50 && !anyDuplicated(abs(x)) && all(x != 0)) "exact" else "normal"
    add(wilcoxon_case(sprintf("%s-first%d", file, n), x, branch,
      confs = if (file == "slices-ab5" && n > 50) c(0.95, 0.9) else 0.95,
      extra = list(aRps = vec(a_rps[1:n]), bRps = vec(b_rps[1:n]))))
  }
}

# ---------- signed-rank null distribution ----------
# qsignrank probes: the cumulative probabilities themselves, nudged by ±5 and +20 machine epsilons (R's
# qsignrank forgives 10 epsilons of rounding in the requested probability).
distribution <- lapply(c(1, 4, 10, 20), function(n) {
  cumulative <- psignrank(0:min(30, n * (n + 1) / 4), n)
  probe <- c(0.005, 0.025, 0.05, cumulative, cumulative + 5 * .Machine$double.eps,
    cumulative - 5 * .Machine$double.eps, cumulative + 20 * .Machine$double.eps)
  probe <- probe[probe > 0 & probe <= 0.5]
  list(
    n = n,
    density = vec(dsignrank(0:(n * (n + 1) / 2), n)),
    quantileP = vec(probe),
    quantileQ = vec(qsignrank(probe, n))
  )
})

# ---------- Holm ----------
holm_inputs <- list(
  c(0.01, 0.04, 0.03, 0.005),
  c(0.02, 0.02, 0.5),
  c(0.3, 0.6, 0.9, 0.2),
  c(0.04),
  c(0.01, NA, 0.04, 0.002),
  c(0, 1, 0.5, 1e-12, 0.049),
  runif(10)^3,
  vapply(Filter(function(k) grepl("^slices", k$name), cases), function(k) k$p, 0)
)
holm <- lapply(holm_inputs, function(p) list(p = vec(p), adjusted = vec(p.adjust(p, "holm"))))

# ---------- normal distribution ----------
zs <- c(-37, -30, -20, -10, -8, -5.657, -5, -3, -1.96, -0.66291, -0.5, -1e-10, 0, 0.3, 0.66291, 1, 2.5, 5.657, 6, 8)
ps <- c(1e-300, 1e-100, 1e-20, 1e-10, 1e-5, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 0.975, 0.99, 0.995, 0.999, 1 - 1e-10)
normal <- list(
  cdf = list(z = vec(zs), p = vec(pnorm(zs))),
  quantile = list(p = vec(ps), z = vec(qnorm(ps)))
)

# ---------- descriptive ----------
descriptive_inputs <- list(
  c(3.2, -1.5, 7.25, 0.5, 0.5, 12, -4.75),
  signif(rexp(40, rate = 3) - 0.1, 12),
  c(42),
  c(1, 2)
)
qs <- c(0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 1)
descriptive <- lapply(descriptive_inputs, function(x) list(
  x = vec(x),
  mean = mean(x),
  median = median(x),
  sd = if (length(x) > 1) sd(x) else NA,
  mad = mad(x, constant = 1),
  q = vec(qs),
  quantile = vec(unname(quantile(x, qs, type = 7)))
))

# ---------- smallest detectable shift ----------
power_inputs <- list(
  list(halfWidth = 0.01, confidence = 0.95, alpha = 0.01, power = 0.8),
  list(halfWidth = 0.0234, confidence = 0.9, alpha = 0.05, power = 0.9),
  list(halfWidth = 0.5, confidence = 0.99, alpha = 0.001, power = 0.5)
)
power <- lapply(power_inputs, function(k) c(k, list(
  shift = (qnorm(1 - k$alpha / 2) + qnorm(k$power)) * k$halfWidth / qnorm((1 + k$confidence) / 2)
)))

out <- list(
  generator = "test/reference/stats-reference.R",
  r = R.version.string,
  wilcoxon = cases,
  distribution = distribution,
  holm = holm,
  normal = normal,
  descriptive = descriptive,
  power = power
)
writeLines(to_json(out), out_path)
cat(sprintf("wrote %s: %d Wilcoxon cases\n", out_path, length(cases)))
