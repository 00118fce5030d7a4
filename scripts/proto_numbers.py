#!/usr/bin/env python3
"""Field numbers and enum values of hptune's API are never reused.

proto/numbers.tsv lists every number a message field or an enum value of
proto/hptune/v1/*.proto has ever had: `scope` (the message's or enum's full
name), `number` and `name`. The list only grows. --check fails, naming each
problem, when

  - a number of the list is in use in its scope under another name (a
    removed field's number given to a new one, or a field renamed, which
    breaks JSON and text clients);
  - a number of the list is no longer in use and not `reserved` in its
    scope, or its name is not reserved (a later change could take them);
  - a field or value is not in the list yet (run --update with the change
    that adds it).

    scripts/proto_numbers.py --check
    scripts/proto_numbers.py --update        # adds the protos' numbers
    scripts/proto_numbers.py --update --git  # ... and those of every
                                             # version in git history

--root DIR names the repository (default: the parent of this script's
directory). Python 3 standard library only; ctest runs the check as
api.proto_numbers_never_reused (tests/CMakeLists.txt). The parser reads the
subset of proto3 the API uses: messages, enums, oneofs and maps, nested.
"""

import argparse
import pathlib
import re
import subprocess
import sys

PROTO_DIR = "proto/hptune/v1"
LIST = "proto/numbers.tsv"
HEADER = ("scope", "number", "name")
COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
PACKAGE = re.compile(r"^package\s+([\w.]+)$")
BLOCK = re.compile(r"^(message|enum|oneof|service|rpc)\s+(\w+)")
FIELD = re.compile(
    r"^(?:repeated\s+|optional\s+)?(?:map\s*<[^>]*>|[\w.]+)\s+(\w+)\s*=\s*"
    r"(\d+)\s*(?:\[.*\])?$", re.DOTALL)
ENUM_VALUE = re.compile(r"^(\w+)\s*=\s*(-?\d+)\s*(?:\[.*\])?$", re.DOTALL)
RESERVED = re.compile(r"^reserved\s+(.*)$", re.DOTALL)


class Proto:
    """Numbers in use and reserved, by scope, of a set of .proto files."""

    def __init__(self):
        self.used = {}  # scope -> {number: name}
        self.kinds = {}  # scope -> "message" or "enum"
        self.reserved_numbers = {}  # scope -> set of (low, high)
        self.reserved_names = {}  # scope -> set of names

    def reserve(self, scope, text):
        for part in (p.strip() for p in text.split(",")):
            if part.startswith('"'):
                self.reserved_names.setdefault(scope, set()).add(part[1:-1])
                continue
            low, _, high = part.partition(" to ")
            high = high.strip() or low
            top = 2**31 - 1 if high == "max" else int(high)
            self.reserved_numbers.setdefault(scope, set()).add(
                (int(low), top))

    def is_reserved(self, scope, number, name):
        numbers = self.reserved_numbers.get(scope, set())
        return (any(low <= number <= high for low, high in numbers),
                name in self.reserved_names.get(scope, set()))


def statements(text):
    """(kind, text) pairs: "open" before {, "close" at }, "end" before ;."""
    strings = []

    def hide(match):  # A string may hold { } or ;.
        strings.append(match.group(0))
        return f"\0{len(strings) - 1}\0"

    def restore(body):
        return re.sub(r"\0(\d+)\0", lambda m: strings[int(m.group(1))], body)

    text = STRING.sub(hide, COMMENT.sub(" ", text))
    for match in re.finditer(r"([^{};]*)([{};])", text):
        body = " ".join(restore(match.group(1)).split())
        yield {"{": "open", "}": "close", ";": "end"}[match.group(2)], body


def parse(proto, text, where):
    package, stack = "", []  # stack of (kind, full name)
    for kind, body in statements(text):
        if kind == "open":
            block = BLOCK.match(body)
            if block is None:
                raise SystemExit(
                    f"proto_numbers: {where}: cannot read {body!r}")
            if block.group(1) in ("message", "enum"):
                parent = stack[-1][1] if stack else package
                name = f"{parent}.{block.group(2)}"
                proto.kinds[name] = block.group(1)
                proto.used.setdefault(name, {})
                stack.append((block.group(1), name))
            else:  # A oneof's fields are its message's; services have none.
                stack.append((block.group(1), stack[-1][1] if stack else ""))
            continue
        if kind == "close":
            stack.pop()
            continue
        if not body:
            continue
        if PACKAGE.match(body):
            package = PACKAGE.match(body).group(1)
            continue
        if not stack or stack[-1][0] not in ("message", "enum", "oneof"):
            continue
        scope = stack[-1][1]
        if RESERVED.match(body):
            proto.reserve(scope, RESERVED.match(body).group(1))
        elif body.startswith("option "):
            continue
        else:
            pattern = ENUM_VALUE if proto.kinds[scope] == "enum" else FIELD
            field = pattern.match(body)
            if field is None:
                raise SystemExit(
                    f"proto_numbers: {where}: cannot read {body!r}")
            proto.used[scope][int(field.group(2))] = field.group(1)


def current(root):
    proto = Proto()
    for path in sorted((root / PROTO_DIR).glob("*.proto")):
        parse(proto, path.read_text(encoding="utf-8"), path.name)
    return proto


def historical(root):
    """A Proto per commit that touched the protos, oldest first."""
    git = ["git", "-C", str(root)]
    commits = subprocess.run(
        git + ["log", "--reverse", "--format=%H", "--", PROTO_DIR],
        check=True, capture_output=True, text=True).stdout.split()
    for commit in commits:
        names = subprocess.run(
            git + ["ls-tree", "--name-only", f"{commit}:{PROTO_DIR}"],
            check=True, capture_output=True, text=True).stdout.split()
        proto = Proto()
        for name in (n for n in names if n.endswith(".proto")):
            text = subprocess.run(
                git + ["show", f"{commit}:{PROTO_DIR}/{name}"], check=True,
                capture_output=True, text=True).stdout
            parse(proto, text, f"{commit[:12]}:{name}")
        yield commit, proto


def read_list(root):
    path = root / LIST
    if not path.exists():
        return []
    rows = [line.split("\t") for line in
            path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [(r[0], int(r[1]), r[2]) for r in rows if tuple(r) != HEADER]


def write_list(root, rows):
    lines = ["\t".join(HEADER)]
    lines += [f"{scope}\t{number}\t{name}" for scope, number, name in rows]
    (root / LIST).write_text("\n".join(lines) + "\n", encoding="utf-8")


def add(rows, proto, where, problems):
    known = {(scope, number): name for scope, number, name in rows}
    for scope, numbers in proto.used.items():
        for number, name in sorted(numbers.items()):
            old = known.get((scope, number))
            if old is None:
                rows.append((scope, number, name))
                known[(scope, number)] = name
            elif old != name:
                problems.append(f"{where}: {scope} number {number} is "
                                f"\"{name}\", earlier \"{old}\"")


def check(rows, proto):
    problems = []
    listed = {(scope, number) for scope, number, _ in rows}
    for scope, number, name in rows:
        now = proto.used.get(scope, {}).get(number)
        if now == name:
            continue
        if now is not None:
            problems.append(f"{scope}: number {number} was \"{name}\", now "
                            f"\"{now}\": a number is never reused or renamed")
            continue
        number_reserved, name_reserved = proto.is_reserved(scope, number, name)
        if not (number_reserved and name_reserved):
            problems.append(f"{scope}: \"{name}\" = {number} is gone but not "
                            f"reserved: add `reserved {number};` and "
                            f"`reserved \"{name}\";`")
    for scope, numbers in proto.used.items():
        for number, name in sorted(numbers.items()):
            if (scope, number) not in listed:
                problems.append(
                    f"{scope}: \"{name}\" = {number} is not in {LIST}: run "
                    "scripts/proto_numbers.py --update")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=pathlib.Path,
                        default=pathlib.Path(__file__).resolve().parent.parent)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--update", action="store_true")
    parser.add_argument("--git", action="store_true",
                        help="with --update: every version in git history")
    args = parser.parse_args()
    rows = read_list(args.root)
    if args.update:
        problems, before = [], len(rows)
        if args.git:
            for commit, proto in historical(args.root):
                add(rows, proto, commit[:12], problems)
        add(rows, current(args.root), "the working tree", problems)
        write_list(args.root, rows)
        for problem in problems:
            print(f"proto_numbers: {problem}")
        print(f"proto_numbers: {len(rows) - before} numbers added to {LIST}")
        return 1 if problems else 0
    problems = check(rows, current(args.root))
    for problem in problems:
        print(f"proto_numbers: {problem}")
    print(f"proto_numbers: {len(rows)} numbers listed, {len(problems)} "
          "problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
