#!/usr/bin/env python3
"""Scaling runs under mpirun -> a PNG of time and parallel efficiency against the number of GPUs
(strong: t_1 / (N t_N); weak: t_1 / t_N), one line per problem and method; the table on stdout.

Two kinds of input, mixed freely:
  *.csv    cg-bench --csv rows (scripts/mpi_scaling): ms per CG step, per problem and variant;
  *.jsonl  cg-solve runs (scripts/amg_mpi_scaling's runs.jsonl): time to solution, set-up + solve,
           the median of each (build, problem, ranks); rows labelled warm... are left out.

    scripts/plot_scaling.py strong_1.csv strong_2.csv weak_2.csv -o scaling.png
    scripts/plot_scaling.py jacobi.csv amg/runs.jsonl --build cg-solve-new -o scaling.png
"""
import argparse
import csv
import json
import os
import statistics
import sys
from collections import defaultdict


def csv_points(path):
    """((scaling, problem, method), ranks, ms a step) from a cg-bench CSV."""
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            try:
                yield ((r["scaling"], r["problem"].replace("_per_rank", ""), r["variant"] + ", ms a step"),
                       int(r["ranks"]), float(r["ms_per_iteration"]))
            except (KeyError, ValueError) as e:
                sys.exit("plot_scaling.py: %s: not a cg-bench CSV row (%s)" % (path, e))


def jsonl_points(path, build):
    """((scaling, problem, method), ranks, ms to solution) for each cg-solve run of a runs.jsonl."""
    with open(path) as f:
        for number, line in enumerate(f, 1):
            try:
                r = json.loads(line)
                label, result = r["label"], r["report"]["result"]
                seconds = result["setup_seconds"] + result["solve_seconds"]
                method = r["report"]["preconditioner"]["name"]
            except (ValueError, KeyError, TypeError) as e:
                sys.exit("plot_scaling.py: %s:%d: not a cg-solve run (%s)" % (path, number, e))
            scaling = label.split()[0]
            if scaling not in ("strong", "weak") or (build and build not in r["build"]):
                continue
            ranks = int(r["ranks"])
            grid = r["grid"]
            sides = [int(side) for side in grid.split("x")]  # poisson3d:N is N x N x N
            sides = sides * 3 if len(sides) == 1 else sides
            if scaling == "weak":  # rows a rank, as a cube (the ranks' blocks may differ in shape)
                grid = "%d^3 a rank" % round((sides[0] * sides[1] * sides[2] / ranks) ** (1 / 3))
            elif len(set(sides)) == 1:
                grid = "%d^3" % sides[0]
            yield (scaling, grid, method + ", set-up + solve ms"), ranks, 1e3 * seconds


def load(paths, build):
    samples = defaultdict(lambda: defaultdict(list))
    for path in paths:
        points = jsonl_points(path, build) if path.endswith(".jsonl") else csv_points(path)
        for key, ranks, ms in points:
            samples[key][ranks].append(ms)
    if not samples:
        sys.exit("plot_scaling.py: no strong or weak rows in %s" % ", ".join(paths))
    data = {key: {r: statistics.median(v) for r, v in by_ranks.items()} for key, by_ranks in samples.items()}
    for (scaling, problem, method), points in data.items():  # a weak block's one rank is its strong row
        strong = data.get(("strong", problem, method), {})
        if scaling == "weak" and 1 not in points and 1 in strong:
            points[1] = strong[1]
    return data


def pyplot():
    """matplotlib's pyplot, from Debian's python3 where this one lacks it (re-run there first), or None."""
    try:
        import matplotlib
        matplotlib.use("Agg")  # files only
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
            os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)  # Debian's python3-matplotlib
        return None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("inputs", nargs="+", help="cg-bench CSVs and cg-solve runs.jsonl files")
    parser.add_argument("-o", "--output", default="scaling.png")
    parser.add_argument("--build", default="", help="of a runs.jsonl, only the builds whose path holds this")
    parser.add_argument("--title", default="", help="a line above the panels (the machine, the date)")
    args = parser.parse_args()
    data = load(args.inputs, args.build)
    plt = pyplot()  # (before any output: it may run this script again under another python)
    print("%-7s %-24s %-32s %6s %12s %11s" % ("scaling", "problem", "method", "ranks", "ms", "efficiency"))
    efficiency = {}
    for (scaling, problem, method), points in sorted(data.items()):
        base = points.get(1)
        for ranks in sorted(points):
            eff = None if base is None else base / points[ranks] / (ranks if scaling == "strong" else 1)
            efficiency.setdefault((scaling, problem, method), {})[ranks] = eff
            print("%-7s %-24s %-32s %6d %12.3f %11s" % (scaling, problem, method, ranks, points[ranks],
                                                      "" if eff is None else "%.0f%%" % (100 * eff)))
    if plt is None:
        sys.exit("plot_scaling.py: matplotlib is needed to draw (Debian: python3-matplotlib); the table is above")
    fig, (ax_time, ax_eff) = plt.subplots(1, 2, figsize=(12, 4.6))
    for key, points in sorted(data.items()):
        ranks = sorted(points)
        label = "%s %s, %s" % key
        style = "-" if key[0] == "strong" else "--"
        ax_time.plot(ranks, [points[r] for r in ranks], style, marker="o", label=label)
        eff = efficiency[key]
        if eff.get(1) is not None:
            ax_eff.plot(ranks, [eff[r] for r in ranks], style, marker="o", label=label)
    ax_time.set(xlabel="GPUs (ranks)", ylabel="ms", yscale="log", title="time (a CG step, or set-up + solve)")
    ax_eff.set(xlabel="GPUs (ranks)", ylabel="efficiency", ylim=(0, 1.1),
               title="parallel efficiency (strong: t1 / (N tN), weak: t1 / tN)")
    ax_eff.axhline(1.0, color="grey", linewidth=0.8)
    for ax in (ax_time, ax_eff):
        ax.set_xticks(sorted({r for p in data.values() for r in p}))
        ax.grid(alpha=0.3)
    ax_eff.legend(fontsize=7)
    if args.title:
        fig.suptitle(args.title, fontsize=9)
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)
    print("wrote", args.output)


if __name__ == "__main__":
    main()
