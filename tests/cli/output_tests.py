"""Device errors and outputs that must not be lost."""
import os
import stat
import subprocess
import tempfile
import threading
import unittest

import cli_support as support
from cli_support import (EXIT_CONVERGED, EXIT_DEVICE, EXIT_INPUT, SMALL, describe, read_array, run_cg)


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

    def test_the_file_is_named_before_the_device_opened_beside_its_read(self):
        # The device opens on a thread of its own while A is read: a missing file still ends the
        # run (exit 2, naming it), not the device that failed to open meanwhile.
        missing = os.path.join(self.dir, "missing.mtx")
        proc = run_cg(["--matrix", missing, "--device", "99"])
        self.assertEqual(proc.returncode, EXIT_INPUT, describe(proc))
        self.assertIn(missing, proc.stderr)
        self.assertNotIn("99", proc.stderr.replace(missing, ""))

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
        # CG needs A on the device (auto would solve this small matrix directly, on the host)
        proc = run_cg(["--matrix", os.path.join(support.DATA, SMALL), "--output", output, "--json",
                       "--precond", "jacobi"], env_extra={"CLCG_DEVICE_MEMORY_LIMIT": "1000"})
        self.assertEqual(proc.returncode, EXIT_DEVICE, describe(proc))
        self.assertRegex(proc.stderr, r"needs \d+ bytes")
        self.assertIn("available", proc.stderr)
        self.assertEqual(proc.stdout, "")
        self.assertEqual(os.listdir(self.dir), [], "no output file on failure")

    def test_output_onto_a_full_device_node(self):
        # Like --output /dev/full, in a node made here: written straight into (never replaced by
        # a rename), so the write fails with ENOSPC: exit 2, the node still a device. Where
        # mknod is not allowed, a FIFO whose reader takes x instead (exit 0, still a FIFO).
        node = os.path.join(self.dir, "full")
        kind = "character device"
        try:
            os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
        except (PermissionError, OSError):
            os.mkfifo(node)
            kind = "FIFO"
        mode_before = os.lstat(node).st_mode
        received = []
        reader = threading.Thread(target=lambda: received.append(open(node).read())) if kind == "FIFO" else None
        if reader:
            reader.start()
        proc = run_cg(["--matrix", os.path.join(support.DATA, SMALL), "--output", node, "--json"])
        if reader:
            reader.join(60)
        self.assertEqual(stat.S_IFMT(os.lstat(node).st_mode), stat.S_IFMT(mode_before),
                         "the %s was replaced by a regular file (exit %d)" % (kind, proc.returncode))
        if kind == "FIFO":
            self.assertEqual(proc.returncode, EXIT_CONVERGED, describe(proc))
            self.assertTrue(received and received[0].startswith("%%MatrixMarket matrix array"), received)
        else:
            self.assertEqual(proc.returncode, EXIT_INPUT, describe(proc))
            self.assertEqual(proc.stdout, "", "no success reported")
            self.assertIn(node, proc.stderr)
            self.assertIn("No space left on device", proc.stderr)

    def test_output_to_devices_as_root_and_as_a_normal_user(self):
        # /dev/stdout, /dev/null and /dev/full are written straight into, never replaced.
        matrix = os.path.join(support.DATA, SMALL)
        users = [("this user", [])]
        prefix = support.as_normal_user_prefix(self.dir)
        hidden = support.unreachable_for(prefix, [support.CG_SOLVE, matrix]) if prefix else None
        if prefix and not hidden:
            users.append(("nobody", prefix))
        elif prefix is None:
            print("cli_test: no setpriv: the normal-user half of the device-output test is not run")
        if hidden:
            with self.subTest(user="nobody"):
                self.skipTest("user nobody cannot open %s (a folder above it is closed to other users): "
                              "the normal-user half of the device-output test is not run" % hidden)
        for user, prefix in users:
            env = {"HOME": self.dir} if prefix else None
            with self.subTest(user=user, target="/dev/stdout"):
                proc = subprocess.run(prefix + [support.CG_SOLVE, "--matrix", matrix, "--output", "/dev/stdout",
                                      "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                      env=dict(os.environ, **(env or {})), timeout=600)
                self.assertEqual(proc.returncode, EXIT_CONVERGED, describe(proc))
                lines = proc.stdout.splitlines()
                self.assertEqual(lines[0], "%%MatrixMarket matrix array real general")
                self.assertEqual(lines[1], "200 1")
                self.assertEqual(len(lines), 202)
                self.assertAlmostEqual(float(lines[2]), 1.0, places=5)
            with self.subTest(user=user, target="/dev/null"):
                proc = subprocess.run(prefix + [support.CG_SOLVE, "--matrix", matrix, "--output", "/dev/null",
                                      "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                      env=dict(os.environ, **(env or {})), timeout=600)
                self.assertEqual(proc.returncode, EXIT_CONVERGED, describe(proc))
            with self.subTest(user=user, target="/dev/full"):
                proc = subprocess.run(prefix + [support.CG_SOLVE, "--matrix", matrix, "--output", "/dev/full",
                                      "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                      env=dict(os.environ, **(env or {})), timeout=600)
                self.assertEqual(proc.returncode, EXIT_INPUT, describe(proc))
                self.assertIn("/dev/full", proc.stderr)
                self.assertIn("No space left on device", proc.stderr)
            for device in ("/dev/stdout", "/dev/null", "/dev/full"):
                self.assertFalse(stat.S_ISREG(os.stat(device).st_mode), "%s became a regular file" % device)

    def test_output_to_stdout_with_json_is_a_usage_error(self):
        proc = run_cg(["--matrix", os.path.join(support.DATA, SMALL), "--output", "/dev/stdout", "--json"])
        self.assertEqual(proc.returncode, EXIT_INPUT, describe(proc))
        self.assertIn("standard output", proc.stderr)
        self.assertEqual(proc.stdout, "")

    def test_output_through_a_symbolic_link_keeps_the_link(self):
        target = os.path.join(self.dir, "run42.mtx")
        link = os.path.join(self.dir, "latest.mtx")
        with open(target, "w") as f:
            f.write("old\n")
        os.symlink("run42.mtx", link)
        proc = run_cg(["--matrix", os.path.join(support.DATA, SMALL), "--output", link, "--quiet"])
        self.assertEqual(proc.returncode, EXIT_CONVERGED, describe(proc))
        self.assertTrue(os.path.islink(link))
        self.assertEqual(len(read_array(target)), 200)
        self.assertEqual(sorted(os.listdir(self.dir)), ["latest.mtx", "run42.mtx"])

    def test_output_dev_full(self):
        proc = run_cg(["--matrix", os.path.join(support.DATA, SMALL), "--output", "/dev/full"])
        self.assertEqual(proc.returncode, EXIT_INPUT, describe(proc))
        self.assertIn("/dev/full", proc.stderr)
        self.assertTrue(stat.S_ISCHR(os.stat("/dev/full").st_mode))

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


