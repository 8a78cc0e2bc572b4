#!/usr/bin/env python3
"""clcg's preconditioners next to pyamg and AmgX on the FEM problems of fem_problems.py (issue 35).

For each problem in DIR (made by scripts/fem_problems.py, or by --generate here), b = A*1,
x0 = 0, relative tolerance 1e-8 (||b - A x|| <= tol ||b||):

  clcg-auto, clcg-amg, clcg-chebyshev, clcg-jacobi
      cg-solve --matrix DIR/<name>.mtx --json --precond P (one process each; a warm-up, then the
      median of --repeats of set-up + solve from its JSON, preconditioner.setup_seconds +
      result.solve_seconds, beside the process's whole wall time)
      With --cg-bench BIN instead: one cg-bench --preconds process a problem reads the matrix
      once and times each of --clcg-preconds (a warm-up repeat, then the median of --repeats;
      AMG's set-up kernels profiled apart), which is how the GPU figures are taken.
  clcg-amg-rbm, clcg-auto-rbm (elasticity only)
      the same with --coordinates DIR/<name>.coords.mtx --block-size d: AMG whose near-null
      space is the rigid body modes. A cg-solve without those options exits 2: "unsupported".
  pyamg-sa, pyamg-sa-rbm (rows <= --pyamg-max-rows; -rbm for elasticity)
      pyamg.smoothed_aggregation_solver with its defaults (-rbm: A as d x d blocks, B = the
      rigid body modes from the coordinates) as the preconditioner of SciPy's CG; one run on
      the host: set-up and solve seconds, steps, levels, operator complexity.
  amgx-aggregation, amgx-classical, amgx-jacobi, amgx-none (with --amgx BIN --amgx-configs DIR)
      ../shared/peers/amgx_bench.c (built by ../shared/peers/run_amgx.sh on the GPU machine):
      upload, set-up and solve, the median of 3 after a warm-up, its own JSON lines.

Writes one JSON object a line to --out (a "meta" line, then one "run" line per problem and
method, as they finish) and prints a markdown table last: problem, rows, nnz, and for each
method "steps / ms" (time to solution: set-up + solve, after the upload).

  scripts/amg_bench.py --dir DIR [--problems a,b] [--cg-solve PATH] [--repeats 3]
      [--pyamg-max-rows 500000] [--amgx BIN --amgx-configs DIR] [--out results.jsonl]
      [--generate ROWS [--jobs N]] [--methods clcg,pyamg,amgx]
  scripts/amg_bench.py --table a.jsonl b.jsonl ...      (one table from several runs' files)

On the GPU machine (Python 3.12 with numpy and SciPy; scikit-fem, pyamg and fast_matrix_market
come as wheels in .whl/, downloaded here by `pip download`), from the checkout's root:

  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site

then, e.g. (generates the eight problems at ~2M rows into /tmp/fem, then runs them all):

  python3 scripts/amg_bench.py --dir /tmp/fem --generate 2e6 --cg-solve build/apps/cg-solve --out $OUT/amg_bench.jsonl

Generating all eight at ~2M rows took 3 minutes there (16 processes; elasticity3d 53 s, 6.7 GB).
A command there may last 10 minutes: give each call a few --problems (each generates only what
it lacks) and its own --out, then merge the files into one table with --table.
"""
from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import pathlib
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import scipy.sparse as sp

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

# cg-solve exit codes (DESIGN.md): 0 converged, 1 not converged, 2 usage or input error, 3 device
CLCG_PRECONDS = ["auto", "amg", "chebyshev", "jacobi"]
NEW_OPTIONS = ("--coordinates", "--block-size", "--near-nullspace")
# amgx_bench.c's configuration names -> method names here
AMGX_METHODS = {"aggregation-AMG PCG": "amgx-aggregation", "classical-AMG PCG": "amgx-classical",
                "Jacobi PCG": "amgx-jacobi", "plain CG": "amgx-none"}


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def find_cg_solve(given: str | None) -> str | None:
    if given:
        path = shutil.which(given) or (given if os.access(given, os.X_OK) else None)
        if not path:
            raise SystemExit(f"amg_bench: --cg-solve {given}: not an executable")
        return path
    for candidate in (ROOT / "build" / "apps" / "cg-solve", ROOT / "build" / "apps" / "cg_solve" / "cg-solve"):
        if os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which("cg-solve")


def load_problems(directory: pathlib.Path, names: list[str] | None) -> list[dict]:
    infos = []
    available = {p.stem: p for p in sorted(directory.glob("*.json"))}
    if names is None:
        import fem_problems
        names = [n for n in fem_problems.PROBLEMS if n in available]  # the order
        names += [n for n in available if n not in names]
        if not names:
            raise SystemExit(f"amg_bench: no <name>.json in {directory} (make them with scripts/fem_problems.py or --generate)")
    for name in names:
        if name not in available:
            raise SystemExit(f"amg_bench: {directory}/{name}.json is missing (known there: {', '.join(available) or 'none'})")
        info = json.loads(available[name].read_text())
        info["matrix_path"] = str(directory / f"{name}.mtx")
        info["coords_path"] = str(directory / f"{name}.coords.mtx") if info.get("block_size", 1) > 1 else None
        for path in filter(None, (info["matrix_path"], info["coords_path"])):
            if not os.path.isfile(path):
                raise SystemExit(f"amg_bench: {path} is missing")
        infos.append(info)
    return infos


def generate(directory: pathlib.Path, names: list[str] | None, rows: float, jobs: int) -> None:
    """Make the problems whose files are missing or of another requested size."""
    import fem_problems
    for name in names or list(fem_problems.PROBLEMS):
        meta = directory / f"{name}.json"
        if meta.is_file() and json.loads(meta.read_text()).get("requested_rows") == rows:
            continue
        log(f"generating {name} at ~{rows:.3g} rows into {directory}")
        a, coords, _, info = fem_problems.generate(name, rows, jobs=jobs)
        info = fem_problems.write(directory, a, coords, info)
        del a, coords
        log(f"  rows {info['rows']}, nnz {info['nnz']}, {info['generation_seconds']} s + write {info['write_seconds']} s")


# ----------------------------------------------------------------------------------------------
# clcg

def cg_solve_once(command: list[str], timeout: float) -> dict:
    start = time.perf_counter()
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "process_ms": 1e3 * (time.perf_counter() - start)}
    process_ms = 1e3 * (time.perf_counter() - start)
    stderr_tail = proc.stderr.strip().splitlines()[-3:]
    if proc.returncode == 2:
        unsupported = any(o in proc.stderr for o in NEW_OPTIONS if o in command) or "unrecognised option" in proc.stderr
        return {"status": "unsupported" if unsupported else "input_error", "exit_code": 2, "stderr": stderr_tail}
    if proc.returncode not in (0, 1):
        return {"status": "device_error" if proc.returncode == 3 else "error", "exit_code": proc.returncode,
                "stderr": stderr_tail}
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError:
        return {"status": "error", "exit_code": proc.returncode, "stderr": stderr_tail, "stdout": proc.stdout[-500:]}
    result, precond = report.get("result", {}), report.get("preconditioner", {})
    setup = float(precond.get("setup_seconds", result.get("setup_seconds", 0.0)))
    solve = float(result.get("solve_seconds", 0.0))
    run = {
        "status": "converged" if proc.returncode == 0 and result.get("converged") else "not_converged",
        "exit_code": proc.returncode,
        "iterations": result.get("iterations"),
        "relative_residual": result.get("relative_residual"),
        "error_vs_ones": result.get("error_vs_ones"),
        "setup_ms": 1e3 * setup,
        "solve_ms": 1e3 * solve,
        "ms": 1e3 * (setup + solve),
        "process_ms": process_ms,
        "wall_ms": 1e3 * report["timing"]["wall_seconds"] if "wall_seconds" in report.get("timing", {}) else None,
        "upload_ms": 1e3 * result["upload_seconds"] if "upload_seconds" in result else None,
        "precond": precond.get("name"),
        "plan": report.get("solver", {}).get("plan"),
        "levels": [level.get("rows") for level in precond.get("levels", [])] or None,
        "operator_complexity": precond.get("operator_complexity"),
        "device": report.get("device", {}).get("name"),
        "clcg_version": report.get("clcg_version"),
    }
    if run["status"] != "converged":
        run["message"] = result.get("message")
    return run


def run_clcg(cg_solve: str, problem: dict, method: str, extra: list[str], args) -> dict:
    precond = method.removeprefix("clcg-").removesuffix("-rbm")
    command = [cg_solve, "--matrix", problem["matrix_path"], "--json", "--quiet", "--precond", precond,
               "--tol", repr(args.tol), "--max-iter", str(args.max_iter)]
    if method.endswith("-rbm"):
        command += ["--coordinates", problem["coords_path"], "--block-size", str(problem["block_size"])]
    command += extra
    first = cg_solve_once(command, args.timeout)  # the warm-up (program binaries cached, file in the page cache)
    record = {"command": shlex.join(command)}
    if first["status"] != "converged":  # repeating a failure measures nothing new
        return {**record, **first, "repeats": 0}
    runs = [cg_solve_once(command, args.timeout) for _ in range(args.repeats)]
    good = [r for r in runs if r["status"] == "converged"]
    if len(good) < len(runs):
        bad = next(r for r in runs if r["status"] != "converged")
        return {**record, **bad, "repeats": len(runs), "note": "a repeat failed after a converged warm-up"}
    best = dict(good[0])
    for key in ("ms", "setup_ms", "solve_ms", "process_ms", "wall_ms", "upload_ms"):
        values = [r[key] for r in good if r.get(key) is not None]
        best[key] = statistics.median(values) if values else None
    best["ms_all"] = [round(r["ms"], 3) for r in good]
    best["iterations_all"] = sorted({r["iterations"] for r in good})
    return {**record, **best, "repeats": len(good)}


def run_cg_bench(cg_bench: str, problem: dict, extra: list[str], args) -> list[dict]:
    """Every clcg method of a problem through cg-bench --preconds (cg_time_to_solution.hpp), one
    process for the plain preconditioners and one with the rigid body modes for elasticity."""
    runs = [("", args.clcg_preconds)]
    if problem.get("block_size", 1) > 1:
        runs.append(("-rbm", [p for p in ("amg", "auto") if p in args.clcg_preconds]))
    records = []
    for suffix, preconds in runs:
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(tmp) / "cg.json"
            command = [cg_bench, "--mtx", problem["matrix_path"], "--preconds", ",".join(preconds),
                       "--repeats", str(args.repeats), "--json", str(out)] + extra
            if suffix:
                command += ["--coordinates", problem["coords_path"]]
            start = time.perf_counter()
            try:
                proc = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout * len(preconds))
                failure = None if proc.returncode == 0 else {
                    "status": "error", "exit_code": proc.returncode, "stderr": proc.stderr.strip().splitlines()[-3:]}
            except subprocess.TimeoutExpired:
                failure = {"status": "timeout"}
            rows = json.loads(out.read_text())["time_to_solution"] if out.is_file() else []
        process_ms = 1e3 * (time.perf_counter() - start)
        for row in rows:
            records.append({
                "method": "clcg-" + row["precond"].split(" ")[0] + suffix, "command": shlex.join(command),
                "status": "converged" if row["converged"] else "not_converged", "iterations": row["iterations"],
                "relative_residual": row["true_residual"], "setup_ms": row["setup_ms"], "solve_ms": row["solve_ms"],
                "ms": row["total_ms"], "update_ms": row["update_ms"], "precond": row["precond"],
                "precision": row["precision"], "variant": row["variant"], "levels": row["level_rows"] or None,
                "phases_ms": row.get("phases_ms"), "process_ms": process_ms, "repeats": args.repeats})
        if failure:
            done = {r["method"] for r in records}
            records += [{"method": f"clcg-{p}{suffix}", **failure, "command": shlex.join(command)}
                        for p in preconds if f"clcg-{p}{suffix}" not in done]
    return records


# ----------------------------------------------------------------------------------------------
# pyamg

def read_matrix(path: str) -> sp.csr_matrix:
    try:
        import fast_matrix_market as fmm
        a = fmm.mmread(path)
    except ImportError:
        import scipy.io
        a = scipy.io.mmread(path)
    return sp.csr_matrix(a)


def read_coords(path: str) -> np.ndarray:
    try:
        import fast_matrix_market as fmm
        return np.asarray(fmm.mmread(path))
    except ImportError:
        import scipy.io
        return np.asarray(scipy.io.mmread(path))


def run_pyamg(a: sp.csr_matrix, coords, block_size: int, rbm: bool, args) -> dict:
    import pyamg
    import scipy.sparse.linalg as sla
    from fem_problems import rigid_body_modes
    b = a @ np.ones(a.shape[0])
    start = time.perf_counter()
    if rbm:
        # pyamg aggregates a node's unknowns together when A comes as d x d blocks
        ml = pyamg.smoothed_aggregation_solver(sp.bsr_matrix(a, blocksize=(block_size, block_size)),
                                               B=rigid_body_modes(coords))
    else:
        ml = pyamg.smoothed_aggregation_solver(a)
    setup = time.perf_counter() - start
    steps = []
    start = time.perf_counter()
    try:
        x, info = sla.cg(a, b, rtol=args.tol, maxiter=args.max_iter, M=ml.aspreconditioner(cycle="V"),
                         callback=lambda _: steps.append(1))
    except TypeError:  # SciPy before 1.12 calls it tol
        x, info = sla.cg(a, b, tol=args.tol, maxiter=args.max_iter, M=ml.aspreconditioner(cycle="V"),
                         callback=lambda _: steps.append(1))
    solve = time.perf_counter() - start
    residual = float(np.linalg.norm(b - a @ x) / np.linalg.norm(b))
    return {
        "status": "converged" if info == 0 else "not_converged",
        "iterations": len(steps),
        "relative_residual": residual,
        "error_vs_ones": float(np.linalg.norm(x - 1.0) / math.sqrt(a.shape[0])),
        "setup_ms": 1e3 * setup, "solve_ms": 1e3 * solve, "ms": 1e3 * (setup + solve),
        "levels": [level.A.shape[0] for level in ml.levels],
        "operator_complexity": float(ml.operator_complexity()),
        "pyamg_version": pyamg.__version__,
        "setup": "smoothed_aggregation_solver defaults" + (", A as BSR d x d, B = rigid body modes" if rbm else ""),
    }


# ----------------------------------------------------------------------------------------------
# AmgX

def run_amgx(problem: dict, args) -> list[dict]:
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "amgx.jsonl"
        command = [args.amgx, args.amgx_configs, "--mtx", problem["matrix_path"], "--json", str(out)]
        env = dict(os.environ, AMGX_SKIP=args.amgx_skip) if args.amgx_skip else None
        start = time.perf_counter()
        try:
            proc = subprocess.run(command, capture_output=True, text=True, timeout=args.amgx_timeout, env=env)
            failure = None if proc.returncode == 0 else {"status": "error", "exit_code": proc.returncode,
                                                         "stderr": (proc.stdout + proc.stderr).strip().splitlines()[-3:]}
        except subprocess.TimeoutExpired:
            failure = {"status": "timeout"}
        process_ms = 1e3 * (time.perf_counter() - start)
        lines = [json.loads(line) for line in out.read_text().splitlines() if line.strip()] if out.is_file() else []
    records = []
    for line in lines:
        converged = line.get("status") == 0  # AMGX_SOLVE_SUCCESS; its true residual is recorded beside
        records.append({
            "method": AMGX_METHODS.get(line.get("config"), "amgx-" + str(line.get("config"))),
            "status": "converged" if converged else "not_converged",
            "iterations": line.get("iters"), "relative_residual": line.get("relres"),
            "upload_ms": line.get("upload_ms"), "setup_ms": line.get("setup_ms"), "solve_ms": line.get("solve_ms"),
            "ms": (line.get("setup_ms") or 0.0) + (line.get("solve_ms") or 0.0),
            "amgx_status": line.get("status"), "command": shlex.join(command), "process_ms": process_ms})
    if failure:  # the configurations after a failing one never ran
        ran = {r["method"] for r in records}
        skipped = set(args.amgx_skip or "")
        for index, method in enumerate(AMGX_METHODS.values()):
            if method not in ran and str(index) not in skipped:
                records.append({"method": method, **failure, "command": shlex.join(command)})
                failure = {"status": "not_run", "note": "an earlier AmgX configuration failed"}
    return records


# ----------------------------------------------------------------------------------------------

def cell(record: dict | None) -> str:
    if record is None:
        return "—"
    status = record["status"]
    if status == "converged":
        return f"{record['iterations']} / {record['ms']:.1f}"
    if status == "not_converged":
        return f"n.c. ({record.get('iterations')})"
    return status.replace("_", " ")


def table(problems: list[dict], records: list[dict]) -> str:
    methods = []
    for r in records:
        if r["method"] not in methods:
            methods.append(r["method"])
    by = {(r["problem"], r["method"]): r for r in records}
    lines = ["| problem | rows | nnz | " + " | ".join(methods) + " |",
             "|---|---:|---:|" + "---:|" * len(methods)]
    for p in problems:
        lines.append(f"| {p['name']} | {p['rows']:,} | {p['nnz']:,} | "
                     + " | ".join(cell(by.get((p["name"], m))) for m in methods) + " |")
    lines.append("")
    lines.append("Cells: CG steps / ms to solution (set-up + solve; clcg: median of the repeats); "
                 "n.c. = not converged (steps); unsupported = cg-solve lacks the option.")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--dir", type=pathlib.Path, help="the problems: <name>.mtx/.json[/.coords.mtx]")
    parser.add_argument("--table", type=pathlib.Path, nargs="+", metavar="JSONL",
                        help="run nothing: print one table of these --out files' runs (e.g. of several calls)")
    parser.add_argument("--problems", help="comma-separated names (default: every one in --dir)")
    parser.add_argument("--methods", default=None, help="comma-separated families: clcg, pyamg, amgx "
                        "(default: clcg and pyamg, and amgx with --amgx)")
    parser.add_argument("--cg-solve", help="cg-solve to run (default: build/apps/cg-solve, else PATH)")
    parser.add_argument("--cg-solve-args", default="", help="more cg-solve (or cg-bench) arguments, e.g. '--device gpu'")
    parser.add_argument("--cg-bench", help="run clcg through this cg-bench (--preconds) instead of cg-solve processes")
    parser.add_argument("--clcg-preconds", default=",".join(CLCG_PRECONDS),
                        help=f"clcg's preconditioners (default {','.join(CLCG_PRECONDS)})")
    parser.add_argument("--repeats", type=int, default=3, help="clcg: timed runs after a warm-up, the median kept (default 3)")
    parser.add_argument("--tol", type=float, default=1e-8, help="relative residual tolerance (default 1e-8)")
    parser.add_argument("--max-iter", type=int, default=20000, help="CG step limit, every method (default 20000)")
    parser.add_argument("--timeout", type=float, default=240, help="seconds one cg-solve process may take (default 240)")
    parser.add_argument("--pyamg-max-rows", type=float, default=5e5, help="skip pyamg above this many rows (default 5e5)")
    parser.add_argument("--amgx", help="amgx_bench binary (../shared/peers/amgx_bench.c, built by run_amgx.sh)")
    parser.add_argument("--amgx-configs", help="AmgX's src/configs folder")
    parser.add_argument("--amgx-skip", default="1", help="AMGX_SKIP: configurations left out (default 1, classical "
                        "AMG: it fails in set-up in the CUDA 13 build and ends the process; '' runs all)")
    parser.add_argument("--amgx-timeout", type=float, default=480, help="seconds for one problem's AmgX process (default 480)")
    parser.add_argument("--generate", type=float, metavar="ROWS", help="first make the problems missing in --dir at ~ROWS rows")
    parser.add_argument("--jobs", type=int, default=min(16, os.cpu_count() or 1), help="--generate's assembly processes")
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("amg_bench.jsonl"), help="JSON lines (default amg_bench.jsonl)")
    args = parser.parse_args(argv)

    if args.table:
        records = []
        for path in args.table:
            try:
                with open(path) as f:
                    records += [r for r in map(json.loads, filter(str.strip, f)) if r.get("kind") == "run"]
            except (OSError, json.JSONDecodeError) as error:
                parser.error(f"--table {path}: {error}")
        problems = {}
        for r in records:
            problems[r["problem"]] = {"name": r["problem"], "rows": r["rows"], "nnz": r["nnz"]}  # the last file wins
        print(table(list(problems.values()), records))
        return 0
    if args.dir is None:
        parser.error("--dir is required (or --table)")
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    if not (0 < args.tol < 1):
        parser.error("--tol must be in (0, 1)")
    if args.max_iter < 1:
        parser.error("--max-iter must be at least 1")
    if (args.amgx is None) != (args.amgx_configs is None):
        parser.error("--amgx and --amgx-configs go together")
    if args.amgx and not os.access(args.amgx, os.X_OK):
        parser.error(f"--amgx {args.amgx}: not an executable")
    if args.amgx_configs and not os.path.isdir(args.amgx_configs):
        parser.error(f"--amgx-configs {args.amgx_configs}: not a folder")
    families = (args.methods.split(",") if args.methods else ["clcg", "pyamg"] + (["amgx"] if args.amgx else []))
    unknown = set(families) - {"clcg", "pyamg", "amgx"}
    if unknown:
        parser.error(f"--methods: unknown {', '.join(sorted(unknown))} (clcg, pyamg, amgx)")
    if "amgx" in families and not args.amgx:
        parser.error("--methods amgx needs --amgx BIN --amgx-configs DIR")
    names = [n for n in args.problems.split(",") if n] if args.problems else None
    if args.generate is not None:
        if not args.generate >= 1:
            parser.error("--generate ROWS must be at least 1")
        args.dir.mkdir(parents=True, exist_ok=True)
        generate(args.dir, names, args.generate, args.jobs)
    if not args.dir.is_dir():
        parser.error(f"--dir {args.dir}: not a folder")
    problems = load_problems(args.dir, names)
    args.clcg_preconds = [p for p in args.clcg_preconds.split(",") if p]
    if set(args.clcg_preconds) - set(CLCG_PRECONDS):
        parser.error(f"--clcg-preconds: give some of {', '.join(CLCG_PRECONDS)}")
    if args.cg_bench and not os.access(args.cg_bench, os.X_OK):
        parser.error(f"--cg-bench {args.cg_bench}: not an executable")
    cg_solve = find_cg_solve(args.cg_solve) if "clcg" in families and not args.cg_bench else None
    if "clcg" in families and not cg_solve and not args.cg_bench:
        parser.error("no cg-solve found (build it, or give --cg-solve PATH, or leave clcg out of --methods)")
    extra = shlex.split(args.cg_solve_args)

    args.out.parent.mkdir(parents=True, exist_ok=True)
    records = []
    with open(args.out, "w") as out:
        def emit(record):
            out.write(json.dumps(record) + "\n")
            out.flush()
        emit({"kind": "meta", "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              "host": platform.node(), "cpus": os.cpu_count(), "python": platform.python_version(),
              "cg_solve": cg_solve, "cg_solve_args": extra, "tol": args.tol, "max_iter": args.max_iter,
              "repeats": args.repeats, "dir": str(args.dir), "families": families,
              "amgx": args.amgx, "amgx_skip": args.amgx_skip})
        for problem in problems:
            base = {"kind": "run", "problem": problem["name"], "rows": problem["rows"], "nnz": problem["nnz"],
                    "block_size": problem.get("block_size", 1)}

            def keep(method, result):
                record = {**base, "method": method, **result}
                records.append(record)
                emit(record)
                log(f"{problem['name']:15s} {method:18s} {cell(record)}")

            if "clcg" in families and args.cg_bench:
                for record in run_cg_bench(args.cg_bench, problem, extra, args):
                    keep(record.pop("method"), record)
            elif "clcg" in families:
                methods = [f"clcg-{p}" for p in args.clcg_preconds]
                if problem.get("block_size", 1) > 1:
                    methods += [f"clcg-{p}-rbm" for p in ("amg", "auto") if p in args.clcg_preconds]
                for method in methods:
                    keep(method, run_clcg(cg_solve, problem, method, extra, args))
            if "pyamg" in families:
                rbm = [False, True] if problem.get("block_size", 1) > 1 else [False]
                if problem["rows"] > args.pyamg_max_rows:
                    for with_modes in rbm:
                        keep("pyamg-sa-rbm" if with_modes else "pyamg-sa",
                             {"status": "skipped", "note": f"rows > --pyamg-max-rows {args.pyamg_max_rows:g}"})
                else:
                    a = read_matrix(problem["matrix_path"])
                    coords = read_coords(problem["coords_path"]) if problem["coords_path"] else None
                    for with_modes in rbm:
                        keep("pyamg-sa-rbm" if with_modes else "pyamg-sa",
                             run_pyamg(a, coords, problem.get("block_size", 1), with_modes, args))
                    del a
            if "amgx" in families:
                for record in run_amgx(problem, args):
                    keep(record.pop("method"), record)
    print(table(problems, records))
    return 0


if __name__ == "__main__":
    sys.exit(main())
