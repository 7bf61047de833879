#!/usr/bin/env python3
"""ncu_launch_table.py: a probe's `ncu --csv --metrics` output as one line per launch, named by the
probe's own "launch I NAME ..." lines (the one-warp probes of kernels/probes/, run by
scripts/h200_atom_inc.sh and scripts/h200_atom_cast.sh).

    ncu_launch_table.py METRICS.csv PLAIN.txt [--index] HEADER METRIC...

METRICS.csv: the CSV rows of ncu (column 0 the launch ID, 12 the metric name, 14 its value);
PLAIN.txt: the probe's stdout. Prints "# HEADER", then per launch [its index,] its name and each
METRIC's value ("None" where ncu has none).
"""
import csv
import sys


def main(argv):
    if len(argv) < 5:
        sys.stderr.write(__doc__)
        return 2
    metrics_csv, plain, rest = argv[1], argv[2], argv[3:]
    index = rest[0] == "--index"
    if index:
        rest = rest[1:]
    header, keys = rest[0], rest[1:]
    names = [l.split()[2] for l in open(plain) if l.startswith("launch ")]
    rows = {}
    for r in csv.reader(open(metrics_csv)):
        if r[0] == "ID":
            continue
        rows.setdefault(int(r[0]), {})[r[12]] = r[14].replace(",", "")
    print("# " + header)
    for i, name in enumerate(names):
        m = rows.get(i, {})
        print(*([i] if index else []), name, *[m.get(k) for k in keys])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
