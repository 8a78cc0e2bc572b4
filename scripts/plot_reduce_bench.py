#!/usr/bin/env python3
"""Figures and a Markdown table from a reduce-bench CSV (one device per CSV).

For each operation and element type in the CSV it writes, into --out:
  speedup_<op>_<type>.png    the dournac figure: CPU time / GPU time against the array size,
                             one line per work-group size, one panel per variant;
  bandwidth_<op>_<type>.png  effective GB/s of each variant at its best work-group size
                             against the array size, with the measured copy bandwidth as a
                             horizontal line (the Harris table, drawn);
and prints, per operation and type, a Markdown table (variant x size: best GB/s, ratio to
the copy bandwidth, microseconds per call) for docs/PERFORMANCE.md.

Needs python3 with matplotlib (Debian: python3-matplotlib).
usage: scripts/plot_reduce_bench.py results.csv [--out DIR]
"""
import argparse
import csv
import math
import statistics
import sys
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only; no display needed
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)

COLUMNS = ["device", "variant", "op", "type", "n", "wg", "groups", "gpu_ms", "gpu_with_upload_ms", "cpu_ms",
           "speedup", "gbps", "copy_gbps", "ratio_to_copy", "ok"]


def read_rows(path):
    """Rows as dicts with numbers converted; exits with a message on a malformed file."""
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            sys.exit(f"{path}: not a reduce-bench CSV (missing columns: {', '.join(missing)})")
        rows = []
        for line, row in enumerate(reader, start=2):
            try:
                for key in ("n", "wg", "groups", "ok"):
                    row[key] = int(row[key])
                for key in ("gpu_ms", "gpu_with_upload_ms", "cpu_ms", "speedup", "gbps", "copy_gbps", "ratio_to_copy"):
                    row[key] = float(row[key])
            except ValueError as e:
                sys.exit(f"{path}:{line}: {e}")
            rows.append(row)
    if not rows:
        sys.exit(f"{path}: no measurements")
    devices = sorted({r["device"] for r in rows})
    if len(devices) > 1:
        sys.exit(f"{path}: runs from several devices ({'; '.join(devices)}); plot one device per CSV")
    return rows


def valid_rows(rows):
    """Drops configurations whose result failed the correctness check: their time means nothing."""
    bad = [r for r in rows if not r["ok"]]
    for r in bad:
        print(f"warning: skipping {r['variant']} {r['op']} n={r['n']} wg={r['wg']}: wrong result (ok=0)",
              file=sys.stderr)
    return [r for r in rows if r["ok"]]


def unique(values):
    """Distinct values in order of first appearance (the CSV keeps the registry order)."""
    return list(dict.fromkeys(values))


def best_per_variant_and_size(rows):
    """{variant: {n: row with the smallest gpu_ms over work-group sizes}}"""
    best = defaultdict(dict)
    for r in rows:
        slot = best[r["variant"]].get(r["n"])
        if slot is None or r["gpu_ms"] < slot["gpu_ms"]:
            best[r["variant"]][r["n"]] = r
    return best


def plot_speedup(rows, variants, title, path):
    columns = min(3, len(variants))
    lines = math.ceil(len(variants) / columns)
    fig, axes = plt.subplots(lines, columns, figsize=(5 * columns, 3.8 * lines), sharex=True, sharey=True,
                             squeeze=False)
    work_groups = sorted({r["wg"] for r in rows})
    colours = plt.cm.viridis([i / max(1, len(work_groups) - 1) for i in range(len(work_groups))])
    for ax, variant in zip(axes.flat, variants):
        for wg, colour in zip(work_groups, colours):
            points = sorted((r["n"], r["speedup"]) for r in rows if r["variant"] == variant and r["wg"] == wg)
            if points:
                ax.plot(*zip(*points), marker="o", markersize=3, color=colour, label=f"wg {wg}")
        ax.axhline(1.0, color="grey", linewidth=0.8, linestyle=":")  # break-even with the CPU loop
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(variant)
        ax.grid(True, which="major", alpha=0.3)
    for ax in axes.flat[len(variants):]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("array size n")
    for ax in axes[:, 0]:
        ax.set_ylabel("speedup (CPU / GPU)")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper right", fontsize="small")
    fig.suptitle(title)
    fig.tight_layout(rect=(0, 0, 0.92, 0.95))
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_bandwidth(best, variants, copy_gbps, title, path):
    fig, ax = plt.subplots(figsize=(8, 5))
    for variant in variants:
        points = sorted((n, r["gbps"]) for n, r in best[variant].items())
        ax.plot(*zip(*points), marker="o", markersize=4, label=variant)
    ax.axhline(copy_gbps, color="black", linestyle="--", label=f"copy bandwidth {copy_gbps:.0f} GB/s")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("array size n")
    ax.set_ylabel("effective GB/s (bytes read / time of run())")
    ax.set_title(title)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def markdown_table(best, variants, sizes, title):
    lines = [f"**{title}** (best work-group size per cell: GB/s, share of the copy bandwidth, µs per call)", "",
             "| variant | " + " | ".join(f"n = {n:.0e}".replace("e+0", "e") for n in sizes) + " |",
             "|---|" + "---:|" * len(sizes)]
    for variant in variants:
        cells = []
        for n in sizes:
            r = best[variant].get(n)
            cells.append("–" if r is None else
                         f"{r['gbps']:.1f} GB/s, {100 * r['ratio_to_copy']:.0f} %, {1e3 * r['gpu_ms']:.1f} µs")
        lines.append(f"| {variant} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", help="a reduce-bench --csv file")
    parser.add_argument("--out", default=".", help="folder for the PNG files (default: the current one)")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    all_rows = read_rows(args.csv)
    rows = valid_rows(all_rows)
    device = all_rows[0]["device"]
    copy_gbps = statistics.median(r["copy_gbps"] for r in all_rows)
    tables = []
    for op in unique(r["op"] for r in rows):
        for element in unique(r["type"] for r in rows):
            subset = [r for r in rows if r["op"] == op and r["type"] == element]
            if not subset:
                continue
            variants = unique(r["variant"] for r in subset)
            sizes = sorted({r["n"] for r in subset})
            best = best_per_variant_and_size(subset)
            label = f"{op}, {element}, {device}"
            plot_speedup(subset, variants, f"speedup over one sequential CPU loop\n{label}", out / f"speedup_{op}_{element}.png")
            plot_bandwidth(best, variants, copy_gbps, f"effective bandwidth at the best work-group size\n{label}",
                           out / f"bandwidth_{op}_{element}.png")
            tables.append(markdown_table(best, variants, sizes, label))
    print(f"Device: {device}; copy bandwidth (read + write) {copy_gbps:.1f} GB/s\n")
    print("\n\n".join(tables))
    print(f"\nfigures written to {out.resolve()}", file=sys.stderr)


if __name__ == "__main__":
    main()
