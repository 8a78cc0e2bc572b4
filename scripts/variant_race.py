#!/usr/bin/env python3
"""Which CG variant is fastest to solution, and what --variant auto takes, per matrix.

  scripts/variant_race.py --cg-solve build/apps/cg-solve [--device gpu] [--repeats 5] [--csv out.csv] A.mtx ...

For each matrix, runs cg-solve with each variant and with none given (auto), `repeats` times
each, round-robin (so drift in the machine hits every variant alike), with cg-solve's defaults
otherwise (Jacobi, tol 1e-8, b = A*1), and takes the median of result.solve_seconds (the solve
after the upload and kernel builds). Prints, per matrix, the median of each variant, the one
auto took and how far it is from the fastest; exits 1 if auto is more than --slack (default
5%) slower than the fastest anywhere.
"""
import argparse
import csv
import json
import statistics
import subprocess
import sys

VARIANTS = ["textbook", "fused", "pipelined", "single"]


def solve(cg_solve, matrix, device, variant):
    args = [cg_solve, "--matrix", matrix, "--device", device, "--json", "--quiet"]
    if variant != "auto":
        args += ["--variant", variant]
    proc = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600)
    if proc.returncode != 0:
        raise SystemExit("variant_race: %s on %s: exit %d\n%s" % (variant, matrix, proc.returncode, proc.stderr))
    out = json.loads(proc.stdout)
    return out["result"]["solve_seconds"], out["result"]["iterations"], out["solver"]["variant"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cg-solve", required=True)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--slack", type=float, default=0.05)
    parser.add_argument("--csv")
    parser.add_argument("matrices", nargs="+")
    options = parser.parse_args()
    rows, worst = [], 0.0
    print("%-28s %10s %10s %10s %10s | %-9s %10s %7s" % ("matrix", *VARIANTS, "auto took", "auto ms", "vs best"))
    for matrix in options.matrices:
        times = {v: [] for v in VARIANTS + ["auto"]}
        iterations, chosen = {}, None
        for _ in range(options.repeats):
            for v in VARIANTS + ["auto"]:
                seconds, its, ran = solve(options.cg_solve, matrix, options.device, v)
                times[v].append(seconds)
                iterations[v] = its
                if v == "auto":
                    chosen = ran
        median = {v: statistics.median(t) for v, t in times.items()}
        best = min(median[v] for v in VARIANTS)
        behind = median["auto"] / best - 1
        worst = max(worst, median[chosen] / best - 1)
        name = matrix.rsplit("/", 1)[-1]
        print("%-28s %10.3f %10.3f %10.3f %10.3f | %-9s %10.3f %+6.1f%%" % (
            name, *(1e3 * median[v] for v in VARIANTS), chosen, 1e3 * median["auto"], 100 * behind))
        rows.append({"matrix": name, **{v + "_ms": 1e3 * median[v] for v in VARIANTS + ["auto"]},
                     **{v + "_iterations": iterations[v] for v in VARIANTS}, "auto_variant": chosen,
                     "auto_vs_best": behind})
    if options.csv:
        with open(options.csv, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    print("variant_race: the variant auto takes is within %.1f%% of the fastest everywhere (slack %.0f%%)"
          % (100 * worst, 100 * options.slack))
    return 1 if worst > options.slack else 0


if __name__ == "__main__":
    sys.exit(main())
