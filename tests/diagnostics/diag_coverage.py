#!/usr/bin/env python3
"""Every user-facing diagnostic of ir/, backends/ and driver/ has a test case (the frontend has its own
registry: frontend/Diagnostics.def and tests/unit/frontend/BadInputTest.cpp).

There is no registry of these messages (they are written where they are reported), so this script
finds them in the sources by a fixed rule and looks for each one in the test corpus.

Which calls count (after C++ comments are removed): a call or braced construction of one of SINKS
(`diags.error(...)`, `diags_.warning(...)`, the passes' and interpreter's `fail(op, ...)` and
`die(op, ...)`, the IR parser's `failExpected(...)` (its text is `expected ` + the argument), `layout::Error{...}`, `specError(...)`, `InterpError(...)`) whose
arguments contain at least one string literal. `std::logic_error` and friends are internal
assertions and do not count. Op verifiers (XTC_REQUIRE in ir/ops/) are not scanned.

What a message is: its string literals in order. A message assembled at run time (fmt::format
placeholders `{}`, `"text " + name + " more"`) splits into literal fragments at every placeholder
or non-literal piece; its key is the fragments joined by `{}` (`no DPAS for {} on target {}`). Two
sites with the same key are one message. A message argument `cond ? "..." : "..."` is two messages. A call whose only literal is a prefix ending in `:` (or
has at most 3 characters of text) is a forwarder (`fail(op, "lower-generic: " + why)`: the text
comes from its callers) and is not a message itself. Not found: messages built in a variable first
(`std::string why = "..."; fail(op, why)`) — write the literal in the call.

A message that starts with `internal error` says it is a bug in xtc if it is ever seen: it needs no
case (none can exist) and is counted apart.

What covers a message: one line that matches its fragments in order (anything between them, so a
FileCheck `{{.*}}` or a concrete value both match), or its first two or more fragments in order, the
last of them possibly cut to its first PREFIX_KEY characters, when they hold at least MIN_EARLY
characters (a check that stops early at a value), in
  - a FileCheck directive of a file under tests/golden/ with a prefix the file declares in its RUN
    lines (`--check-prefix(es)`, and CHECK; a file under Inputs/: any prefix declared in the tree),
    not `-NOT:` (a message that must not appear is not a case for it), or
  - a `// CHECK:` or `// expected-error:` line of a file under tests/bad-input/, or
  - a string literal of a unit test under tests/unit/ (where the message is compared or searched).

What exempts a message: a line `KEY | REASON` in exemptions.txt (same folder). REASON starts with
`internal:` (unreachable from any input: reaching it is a bug in xtc), `environment:` (needs a device
or a tool failure the test machine cannot produce on demand) or `todo:` (reachable, no case yet).
An exemption for a message that no longer exists, or that has a case now, is an error too (remove
it), so the list only shrinks.

Usage: diag_coverage.py [--root DIR] [--list] [--prune]   (exit 1 and the list of uncovered messages on failure)
"""
import argparse
import os
import re
import sys

SINKS = ["error", "warning", "fail", "die", "failExpected", "failNote", "Error", "specError", "InterpError"]
SOURCE_DIRS = ["ir", "backends", "driver"]
MIN_EARLY = 24
PREFIX_KEY = 40
REASONS = ("internal:", "environment:", "todo:")

CALL_RE = re.compile(r"\b(" + "|".join(SINKS) + r")\s*([({])")
# FileCheck prefixes a file declares (default CHECK) and its directive lines with one of them.
PREFIX_ARG_RE = re.compile(r"--check-prefix(?:es)?[= ]([A-Za-z0-9_,-]+)")
SUFFIXES = r"(-NEXT|-SAME|-DAG|-LABEL|-NOT|-EMPTY|-COUNT-\d+)?"


def literal_end(text, i):
    """The index just past the string or char literal that starts at text[i]."""
    j, n = i + 1, len(text)
    while j < n and text[j] != text[i]:
        j += 2 if text[j] == "\\" else 1
    return j + 1


def strip_comments(text):
    """C++ text with comments blanked out (string and char literals kept; newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == "/" and i + 1 < n and text[i + 1] == "/":
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c == "/" and i + 1 < n and text[i + 1] == "*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif c == '"' or c == "'":
            j = literal_end(text, i)
            out.append(text[i:j])
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def call_args(text, open_at):
    """The text between the bracket at open_at and its match (string literals skipped)."""
    close = {"(": ")", "{": "}"}[text[open_at]]
    depth, i, n = 0, open_at, len(text)
    while i < n:
        c = text[i]
        if c == '"' or c == "'":
            i = literal_end(text, i)
            continue
        if c in "({[":
            depth += 1
        elif c in ")}]":
            depth -= 1
            if depth == 0:
                return text[open_at + 1:i] if c == close else None
        i += 1
    return None


ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "'": "'", "0": "\0"}


def decode(body):
    out, i = [], 0
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body):
            e = body[i + 1]
            if e == "x":
                m = re.match(r"[0-9a-fA-F]+", body[i + 2:])
                out.append("\\x" + (m.group(0) if m else ""))  # printed as text by the messages that use it
                i += 2 + (len(m.group(0)) if m else 0)
                continue
            out.append(ESCAPES.get(e, e))
            i += 2
        else:
            out.append(body[i])
            i += 1
    return "".join(out)


LITERAL_RE = re.compile(r'(?<![A-Za-z0-9_])(?:u8)?"((?:[^"\\\n]|\\.)*)"')


def fragments(args):
    """Literal fragments of a message: literals separated by anything but whitespace are split, and
    fmt placeholders `{...}` split a literal (`{{`/`}}` are literal braces)."""
    pieces, last_end, current = [], None, None
    for m in LITERAL_RE.finditer(args):
        lit = decode(m.group(1))
        if current is not None and args[last_end:m.start()].strip() == "":
            current += lit  # adjacent literals concatenate
        else:
            if current is not None:
                pieces.append(current)
            current = lit
        last_end = m.end()
    if current is not None:
        pieces.append(current)
    out = []
    for p in pieces:
        for f in re.split(r"(?<!\{)\{[^{}]*\}(?!\})", p):
            f = f.replace("{{", "{").replace("}}", "}")
            if f.strip():
                out.append(f)
    return out


def top_level_split(text, seps):
    """Splits `text` at the characters in `seps` that are outside brackets and literals; `::` is not
    a separator. Returns (pieces, separators found)."""
    pieces, found, depth, start, i, n = [], [], 0, 0, 0, len(text)
    while i < n:
        c = text[i]
        if c == '"' or c == "'":
            i = literal_end(text, i)
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0 and c in seps and text[i:i + 2] != "::" and text[max(0, i - 1):i + 1] != "::":
            pieces.append(text[start:i])
            found.append(c)
            start = i + 1
        i += 1
    pieces.append(text[start:])
    return pieces, found


def alternatives(args):
    """A message argument written `cond ? "a..." : "b..."` is two messages; otherwise one."""
    with_literals = [a for a in top_level_split(args, ",")[0] if LITERAL_RE.search(a)]
    if len(with_literals) == 1:
        pieces, found = top_level_split(with_literals[0], "?:")
        if found == ["?", ":"]:
            return [pieces[1], pieces[2]]
    return [args]


def scan_sources(root):
    """{key: [sites]} for every message, and the forwarders as (site, fragments)."""
    messages, forwarders = {}, []
    for d in SOURCE_DIRS:
        for dirpath, _, files in os.walk(os.path.join(root, d)):
            for name in sorted(files):
                if not name.endswith((".cpp", ".h")):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                text = strip_comments(open(path, encoding="utf-8", errors="replace").read())
                for m in CALL_RE.finditer(text):
                    args = call_args(text, m.end() - 1)
                    if args is None:
                        continue
                    for alt in alternatives(args):
                        frags = fragments(alt)
                        if not frags:
                            continue
                        if m.group(1) == "failExpected":  # the IR parser's `expected WHAT, got ...`
                            frags[0] = "expected " + frags[0]
                        line = text.count("\n", 0, m.start()) + 1
                        site = f"{rel}:{line}"
                        stripped = [f.strip() for f in frags]
                        if len("".join(stripped)) <= 3 or (len(frags) == 1 and stripped[0].endswith(":")):
                            forwarders.append((site, stripped))
                        else:
                            messages.setdefault("{}".join(frags).strip(), (stripped, []))[1].append(site)
    return messages, forwarders


def is_covered(frags, corpus):
    # The whole message, or a check that stops early: its first k >= 2 fragments in order (the last
    # one possibly cut to its first PREFIX_KEY characters), at least MIN_EARLY characters of them. A
    # line that only shares a fragment or two short ones with it (another message's) does not count.
    for k in range(len(frags), 0, -1):
        parts = frags[:k - 1] + [frags[k - 1][:PREFIX_KEY]]
        if k < len(frags) and (k < 2 or sum(len(p) for p in parts) < MIN_EARLY):
            continue
        if re.search(".*".join(re.escape(p) for p in parts), corpus) is not None:
            return True
    return False


def declared_prefixes(text):
    found = {"CHECK"}
    for m in PREFIX_ARG_RE.finditer(text):
        found.update(p for p in m.group(1).split(",") if p)
    return found


def corpus_lines(root):
    """The lines of the test corpus that can state an expected message."""
    files = []
    for sub in ("tests/golden", "tests/bad-input"):
        for dirpath, _, names in os.walk(os.path.join(root, sub)):
            for name in sorted(names):
                path = os.path.join(dirpath, name)
                try:
                    files.append((path, open(path, encoding="utf-8", errors="replace").read()))
                except OSError:
                    continue
    # A file under Inputs/ is checked by another file's RUN lines: any prefix declared anywhere counts.
    everywhere = set().union(*(declared_prefixes(t) for _, t in files)) if files else {"CHECK"}
    lines = []
    for path, text in files:
        prefixes = everywhere if f"{os.sep}Inputs{os.sep}" in path else declared_prefixes(text)
        directive = re.compile(r"(?<![A-Za-z0-9_-])(" + "|".join(sorted(map(re.escape, prefixes))) + ")" + SUFFIXES + r":(.*)$")
        for line in text.splitlines():
            m = directive.search(line)
            if m and m.group(2) != "-NOT":
                lines.append(m.group(3))
            elif "expected-error:" in line:
                lines.append(line)
    for dirpath, _, names in os.walk(os.path.join(root, "tests/unit")):
        for name in sorted(names):
            if name.endswith(".cpp"):
                text = strip_comments(open(os.path.join(dirpath, name), encoding="utf-8", errors="replace").read())
                lines.extend(decode(m.group(1)) for m in LITERAL_RE.finditer(text))
    return lines


def read_exemptions(path):
    ex = {}
    if not os.path.exists(path):
        return ex, []
    problems = []
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        line = line.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key, sep, reason = line.rpartition(" | ")
        if not sep or not reason.startswith(REASONS):
            problems.append(f"exemptions.txt:{n}: expected `KEY | internal:|environment:|todo: REASON`")
            continue
        ex[key.strip()] = reason
    return ex, problems


def main():
    ap = argparse.ArgumentParser()
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(here)))
    ap.add_argument("--exemptions", default=os.path.join(here, "exemptions.txt"))
    ap.add_argument("--list", action="store_true", help="print every message and how it is covered")
    ap.add_argument("--prune", action="store_true", help="remove exemptions that have a case now or name no message")
    a = ap.parse_args()

    messages, forwarders = scan_sources(a.root)
    corpus = "\n".join(corpus_lines(a.root))
    exemptions, problems = read_exemptions(a.exemptions)

    missing, stale_covered = [], []
    internal = sorted(k for k in messages if k.startswith("internal error"))
    stale_internal = [k for k in internal if k in exemptions]
    for key in internal:
        del messages[key]
    for key in sorted(messages):
        frags, sites = messages[key]
        covered = is_covered(frags, corpus)
        if a.list:
            how = "case" if covered else ("exempt: " + exemptions[key] if key in exemptions else "MISSING")
            print(f"{how:10.60s}  {key}  [{', '.join(sites)}]")
        if not covered and key not in exemptions:
            missing.append(key)
        if covered and key in exemptions:
            stale_covered.append(key)
    stale_gone = sorted(k for k in exemptions if k not in messages and k not in internal)
    if a.prune and (stale_covered or stale_gone or stale_internal):
        drop = set(stale_covered) | set(stale_gone) | set(stale_internal)
        kept = [l for l in open(a.exemptions, encoding="utf-8") if l.rpartition(" | ")[0].strip() not in drop]
        open(a.exemptions, "w", encoding="utf-8").writelines(kept)
        print(f"pruned {len(drop)} exemption(s) from {a.exemptions}")
        stale_covered, stale_gone, stale_internal = [], [], []

    for key in missing:
        problems.append(f"no case for diagnostic \"{key}\" ({', '.join(messages[key][1])}): add one under "
                        "tests/golden/ or tests/bad-input/, or an exemption with its reason")
    for key in stale_covered:
        problems.append(f"exempted diagnostic \"{key}\" has a case now: remove its line from exemptions.txt")
    for key in stale_internal:
        problems.append(f"exemption for \"{key}\" is not needed: the message says it is an internal error")
    for key in stale_gone:
        problems.append(f"exemption for \"{key}\" names no diagnostic in the sources: remove it")

    n_ex = {r: sum(1 for k, v in exemptions.items() if v.startswith(r) and k in messages) for r in REASONS}
    print(f"diagnostics: {len(messages)} messages in {', '.join(SOURCE_DIRS)}/ (and {len(internal)} internal errors); "
          f"{len(messages) - len(missing) - sum(n_ex.values()) + len(stale_covered)} with a case; exempt: "
          + ", ".join(f"{n_ex[r]} {r[:-1]}" for r in REASONS)
          + f"; {len(forwarders)} forwarding calls (text supplied by their callers)")
    for p in problems:
        print("error: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
