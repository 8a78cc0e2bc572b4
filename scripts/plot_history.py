#!/usr/bin/env python3
"""Plots a cg-solve --history CSV: relative residual against iteration, log scale.

The CSV has the columns iteration,solver,residual,alpha,beta,seconds; solver is `clcg`
(every iteration of the OpenCL solve) or `eigen` (Eigen's ConjugateGradient, written with
--reference, sampled at geometrically spaced iterations). One line per solver.

Needs python3 with matplotlib (Debian: python3-matplotlib).
usage: scripts/plot_history.py h.csv -o plot.png [--tol 1e-8] [--title TEXT]

  cg-solve --matrix A.mtx --reference --history h.csv
  scripts/plot_history.py h.csv -o h.png --tol 1e-8 --title "A.mtx, Jacobi"
"""
import argparse
import csv
import math
import os
import sys
from collections import defaultdict

COLUMNS = ["iteration", "solver", "residual", "alpha", "beta", "seconds"]
STYLE = {  # solver -> (label, matplotlib keyword arguments)
    "clcg": ("clcg (OpenCL)", {"color": "tab:blue", "linewidth": 1.6}),
    "eigen": ("Eigen ConjugateGradient (CPU)", {"color": "tab:orange", "linestyle": "--", "marker": "o",
                                                 "markersize": 3.5, "linewidth": 1.2}),
}


def read_history(path):
    """{solver: ([iterations], [residuals])}, each sorted by iteration. Exits 1 on a bad file."""
    series = defaultdict(list)
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            missing = [c for c in ("iteration", "solver", "residual") if c not in (reader.fieldnames or [])]
            if missing:
                sys.exit("plot_history: %s: not a cg-solve --history CSV (missing column(s) %s; expected %s)"
                         % (path, ", ".join(missing), ",".join(COLUMNS)))
            for line, row in enumerate(reader, start=2):
                try:
                    iteration, residual = int(row["iteration"]), float(row["residual"])
                except (TypeError, ValueError):
                    sys.exit("plot_history: %s:%d: bad iteration or residual: %r" % (path, line, row))
                series[row["solver"]].append((iteration, residual))
    except OSError as e:
        sys.exit("plot_history: %s: %s" % (path, e.strerror))
    if not series:
        sys.exit("plot_history: %s: no rows" % path)
    return {solver: tuple(map(list, zip(*sorted(points)))) for solver, points in series.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("csv", help="cg-solve --history file")
    parser.add_argument("-o", "--output", required=True, help="PNG to write")
    parser.add_argument("--tol", type=float, help="draw the tolerance as a horizontal line")
    parser.add_argument("--title", default=None, help="plot title (default: the CSV's name)")
    args = parser.parse_args()

    series = read_history(args.csv)

    try:
        import matplotlib
    except ImportError:
        # `python3` may be another interpreter (pyenv, a venv) than the one Debian's
        # python3-matplotlib installs into: retry with the system one.
        system = "/usr/bin/python3"
        if os.path.realpath(sys.executable) != os.path.realpath(system) and os.access(system, os.X_OK):
            os.execv(system, [system] + sys.argv)
        sys.exit("plot_history: needs matplotlib (Debian: apt-get install python3-matplotlib)")
    matplotlib.use("Agg")  # files only; no display needed
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5), dpi=120)
    smallest = math.inf
    for solver in sorted(series, key=lambda s: (s not in STYLE, list(STYLE).index(s) if s in STYLE else 0, s)):
        iterations, residuals = series[solver]
        # Log axis: a residual of exactly 0 (x0 was the solution) cannot be drawn; clamp it.
        positive = [r for r in residuals if r > 0]
        floor = min(positive) / 10 if positive else 1e-300
        residuals = [r if r > 0 else floor for r in residuals]
        smallest = min(smallest, min(residuals))
        label, style = STYLE.get(solver, (solver, {}))
        final = "%s: %.2e at iteration %d" % (label, residuals[-1], iterations[-1])
        ax.plot(iterations, residuals, label=final, **style)
    if args.tol:
        ax.axhline(args.tol, color="tab:red", linestyle=":", linewidth=1.2, label="tolerance %g" % args.tol)
    ax.set_yscale("log")
    ax.set_xlabel("iteration")
    ax.set_ylabel("relative residual  ||r|| / ||b||")
    ax.set_title(args.title if args.title is not None else args.csv)
    ax.grid(True, which="major", alpha=0.4)
    ax.grid(True, which="minor", axis="y", alpha=0.15)
    ax.legend(loc="best", fontsize=9)
    fig.tight_layout()
    try:
        fig.savefig(args.output)
    except OSError as e:
        sys.exit("plot_history: cannot write %s: %s" % (args.output, e.strerror))
    return 0


if __name__ == "__main__":
    sys.exit(main())
