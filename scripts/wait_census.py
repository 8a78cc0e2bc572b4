#!/usr/bin/env python3
"""Names the call sites of a wait census (scripts/wait_census.c) and sums their counts and times.

    scripts/wait_census.py wait_census.txt [--within REGEX] [--by REGEX]

--within keeps the sites with a caller matching REGEX (e.g. build_hierarchy: the distributed AMG
set-up's levels) and sums each under the function that caller called (its steps); --by sums
each site under its outermost caller matching REGEX instead (default: any of clcg's). Device waits (finish, a pending wait, blocking read/write/map) and MPI
calls are counted apart; "wait-done" (events already complete) is left out of both.
"""
import argparse
import collections
import re
import subprocess

DEVICE = {"finish", "wait", "read", "write", "map"}


def names(tokens):
    """module+offset -> the function's name (addr2line, one call a module)."""
    by_module = collections.defaultdict(set)
    for token in tokens:
        if token != "?":
            module, offset = token.rsplit("+", 1)
            by_module[module].add(offset)
    named = {"?": "?"}
    for module, offsets in by_module.items():
        offsets = sorted(offsets)
        out = subprocess.run(["addr2line", "-f", "-C", "-e", module] + ["0x" + o for o in offsets],
                             capture_output=True, text=True).stdout.splitlines()
        for offset, function in zip(offsets, out[0::2]):
            named[module + "+" + offset] = re.sub(r"\(.*", "", function).replace("clcg::", "")
    return named


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("census")
    parser.add_argument("--within", default="")
    parser.add_argument("--by", default=r"^(distributed|solver|cl)::")
    args = parser.parse_args()
    rows = []
    with open(args.census) as f:
        for line in f:
            count, what, seconds, *site = line.split()
            rows.append((int(count), what, float(seconds), site))
    named = names({token for *_, site in rows for token in site})
    device, mpi = collections.Counter(), collections.Counter()
    device_s, mpi_s = collections.Counter(), collections.Counter()
    for count, what, seconds, site in rows:
        callers = [named[token] for token in site]
        within = [i for i, c in enumerate(callers) if args.within and re.search(args.within, c)]
        if args.within and not within:
            continue
        matching = [c for c in callers if re.search(args.by, c)]
        if within and within[0] > 0:
            key = callers[within[0] - 1]
        else:
            key = matching[-1] if matching else (callers[0] if callers else "?")
        if what in DEVICE:
            device[key] += count
            device_s[key] += seconds
        elif what.startswith("MPI_"):
            mpi[key] += count
            mpi_s[key] += seconds
    print("%8s %9s %8s %9s  %s" % ("device", "ms", "MPI", "ms", "caller"))
    for key in sorted(set(device) | set(mpi), key=lambda k: -(device_s[k] + mpi_s[k])):
        print("%8d %9.1f %8d %9.1f  %s" % (device[key], 1e3 * device_s[key], mpi[key], 1e3 * mpi_s[key], key))
    print("%8d %9.1f %8d %9.1f  total" % (sum(device.values()), 1e3 * sum(device_s.values()), sum(mpi.values()),
                                         1e3 * sum(mpi_s.values())))


if __name__ == "__main__":
    main()
