"""Shared by check scripts that vouch for many gate lines at once: the lines of one rule in a suite's gate."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def gate_lines(suite, rule):
    """(file, line) of every line of `rule` in test/corpora/<suite>.expected.tsv (or $VAUDIT_EXPECTED)."""
    path = os.environ.get("VAUDIT_EXPECTED") or os.path.join(HERE, "..", f"{suite}.expected.tsv")
    if os.path.isdir(path):
        path = os.path.join(path, f"{suite}.expected.tsv")
    out = []
    with open(path, encoding="utf-8") as f:
        for row in f:
            if row.startswith("#") or not row.strip():
                continue
            cols = row.rstrip("\n").split("\t")
            if cols[0] == rule:
                out.append((cols[1], int(cols[2])))
    return out
