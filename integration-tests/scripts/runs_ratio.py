#!/usr/bin/env python3
"""A P95 (or P50) ratio between two catalogs of a demo report's runs.csv, with a 95% bootstrap interval.

Usage: runs_ratio.py RUNS_CSV --phase warm --catalog overdrive --anchor trino_cache [--percentile 95] [--resamples 10000]

Each catalog's runs of the phase are resampled with replacement within each query (so that every resample keeps the
query mix), the percentile of each catalog's resample taken, and the ratio of the two; the interval is the 2.5th and
97.5th percentiles of those ratios. Verdict: win (interval below 1), loss (above 1), tie (contains 1).
"""
import argparse
import csv
import random
from collections import defaultdict


def percentile(values, p):
    ordered = sorted(values)
    # nearest rank, as the demo's report computes it
    rank = max(1, -(-len(ordered) * p // 100))
    return ordered[int(rank) - 1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("runs")
    parser.add_argument("--phase", default="warm")
    parser.add_argument("--catalog", default="overdrive")
    parser.add_argument("--anchor", default="trino_cache")
    parser.add_argument("--scenario")
    parser.add_argument("--percentile", type=float, default=95)
    parser.add_argument("--resamples", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    runs = defaultdict(lambda: defaultdict(list))
    with open(args.runs) as f:
        for row in csv.DictReader(f):
            if not row["phase"].startswith(args.phase):
                continue
            if args.scenario and row["scenario"] != args.scenario:
                continue
            runs[row["catalog"]][row["query"]].append(int(row["millis"]))
    for catalog in (args.catalog, args.anchor):
        if catalog not in runs:
            raise SystemExit("no %s runs of catalog %s in %s (catalogs: %s)" % (args.phase, catalog, args.runs, ", ".join(sorted(runs))))

    def flat(by_query):
        return [millis for values in by_query.values() for millis in values]

    point = percentile(flat(runs[args.catalog]), args.percentile) / percentile(flat(runs[args.anchor]), args.percentile)
    rng = random.Random(args.seed)
    ratios = []
    for _ in range(args.resamples):
        sampled = []
        for catalog in (args.catalog, args.anchor):
            values = []
            for query_runs in runs[catalog].values():
                values.extend(rng.choice(query_runs) for _ in query_runs)
            sampled.append(percentile(values, args.percentile))
        ratios.append(sampled[0] / sampled[1])
    ratios.sort()
    low = ratios[int(0.025 * len(ratios))]
    high = ratios[int(0.975 * len(ratios)) - 1]
    verdict = "win" if high < 1 else "loss" if low > 1 else "tie"
    print("%s P%g %s / %s: %.2fx (95%% interval %.2f-%.2f, %d and %d runs): %s" % (
        args.phase, args.percentile, args.catalog, args.anchor, point, low, high,
        len(flat(runs[args.catalog])), len(flat(runs[args.anchor])), verdict))


if __name__ == "__main__":
    main()
