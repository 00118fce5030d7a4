#!/usr/bin/env python3
"""The promises the docs make, and the tests that hold them.

A promise is a sentence of the prose of docs/*.md (not docs/testing.md;
fenced code blocks and table rows are skipped) that contains the word
"must", "never" or "always". docs/promises.tsv maps each promise, by its
document and its key (the first 60 characters of the sentence with its
whitespace normalised; " #2" and so on after a repeated key), to the tests
that hold it, comma-separated, as ctest names them: a GoogleTest
`Suite.Name` (ctest's `Prefix/Suite.Name/Param` of a TEST_P too), an
add_test name such as `layering.include_arrows`, or a pytest node
`python/tests/test_x.py::test_y`. A promise no test holds says `untested`;
`untested,Suite.Name,...` names tests that hold part of it only.

    scripts/promises.py --table    # the Markdown table, on stdout
    scripts/promises.py --check    # fails, naming each problem: a promise
                                   # without a row, a row whose sentence is
                                   # gone, an untested promise, a test that
                                   # tests/, benchmarks/ and python/tests/
                                   # do not define
    scripts/promises.py --check --allow-untested
                                   # the same, listing untested promises on
                                   # stdout without failing on them
    scripts/promises.py --update   # rewrites the TSV: keeps the mappings,
                                   # adds new promises as untested, drops
                                   # rows whose sentence is gone

--root DIR names the repository (default: the parent of this script's
directory). --build-dir DIR checks GoogleTest and add_test names against
what ctest lists there (`ctest --show-only=json-v1`): a test under `#if 0`,
or in a test executable not built, is not there. Without it they are found
in the sources' text, which cannot tell. A pytest node is found by parsing
its file: a `def test_*` at the top level of the module or of a class
`Test*`, not one under an `if` or in a string. Python 3 standard library
only; ctest runs the check as docs.promises_have_tests with its build
directory (tests/CMakeLists.txt).
"""

import argparse
import ast
import json
import pathlib
import re
import subprocess
import sys

KEY_LENGTH = 60
TABLE_SENTENCE_LENGTH = 110
UNTESTED = "untested"
HEADER = ("doc", "sentence-key", "tests")
EXCLUDED_DOC = "testing.md"
PROMISE_WORD = re.compile(r"\b(must|never|always)\b", re.IGNORECASE)
FENCE = re.compile(r"^\s*(```|~~~)")
BLOCK_START = re.compile(r"^\s*([-*+]|\d+[.)]|#+|>)\s")
# After . ! or ? (or such a mark closing a **bold** run), before what can
# start a sentence.
SENTENCE_END = re.compile(
    r"(?:(?<=[.!?])|(?<=[.!?]\*\*))\s+(?=[A-Z`\[(*_\"'])")
GTEST = re.compile(
    r"\b(?:TEST|TEST_F|TEST_P|TYPED_TEST)\(\s*(\w+)\s*,\s*(\w+)\s*\)")
ADD_TEST = re.compile(r"\badd_test\(\s*NAME\s+([^\s)]+)")
CMAKE_VARIABLE = re.compile(r"\\\$\\\{\w+\\\}")
TEST_DIRS = ("tests", "benchmarks", "python/tests")
SOURCE_SUFFIXES = {".cc", ".cpp", ".h", ".txt", ".cmake", ".py"}


# --- Promises in the docs ---------------------------------------------------


def flush(blocks, lines):
    if lines:
        blocks.append(" ".join(lines))
    return []


def prose_blocks(text):
    """Paragraphs, list items and headings, without code blocks or tables."""
    blocks, lines, in_fence = [], [], False
    for line in text.splitlines():
        if FENCE.match(line):
            in_fence = not in_fence
            lines = flush(blocks, lines)
        elif in_fence or not line.strip() or line.lstrip().startswith("|"):
            lines = flush(blocks, lines)
        else:
            if BLOCK_START.match(line):
                lines = flush(blocks, lines)
            lines.append(line.strip())
    flush(blocks, lines)
    return blocks


def sentences(block):
    text = BLOCK_START.sub("", " ".join(block.split()), count=1)
    return [s for s in SENTENCE_END.split(text) if s]


def unique_key(sentence, seen):
    key = sentence[:KEY_LENGTH].rstrip()
    seen[key] = seen.get(key, 0) + 1
    return key if seen[key] == 1 else f"{key} #{seen[key]}"


def doc_promises(path):
    """[(key, sentence)] of one document's promises, keys unique."""
    found, seen = [], {}
    for block in prose_blocks(path.read_text(encoding="utf-8")):
        for sentence in sentences(block):
            if PROMISE_WORD.search(sentence):
                found.append((unique_key(sentence, seen), sentence))
    return found


def all_promises(root):
    """{(doc, key): sentence}, in the order of the docs."""
    promises = {}
    for path in sorted((root / "docs").glob("*.md")):
        if path.name == EXCLUDED_DOC:
            continue
        doc = path.relative_to(root).as_posix()
        for key, sentence in doc_promises(path):
            promises[(doc, key)] = sentence
    return promises


# --- The TSV ----------------------------------------------------------------


def tsv_path(root):
    return root / "docs" / "promises.tsv"


def split_tests(field):
    return [t.strip() for t in field.split(",") if t.strip()]


def read_rows(root):
    """[(doc, key, [tests])] of docs/promises.tsv; [] when it is missing."""
    path = tsv_path(root)
    if not path.exists():
        return []
    rows = [line.split("\t") for line in
            path.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = [r for r in rows if tuple(r) != HEADER]
    return [(r[0], r[1] if len(r) > 1 else "",
             split_tests(r[2] if len(r) > 2 else "")) for r in rows]


def write_rows(root, rows):
    lines = ["\t".join(HEADER)]
    lines += ["\t".join((doc, key, ",".join(tests)))
              for doc, key, tests in rows]
    tsv_path(root).write_text("\n".join(lines) + "\n", encoding="utf-8")


def is_untested(tests):
    return not tests or tests[0] == UNTESTED


def named_tests(tests):
    return [t for t in tests if t != UNTESTED]


# --- Tests in the sources ---------------------------------------------------


def source_files(root):
    for top in TEST_DIRS:
        for path in sorted((root / top).rglob("*")):
            if path.is_file() and path.suffix in SOURCE_SUFFIXES:
                yield path


def add_test_pattern(name):
    """A regex for an add_test name; ${var} (foreach, function) is a word."""
    return re.compile(CMAKE_VARIABLE.sub(r"[\\w.-]+", re.escape(name)) + "$")


def known_tests(root):
    """(names, patterns): GoogleTest Suite.Name and add_test names."""
    names, patterns = set(), []
    for path in source_files(root):
        text = path.read_text(encoding="utf-8", errors="replace")
        names.update(f"{suite}.{name}" for suite, name in GTEST.findall(text))
        for name in ADD_TEST.findall(text):
            if "${" in name:
                patterns.append(add_test_pattern(name))
            else:
                names.add(name)
    return names, patterns


def ctest_tests(build_dir, ctest="ctest"):
    """(names, []): every test ctest lists in `build_dir`, a parameterised
    one also as its Suite.Name; a test executable that is not built is
    listed as <target>_NOT_BUILT, without its tests."""
    listed = subprocess.run(
        [ctest, "--show-only=json-v1", "--test-dir", str(build_dir)],
        capture_output=True, text=True, check=False)
    if listed.returncode != 0:
        raise SystemExit(f"promises: ctest --show-only in {build_dir} "
                         f"failed: {listed.stderr.strip()}")
    names = set()
    for test in json.loads(listed.stdout).get("tests", []):
        name = test["name"]
        names.add(name)
        names.add(gtest_core(name))
    return names, []


def not_built(known):
    return sorted(n.removesuffix("_NOT_BUILT") for n in known[0]
                  if n.endswith("_NOT_BUILT"))


def gtest_core(name):
    """Suite.Name of a ctest name Prefix/Suite.Name/Param."""
    parts = name.split("/")
    return parts[1] if len(parts) >= 3 else name


def pytest_functions(tree):
    """The test functions pytest collects from a module's syntax tree:
    `def test_*` at its top level and in its top-level classes `Test*`."""
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    for node in tree.body:
        if isinstance(node, functions) and node.name.startswith("test"):
            yield node.name
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            for item in node.body:
                if isinstance(item, functions) and \
                        item.name.startswith("test"):
                    yield f"{node.name}::{item.name}"


def pytest_exists(root, node):
    file, _, function = node.partition("::")
    path = root / file
    if not path.is_file():
        return False
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    except SyntaxError:
        return False
    return function.split("[")[0] in set(pytest_functions(tree))


def test_exists(root, name, known):
    if "::" in name:
        return pytest_exists(root, name)
    names, patterns = known
    return (name in names or gtest_core(name) in names
            or any(p.match(name) for p in patterns))


# --- Modes ------------------------------------------------------------------


def where(doc, key):
    return f'{doc}: "{key}"'


def missing_test(doc, key, test, build_dir):
    if build_dir is None or "::" in test:
        where_from = ", ".join(TEST_DIRS)
        return f"{where(doc, key)}: test {test} is not defined in {where_from}"
    return (f"{where(doc, key)}: test {test} is not among the tests ctest "
            f"lists in {build_dir}")


def row_problems(root, row, promises, known, build_dir=None):
    doc, key, tests = row
    problems = []
    if (doc, key) not in promises:
        problems.append(f"{where(doc, key)}: no such promise in the docs")
    if not tests:
        problems.append(f"{where(doc, key)}: names no test (or {UNTESTED})")
    if UNTESTED in tests[1:]:
        problems.append(f"{where(doc, key)}: {UNTESTED} must come first")
    for test in named_tests(tests):
        if not test_exists(root, test, known):
            problems.append(missing_test(doc, key, test, build_dir))
    return problems


def untested_line(doc, key, tests):
    partly = named_tests(tests)
    return f"{where(doc, key)}: untested" + (
        f" (partly: {', '.join(partly)})" if partly else "")


def check(root, allow_untested, build_dir=None, ctest="ctest"):
    promises, rows = all_promises(root), read_rows(root)
    known = (known_tests(root) if build_dir is None
             else ctest_tests(build_dir, ctest))
    problems, untested, seen = [], [], set()
    for row in rows:
        doc, key, tests = row
        if (doc, key) in seen:
            problems.append(f"{where(doc, key)}: more than one row")
        seen.add((doc, key))
        problems += row_problems(root, row, promises, known, build_dir)
        if is_untested(tests):
            untested.append(untested_line(doc, key, tests))
    tsv = tsv_path(root).relative_to(root)
    problems += [f"{where(doc, key)}: promise has no row in {tsv}"
                 for doc, key in promises if (doc, key) not in seen]
    unbuilt = not_built(known)
    if unbuilt and any("ctest lists" in p for p in problems):
        problems.append(f"test executables not built in {build_dir} "
                        f"(ctest lists none of their tests): "
                        f"{', '.join(unbuilt)}")
    return report(len(promises), rows, problems, untested, allow_untested)


def report(promised, rows, problems, untested, allow_untested):
    if not allow_untested:
        problems = problems + untested
    for line in problems:
        print(f"promises: {line}", file=sys.stderr)
    if allow_untested:
        for line in untested:
            print(f"promises: {line}")
    held = sum(1 for _, _, tests in rows if not is_untested(tests))
    print(f"promises: {promised} promises in the docs, {held} held by tests, "
          f"{len(untested)} untested, {len(problems)} problems")
    return 1 if problems else 0


def update(root):
    promises, old = all_promises(root), read_rows(root)
    mapping = {(doc, key): tests for doc, key, tests in old}
    rows = [(doc, key, mapping.get((doc, key)) or [UNTESTED])
            for doc, key in promises]
    write_rows(root, rows)
    added = sum(1 for k in promises if k not in mapping)
    dropped = sum(1 for k in mapping if k not in promises)
    print(f"promises: wrote {len(rows)} rows to "
          f"{tsv_path(root).relative_to(root)}: {added} new (untested), "
          f"{dropped} dropped")
    return 0


def shorten(sentence):
    """At most about TABLE_SENTENCE_LENGTH characters, cut between words and
    outside `code`."""
    if len(sentence) <= TABLE_SENTENCE_LENGTH:
        return sentence
    cut = sentence[:TABLE_SENTENCE_LENGTH].rsplit(" ", 1)[0]
    if cut.count("`") % 2:
        cut = cut[:cut.rindex("`")].rstrip()
    return cut + " ..."


def tests_cell(tests):
    names = ", ".join(f"`{t}`" for t in named_tests(tests))
    if not is_untested(tests):
        return names
    return UNTESTED + (f" (partly: {names})" if names else "")


def table(root):
    promises = all_promises(root)
    print("| doc | promise | tests |")
    print("|---|---|---|")
    for doc, key, tests in read_rows(root):
        sentence = promises.get((doc, key), key + " (gone from the docs)")
        cells = (doc.removeprefix("docs/"), shorten(sentence),
                 tests_cell(tests))
        print("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return 0


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description="The docs' promises and the tests that hold them.")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--table", action="store_true",
                      help="print the Markdown table")
    mode.add_argument("--check", action="store_true",
                      help="fail on unmapped promises, stale rows, "
                           "untested promises and unknown tests")
    mode.add_argument("--update", action="store_true",
                      help="rewrite docs/promises.tsv from the docs")
    parser.add_argument("--allow-untested", action="store_true",
                        help="with --check: list untested promises, "
                             "do not fail on them")
    parser.add_argument("--build-dir", type=pathlib.Path,
                        help="with --check: find C++ and add_test names "
                             "among the tests ctest lists in this build "
                             "directory, not in the sources' text")
    parser.add_argument("--ctest", default="ctest",
                        help="the ctest that lists them (default: ctest)")
    parser.add_argument("--root", type=pathlib.Path,
                        default=pathlib.Path(__file__).resolve().parent.parent,
                        help="the repository (default: %(default)s)")
    return parser.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    root = args.root.resolve()
    if args.table:
        return table(root)
    if args.check:
        return check(root, args.allow_untested, args.build_dir, args.ctest)
    return update(root)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
