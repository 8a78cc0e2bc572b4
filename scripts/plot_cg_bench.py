#!/usr/bin/env python3
"""cg-bench CSV (and optionally cupy_cg.py's CSV) -> PNG: ms per CG iteration for each matrix
and variant, with the textbook and fused bandwidth floors measured in the same run.

    scripts/plot_cg_bench.py cg.csv [--cupy cupy.csv] -o cg_bench.png
"""
import argparse
import csv
import os
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("csv", help="cg-bench --csv output")
    parser.add_argument("--cupy", help="scripts/cupy_cg.py --csv output (same problems)")
    parser.add_argument("-o", "--output", default="cg_bench.png")
    args = parser.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
            os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)  # Debian's python3-matplotlib
        sys.exit("plot_cg_bench.py: matplotlib is needed (Debian: python3-matplotlib)")

    with open(args.csv, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"plot_cg_bench.py: {args.csv} has no rows")
    matrices = list(dict.fromkeys(r["matrix"] for r in rows))
    variants = list(dict.fromkeys(r["variant"] for r in rows))
    ms = {(r["matrix"], r["variant"]): float(r["ms_per_iteration"]) for r in rows}
    if args.cupy:
        with open(args.cupy, newline="") as f:
            for r in csv.DictReader(f):
                if r["matrix"] in matrices:
                    ms[(r["matrix"], "cupy")] = float(r["ms_per_iteration"])
        variants.append("cupy")
    floors = {r["matrix"]: (float(r["textbook_floor_ms"]), float(r["fused_floor_ms"])) for r in rows}

    fig, axes = plt.subplots(1, len(matrices), figsize=(3.2 * len(matrices), 4), squeeze=False)
    for ax, matrix in zip(axes[0], matrices):
        names = [v for v in variants if (matrix, v) in ms]
        ax.bar(range(len(names)), [ms[(matrix, v)] for v in names], color="tab:blue")
        ax.axhline(floors[matrix][0], color="tab:orange", linestyle="--", label="textbook floor")
        ax.axhline(floors[matrix][1], color="tab:green", linestyle=":", label="fused floor")
        ax.set_xticks(range(len(names)), names, rotation=45, ha="right")
        ax.set_title(os.path.basename(matrix), fontsize=9)
        ax.set_ylabel("ms per iteration")
    axes[0][0].legend(fontsize=7)
    fig.suptitle(f"CG, float64, {rows[0]['device']} (copy {float(rows[0]['copy_gbps']):.0f} GB/s)", fontsize=10)
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
