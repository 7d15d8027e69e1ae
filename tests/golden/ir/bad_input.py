#!/usr/bin/env python3
"""Checks the bad-input corpus: for every FILE.ir in a folder, `xtc opt FILE.ir -o OUT` must exit
with status 1 (not crash), print nothing on stdout, write no OUT, and its first diagnostic must be
`FILE.ir:` followed by the text of the file's `// expected-error: LINE:COL: error: MESSAGE` line.

Usage: bad_input.py XTC CORPUS_DIR TMP_DIR. Prints one line per file and exits 1 on any mismatch."""
import os
import subprocess
import sys


def main():
    xtc, corpus, tmp = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(tmp, exist_ok=True)
    failures, checked = 0, 0
    for name in sorted(os.listdir(corpus)):
        if not name.endswith(".ir"):
            continue
        path = os.path.join(corpus, name)
        with open(path, "rb") as fh:
            first_line = fh.readline().decode("utf-8", errors="replace").rstrip("\n")
        prefix = "// expected-error: "
        if not first_line.startswith(prefix):
            print("FAIL %s: first line must be '%s...'" % (name, prefix))
            failures += 1
            continue
        expected = path + ":" + first_line[len(prefix):]
        out = os.path.join(tmp, name + ".out")
        if os.path.exists(out):
            os.remove(out)
        r = subprocess.run([xtc, "opt", path, "-o", out], capture_output=True)
        err = r.stderr.decode("utf-8", errors="replace")
        got = err.split("\n", 1)[0]
        problems = []
        if r.returncode != 1:
            problems.append("exit status %d (expected 1)" % r.returncode)
        if r.stdout:
            problems.append("wrote to stdout")
        if os.path.exists(out):
            problems.append("left an output file")
        if got != expected:
            problems.append("first diagnostic:\n    got:      %s\n    expected: %s" % (got, expected))
        if "^" not in err:
            problems.append("no caret line")
        checked += 1
        if problems:
            failures += 1
            print("FAIL %s: %s" % (name, "; ".join(problems)))
        else:
            print("ok %s" % name)
    print("checked %d files, %d failed" % (checked, failures))
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
