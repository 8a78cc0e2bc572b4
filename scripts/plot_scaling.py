#!/usr/bin/env python3
"""cg-bench CSVs from runs under mpirun (any rank counts, strong and weak rows) -> PNG: ms per
step against the number of ranks, and the parallel efficiency (strong: t_1 / (N t_N); weak:
t_1 / t_N), one line per problem and variant; plus the table on stdout.

    scripts/plot_scaling.py strong_1.csv strong_2.csv weak_2.csv -o scaling.png
"""
import argparse
import csv
import os
import sys
from collections import defaultdict


def load(paths):
    rows = []
    for path in paths:
        with open(path, newline="") as f:
            rows.extend(csv.DictReader(f))
    if not rows:
        sys.exit("plot_scaling.py: no rows in %s" % ", ".join(paths))
    return rows


def series(rows):
    """{(scaling, problem, variant): {ranks: ms}}; weak rows share the one-rank row of their block."""
    out = defaultdict(dict)
    for r in rows:
        out[(r["scaling"], r["problem"].replace("_per_rank", ""), r["variant"])][int(r["ranks"])] = float(r["ms_per_iteration"])
    for (scaling, problem, variant), points in list(out.items()):
        if scaling == "weak" and 1 not in points and 1 in out.get(("strong", problem, variant), {}):
            points[1] = out[("strong", problem, variant)][1]  # one rank: the same block
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("csv", nargs="+", help="cg-bench --csv outputs of runs under mpirun")
    parser.add_argument("-o", "--output", default="scaling.png")
    args = parser.parse_args()
    data = series(load(args.csv))
    print("%-7s %-22s %-7s %6s %10s %11s" % ("scaling", "problem", "variant", "ranks", "ms/step", "efficiency"))
    for (scaling, problem, variant), points in sorted(data.items()):
        base = points.get(1)
        for ranks in sorted(points):
            eff = "" if base is None else "%.0f%%" % (100 * base / points[ranks] / (ranks if scaling == "strong" else 1))
            print("%-7s %-22s %-7s %6d %10.3f %11s" % (scaling, problem, variant, ranks, points[ranks], eff))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
            os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)  # Debian's python3-matplotlib
        sys.exit("plot_scaling.py: matplotlib is needed to draw (Debian: python3-matplotlib); the table is above")
    fig, (ax_time, ax_eff) = plt.subplots(1, 2, figsize=(11, 4.2))
    for (scaling, problem, variant), points in sorted(data.items()):
        ranks = sorted(points)
        label = "%s %s %s" % (scaling, problem, variant)
        ax_time.plot(ranks, [points[r] for r in ranks], marker="o", label=label)
        if 1 in points:
            eff = [points[1] / points[r] / (r if scaling == "strong" else 1) for r in ranks]
            ax_eff.plot(ranks, eff, marker="o", label=label)
    ax_time.set(xlabel="ranks (GPUs)", ylabel="ms per CG step", yscale="log", title="time per step")
    ax_eff.set(xlabel="ranks (GPUs)", ylabel="efficiency", ylim=(0, 1.1), title="parallel efficiency")
    ax_eff.axhline(1.0, color="grey", linewidth=0.8)
    for ax in (ax_time, ax_eff):
        ax.set_xticks(sorted({r for p in data.values() for r in p}))
        ax.grid(alpha=0.3)
    ax_eff.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)
    print("wrote", args.output)


if __name__ == "__main__":
    main()
