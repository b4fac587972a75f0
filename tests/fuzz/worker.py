"""Fuzz a range of seeds in a separate process (the default test run uses both cores):
``python -m fuzz.worker START STOP [control] [autodiff=P]`` prints one JSON line with the
counts (per autodiff mode: grad, vjp, jvp or none), the number of modules verified and the
failures (programs printed). With ``autodiff=P`` a program is differentiated with
probability P."""
from __future__ import annotations

import collections
import json
import sys


def main(argv):
    start, stop = int(argv[0]), int(argv[1])
    control = "control" in argv[2:]
    autodiff = next((float(a.split("=")[1]) for a in argv[2:] if a.startswith("autodiff=")), 0.0)
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
        prog = generate(Chooser(seed=seed), control=control, autodiff=autodiff)
        try:
            stats[f"{prog.ad or 'none'} {check_program(prog)}"] += 1
        except FuzzMismatch as e:
            stats["fail"] += 1
            fails.append(f"seed {seed}: {e}")
    print(json.dumps({"stats": stats, "verified": n_verified[0], "failures": fails}))


if __name__ == "__main__":
    main(sys.argv[1:])
