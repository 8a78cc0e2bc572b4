"""Device errors and outputs that must not be lost."""
import os
import stat
import subprocess
import tempfile
import unittest

import cli_support as support
from cli_support import (EXIT_DEVICE, EXIT_INPUT, SMALL, describe, run_cg)


# ---------------------------------------------------------------- device errors and lost output
class DeviceAndOutputTest(unittest.TestCase):
    """Exit 3 for device problems; an output that cannot be written is never a success."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="cli_test_")
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def test_device_index_out_of_range(self):
        proc = run_cg(["--matrix", os.path.join(support.DATA, SMALL), "--device", "99", "--output",
                       os.path.join(self.dir, "x.mtx")])
        self.assertEqual(proc.returncode, EXIT_DEVICE, describe(proc))
        self.assertIn("99", proc.stderr)
        self.assertRegex(proc.stderr, r"device 0: ", "the message lists the devices")
        self.assertEqual(os.listdir(self.dir), [])

    def test_platform_matching_nothing(self):
        proc = run_cg(["--matrix", os.path.join(support.DATA, SMALL), "--platform", "nosuch", "--json"])
        self.assertEqual(proc.returncode, EXIT_DEVICE, describe(proc))
        self.assertIn("nosuch", proc.stderr)
        self.assertRegex(proc.stderr, r"device 0: ", "the message lists the devices")
        self.assertEqual(proc.stdout, "")

    def test_malformed_memory_limit_is_an_input_error(self):
        for args in (["--matrix", os.path.join(support.DATA, SMALL)], ["--list-devices"]):
            with self.subTest(args=args):
                proc = run_cg(args, env_extra={"CLCG_DEVICE_MEMORY_LIMIT": "lots"})
                self.assertEqual(proc.returncode, EXIT_INPUT, describe(proc))
                self.assertIn("CLCG_DEVICE_MEMORY_LIMIT must be a number of bytes, got 'lots'", proc.stderr)
                self.assertTrue(proc.stderr.startswith("cg-solve: "), describe(proc))

    def test_device_memory_limit(self):
        output = os.path.join(self.dir, "x.mtx")
        proc = run_cg(["--matrix", os.path.join(support.DATA, SMALL), "--output", output, "--json"],
                      env_extra={"CLCG_DEVICE_MEMORY_LIMIT": "1000"})
        self.assertEqual(proc.returncode, EXIT_DEVICE, describe(proc))
        self.assertRegex(proc.stderr, r"needs \d+ bytes")
        self.assertIn("available", proc.stderr)
        self.assertEqual(proc.stdout, "")
        self.assertEqual(os.listdir(self.dir), [], "no output file on failure")

    def test_output_onto_special_file(self):
        # Like --output /dev/full. The real /dev/full is not used: as root, in a writable
        # /dev, a rename would replace the device node itself. A node made here (or a FIFO
        # where mknod is not allowed) has the same type.
        node = os.path.join(self.dir, "full")
        kind = "character device"
        try:
            os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
        except (PermissionError, OSError):
            os.mkfifo(node)
            kind = "FIFO"
        mode_before = os.lstat(node).st_mode
        proc = run_cg(["--matrix", os.path.join(support.DATA, SMALL), "--output", node, "--json"])
        mode_after = os.lstat(node).st_mode
        self.assertEqual(stat.S_IFMT(mode_after), stat.S_IFMT(mode_before),
                         "the %s was replaced by a regular file (exit %d)" % (kind, proc.returncode))
        self.assertEqual(proc.returncode, EXIT_INPUT, "--output onto a %s: %s" % (kind, describe(proc)))
        self.assertEqual(proc.stdout, "", "no success reported")
        self.assertIn(node, proc.stderr)

    @unittest.skipIf(hasattr(os, "geteuid") and os.geteuid() == 0,
                     "running as root: --output /dev/full could replace the device node")
    def test_output_dev_full(self):
        proc = run_cg(["--matrix", os.path.join(support.DATA, SMALL), "--output", "/dev/full"])
        self.assertEqual(proc.returncode, EXIT_INPUT, describe(proc))
        self.assertIn("/dev/full", proc.stderr)

    def test_disk_full_while_writing_the_output(self):
        # A 16 KB tmpfs with ~4 KB free: the solution (1000 values, ~25 KB) cannot fit.
        disk = os.path.join(self.dir, "tiny")
        os.mkdir(disk)
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16k", "tmpfs", disk],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if mounted.returncode != 0:
            self.skipTest("cannot mount a tiny tmpfs here (needs root): %s" % mounted.stdout.strip())
        try:
            with open(os.path.join(disk, "filler"), "wb") as f:
                f.write(b"\0" * 12000)
            target = os.path.join(disk, "x.mtx")
            with open(target, "w") as f:
                f.write("the previous result\n")
            proc = run_cg(["--matrix", os.path.join(support.DATA, "poisson3d_10.mtx"), "--output", target, "--quiet"])
            self.assertEqual(proc.returncode, EXIT_INPUT, describe(proc))
            self.assertIn(target, proc.stderr)
            self.assertIn("No space left on device", proc.stderr)
            with open(target) as f:
                self.assertEqual(f.read(), "the previous result\n", "the old output must be untouched")
            self.assertEqual(sorted(os.listdir(disk)), ["filler", "x.mtx"], "no temporary left behind")
        finally:
            subprocess.run(["umount", disk])

    def test_json_to_full_stdout(self):
        # stdout is /dev/full: the JSON is lost, so the run must not exit 0.
        with open("/dev/full", "w") as full:
            proc = run_cg(["--matrix", os.path.join(support.DATA, SMALL), "--json", "--quiet"], stdout=full)
        self.assertNotEqual(proc.returncode, 0, "JSON written to a full device, yet exit 0; stderr: %r"
                            % proc.stderr)
        self.assertTrue(proc.stderr.startswith("cg-solve: "), "an error message on stderr: %r" % proc.stderr)


