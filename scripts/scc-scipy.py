#!/usr/bin/env python3
"""Times scipy's strongly connected components on a graph simdx wrote (.sxg), the oracle and peer of
`simdx run scc`: `simdx gen kron:22:d -o k.sxg`, then `scc-scipy.py k.sxg [--repeat 3] [--labels L]`.
Prints the components and the median time of `connected_components(directed=True,
connection='strong')` on the out-CSR (the CSR's construction is not timed). With `--labels`, simdx's
labels (`<vertex> <label>` lines, as `simdx run scc ... --output L` writes them) are checked to be the
same components, each named by its smallest vertex."""
import argparse
import statistics
import struct
import sys
import time

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components


def read_sxg(path):
    """The out-CSR (offsets, targets) and n of a simdx binary graph (simdx-core/src/io/binary.rs)."""
    with open(path, "rb") as f:
        header = f.read(160)
    if header[:8] != b"SIMDXGR\0":
        sys.exit(f"{path}: not a simdx binary graph")
    n, _edges, m = struct.unpack_from("<QQQ", header, 16)
    (off_at, off_len), (tgt_at, tgt_len) = struct.unpack_from("<QQQQ", header, 48)[:2], struct.unpack_from(
        "<QQ", header, 64
    )
    offsets = np.memmap(path, dtype="<u8", mode="r", offset=off_at, shape=(off_len // 8,))
    targets = np.memmap(path, dtype="<u4", mode="r", offset=tgt_at, shape=(tgt_len // 4,))
    assert len(offsets) == n + 1 and len(targets) == m
    return n, np.asarray(offsets, dtype=np.int64), np.asarray(targets, dtype=np.int32)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("graph")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--labels", help="simdx's labels to compare (--output of simdx run scc)")
    args = ap.parse_args()
    n, offsets, targets = read_sxg(args.graph)
    a = csr_matrix((np.ones(len(targets), dtype=np.int8), targets, offsets), shape=(n, n))
    times = []
    for _ in range(args.repeat):
        t = time.perf_counter()
        count, labels = connected_components(a, directed=True, connection="strong")
        times.append(time.perf_counter() - t)
    print(f"scipy scc: {count} components, median {statistics.median(times) * 1e3:.1f} ms of {args.repeat}")
    if args.labels:
        smallest = np.full(count, n, dtype=np.int64)
        np.minimum.at(smallest, labels, np.arange(n))
        ours = np.loadtxt(args.labels, dtype=np.int64, usecols=1)
        same = np.array_equal(ours, smallest[labels])
        print("labels: " + ("the same components, each named by its smallest vertex" if same else "DIFFERENT"))
        sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
