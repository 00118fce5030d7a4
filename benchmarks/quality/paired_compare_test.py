#!/usr/bin/env python3
"""Tests of paired_compare.py on small hand-made run files (ctest runs it)."""

import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                      "paired_compare.py")
HEADER = "library,designer,function,mode,budget,seed,regret\n"


class PairedCompareTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, rows):
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            f.write(HEADER)
            for mode, seed, regret in rows:
                f.write(f"hptune,gp,levy4,{mode},100,{seed},{regret}\n")
        return path

    def run_script(self, *args):
        return subprocess.run([sys.executable, SCRIPT, *args],
                              capture_output=True, text=True)

    def test_builds_are_compared_seed_by_seed(self):
        before = self.write("before.csv", [("sequential", 1, 1.0),
                                           ("sequential", 2, 0.1),
                                           ("sequential", 3, 0.5)])
        # Seeds 1 and 2 ten times better, seed 3 only in one file.
        after = self.write("after.csv", [("sequential", 1, 0.1),
                                         ("sequential", 2, 0.01),
                                         ("sequential", 4, 9.0)])
        r = self.run_script(before, after)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(len(lines), 2)
        self.assertEqual(lines[1].split(),
                         ["gp", "levy4", "sequential", "100", "2", "0.55",
                          "0.055", "-1.00", "+-", "0.00"])

    def test_modes_are_compared_with_sequential(self):
        runs = self.write("runs.csv", [("sequential", 1, 1e-3),
                                       ("sequential", 2, 1e-2),
                                       ("sequential", 3, 0.0),
                                       ("parallel4", 1, 2e-3),
                                       ("parallel4", 2, 2e-2),
                                       ("parallel4", 3, 0.0)])
        r = self.run_script("--modes", runs)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(len(lines), 2)
        # log10 2 = 0.301 on two seeds, 0 on the third (both at the floor).
        self.assertEqual(lines[1].split(),
                         ["gp", "levy4", "parallel4", "100", "3", "0.001",
                          "0.002", "2.00x", "+0.20", "+-", "0.10"])

    def test_wrong_columns_are_named(self):
        path = os.path.join(self.dir.name, "summary.csv")
        with open(path, "w") as f:
            f.write("library,designer,function,mode,budget,seeds,"
                    "median_regret,min_regret,max_regret\n")
        r = self.run_script(path, path)
        self.assertEqual(r.returncode, 1)
        self.assertIn("--format=runs", r.stderr)
        self.assertIn("median_regret", r.stderr)

    def test_bad_value_names_the_line(self):
        path = self.write("bad.csv", [("sequential", 1, "lots")])
        r = self.run_script(path, path)
        self.assertEqual(r.returncode, 1)
        self.assertIn("bad.csv:2", r.stderr)

    def test_no_common_cell_is_an_error(self):
        a = self.write("a.csv", [("sequential", 1, 1.0)])
        b = self.write("b.csv", [("parallel4", 1, 1.0)])
        r = self.run_script(a, b)
        self.assertEqual(r.returncode, 1)
        self.assertIn("no cell in common", r.stderr)
        r = self.run_script("--modes", b)
        self.assertEqual(r.returncode, 1)
        self.assertIn("no cell run both sequentially", r.stderr)

    def test_usage_without_arguments(self):
        r = self.run_script()
        self.assertEqual(r.returncode, 2)
        self.assertIn("--modes", r.stderr)


if __name__ == "__main__":
    unittest.main()
