#!/usr/bin/env python3
"""Round-trips every .ir file of the repository through `xtc opt` twice and compares the outputs.

Usage: roundtrip_all.py XTC REPO_ROOT. Skips build trees, hidden folders, the bad-input corpus and
files whose RUN lines expect xtc to fail (`not %xtc`). Verification is off (--verify-each=false) so
IR that uses ops of a later stage still round-trips. Exit status 1 on any failure."""
import os
import subprocess
import sys
import tempfile


def main():
    xtc, root = sys.argv[1], os.path.abspath(sys.argv[2])
    files = []
    for d, subdirs, names in os.walk(root):
        rel = os.path.relpath(d, root)
        subdirs[:] = [s for s in subdirs if not s.startswith(".") and not s.startswith("build")
                      and os.path.normpath(os.path.join(rel, s)) != os.path.join("tests", "bad-input")]
        files += [os.path.join(d, n) for n in names if n.endswith(".ir")]
    failures, checked = [], 0
    for f in sorted(files):
        with open(f, encoding="utf-8", errors="replace") as fh:
            if "not %xtc" in fh.read():
                continue
        first = subprocess.run([xtc, "opt", f, "--verify-each=false"], capture_output=True)
        if first.returncode != 0:
            failures.append("%s: does not parse:\n%s" % (f, first.stderr.decode(errors="replace")))
            continue
        with tempfile.TemporaryDirectory() as td:
            again = os.path.join(td, os.path.basename(f))
            with open(again, "wb") as out:
                out.write(first.stdout)
            second = subprocess.run([xtc, "opt", again, "--verify-each=false"], capture_output=True)
        if second.returncode != 0 or second.stdout != first.stdout:
            failures.append("%s: print(parse(print(x))) != print(x)\n%s" % (f, second.stderr.decode(errors="replace")))
        checked += 1
    print("round-tripped %d .ir files" % checked)
    for msg in failures:
        print("FAIL: " + msg)
    if checked == 0:
        print("FAIL: no .ir file found under " + root)
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
