#!/usr/bin/env python3
"""What a second run of the same cg-solve command spends on program builds (issue 24, part 3).

  scripts/program_cache_bench.py --cg-solve build/apps/cg-solve [-- cg-solve arguments]

Default arguments: --generate poisson3d:64 --precision float --precond chebyshev --tol 1e-5.
Two series, each run the same command several times and print timing.build_seconds and the wall:
  driver   CLCG_CACHE=0, the driver's own cache started empty (CUDA_CACHE_PATH and POCL_CACHE_DIR
           point at a fresh folder): run 1 compiles, run 2 shows what the driver's cache serves.
  clcg     clcg's binary cache in a fresh folder (CLCG_CACHE_DIR): run 1 compiles and stores,
           the later runs load.
Exits 1 when a run fails, or when a later clcg run did not load every program from the cache.
Python standard library only.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

DEFAULT_ARGS = ["--generate", "poisson3d:64", "--precision", "float", "--precond", "chebyshev", "--tol", "1e-5"]


def run(cg_solve, args, env):
    proc = subprocess.run([cg_solve] + args + ["--json", "--quiet"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, env=dict(os.environ, **env))
    if proc.returncode != 0:
        sys.exit("program_cache_bench: cg-solve exited %d: %s" % (proc.returncode, proc.stderr.strip()))
    return json.loads(proc.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cg-solve", required=True)
    parser.add_argument("--runs", type=int, default=3, help="runs per series (default 3, at least 2)")
    parser.add_argument("args", nargs="*", help="cg-solve's arguments (after --)")
    options = parser.parse_args()
    if options.runs < 2:
        parser.error("--runs must be at least 2")
    args = options.args or DEFAULT_ARGS
    print("cg-solve %s" % " ".join(args))
    print("| series | run | build_seconds | wall_seconds | programs made | loaded from cache |")
    print("|---|---|---|---|---|---|")
    failed = False
    with tempfile.TemporaryDirectory(prefix="program_cache_bench_") as scratch:
        driver_cache = os.path.join(scratch, "driver")
        series = {
            "driver": {"CLCG_CACHE": "0", "CUDA_CACHE_PATH": driver_cache, "POCL_CACHE_DIR": driver_cache},
            "clcg": {"CLCG_CACHE": "1", "CLCG_CACHE_DIR": os.path.join(scratch, "clcg")},
        }
        for name, env in series.items():
            for number in range(1, options.runs + 1):
                out = run(options.cg_solve, args, env)
                timing, programs = out["timing"], out["programs"]
                print("| %s | %d | %.4f | %.4f | %d | %d |" % (name, number, timing["build_seconds"],
                      timing["wall_seconds"], programs["made"], programs["loaded_from_cache"]), flush=True)
                if name == "clcg" and number > 1 and programs["loaded_from_cache"] != programs["made"]:
                    print("program_cache_bench: clcg run %d loaded %d of %d programs from the cache"
                          % (number, programs["loaded_from_cache"], programs["made"]), file=sys.stderr)
                    failed = True
    print("device: %s (%s, driver %s)" % (out["device"]["name"], out["device"]["platform"], out["device"]["driver"]))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
