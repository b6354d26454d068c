"""Reference change points for src/stats/change-points.ts, computed by Apache Otava (an
implementation independent of ours, the one perfgate's method follows).

Regenerate (from the repository root; Python 3.10+):
  python3 -m venv /tmp/otava && /tmp/otava/bin/pip install apache-otava==0.8.0
  /tmp/otava/bin/python test/reference/change-points-reference.py test/reference/change-points-reference.json

Per case: the series (drawn here with a fixed seed and stored, so the test reads the same
numbers), then
- `split_merge`: otava.analysis.compute_change_points with the given window, level and minimum
  magnitude (Otava's default pipeline: E-divisive candidates in windows tested with Student's
  t-test, then the merge step): each point's index, Q-hat, p-value and the means and population
  standard deviations around it;
- `first_candidate`: the E-divisive candidate of the whole series (PairDistanceCalculator), the
  statistic before any test;
- `permutation`: the indices of otava.analysis.compute_change_points_orig (Matteson and James's
  permutation test, 100 permutations, Otava's p = extreme / (R + 1)) at level 0.01.
"""
import json
import sys
from importlib.metadata import version

import numpy as np
from otava.analysis import compute_change_points, compute_change_points_orig
from otava.change_point_divisive.calculator import PairDistanceCalculator

out_path = sys.argv[1] if len(sys.argv) > 1 else "test/reference/change-points-reference.json"
rng = np.random.default_rng(20261126)


def noise(n, sd=1.0):
    return rng.normal(0.0, sd, n)


cases_in = [
    ("one step of 10% at 30", np.concatenate([100 + noise(30, 2), 110 + noise(30, 2)])),
    ("two steps, up at 25 and down at 55", np.concatenate([50 + noise(25), 56 + noise(30), 47 + noise(25)])),
    ("noise only", 200 + noise(60, 5)),
    ("slow trend", 100 + 0.05 * np.arange(60) + noise(60, 1)),
    ("long series, steps at 40 and 95 (several windows)", np.concatenate([10 + noise(40, 0.3), 10.6 + noise(55, 0.3), 10.2 + noise(45, 0.3)])),
    ("small step of 2% in low noise at 18", np.concatenate([1000 + noise(18, 4), 1020 + noise(22, 4)])),
    ("short: eight points", np.array([5.0, 5.1, 4.9, 5.05, 7.0, 7.1, 6.9, 7.05])),
]

settings = [
    {"window_len": 50, "max_pvalue": 0.001, "min_magnitude": 0.0},
    {"window_len": 20, "max_pvalue": 0.01, "min_magnitude": 0.0},
    {"window_len": 30, "max_pvalue": 0.001, "min_magnitude": 0.05},
]

cases = []
for name, series in cases_in:
    series = [float(round(x, 6)) for x in series]
    runs = []
    for s in settings:
        cps, _ = compute_change_points(list(series), **s)
        runs.append({
            "windowLength": s["window_len"],
            "maxPValue": s["max_pvalue"],
            "minMagnitude": s["min_magnitude"],
            "points": [{
                "index": int(cp.index),
                "qhat": float(cp.qhat),
                "pValue": float(cp.stats.pvalue),
                "meanBefore": float(cp.stats.mean_1),
                "meanAfter": float(cp.stats.mean_2),
                "stdBefore": float(cp.stats.std_1),
                "stdAfter": float(cp.stats.std_2),
            } for cp in cps],
        })
    first = PairDistanceCalculator(np.array(series)).get_candidate_change_point(slice(0, len(series)))
    perm, _ = compute_change_points_orig(list(series), max_pvalue=0.01, seed=1)
    cases.append({
        "name": name,
        "series": series,
        "firstCandidate": {"index": int(first.index), "qhat": float(first.qhat)},
        "splitMerge": runs,
        "permutation": [int(cp.index) for cp in perm],
    })

with open(out_path, "w") as f:
    json.dump({"generatedWith": f"apache-otava {version('apache-otava')}, numpy {np.__version__}, scipy {version('scipy')}",
               "cases": cases}, f, indent=2)
    f.write("\n")
