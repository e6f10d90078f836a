#!/usr/bin/env python3
"""Summarises an `ncu --csv --metrics gpu__time_duration.sum` log: time per kernel name (sum, count,
share), then the launches in order. Usage: python3 scripts/ncu-summary.py LOG [max_rows]."""
import csv
import sys
from collections import OrderedDict

rows = []
with open(sys.argv[1]) as f:
    lines = [l for l in f if l.startswith('"')]
for r in csv.DictReader(lines):
    if r.get("Metric Name") != "gpu__time_duration.sum":
        continue
    unit = r.get("Metric Unit", "ns")
    value = float(r["Metric Value"].replace(",", ""))
    us = value / 1000 if unit == "ns" else value * 1000 if unit == "msecond" else value
    rows.append((r["Kernel Name"].split("(")[0], us))
total = sum(us for _, us in rows)
by = OrderedDict()
for name, us in rows:
    s, c = by.get(name, (0.0, 0))
    by[name] = (s + us, c + 1)
print(f"{len(rows)} launches, {total:.1f} us in kernels")
for name, (s, c) in sorted(by.items(), key=lambda kv: -kv[1][0]):
    print(f"  {name:<20} {s:10.1f} us  {c:5d} launches  {100 * s / total:5.1f}%")
limit = int(sys.argv[2]) if len(sys.argv) > 2 else 60
print("in order:")
for name, us in rows[:limit]:
    print(f"  {name:<20} {us:9.1f} us")
