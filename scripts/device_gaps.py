#!/usr/bin/env python3
"""Where a device idles: a KPROF_TIMELINE file of scripts/kernel_profile.c, read between two commands.

Prints the window's device busy time, its idle gaps (by the commands on either side, and the
largest), and the buffer frees (the timeline's "release" lines) that overlap the gaps: a free
whose wait the device spends idle costs the run; one beside running work does not.

  LD_PRELOAD=libkernel_profile.so KPROF_TIMELINE=/tmp/tl cg-solve ...
  scripts/device_gaps.py /tmp/tl.PID --after stencil_entries --before boundary_chunks

Device and host clocks differ: a command's device start less its enqueue time is least where it
started at once, and that least difference maps device times onto the host's. Gaps longer than
--compile-ms are taken for OpenCL programs compiled (not set-up) and left out.
"""
import argparse
from collections import defaultdict


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("timeline")
    ap.add_argument("--after", help="the window starts after the first command of this name")
    ap.add_argument("--before", help="the window ends at the first command of this name after its start")
    ap.add_argument("--min-ms", type=float, default=0.2, help="gaps shorter than this are not listed (default 0.2)")
    ap.add_argument("--compile-ms", type=float, default=50.0, help="gaps longer than this are left out (default 50)")
    ap.add_argument("--top", type=int, default=20)
    args = ap.parse_args()

    commands, releases = [], []
    for line in open(args.timeline):
        f = line.split()
        if f[0] == "release":
            releases.append((float(f[1]), float(f[2]), int(f[3])))
        else:
            commands.append((float(f[0]), int(f[1]), int(f[2]), f[3]))
    commands.sort(key=lambda c: c[1])
    if not commands:
        raise SystemExit(f"{args.timeline}: no device commands")
    offset = min(start - host for host, start, _, _ in commands)  # device clock less the host's
    names = [c[3] for c in commands]
    try:
        first = names.index(args.after) + 1 if args.after else 0
        last = names.index(args.before, first) if args.before else len(commands)
    except ValueError as e:
        raise SystemExit(f"{args.timeline}: {e}")
    window = commands[first:last]
    if len(window) < 2:
        raise SystemExit(f"{args.timeline}: fewer than two commands in the window")
    t0, t1 = window[0][1] - offset, window[-1][2] - offset
    gaps, compiles = [], []
    for p, q in zip(window, window[1:]):
        start, end = p[2] - offset, q[1] - offset
        if end - start > args.compile_ms * 1e6:
            compiles.append(end - start)
        elif end - start > args.min_ms * 1e6:
            gaps.append((start, end, p[3], q[3]))

    def freed(start, end):  # ns of frees inside [start, end), and their count and bytes
        inside = [(max(start, s), min(end, e), b) for s, e, b in releases if s < end and e > start]
        return sum(e - s for s, e, _ in inside), len(inside), sum(b for _, _, b in inside)

    ms = lambda ns: ns / 1e6
    busy = sum(e - s for _, s, e, _ in window)
    idle = sum(e - s for s, e, *_ in gaps)
    span = t1 - t0 - sum(compiles)
    print(f"window {ms(span):.1f} ms ({len(compiles)} gaps over {args.compile_ms:g} ms left out: {ms(sum(compiles)):.1f} ms); "
          f"device busy {ms(busy):.1f} ms; idle in {len(gaps)} gaps over {args.min_ms:g} ms: {ms(idle):.1f} ms")
    in_window = [(s, e, b) for s, e, b in releases if t0 <= s <= t1]
    print(f"frees in the window: {len(in_window)}, {ms(sum(e - s for s, e, _ in in_window)):.1f} ms, "
          f"{sum(b for *_, b in in_window) / 1e9:.2f} GB; inside the gaps: {ms(sum(freed(s, e)[0] for s, e, *_ in gaps)):.1f} ms")
    pairs = defaultdict(lambda: [0, 0.0])
    for s, e, a, b in gaps:
        pairs[(a, b)][0] += 1
        pairs[(a, b)][1] += e - s
    print("\nidle by the commands either side:")
    for (a, b), (count, ns) in sorted(pairs.items(), key=lambda kv: -kv[1][1])[:args.top]:
        print(f"  {ms(ns):7.1f} ms {count:4d}  {a:24s} -> {b}")
    print("\nlargest gaps (ms from the window's start):")
    for s, e, a, b in sorted(gaps, key=lambda g: g[0] - g[1])[:args.top]:
        f_ns, f_count, f_bytes = freed(s, e)
        print(f"  at {ms(s - t0):8.1f}  {ms(e - s):6.2f} ms  {a:24s} -> {b:24s} frees {ms(f_ns):.2f} ms ({f_count}, {f_bytes / 1e9:.2f} GB)")


if __name__ == "__main__":
    main()
