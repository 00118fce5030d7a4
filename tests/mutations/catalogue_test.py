#!/usr/bin/env python3
"""Unit test of scripts/mutations.py's catalogue: the TSV parser, the
escapes, the errors that name a row, the stale-pattern check, the ctest
regex and the selections; then the real catalogue against this tree (every
pattern occurs exactly once). ctest runs it as mutations.catalogue.

    python3 tests/mutations/catalogue_test.py [SOURCE_DIR]
"""

import importlib.util
import pathlib
import sys
import tempfile
import unittest

SOURCE = pathlib.Path(sys.argv.pop(1) if len(sys.argv) > 1 else
                      pathlib.Path(__file__).resolve().parents[2])
spec = importlib.util.spec_from_file_location(
    "mutations", SOURCE / "scripts" / "mutations.py")
mutations = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mutations)

HEADER = "id\tfile\tpattern\treplacement\ttests\tflags\tguarantee\n"


def row(*fields):
    return "\t".join(fields) + "\n"


class ParserTest(unittest.TestCase):
    def test_a_row_with_escapes_and_flags(self):
        text = ("# a comment\n\n" + HEADER +
                row("a.b", "src/x.cc", r"x < y;\n  z", r"x >= y;\\", "A.B, C",
                    "compile-error-ok", "Why."))
        [parsed] = mutations.parse_catalogue_text(text, "t.tsv")
        self.assertEqual(parsed["pattern"], "x < y;\n  z")
        self.assertEqual(parsed["replacement"], "x >= y;\\")
        self.assertEqual(parsed["tests"], ["A.B", "C"])
        self.assertEqual(parsed["flags"], {"compile-error-ok"})

    def test_an_empty_replacement_deletes(self):
        [parsed] = mutations.parse_catalogue_text(
            HEADER + row("a", "f", "p", "", "T", "-", "Why."), "t.tsv")
        self.assertEqual(parsed["replacement"], "")
        self.assertEqual(parsed["flags"], set())

    def test_errors_name_the_file_line_and_id(self):
        cases = {
            row("a", "f", "p", "q", "T", "-"): "t.tsv:2: 6 fields",
            row("a", "f", "", "q", "T", "-", "W"): "t.tsv:2 (a): empty pattern",
            row("a", "f", "p", "p", "T", "-", "W"): "(a): the replacement is",
            row("a", "f", "p", "q", "T", "fast", "W"): "(a): unknown flags",
            row("a", "f", r"p\x", "q", "T", "-", "W"): "(a): a lone backslash",
            row("a b", "f", "p", "q", "T", "-", "W"): "(a b): an id is",
        }
        for line, message in cases.items():
            with self.assertRaises(mutations.CatalogueError) as raised:
                mutations.parse_catalogue_text(HEADER + line, "t.tsv")
            self.assertIn(message, str(raised.exception))

    def test_the_header_is_required(self):
        with self.assertRaises(mutations.CatalogueError):
            mutations.parse_catalogue_text(row("a", "f", "p", "q", "T", "-",
                                               "W"), "t.tsv")

    def test_ids_are_unique_across_files(self):
        with tempfile.TemporaryDirectory() as tmp:
            for name in ("a.tsv", "b.tsv"):
                pathlib.Path(tmp, name).write_text(
                    HEADER + row("same", "f", "p", "q", "T", "-", "W"))
            with self.assertRaises(mutations.CatalogueError) as raised:
                mutations.load_catalogue(tmp)
            self.assertIn("b.tsv:2 (same): id also used at a.tsv:2",
                          str(raised.exception))


class StaleTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self.tmp.name)
        (self.root / "f.cc").write_text("a < b;\nc < d;\nonce();\n")

    def tearDown(self):
        self.tmp.cleanup()

    def rows(self, pattern, file="f.cc"):
        return mutations.parse_catalogue_text(
            HEADER + row("m.id", file, pattern, "mutated", "T", "-", "W"), "t.tsv")

    def test_a_pattern_found_once_is_located(self):
        [r] = self.rows("once();")
        text, offset = mutations.locate(r, self.root)
        self.assertEqual(mutations.line_of(text, offset), 3)
        self.assertEqual(mutations.check_catalogue([r], self.root), [])

    def test_a_pattern_found_twice_or_never_is_stale_naming_the_id(self):
        for pattern, count in ((" < ", 2), ("gone();", 0)):
            [error] = mutations.check_catalogue(self.rows(pattern), self.root)
            self.assertIn("(m.id): stale: the pattern occurs "
                          f"{count} times in f.cc", error)

    def test_a_missing_file_is_stale(self):
        [error] = mutations.check_catalogue(self.rows("x", "gone.cc"),
                                            self.root)
        self.assertIn("(m.id): stale: gone.cc is gone", error)


class SelectionTest(unittest.TestCase):
    ROWS = [{"id": f"m{i}", "file": f"f{i % 3}.cc"} for i in range(20)]

    def test_plain_names_are_anchored_and_regexes_kept(self):
        regex = mutations.tests_regex(["A.B", r"C\."])
        _, names = mutations.resolve(["A.B", r"C\."], {
            "A.B": 0, "P/A.B/0  # GetParam() = 1": 0, "A.BC": 0, "XA.B": 0,
            "C.D": 0})
        self.assertEqual(names, ["A.B", "C.D", "P/A.B/0  # GetParam() = 1"])
        self.assertIn(r"C\.", regex)

    def test_slices_cover_every_row_once(self):
        seen = []
        for k in (1, 2, 3):
            seen += [r["id"] for r in mutations.select(self.ROWS,
                                                       slice_=f"{k}/3")]
        self.assertEqual(sorted(seen), sorted(r["id"] for r in self.ROWS))

    def test_rotation_picks_count_rows_by_the_seed(self):
        a = mutations.select(self.ROWS, rotate="abc", count=8)
        self.assertEqual(len(a), 8)
        self.assertEqual(a, mutations.select(self.ROWS, rotate="abc", count=8))
        self.assertNotEqual(a, mutations.select(self.ROWS, rotate="abd",
                                                count=8))

    def test_rotation_leaves_blind_rows_out(self):
        rows = [dict(r, flags={"blind"} if i % 2 else set())
                for i, r in enumerate(self.ROWS)]
        drawn = mutations.select(rows, rotate="abc", count=len(rows))
        self.assertTrue(drawn)
        self.assertFalse([r for r in drawn if "blind" in r["flags"]])

    def test_only_matches_ids_or_files(self):
        self.assertEqual(len(mutations.select(self.ROWS, only="^m1$")), 1)
        self.assertEqual(len(mutations.select(self.ROWS, only="f0")), 7)


class GeneratorTest(unittest.TestCase):
    def test_operators_skip_comments_strings_and_streams(self):
        with tempfile.TemporaryDirectory() as tmp:
            pathlib.Path(tmp, "g.cc").write_text(
                "// if (a < b)\n"
                "  x = \"a < b\";\n"
                "  os << a;\n"
                "  const char kScript[] = R\"SH(\n"
                "  for ((k = 0; k < R; k++)); do\n"
                ")SH\";\n"
                "  if (a < b) return absl::InternalError(\"e\");\n")
            found = mutations.candidates("g.cc", pathlib.Path(tmp))
        self.assertTrue(found)
        self.assertTrue(all(number == 7 for _, number, *_ in found))
        names = {name for _, _, name, _, _ in found}
        self.assertIn("< to >=", names)
        self.assertIn("error return dropped", names)


class RealCatalogueTest(unittest.TestCase):
    def test_every_pattern_occurs_exactly_once_in_this_tree(self):
        rows = mutations.load_catalogue(SOURCE / "tests" / "mutations")
        self.assertGreater(len(rows), 0)
        self.assertEqual(mutations.check_catalogue(rows, SOURCE), [])


if __name__ == "__main__":
    unittest.main()
