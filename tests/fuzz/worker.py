"""Fuzz a range of seeds in a separate process (the default test run uses both cores):
``python -m fuzz.worker START STOP [control]`` prints one JSON line with the counts, the
number of modules verified and the failures (programs printed)."""
from __future__ import annotations

import collections
import json
import sys


def main(argv):
    start, stop = int(argv[0]), int(argv[1])
    control = len(argv) > 2 and argv[2] == "control"
    from lowering import runtime
    from lowering.runtime import xla
    seen, n_verified = set(), [0]
    orig = xla.compile_text

    def verifying(text, device=None, n_out=1):  # the same hook as tests/conftest.py
        if hash(text) not in seen:
            runtime.verify(text)
            seen.add(hash(text))
            n_verified[0] += 1
        return orig(text, device, n_out)

    xla.compile_text = runtime.compile_text = verifying
    from .gen import Chooser, generate
    from .run import FuzzMismatch, check_program
    stats, fails = collections.Counter(), []
    for seed in range(start, stop):
        prog = generate(Chooser(seed=seed), control=control)
        try:
            stats[check_program(prog)] += 1
        except FuzzMismatch as e:
            stats["fail"] += 1
            fails.append(f"seed {seed}: {e}")
    print(json.dumps({"stats": stats, "verified": n_verified[0], "failures": fails}))


if __name__ == "__main__":
    main(sys.argv[1:])
