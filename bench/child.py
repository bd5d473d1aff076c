"""What the Python benchmarks share: each run in a process of its own (so
that one tool's memory, threads and JIT caches never reach another's), and
that process's memory."""
import argparse
import json
import os
import subprocess
import sys

import numpy as np


def rss_kb(field):
    """this process's resident set (VmRSS) or its peak since the last reset (VmHWM), KiB"""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def reset_peak():
    """starts the peak (VmHWM) again from here (Linux); returns the resident set now"""
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    return rss_kb("VmRSS")


def arguments(doc, peer_runs=True):
    """the options of a benchmark that runs umap.h beside its peers (more
    may be added), and the hidden ones its children get"""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="umap.h's runs (the median is reported)")
    if peer_runs:
        ap.add_argument("--peer-runs", type=int, default=1, help="each peer's runs")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--no-peer", action="store_true", help="umap.h alone")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--child-out", help=argparse.SUPPRESS)
    return ap


def run_child(script, spec, threads, out, *extra):
    """runs `script --threads T --child SPEC --child-out OUT EXTRA...` with
    the peers' thread variables (OpenMP's, numba's) set to T too; returns
    the JSON of its last line of output, with "emb" the array it saved at
    OUT if it saved one. A failed child ends the benchmark with its stderr."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), NUMBA_NUM_THREADS=str(threads))
    r = subprocess.run([sys.executable, os.path.abspath(script), "--threads", str(threads), "--child", spec,
                        "--child-out", out] + list(extra), capture_output=True, text=True, env=env)
    if r.returncode:
        raise SystemExit("%s failed:\n%s" % (spec, r.stderr[-2000:]))
    res = json.loads(r.stdout.strip().splitlines()[-1])
    if os.path.exists(out):
        res["emb"] = np.load(out)
        os.remove(out)
    return res
