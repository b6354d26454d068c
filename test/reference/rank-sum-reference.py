"""Reference values for src/stats/rank-sum.ts (two-sample Hodges-Lehmann shift, its interval and
the Wilcoxon rank-sum p), computed independently of the TypeScript:
- p-values: scipy.stats.mannwhitneyu(y, x, method='exact' | 'asymptotic', use_continuity=True),
  which R's wilcox.test(y, x, correct = TRUE) equals (same statistic, tie-corrected variance);
- exact interval: R's wilcox.test.R exact branch (qwilcox, then order statistics of the
  differences) with the null distribution of U by brute-force enumeration of every ranking;
- normal interval: R's wilcox.test.R normal branch transcribed (wdiff with mid-ranks and the
  tie-corrected SIGMA.CI, solved with Brent's method as R's uniroot, tol 1e-4).
R is not installed where this was generated; the one published R output checked besides is the
example of ?wilcox.test (Hollander & Wolfe 1973, p. 110: W = 35, p = 0.1272).
Run: python3 test/reference/rank-sum-reference.py > test/reference/rank-sum-reference.json
"""
import itertools, json, math, random
import numpy as np
from scipy import stats, optimize

def null_u(m, n):
    counts = {}
    N = m + n
    for ys in itertools.combinations(range(N), n):
        u = sum(ys) - n * (n - 1) // 2  # ranks 0-based: sum of y ranks minus minimum
        counts[u] = counts.get(u, 0) + 1
    total = math.comb(N, n)
    return [counts.get(u, 0) / total for u in range(m * n + 1)]

def qwilcox(p, m, n):
    dist = null_u(m, n)
    c = 0.0
    for q, d in enumerate(dist):
        c += d
        if c >= p - 10 * 2.220446049250313e-16:
            return q
    return m * n

def pwilcox(q, m, n):
    dist = null_u(m, n)
    return sum(dist[: q + 1]) if q >= 0 else 0.0

def exact_ci(x, y, conf):
    m, n = len(x), len(y)
    diffs = sorted(b - a for b in y for a in x)
    alpha = 1 - conf
    qu = max(1, qwilcox(alpha / 2, m, n))
    return diffs[qu - 1], diffs[m * n - qu], 1 - 2 * pwilcox(qu - 1, m, n)

def normal_ci(x, y, conf):
    # R: wilcox.test(y, x): first sample is y ("x" in R's code), second x.
    nx, ny = len(y), len(x)
    def wdiff(d, zq):
        dr = stats.rankdata(np.concatenate([np.array(y) - d, np.array(x)]))
        _, nties = np.unique(dr, return_counts=True)
        dz = dr[:nx].sum() - nx * (nx + 1) / 2 - nx * ny / 2
        corr = np.sign(dz) * 0.5
        sigma = math.sqrt((nx * ny / 12) * ((nx + ny + 1) - (nties ** 3 - nties).sum() / ((nx + ny) * (nx + ny - 1))))
        return (dz - corr) / sigma - zq
    mumin, mumax = min(y) - max(x), max(y) - min(x)
    alpha = 1 - conf
    while True:
        if wdiff(mumin, stats.norm.ppf(1 - alpha / 2)) < 0 or wdiff(mumax, stats.norm.ppf(alpha / 2)) > 0:
            alpha *= 2
        else:
            break
    def root(zq):
        fl, fu = wdiff(mumin, zq), wdiff(mumax, zq)
        if fl <= 0: return mumin
        if fu >= 0: return mumax
        return optimize.brentq(wdiff, mumin, mumax, args=(zq,), xtol=1e-4)
    return root(stats.norm.ppf(1 - alpha / 2)), root(stats.norm.ppf(alpha / 2)), 1 - alpha

def hl(x, y):
    return float(np.median([b - a for b in y for a in x]))

def case(name, x, y):
    ties = len(set(x + y)) < len(x + y)
    exact = len(x) < 50 and len(y) < 50 and not ties
    out = {"name": name, "x": x, "y": y, "estimate": hl(x, y), "method": "exact" if exact else "normal", "ci": []}
    for conf in (0.95, 0.9):
        lo, hi, achieved = exact_ci(x, y, conf) if exact else normal_ci(x, y, conf)
        out["ci"].append({"confidence": conf, "lower": lo, "upper": hi, "achieved": achieved})
    method = "exact" if exact else "asymptotic"
    out["pGreater"] = float(stats.mannwhitneyu(y, x, alternative="greater", method=method, use_continuity=True).pvalue)
    out["pLess"] = float(stats.mannwhitneyu(y, x, alternative="less", method=method, use_continuity=True).pvalue)
    return out

rng = random.Random(20261127)
cases = [
    # ?wilcox.test's example (Hollander & Wolfe 1973, p. 110): R prints W = 35, p-value = 0.1272 for wilcox.test(x, y, alternative = "g").
    case("hollander-wolfe-depression", [1.15, 0.88, 0.90, 0.74, 1.21], [0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46]),
    case("log-starts-6-vs-6", [round(rng.gauss(0, 0.02), 6) for _ in range(6)], [round(rng.gauss(0.03, 0.02), 6) for _ in range(6)]),
    case("log-starts-8-vs-10", [round(rng.gauss(4.6, 0.03), 6) for _ in range(8)], [round(rng.gauss(4.62, 0.03), 6) for _ in range(10)]),
    case("small-3-vs-4", [0.1, 0.4, 0.25], [0.3, 0.5, 0.45, 0.6]),
    case("ties-normal", [1, 2, 2, 3, 4, 4, 5], [3, 3, 4, 5, 5, 6, 7, 7]),
    case("shares-with-zeros", [0, 0, 0, 0.01, 0, 0], [0, 0.02, 0.03, 0, 0.05, 0.04]),
]
print(json.dumps({"generator": "test/reference/rank-sum-reference.py", "scipy": __import__("scipy").__version__, "cases": cases}, indent=1))
