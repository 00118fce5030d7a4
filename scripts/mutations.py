#!/usr/bin/env python3
"""Mutation testing without a mutation tool: break the product on purpose,
rebuild, and check that the tests that should notice do fail.

Two sources of mutations (docs/testing.md, "Mutations"):

  * the catalogue, tests/mutations/*.tsv (format in tests/mutations/README.md):
    each row names a file, a pattern that must occur exactly once in it, its
    replacement, the ctest names that must fail, and the guarantee attacked;
  * the generator: lines picked at random (seeded) in the .cc files of
    src/core, src/store, src/runner, src/server and src/launch, each broken by
    one operator (a flipped comparison, a dropped error return, an
    off-by-one bound, two arguments swapped).

Each mutation is applied in a scratch git worktree of HEAD
(build-mutations/tree, reused between runs) with its own build folder
(build-mutations/tree/build, configured with the flags given after `--`,
sharing ccache with the main build), only the test executables its tests
need (and `hptune` for an integration test) are rebuilt, the tests run with
`ctest -R`, and the file is restored. The catalogue is read from this tree,
the code it mutates is HEAD's.

    scripts/mutations.py run [--only REGEX] [--slice K/N]
                             [--rotate SEED --count 8] [--list]
                             [--keep-going] [-- CMAKE FLAGS...]
    scripts/mutations.py check        # every pattern matches exactly once
    scripts/mutations.py generate [--seed 1] [--per-folder 8]
                                  [--timeout 300] [-- CMAKE FLAGS...]

`run` prints each mutation as caught / NOT CAUGHT / does not compile /
stale with its build and test times, then a summary line; it exits 1 when
one is not caught, does not compile (unless marked compile-error-ok) or is
stale. `--rotate` draws from the rows not marked `blind` (known blind spots
not yet mended, which a full run still reports NOT CAUGHT). `generate` prints each folder's score (caught / compiled; a mutation
the compiler turns into the very same code is equivalent and not counted),
the survivors and the equivalent ones, and exits 1 when a folder scores
under --min-score (80%). `make test-mutations` runs both. Python 3 standard library only.
"""

import argparse
import fcntl
import hashlib
import json
import os
import pathlib
import random
import re
import shlex
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
CATALOGUE_DIR = ROOT / "tests" / "mutations"
COLUMNS = ("id", "file", "pattern", "replacement", "tests", "flags",
           "guarantee")
FLAGS = {"compile-error-ok", "build-all", "blind"}
PLAIN_NAME = re.compile(r"^[\w.:/-]+$")
ESCAPES = {"n": "\n", "t": "\t", "\\": "\\"}
# `make build`'s CMAKE_FLAGS and ALL_FLAGS, for a run without `-- FLAGS`.
DEFAULT_CMAKE_FLAGS = [
    "-G", "Ninja", "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG",
    "-DHPTUNE_BUILD_TESTS=ON", "-DHPTUNE_BUILD_BENCHMARKS=ON",
    "-DHPTUNE_WERROR=ON"]
GENERATOR_FOLDERS = ("src/core", "src/store", "src/runner", "src/server",
                     "src/launch")


class CatalogueError(Exception):
    """A catalogue row that cannot be used, naming the row."""


# --- The catalogue -----------------------------------------------------------


def unescape(text, where):
    """The field with \\n, \\t and \\\\ turned into what they stand for."""
    out, i = [], 0
    while i < len(text):
        if text[i] == "\\":
            if i + 1 >= len(text) or text[i + 1] not in ESCAPES:
                raise CatalogueError(f"{where}: a lone backslash; write \\\\")
            out.append(ESCAPES[text[i + 1]])
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def parse_row(fields, where):
    """One mutation (a dict) from the fields of a TSV row."""
    if len(fields) != len(COLUMNS):
        raise CatalogueError(
            f"{where}: {len(fields)} fields, expected {len(COLUMNS)} "
            f"({', '.join(COLUMNS)})")
    row = dict(zip(COLUMNS, fields))
    mid = row["id"]
    where = f"{where} ({mid})"
    if not re.fullmatch(r"[\w.-]+", mid):
        raise CatalogueError(f"{where}: an id is letters, digits, . _ -")
    for column in ("file", "pattern", "tests", "guarantee"):
        if not row[column].strip():
            raise CatalogueError(f"{where}: empty {column}")
    row["pattern"] = unescape(row["pattern"], where)
    row["replacement"] = unescape(row["replacement"], where)
    if row["pattern"] == row["replacement"]:
        raise CatalogueError(f"{where}: the replacement is the pattern")
    row["tests"] = [t.strip() for t in row["tests"].split(",") if t.strip()]
    flags = set() if row["flags"] in ("", "-") else set(row["flags"].split(","))
    if flags - FLAGS:
        raise CatalogueError(f"{where}: unknown flags {sorted(flags - FLAGS)}")
    row["flags"] = flags
    row["where"] = where
    return row


def parse_catalogue_text(text, name):
    """The mutations of one TSV file: a header row, then one per line;
    blank lines and lines starting with # are skipped."""
    rows, header_seen = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if not header_seen:
            if tuple(fields) != COLUMNS:
                raise CatalogueError(
                    f"{name}:{number}: the header must be "
                    f"{chr(9).join(COLUMNS)!r}")
            header_seen = True
            continue
        rows.append(parse_row(fields, f"{name}:{number}"))
    return rows


def load_catalogue(directory=CATALOGUE_DIR):
    """Every mutation of directory/*.tsv, ids unique across files."""
    rows, seen = [], {}
    for path in sorted(pathlib.Path(directory).glob("*.tsv")):
        for row in parse_catalogue_text(path.read_text(), path.name):
            if row["id"] in seen:
                raise CatalogueError(
                    f"{row['where']}: id also used at {seen[row['id']]}")
            seen[row["id"]] = row["where"]
            rows.append(row)
    return rows


def locate(row, source_root):
    """The file's text and the pattern's offset; CatalogueError (stale)
    unless the pattern occurs exactly once."""
    path = pathlib.Path(source_root) / row["file"]
    if not path.is_file():
        raise CatalogueError(f"{row['where']}: stale: {row['file']} is gone")
    text = path.read_text()
    count = text.count(row["pattern"])
    if count != 1:
        raise CatalogueError(
            f"{row['where']}: stale: the pattern occurs {count} times in "
            f"{row['file']}, not once: {row['pattern'][:80]!r}")
    return text, text.index(row["pattern"])


def line_of(text, offset):
    return text.count("\n", 0, offset) + 1


def check_catalogue(rows, source_root):
    """The stale rows' errors, as strings (empty: all match once)."""
    errors = []
    for row in rows:
        try:
            locate(row, source_root)
        except CatalogueError as error:
            errors.append(str(error))
    return errors


def tests_regex(names):
    """One ctest -R regex: a plain name matches as a whole ctest name or
    between the slashes of a TEST_P's Prefix/Suite.Name/Param; anything else
    is taken as a regex."""
    parts = []
    for name in names:
        if PLAIN_NAME.match(name):
            parts.append("(^|/)" + re.escape(name) + "(/|$)")
        else:
            parts.append(name)
    return "|".join(parts)


def select(rows, only=None, slice_=None, rotate=None, count=None):
    """The rows --only, --slice K/N or --rotate SEED --count N pick."""
    if only:
        pattern = re.compile(only)
        rows = [r for r in rows if pattern.search(r["id"])
                or pattern.search(r["file"])]
    if slice_:
        k, n = (int(x) for x in slice_.split("/"))
        if not 1 <= k <= n:
            raise SystemExit(f"--slice {slice_}: K must be 1 to N")
        rows = [r for i, r in enumerate(rows) if i % n == k - 1]
    if rotate is not None:
        # CI's draw: only rows that must be caught now. A `blind` row, a
        # known blind spot not yet mended, still runs (and fails) in a full
        # run, which lists it.
        rows = [r for r in rows if "blind" not in r.get("flags", ())]

        def rank(row):
            return hashlib.sha256(f"{rotate}:{row['id']}".encode()).digest()
        chosen = {r["id"] for r in sorted(rows, key=rank)[:count or 8]}
        rows = [r for r in rows if r["id"] in chosen]
    return rows


# --- The worktree and its build ----------------------------------------------


def sh(argv, cwd=None, timeout=None, log=None, env=None):
    """Runs argv; (exit status, seconds, output). Status 124 on timeout."""
    start = time.monotonic()
    try:
        proc = subprocess.run(argv, cwd=cwd, timeout=timeout, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, errors="replace",
                              start_new_session=True)
        status, output = proc.returncode, proc.stdout
    except subprocess.TimeoutExpired as expired:
        out = expired.stdout or ""
        output = out if isinstance(out, str) else out.decode(errors="replace")
        status, output = 124, output + f"\n[timed out after {timeout} s]\n"
    if log is not None:
        log.write(f"$ {shlex.join(argv)}\n{output}\n")
    return status, time.monotonic() - start, output


class Worktree:
    """build-mutations/tree: a detached worktree of HEAD and its build."""

    def __init__(self, directory, cmake_flags, log):
        self.dir = pathlib.Path(directory).resolve()
        self.build = self.dir / "build"
        self.cmake_flags = cmake_flags or DEFAULT_CMAKE_FLAGS
        self.log = log
        self.ninja_outputs = None

    def prepare(self):
        """The worktree at HEAD, clean, and its build configured."""
        head = subprocess.check_output(
            ["git", "-C", str(ROOT), "rev-parse", "HEAD"], text=True).strip()
        if not (self.dir / ".git").exists():
            self.dir.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run(["git", "-C", str(ROOT), "worktree", "prune"],
                           check=True)
            subprocess.run(["git", "-C", str(ROOT), "worktree", "add",
                            "--detach", str(self.dir), head], check=True,
                           stdout=subprocess.DEVNULL)
        else:
            subprocess.run(["git", "-C", str(self.dir), "checkout", "--quiet",
                            "--force", "--detach", head], check=True)
        status, _, output = sh(["cmake", "-S", str(self.dir), "-B",
                                str(self.build)] + self.cmake_flags,
                               log=self.log)
        if status != 0:
            raise SystemExit(f"cmake configure failed:\n{output[-3000:]}")
        return head

    def build_targets(self, targets, timeout=None):
        """(ok, seconds, output) of building targets at nice 10."""
        argv = ["nice", "-n", "10", "cmake", "--build", str(self.build),
                "-j", str(os.cpu_count() or 2)]
        for target in sorted(set(targets)):
            argv += ["--target", target]
        status, seconds, output = sh(argv, timeout=timeout, log=self.log)
        self.ninja_outputs = None if status == 0 else self.ninja_outputs
        return status == 0, seconds, output

    def tests(self):
        """ctest's tests in the worktree build: name -> its JSON entry."""
        output = subprocess.check_output(
            ["ctest", "--test-dir", str(self.build), "--show-only=json-v1"],
            text=True)
        return {t["name"]: t for t in json.loads(output)["tests"]}

    def outputs(self):
        """Every file ninja can build, relative to the build folder."""
        if self.ninja_outputs is None:
            listing = subprocess.check_output(
                ["ninja", "-C", str(self.build), "-t", "targets", "all"],
                text=True)
            self.ninja_outputs = {line.rsplit(": ", 1)[0]
                                  for line in listing.splitlines()}
        return self.ninja_outputs

    def targets_of(self, test):
        """The ninja targets a test needs: its executable when the build
        makes it, and hptune for an integration test or one that names
        the binary."""
        targets = set()
        command = test.get("command") or []
        if command:
            try:
                rel = os.path.relpath(command[0], self.build)
            except ValueError:
                rel = ""
            if not rel.startswith("..") and rel in self.outputs():
                targets.add(rel)
        properties = {p["name"]: p["value"]
                      for p in test.get("properties", [])}
        labels = properties.get("LABELS", [])
        text = json.dumps(command) + json.dumps(
            properties.get("ENVIRONMENT", []))
        if "integration" in labels or "src/cli/hptune" in text:
            targets.add("hptune")
        return targets


    def objects_of(self, path):
        """The object files compiled from a source file: CMake's
        DIR/CMakeFiles/TARGET.dir/REST.o for the source DIR/REST, or the
        unity file (Unity/unity_N_cxx.cxx) that includes it."""
        source_path = pathlib.Path(path).resolve()
        rel = source_path.relative_to(self.dir).as_posix()
        included = f'#include "{source_path}"'
        objects = []
        for output in self.outputs():
            if "/CMakeFiles/" not in output or ".dir/" not in output or \
                    not output.endswith(".o"):
                continue
            folder, rest = output.split("/CMakeFiles/", 1)
            source = rest.split(".dir/", 1)[1].removesuffix(".o")
            if f"{folder}/{source}" == rel:
                objects.append(self.build / output)
            elif "/Unity/unity_" in output:
                unity = self.build / output.removesuffix(".o")
                if unity.is_file() and included in unity.read_text():
                    objects.append(self.build / output)
        return sorted(objects)

    def code_digest(self, objects):
        """A digest of the objects' code and data, debug information left
        out (its line table moves with a mutation's columns), or None when
        one is missing."""
        digest = hashlib.sha256()
        for obj in objects:
            stripped = obj.with_name(obj.name + ".nodebug")
            if subprocess.run(["objcopy", "--strip-debug", str(obj),
                               str(stripped)],
                              stderr=subprocess.DEVNULL).returncode != 0:
                return None
            digest.update(stripped.read_bytes())
            stripped.unlink()
        return digest.hexdigest()

    def compiled_from(self, path):
        """The executables a mutated file under tests/ is compiled into:
        rebuilt, their ctest list shows what the file now defines."""
        rel = pathlib.Path(path).resolve().relative_to(self.dir)
        if rel.parts[0] != "tests":
            return set()
        folder = rel.parent.as_posix()
        suffix = f"/{rel.name}.o"
        targets = set()
        for output in self.outputs():
            if output.startswith(folder + "/CMakeFiles/") and \
                    output.endswith(suffix) and ".dir/" in output:
                target = output.split("/CMakeFiles/")[1].split(".dir/")[0]
                if f"{folder}/{target}" in self.outputs():
                    targets.add(f"{folder}/{target}")
        return targets


def resolve(row_tests, tests):
    """(regex, matching test names) for a row's tests."""
    regex = tests_regex(row_tests)
    compiled = re.compile(regex)
    return regex, sorted(n for n in tests if compiled.search(n))


FAILED_LINE = re.compile(r"^\s*\d+ - (\S+).*? \((\w[\w ]*)\)\s*$",
                         re.MULTILINE)


def by_number(worktree, row_tests):
    """ctest -I's value selecting the tests `row_tests` names, by their
    numbers in the build's list as it is now (a TEST_P's name ends with
    its parameter's bytes, which change with each link), or None; no -R
    regex: ctest's allows 9 groups at most."""
    tests = worktree.tests()
    numbers = {name: i for i, name in enumerate(tests, 1)}
    listed = sorted(numbers[n] for n in resolve(row_tests, tests)[1])
    return "0,0,0," + ",".join(map(str, listed)) if listed else None


def run_tests(worktree, row_tests, timeout):
    """(outcome, seconds, failed) of ctest on the tests `row_tests` names:
    outcome caught (a test failed or timed out), not-caught, no-tests, or
    error (ctest itself failed; its last line in failed)."""
    selection = by_number(worktree, row_tests)
    if selection is None:
        return "no-tests", 0.0, []
    argv = ["ctest", "--test-dir", str(worktree.build), "-I", selection,
            "--output-on-failure", "--stop-on-failure",
            "-j", str(os.cpu_count() or 2)]
    status, seconds, output = sh(argv, timeout=timeout, log=worktree.log)
    failed = FAILED_LINE.findall(output.split("tests FAILED:")[-1]) \
        if "tests FAILED:" in output else []
    if status == 124:
        return "caught", seconds, ["(timed out)"]
    if status != 0 and not failed:
        return "error", seconds, [first_error(output)]
    return ("caught" if failed else "not-caught"), seconds, [
        f"{name} ({why})" for name, why in failed]


class Applied:
    """A file of the worktree with one replacement, restored on exit."""

    def __init__(self, path, text, offset, pattern, replacement):
        self.path, self.text = path, text
        self.mutated = (text[:offset] + replacement
                        + text[offset + len(pattern):])

    def __enter__(self):
        self.path.write_text(self.mutated)
        return self

    def __exit__(self, *exc):
        self.path.write_text(self.text)


def try_mutation(worktree, tests, path, text, offset, pattern, replacement,
                 test_names, timeout, same_code_is_equivalent=False):
    """One mutation applied, built and tested: a dict of its outcome,
    'outcome' one of caught, not-caught, no-compile, no-tests, and with
    same_code_is_equivalent, equivalent: the compiler made the very same
    code of it (a branch of another platform's #if, or a change the
    optimiser proves changes nothing), so no test could catch it."""
    regex, names = resolve(test_names, tests)
    if not names:
        return {"outcome": "no-tests", "regex": regex, "build_s": 0,
                "test_s": 0, "failed": []}
    targets = worktree.compiled_from(path)
    for name in names:
        targets |= worktree.targets_of(tests[name])
    objects = worktree.objects_of(path) if same_code_is_equivalent else []
    before = worktree.code_digest(objects) if objects else None
    with Applied(path, text, offset, pattern, replacement):
        built, build_s, output = worktree.build_targets(targets, timeout)
        result = {"regex": regex, "build_s": build_s, "test_s": 0.0,
                  "failed": [], "tests": len(names)}
        if not built:
            result["outcome"] = "no-compile"
            result["error"] = first_error(output)
            return result
        if before is not None and worktree.code_digest(objects) == before:
            result["outcome"] = "equivalent"
            return result
        outcome, test_s, failed = run_tests(worktree, test_names, timeout)
        result.update(outcome=outcome, test_s=test_s, failed=failed)
    restored = worktree.compiled_from(path)
    if restored:  # Its ctest list as HEAD's again, for the next mutation.
        worktree.build_targets(restored, timeout)
    return result


def first_error(output):
    for line in output.splitlines():
        if "error:" in line:
            return line.strip()[:200]
    return output.strip().splitlines()[-1][:200] if output.strip() else ""


# --- Reports -------------------------------------------------------------------


def minutes(seconds):
    seconds = int(round(seconds))
    return f"{seconds // 60} min {seconds % 60:02d} s" if seconds >= 60 \
        else f"{seconds} s"


def verdict(row, result):
    """caught / NOT CAUGHT / does not compile / no tests, per the row."""
    outcome = result["outcome"]
    if outcome == "no-compile":
        return ("caught (does not compile)" if "compile-error-ok" in
                row.get("flags", ()) else "does not compile")
    return {"caught": "caught", "not-caught": "NOT CAUGHT",
            "no-tests": "selects no test", "error": "ctest error"}[outcome]


def print_result(prefix, label, result):
    detail = ""
    if result["outcome"] == "caught" and result["failed"]:
        shown = result["failed"][:2]
        detail = "  failed: " + ", ".join(shown)
    elif result["outcome"] == "no-compile":
        detail = "  " + result.get("error", "")
    elif result["outcome"] == "error":
        detail = "  " + "".join(result["failed"])
    elif result["outcome"] == "no-tests":
        detail = f"  -R {result['regex']}"
    print(f"{prefix} {label:<26} build {result['build_s']:6.1f} s  "
          f"tests {result['test_s']:6.1f} s{detail}", flush=True)


# --- run -------------------------------------------------------------------------


def log_file(worktree, command):
    """Beside the worktree: build-mutations/tree.run.log and so on."""
    worktree = pathlib.Path(worktree).resolve()
    return worktree.parent / f"{worktree.name}.{command}.log"


def lock(worktree):
    """One mutation run at a time on a worktree (held until exit)."""
    worktree = pathlib.Path(worktree).resolve()
    path = worktree.parent / (worktree.name + ".lock")
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = open(path, "w")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise SystemExit(f"another mutation run holds {path}")
    return handle


def reference_targets(worktree, reference, rows):
    """The worktree targets of the rows' tests as another build of the
    project lists them (make build's, which make test has just built in
    CI): a fresh worktree build lists no GoogleTest test before its
    executable is built. None where that build cannot tell them all."""
    if reference is None or not (pathlib.Path(reference) /
                                 "CTestTestfile.cmake").is_file():
        return None
    output = subprocess.run(
        ["ctest", "--test-dir", str(reference), "--show-only=json-v1"],
        capture_output=True, text=True).stdout
    try:
        listed = {t["name"]: t for t in json.loads(output)["tests"]}
    except (ValueError, KeyError):
        return None
    targets = set()
    for row in rows:
        _, matched = resolve(row["tests"], listed)
        if not matched or "build-all" in row["flags"]:
            return None
        for name in matched:
            command = listed[name].get("command") or [""]
            rel = os.path.relpath(command[0], reference)
            if rel in worktree.outputs():
                targets.add(rel)
    return targets


def baseline(worktree, rows, reference=None):
    """Builds what the selected rows' tests need, unmutated; their tests.
    gtest_discover_tests lists a test only once its executable is built:
    an unknown name is looked up in the reference build, else everything
    is built once, as for a build-all row (its test reads ctest's whole
    list)."""
    tests = worktree.tests()
    targets, unresolved = {"hptune"}, False
    for row in rows:
        _, matched = resolve(row["tests"], tests)
        unresolved |= not matched or "build-all" in row["flags"]
        for name in matched:
            targets |= worktree.targets_of(tests[name])
    if unresolved:
        found = reference_targets(worktree, reference, rows)
        targets = targets | found if found is not None else {"all"}
    ok, seconds, output = worktree.build_targets(targets)
    if not ok:
        raise SystemExit(f"HEAD does not build in {worktree.build}:\n"
                         f"{output[-3000:]}")
    print(f"baseline build ({len(targets)} targets): {minutes(seconds)}",
          flush=True)
    tests = worktree.tests()
    if unresolved and "all" not in targets:
        # What the reference build named, now built here: their targets
        # (hptune for an integration test) too.
        extra = set()
        for row in rows:
            for name in resolve(row["tests"], tests)[1]:
                extra |= worktree.targets_of(tests[name])
        if extra - targets:
            worktree.build_targets(extra)
            tests = worktree.tests()
    return tests


def check_head(worktree, tests, rows):
    """{row id: the tests that fail at HEAD, unmutated}: such a row would
    count as caught whatever it broke. One ctest run of the union, by test
    number (-I), since one regex of every name would be too long for ctest."""
    numbers = {name: i for i, name in enumerate(tests, 1)}
    wanted = set()
    for row in rows:
        wanted |= set(resolve(row["tests"], tests)[1])
    listed = ",".join(str(numbers[n]) for n in sorted(wanted,
                                                       key=numbers.get))
    argv = ["ctest", "--test-dir", str(worktree.build), "-I", f"0,0,0,{listed}",
            "-j", str(os.cpu_count() or 2)]
    status, seconds, output = sh(argv, log=worktree.log)
    failed = {name for name, _ in FAILED_LINE.findall(
        output.split("tests FAILED:")[-1])} if status != 0 else set()
    print(f"HEAD: {len(wanted)} tests run unmutated in {minutes(seconds)}, "
          f"{len(failed)} fail{': ' + ', '.join(sorted(failed)) if failed else ''}",
          flush=True)
    failing = {}
    for row in rows:
        bad = [n for n in resolve(row["tests"], tests)[1]
               if n.split("  #")[0] in failed]
        if bad:
            failing[row["id"]] = ", ".join(bad)
    return failing


def command_run(args, cmake_flags):
    rows = select(load_catalogue(), args.only, args.slice, args.rotate,
                  args.count)
    if args.list:
        for row in rows:
            print(f"{row['id']}\t{row['file']}\t{','.join(row['tests'])}\t"
                  f"{row['guarantee']}")
        return 0
    handle = lock(args.worktree)
    log_path = log_file(args.worktree, "run")
    with open(log_path, "w") as log:
        worktree = Worktree(args.worktree, cmake_flags, log)
        head = worktree.prepare()
        print(f"{len(rows)} mutations of tests/mutations on {head[:12]} in "
              f"{worktree.dir} (log: {log_path})", flush=True)
        stale = check_catalogue(rows, worktree.dir)
        for error in stale:
            print(f"STALE {error}", flush=True)
        if stale and not args.keep_going:
            print(f"{len(stale)} stale: nothing run (--keep-going runs the "
                  "rest)")
            return 1
        stale_ids = {r["id"] for r in rows if any(
            e.startswith(r["where"] + ":") for e in stale)}
        live = [r for r in rows if r["id"] not in stale_ids]
        start = time.monotonic()
        tests = baseline(worktree, live, args.reference_build)
        failing = check_head(worktree, tests, live) if args.check_head \
            else {}
        counts, missed = {}, []
        for i, row in enumerate(live, 1):
            if row["id"] in failing:
                label = "tests fail without it"
                missed.append(f"{row['id']} ({label}: {failing[row['id']]})")
                print(f"[{i}/{len(live)}] {row['id']:<36} {label}: "
                      f"{failing[row['id']]}", flush=True)
                continue
            text, offset = locate(row, worktree.dir)
            result = try_mutation(worktree, tests, worktree.dir / row["file"],
                                  text, offset, row["pattern"],
                                  row["replacement"], row["tests"],
                                  args.timeout)
            label = verdict(row, result)
            counts[label] = counts.get(label, 0) + 1
            print_result(f"[{i}/{len(live)}] {row['id']:<36}", label, result)
            if not label.startswith("caught"):
                missed.append(f"{row['id']} ({label})")
                if not args.keep_going:
                    break
        elapsed = time.monotonic() - start
    handle.close()
    caught = sum(n for k, n in counts.items() if k.startswith("caught"))
    print(f"mutations: {caught}/{len(rows)} caught, "
          f"{len(missed)} not ({', '.join(missed) or 'none'}), "
          f"{len(stale)} stale, in {minutes(elapsed)}")
    return 1 if missed or stale else 0


def command_check(args, cmake_flags):
    """Every row parses and its pattern occurs once in this tree."""
    rows = load_catalogue()
    errors = check_catalogue(rows, ROOT)
    for error in errors:
        print(error)
    print(f"{len(rows)} mutations, {len(errors)} stale")
    return 1 if errors else 0


# --- generate --------------------------------------------------------------------

COMMENT_OR_DIRECTIVE = re.compile(r"^\s*(//|/\*|\*|#)")
SWAP = re.compile(r"\((\w+), (\w+)\)")
OPERATORS = (
    # name, regex on the line, replacement
    ("< to >=", re.compile(r"(?<=[\w)\]]) < (?=[\w(!-])"), " >= "),
    (">= to <", re.compile(r"(?<=[\w)\]]) >= (?=[\w(!-])"), " < "),
    ("> to <=", re.compile(r"(?<=[\w)\]]) > (?=[\w(!-])"), " <= "),
    ("<= to >", re.compile(r"(?<=[\w)\]]) <= (?=[\w(!-])"), " > "),
    ("== to !=", re.compile(r" == "), " != "),
    ("!= to ==", re.compile(r" != "), " == "),
    ("< to <=", re.compile(r"(?<=[\w)\]]) < (?=[\w(!-])"), " <= "),
    ("+ 1 dropped", re.compile(r" \+ 1\b"), ""),
    ("- 1 dropped", re.compile(r" - 1\b"), ""),
    ("&& to ||", re.compile(r" && "), " || "),
    ("error return dropped",
     re.compile(r"\breturn (absl::\w+Error\()"), r"(void)\1"),
    ("! dropped", re.compile(r"\bif \(!(?=[\w(])"), "if ("),
)


RAW_STRING_START = re.compile(r'R"([^(\s]*)\(')


def code_lines(text):
    """(line number, line) of the lines that are code: no comment, no
    preprocessor directive, no string-only line, nothing of a raw string."""
    raw_end = None
    for number, line in enumerate(text.splitlines(), 1):
        if raw_end is not None:
            if raw_end in line:
                raw_end = None
            continue
        start = RAW_STRING_START.search(line)
        if start and f"){start.group(1)}\"" not in line[start.end():]:
            raw_end = f"){start.group(1)}\""
            continue
        if start or COMMENT_OR_DIRECTIVE.match(line) or \
                line.strip().startswith('"'):
            continue
        code = line.split("//", 1)[0]
        if code.count('"') % 2:
            continue
        yield number, code


def candidates(path, root):
    """Every (file, line, operator name, original, mutated) in a file."""
    text = (root / path).read_text()
    lines = text.splitlines()
    out = []
    for number, code in code_lines(text):
        for name, regex, replacement in OPERATORS:
            for match in regex.finditer(code):
                if in_string(code, match.start()) or "<<" in code[
                        max(0, match.start() - 2):match.end() + 2]:
                    continue
                mutated = (lines[number - 1][:match.start()]
                           + match.expand(replacement)
                           + lines[number - 1][match.end():])
                out.append((path, number, name, lines[number - 1], mutated))
        swap = SWAP.search(code)
        if swap and swap.group(1) != swap.group(2) and not in_string(
                code, swap.start()):
            line = lines[number - 1]
            mutated = (line[:swap.start()] + f"({swap.group(2)}, "
                       f"{swap.group(1)})" + line[swap.end():])
            out.append((path, number, "arguments swapped", line, mutated))
    return out


def in_string(code, index):
    return code[:index].count('"') % 2 == 1


# Integration suites that drive a folder's code (the server's services are
# tested through a real server), run with its own tests/<folder>/.
FOLDER_INTEGRATION = {
    "src/server": r"(^|/)(Serve(Auth|Job|Study|Trust|Paths|Quota)Test|"
                  r"MultiUserTest|EmbeddedServerTest)\.",
    "src/runner": r"(^|/)(RunCliTest|RunExitCodesTest|RunMistakesTest)\.",
}


def folder_tests(tests, worktree, folder):
    """ctest -R regexes for the tests of tests/<folder>/ (src/core ->
    tests/core, algorithms -> tests/algorithms), not slow: one per GoogleTest suite, or the whole name;
    and FOLDER_INTEGRATION's suites."""
    prefix = str(worktree.build / "tests" / folder.removeprefix("src/")) + "/"
    regexes = {FOLDER_INTEGRATION[folder]} if folder in FOLDER_INTEGRATION \
        else set()
    for name, test in tests.items():
        command = test.get("command") or [""]
        labels = {p["name"]: p["value"] for p in
                  test.get("properties", [])}.get("LABELS", [])
        if not command[0].startswith(prefix) or "slow" in labels:
            continue
        bare = name.split("  #", 1)[0]
        parts = bare.split("/")
        suite_name = parts[1] if len(parts) == 3 else bare
        if "." in suite_name:
            regexes.add("(^|/)" + re.escape(suite_name.split(".")[0]) + r"\.")
        else:
            regexes.add("^" + re.escape(bare) + "$")
    return sorted(regexes)


def generated(worktree, folder, count, rng):
    """count (file, line, operator, original, mutated) drawn from the
    candidates of folder's .cc files."""
    files = sorted(p.relative_to(worktree.dir).as_posix() for p in
                   (worktree.dir / folder).rglob("*.cc"))
    pool = [c for f in files for c in candidates(f, worktree.dir)]
    return rng.sample(pool, min(count, len(pool)))


def score_folder(worktree, tests, folder, plan, timeout):
    """One folder's mutations run and printed: a dict of caught, compiled
    (caught or survived), and the survivors' and equivalents' lines."""
    regexes = folder_tests(tests, worktree, folder)
    score = {"caught": 0, "compiled": 0, "survivors": [], "equivalent": []}
    for path, number, name, original, mutated in plan:
        text = (worktree.dir / path).read_text()
        offset = sum(len(line) + 1 for line in text.split("\n")[:number - 1])
        result = try_mutation(worktree, tests, worktree.dir / path, text,
                              offset, original, mutated, regexes, timeout,
                              same_code_is_equivalent=True)
        outcome = result["outcome"]
        label = {"caught": "caught", "not-caught": "SURVIVED",
                 "no-compile": "does not compile", "no-tests": "no tests",
                 "equivalent": "equivalent (same code)",
                 "error": "ctest error"}[outcome]
        score["compiled"] += outcome in ("caught", "not-caught")
        score["caught"] += outcome == "caught"
        where = f"{path}:{number} {name}: {mutated.strip()}"
        if outcome == "not-caught":
            score["survivors"].append(where)
        elif outcome == "equivalent":
            score["equivalent"].append(where)
        print_result(f"  {path}:{number} {name:<20}", label, result)
    print(f"{folder}: {score['caught']}/{score['compiled']} caught",
          flush=True)
    return score


def command_generate(args, cmake_flags):
    handle = lock(args.worktree)
    rng = random.Random(args.seed)
    folders = args.folders.split(",")
    log_path = log_file(args.worktree, "generate")
    with open(log_path, "w") as log:
        worktree = Worktree(args.worktree, cmake_flags, log)
        head = worktree.prepare()
        print(f"generated mutations, seed {args.seed}, {args.per_folder} per "
              f"folder, on {head[:12]} (log: {log_path})", flush=True)
        start = time.monotonic()
        ok, seconds, output = worktree.build_targets(["all"])
        if not ok:
            raise SystemExit(f"HEAD does not build:\n{output[-3000:]}")
        print(f"baseline build: {minutes(seconds)}", flush=True)
        tests = worktree.tests()
        plans = {f: generated(worktree, f, args.per_folder, rng)
                 for f in folders}
        scores = {f: score_folder(worktree, tests, f, plans[f], args.timeout)
                  for f in folders}
        elapsed = time.monotonic() - start
    handle.close()
    print(f"\nscore per folder (caught / compiled), seed {args.seed}, "
          f"{minutes(elapsed)}:")
    below = []
    for folder, score in scores.items():
        caught, compiled = score["caught"], score["compiled"]
        share = 100 * caught / compiled if compiled else 100.0
        print(f"  {folder:<12} {caught}/{compiled} {share:.0f}%"
              f"  ({len(score['equivalent'])} equivalent)")
        for survivor in score["survivors"]:
            print(f"    survivor: {survivor}")
        for same in score["equivalent"]:
            print(f"    equivalent: {same}")
        if share < args.min_score:
            below.append(folder)
    if below:
        print(f"below {args.min_score:.0f}%: {', '.join(below)}")
        return 1
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    cmake_flags = []
    if "--" in argv:
        cmake_flags = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="the catalogue")
    run.add_argument("--only", help="ids or files matching this regex")
    run.add_argument("--slice", help="K/N: every Nth mutation from the Kth")
    run.add_argument("--rotate", help="a seed (the commit hash): --count "
                     "mutations picked by it")
    run.add_argument("--count", type=int, default=8)
    run.add_argument("--list", action="store_true", help="list, run nothing")
    run.add_argument("--keep-going", action="store_true",
                     help="go on past a mutation not caught or stale")
    run.add_argument("--reference-build", default=str(ROOT / "build"),
                     help="a build of the project whose ctest list tells a "
                     "fresh worktree which executables to build (default: "
                     "build/, make build's)")
    run.add_argument("--check-head", action="store_true",
                     help="run the tests unmutated first; a row whose tests "
                     "already fail is reported, not counted as caught")
    run.add_argument("--timeout", type=int, default=900,
                     help="seconds a build or a test run may take")
    sub.add_parser("check", help="every pattern occurs exactly once")
    gen = sub.add_parser("generate", help="random mutations, scored")
    gen.add_argument("--seed", type=int, default=1)
    gen.add_argument("--per-folder", type=int, default=8)
    gen.add_argument("--folders", default=",".join(GENERATOR_FOLDERS))
    gen.add_argument("--min-score", type=float, default=80.0,
                     help="the share of compiled mutations each folder's "
                          "tests must catch (percent); exit 1 below it")
    gen.add_argument("--timeout", type=int, default=300,
                     help="seconds a build or a test run may take")
    for command in (run, gen):
        command.add_argument(
            "--worktree", default=str(ROOT / "build-mutations" / "tree"),
            help="the scratch worktree (its build is WORKTREE/build)")
    args = parser.parse_args(argv)
    command = {"run": command_run, "check": command_check,
               "generate": command_generate}[args.command]
    try:
        return command(args, cmake_flags)
    except CatalogueError as error:
        print(f"catalogue: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
