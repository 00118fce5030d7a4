#!/usr/bin/env python3
"""Finds the functions of hptune's product code that are over a line limit.

Reads every .h and .cc under src/, algorithms/ and include/ (tests and
benchmarks are not product code) and finds each function definition by
brace matching on clang-formatted Google-style code: comments, string and
character literals are blanked first, then a `{` outside any function body
(at file scope, or in a namespace, class, struct or extern "C" block) whose
head has a `(` opens a function, and its matching `}` closes it. A
function's length is its lines from the first line of its head to the line
of its closing brace.

  scripts/function_lengths.py                 # every function over the limit
  scripts/function_lengths.py --check         # fails on one not allowed
  scripts/function_lengths.py --write-allowed # the allow-list from today's

With --check, a function over the limit must be in the allow-list
(scripts/function_lengths_allowed.txt: `PATH NAME LINES` a line) and no
longer than it says there; an entry whose function is gone or now within
the limit fails too, so the list only shrinks. Exit 0 when all is well, 1
when not, each offence on a line of its own.
"""

import argparse
import os
import re
import sys

LIMIT = 80
DIRS = ("src", "algorithms", "include")
ALLOWED = os.path.join("scripts", "function_lengths_allowed.txt")

_RAW_STRING = re.compile(r'R"([^()\\ ]{0,16})\(')


def blank_literals(text):
    """Returns text with comments and literals replaced by spaces.

    Newlines are kept, so line numbers stay; a string becomes `""` and a
    character `''`, so a head keeps its shape (extern "C" stays extern "").
    """
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            i = end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
        elif c == "R" and _RAW_STRING.match(text, i) and (
                i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = _RAW_STRING.match(text, i)
            close = ")" + m.group(1) + '"'
            end = text.find(close, m.end())
            end = n if end < 0 else end + len(close)
            out.append('""' + re.sub(r"[^\n]", " ", text[i + 2:end]))
            i = end
        elif c == '"' or (c == "'" and not (i > 0 and text[i - 1].isalnum())):
            # A ' after a digit or letter is a digit separator (1'000).
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            end = min(j + 1, n)
            out.append(c + " " * (end - i - 2) + c)
            i = end
        else:
            out.append(c)
            i += 1
    return "".join(out)


def strip_preprocessor(text):
    """Blanks preprocessor lines (and their continuations), keeping lines."""
    lines = text.split("\n")
    continued = False
    for k, line in enumerate(lines):
        if continued or line.lstrip().startswith("#"):
            continued = line.rstrip().endswith("\\")
            lines[k] = ""
    return "\n".join(lines)


_TYPE_HEAD = re.compile(
    r"^(template\s*<.*>\s*)?(\[\[.*\]\]\s*)?(class|struct|union|enum)\b", re.S)
_NAME = re.compile(r"((?:~?[A-Za-z_]\w*|operator\s*\S+?)(?:\s*<[^()]*>)?"
                   r"(?:\s*::\s*~?[A-Za-z_]\w*)*)\s*$")


def head_kind(head):
    """What a `{` whose preceding text (at its depth) is `head` opens."""
    h = " ".join(head.split())
    if re.match(r"^(inline\s+)?namespace\b", h):
        return "namespace"
    if re.match(r'^extern\s*""$', h):
        return "extern"
    if _TYPE_HEAD.match(h):
        return "type"
    if "(" not in h:
        return "other"
    # `x = {` is an initializer, but `f = [](...) {` is a lambda's body.
    if re.search(r"=\s*\{?$", h) or (
            "=" in h.split("(")[0] and "[" not in h.split("(")[0] and
            "operator" not in h):
        return "other"
    return "function"


def function_name(head):
    """The name in a function's head: what precedes its first `(`."""
    h = " ".join(head.split())
    if re.search(r"\boperator\s*\(\s*\)", h):
        before = h[:h.index("(", h.index(")", h.index("operator")))]
    else:
        before = h.split("(")[0]
    m = _NAME.search(before.rstrip())
    if not m:
        return before.strip()[-40:] or "?"
    return re.sub(r"\s+", "", m.group(1))


def type_name(head):
    h = " ".join(head.split())
    h = re.sub(r"^template\s*<.*?>\s*", "", h)
    m = re.match(r"(?:\[\[.*?\]\]\s*)?(?:class|struct|union|enum)\s+"
                 r"(?:class\s+)?(?:\[\[.*?\]\]\s*)?([\w:]+)", h)
    return m.group(1) if m else ""


def functions(path):
    """Yields (name, first line, last line) of each function in the file."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = strip_preprocessor(blank_literals(f.read()))
    # Each open brace: (kind, name, first line of its head).
    stack = []
    head, head_line = [], None
    parens = 0  # Unclosed ( in the head.
    line = 1
    in_function = 0
    for c in text:
        if c == "\n":
            line += 1
            if head:
                head.append(" ")
            continue
        if in_function:
            if c == "{":
                stack.append(("block", "", line))
                in_function += 1
            elif c == "}":
                kind, name, first = stack.pop()
                in_function -= 1
                if kind == "function":
                    yield name, first, line
            continue
        if parens and c in "{};":
            # A default argument's braces: `Options o = {}`, `[] { ... }`.
            head.append(c)
            continue
        if c == "{":
            h = "".join(head)
            # Inside an initializer every brace is the initializer's.
            kind = ("other" if any(k == "other" for k, _, _ in stack) else
                    head_kind(h))
            name = ""
            if kind == "function":
                scope = [n for k, n, _ in stack if k == "type" and n]
                name = "::".join(scope + [function_name(h)])
                in_function = 1
            elif kind == "type":
                name = type_name(h)
            stack.append((kind, name, head_line or line))
            head, head_line, parens = [], None, 0
        elif c in ";}":
            if c == "}" and stack:
                stack.pop()
            head, head_line, parens = [], None, 0
        elif c == ":" and head and "".join(head).strip() in (
                "public", "private", "protected"):
            head, head_line = [], None
        else:
            if c == "(":
                parens += 1
            elif c == ")":
                parens = max(parens - 1, 0)
            if not c.isspace() and head_line is None:
                head_line = line
            head.append(c)


def sources(root):
    for top in DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith((".h", ".cc")):
                    yield os.path.relpath(os.path.join(dirpath, name), root)


def long_functions(root, limit):
    """[(path, name, lines)] of every function over `limit` lines."""
    found = []
    for path in sources(root):
        for name, first, last in functions(os.path.join(root, path)):
            lines = last - first + 1
            if lines > limit:
                found.append((path, name, lines))
    return found


def read_allowed(path):
    allowed = {}
    with open(path, encoding="utf-8") as f:
        for number, text in enumerate(f, 1):
            text = text.split("#")[0].strip()
            if not text:
                continue
            parts = text.split()
            if len(parts) != 3 or not parts[2].isdigit():
                sys.exit(f"{path}:{number}: expected PATH NAME LINES, "
                         f"got {text!r}")
            allowed[(parts[0], parts[1])] = int(parts[2])
    return allowed


def check(found, allowed, limit):
    """The offences: one line each."""
    offences = []
    seen = set()
    for path, name, lines in found:
        key = (path, name)
        seen.add(key)
        if key not in allowed:
            offences.append(
                f"{path}: {name} is {lines} lines, over {limit}: split it "
                f"into functions that each do one thing")
        elif lines > allowed[key]:
            offences.append(
                f"{path}: {name} is {lines} lines, longer than the "
                f"{allowed[key]} the allow-list lets it have: shorten it")
    for key, lines in sorted(allowed.items()):
        if key not in seen:
            offences.append(
                f"{key[0]}: {key[1]} is gone or within {limit} lines: "
                f"remove it from {ALLOWED}")
    return offences


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.dirname(
        os.path.dirname(os.path.abspath(__file__))))
    parser.add_argument("--limit", type=int, default=LIMIT)
    parser.add_argument("--check", action="store_true",
                        help="fail on a long function the allow-list lacks")
    parser.add_argument("--write-allowed", action="store_true",
                        help="write today's long functions as the allow-list")
    args = parser.parse_args()
    found = long_functions(args.root, args.limit)
    allowed_path = os.path.join(args.root, ALLOWED)
    if args.write_allowed:
        with open(allowed_path, "w", encoding="utf-8") as f:
            f.write(f"# Functions over {args.limit} lines that remain, and "
                    f"their lengths: none may\n# grow and none may join "
                    f"(scripts/function_lengths.py --check).\n")
            for path, name, lines in found:
                f.write(f"{path} {name} {lines}\n")
        print(f"{len(found)} functions written to {allowed_path}")
        return 0
    if not args.check:
        for path, name, lines in sorted(found, key=lambda x: -x[2]):
            print(f"{lines:5d} {path} {name}")
        print(f"{len(found)} functions over {args.limit} lines")
        return 0
    allowed = read_allowed(allowed_path) if os.path.exists(
        allowed_path) else {}
    offences = check(found, allowed, args.limit)
    for offence in offences:
        print(f"function_lengths: {offence}")
    if offences:
        return 1
    print(f"function_lengths: {len(found)} functions over {args.limit} "
          f"lines, each allowed and none longer than allowed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
