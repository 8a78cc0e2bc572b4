#!/usr/bin/env python3
"""Every app parses its command line the same way (apps/common/command_line.hpp):
--help prints a usage line and exits 0; an unknown option, a malformed number and a
number out of range exit 2 with a message naming the option and the usage line. None
of these needs an OpenCL device.

  app_options_test.py NAME=PATH:OPTION ...
      OPTION: a numeric option of the app, tried with 'abc' and with 0 (out of range); '-' for
      an app without one.
"""
import subprocess
import sys


def run(args):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)


def main():
    failures, checked = [], 0
    for spec in sys.argv[1:]:
        name, rest = spec.split("=", 1)
        path, option = rest.rsplit(":", 1)

        def expect(args, code, stream_has, where):
            nonlocal checked
            checked += 1
            proc = run([path] + args)
            text = proc.stdout if where == "stdout" else proc.stderr
            missing = [s for s in stream_has if s not in text]
            if proc.returncode != code or missing:
                failures.append(f"{name} {' '.join(args)}: exit {proc.returncode} (want {code}), "
                                f"{where} lacks {missing}\n--- stdout\n{proc.stdout[-800:]}\n--- stderr\n{proc.stderr[-800:]}")

        expect(["--help"], 0, ["usage: " + name, "--help"], "stdout")
        expect(["-h"], 0, ["usage: " + name], "stdout")
        expect(["--no-such-option"], 2, [name + ": ", "no-such-option", "usage: " + name], "stderr")
        if option != "-":
            expect(["--" + option, "abc"], 2, ["--" + option, "'abc'", "usage: " + name], "stderr")
            expect(["--" + option, "0"], 2, ["--" + option, "got 0", "usage: " + name], "stderr")
    for f in failures:
        print(f)
    print(f"app_options_test: {checked} checks, {len(failures)} failed")
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
