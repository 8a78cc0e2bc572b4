#!/usr/bin/env python3
"""Names the call sites of a wait census (scripts/wait_census.c) and sums them.

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
            count, what, *site = line.split()
            rows.append((int(count), what, site))
    named = names({token for _, _, site in rows for token in site})
    device, mpi = collections.Counter(), collections.Counter()
    for count, what, site in rows:
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
        elif what.startswith("MPI_"):
            mpi[key] += count
    print("%8s %8s  %s" % ("device", "MPI", "caller"))
    for key in sorted(set(device) | set(mpi), key=lambda k: -(device[k] + mpi[k])):
        print("%8d %8d  %s" % (device[key], mpi[key], key))
    print("%8d %8d  total" % (sum(device.values()), sum(mpi.values())))


if __name__ == "__main__":
    main()
