#!/usr/bin/env python3
"""The include rules of docs/ARCHITECTURE.md: no layer includes one above it.

Every C++ file under reduction/ and solver/ belongs to a layer named by its folder
(reduction/cl/ and clcg/cl/: `cl`; reduction/reduce/ and clcg/reduction/: `reduction`; solver/<folder>/ and solver/include/clcg/solver/<folder>/:
that folder). Each `#include "clcg/<...>"` must name a layer that the file's layer may use.
Fails listing every offending line.

  include_rules_test.py <repository root>
"""
import pathlib
import re
import sys

# Which layers each layer may include (itself included). Lowest first.
ALLOWED = {
    "cl": {"cl"},
    "reduction": {"cl", "reduction"},
    "io": {"io"},
    "problems": {"io", "problems"},
    "sparse": {"cl", "reduction", "io", "sparse"},
    "direct": {"cl", "reduction", "io", "sparse", "direct"},
    "precond": {"cl", "reduction", "io", "sparse", "direct", "precond"},
    "krylov": {"cl", "reduction", "io", "sparse", "direct", "precond", "multigrid", "krylov"},
    "multigrid": {"cl", "reduction", "io", "sparse", "direct", "precond", "multigrid"},
    "distributed": {"cl", "reduction", "io", "problems", "sparse", "direct", "precond", "multigrid", "krylov",
                    "distributed"},
    "eigen": {"cl", "reduction", "io", "sparse", "direct", "precond", "multigrid", "krylov", "eigen"},
}
# clcg/solver/version.hpp belongs to no layer: anyone may include it.
ANYONE = {"clcg/solver/version.hpp"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"(clcg/[^"]+)"')


def layer_of_file(root, path):
    rel = path.relative_to(root).parts
    if rel[0] == "reduction":
        if rel[1] == "include":
            return rel[3]  # reduction/include/clcg/<cl|reduction>/...
        return {"cl": "cl", "reduce": "reduction"}.get(rel[1])  # reduction/<cl|reduce>/x.cpp
    if rel[0] == "solver":
        if rel[1] == "include":
            return rel[4] if len(rel) > 5 else None  # solver/include/clcg/solver/<layer>/x.hpp
        return rel[1] if len(rel) > 2 else None  # solver/<layer>/x.cpp; solver/version.cpp: none
    return None


def layer_of_include(name):
    parts = name.split("/")
    if parts[1] in ("cl", "reduction"):
        return parts[1]
    if parts[1] == "solver" and len(parts) > 3:
        return parts[2]
    return None


def main():
    root = pathlib.Path(sys.argv[1]).resolve()
    files = [p for top in ("reduction", "solver") for p in (root / top).rglob("*")
             if p.suffix in (".hpp", ".cpp", ".h")]
    problems, checked = [], 0
    for path in sorted(files):
        layer = layer_of_file(root, path)
        if layer is None:
            continue
        if layer not in ALLOWED:
            problems.append(f"{path.relative_to(root)}: folder '{layer}' is not a known layer")
            continue
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            match = INCLUDE.match(line)
            if not match or match.group(1) in ANYONE:
                continue
            checked += 1
            target = layer_of_include(match.group(1))
            if target not in ALLOWED[layer]:
                problems.append(f"{path.relative_to(root)}:{number}: layer '{layer}' includes "
                                f"{match.group(1)} (layer '{target}')")
    if checked == 0:
        problems.append("no clcg include was checked: wrong root?")
    for p in problems:
        print(p)
    print(f"include_rules_test: {checked} includes checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
