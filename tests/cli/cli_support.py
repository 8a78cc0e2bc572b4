"""What the cg-solve end-to-end tests share: the binary and data paths (set by cli_test.py),
running cg-solve, and a small Matrix Market reader/writer in Python."""
import math
import os
import shutil
import subprocess

CG_SOLVE = None  # path of the binary under test
DATA = None  # the repository's data/ folder
SHARED = None  # ../shared/data/matrices (may be absent)

EXIT_CONVERGED, EXIT_NOT_CONVERGED, EXIT_INPUT, EXIT_DEVICE, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
USAGE_PREFIX = "usage: cg-solve"
SMALL = "random_spd_200.mtx"  # n = 200, Jacobi changes the iteration count
POISSON = "poisson2d_32.mtx"  # n = 1024


def run_cg(args, env_extra=None, timeout=600, stdout=subprocess.PIPE):
    """Runs cg-solve with args; returns the CompletedProcess (text mode)."""
    env = dict(os.environ)
    if env_extra:
        env.update(env_extra)
    return subprocess.run([CG_SOLVE] + [str(a) for a in args], stdout=stdout, stderr=subprocess.PIPE,
                          text=True, env=env, timeout=timeout)


def as_normal_user_prefix(home):
    """The command prefix that runs cg-solve as user nobody when this test runs as root (setpriv,
    util-linux), or [] when it already runs as a normal user; None when neither is possible.
    `home` becomes writable by nobody (PoCL keeps its kernel cache there)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return None
    os.chown(home, 65534, 65534)
    return [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--"]


def unreachable_for(prefix, paths):
    """The first of `paths` that the user `prefix` runs as cannot open (cg-solve: execute; others:
    read), or None. A checkout inside a folder only its owner may enter (mktemp -d makes one)
    hides the binary and the data from user nobody."""
    for path in paths:
        test = "-x" if path == CG_SOLVE else "-r"
        if subprocess.run(prefix + ["test", test, path]).returncode != 0:
            return path
    return None


def describe(proc):
    out = proc.stdout if isinstance(proc.stdout, str) else ""
    return "exit %d\n--- stdout ---\n%s\n--- stderr ---\n%s" % (proc.returncode, out[-3000:], proc.stderr[-3000:])


# ---------------------------------------------------------------- Matrix Market in Python
def _data_lines(path):
    """(line_number, text) of every non-comment, non-blank line after the banner."""
    with open(path, "r") as f:
        banner = f.readline()
        lines = []
        for number, line in enumerate(f, start=2):
            text = line.strip()
            if text and not text.startswith("%"):
                lines.append((number, text))
    return banner.lower().split(), lines


def read_coordinate(path):
    """Reads a coordinate matrix: (rows, cols, {(i, j): value}) in expanded storage, duplicates summed."""
    banner, lines = _data_lines(path)
    assert banner[:3] == ["%%matrixmarket", "matrix", "coordinate"], banner
    field, symmetry = banner[3], banner[4]
    rows, cols, entries = (int(t) for t in lines[0][1].split())
    values = {}
    for _, text in lines[1:1 + entries]:
        tokens = text.split()
        i, j = int(tokens[0]) - 1, int(tokens[1]) - 1
        v = 1.0 if field == "pattern" else float(tokens[2])
        values[(i, j)] = values.get((i, j), 0.0) + v
        if symmetry == "symmetric" and i != j:
            values[(j, i)] = values.get((j, i), 0.0) + v
    assert len(lines) - 1 == entries, path
    return rows, cols, values


def read_array(path, columns=1):
    """An array file's values, column by column (`columns` of them)."""
    banner, lines = _data_lines(path)
    assert banner[:3] == ["%%matrixmarket", "matrix", "array"], banner
    n, m = (int(t) for t in lines[0][1].split())
    assert m == columns, (n, m)
    values = [float(text) for _, text in lines[1:]]
    assert len(values) == n * m, (len(values), n * m)
    return values


def write_array(path, values):
    with open(path, "w") as f:
        f.write("%%%%MatrixMarket matrix array real general\n%d 1\n" % len(values))
        for v in values:
            f.write("%.17g\n" % v)


def multiply(rows, values, x):
    y = [0.0] * rows
    for (i, j), v in values.items():
        y[i] += v * x[j]
    return y


def norm(v):
    return math.sqrt(sum(t * t for t in v))


def relative_difference(x, y):
    return norm([a - b for a, b in zip(x, y)]) / norm(y)


def snapshot(folder):
    """Names and contents of every file in folder (to prove nothing was created or changed)."""
    result = {}
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if os.path.isfile(path) and not os.path.islink(path):
            with open(path, "rb") as f:
                result[name] = f.read()
        else:
            result[name] = None
    return result




def shared_available():
    return SHARED is not None and os.path.isdir(SHARED)
