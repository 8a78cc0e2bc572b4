#!/usr/bin/env python3
"""OpenCL C in kernels/ that a device's compiler rejects though PoCL (the CI's device) builds it.

NVIDIA's OpenCL compiler refuses variadic macros ("variadic macros not supported in OpenCL");
PoCL's clang accepts them, so no test on the CI machine would see one. Each rule names what
to write instead. Fails listing every offending line.

  kernel_rules_test.py <repository root>
"""
import pathlib
import re
import sys

RULES = [
    (re.compile(r"^\s*#\s*define\s+\w+\([^)]*\.\.\.\s*\)"),
     "a variadic macro (NVIDIA rejects them): pass a function-like macro's name instead (spmv_rows.cl's ROW_PASSES)"),
    (re.compile(r"__VA_ARGS__"), "__VA_ARGS__ (NVIDIA rejects variadic macros)"),
]


def offences(root):
    found = []
    for path in sorted((root / "kernels").glob("*.cl")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            for pattern, why in RULES:
                if pattern.search(line):
                    found.append(f"{path.relative_to(root)}:{number}: {why}: {line.strip()}")
    return found


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = pathlib.Path(sys.argv[1])
    kernels = list((root / "kernels").glob("*.cl"))
    if not kernels:
        sys.exit(f"no kernels/*.cl under {root}")
    found = offences(root)
    for line in found:
        print(line)
    print(f"{len(kernels)} kernel files, {len(found)} offending lines")
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
