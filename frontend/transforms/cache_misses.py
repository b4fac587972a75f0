"""Why a jitted function traced again (``config.update("explain_cache_misses", True)``, as
JAX's ``jax_explain_cache_misses``), and the cache statistics ``frontend.cache_stats()``
reports. Messages go to the ``logging`` logger "frontend.jit" at WARNING level."""
from __future__ import annotations

import logging

from ..core.arguments import leaf_paths
from ..core.ir import source_info, user_frame

logger = logging.getLogger("frontend.jit")
STATS = {"traces": 0}  # signatures traced and compiled by jit, in this process


def _defined_at(fun) -> str:
    code = getattr(getattr(fun, "__wrapped__", fun), "__code__", None)
    return f"{code.co_filename}:{code.co_firstlineno}" if code is not None else "<unknown>"


def _name(fun) -> str:
    return getattr(fun, "__name__", type(fun).__name__)


def explain(jitted, key: tuple, seen, dyn, td) -> None:
    """Log why ``key`` (x64, treedef, leaf avals, static items, shardings, mesh) missed the
    cache of ``jitted`` whose earlier keys are ``seen``: the differences from the closest
    one (fewest differing parts), naming arguments by their paths."""
    fun = jitted.fun
    info = source_info(user_frame())
    col = f":{info[2]}" if info is not None and info[2] else ""  # (as JAX's: none for 0)
    where = f"{info[0]}:{info[1]}{col} ({info[4]})" if info is not None else "<unknown>"
    lines = [f"TRACING CACHE MISS at {where}:"]
    seen = list(seen)
    if not seen:
        lines += ["  never seen function:",
                  f"    {_name(fun)} id={id(fun)} defined at {_defined_at(fun)}"]
        logger.warning("\n".join(lines))
        return

    def diffs(old):
        return sum(a != b for a, b in zip(old, key, strict=True)) + (
            sum(x != y for x, y in zip(old[2], key[2], strict=True)) if old[1] == key[1] else 0)
    old = min(seen, key=diffs)
    lines += [f"  for {_name(fun)} defined at {_defined_at(fun)}",
              "  all previously seen cache keys differ. For the closest previous key:"]
    options, tree, sig, static, ins, mesh = key
    for name, now, before in zip(CONFIG_NAMES, options, old[0], strict=True):
        if now != before:
            lines += [f"  different value of {name}:", f"  * now {now} and before {before}"]
    if old[1] != tree:
        lines += ["  different input pytree:", f"  * now {tree} and before {old[1]}"]
    elif old[2] != sig:
        paths = leaf_paths(fun, dyn, td)
        lines.append("  different input types:")
        lines += [f"  * at {p}, now {_aval(a)} and before {_aval(b)}"
                  for p, a, b in zip(paths, sig, old[2], strict=True) if a != b]
    if old[3] != static:
        now, before = dict(static), dict(old[3])
        lines.append("  different static arguments:")
        for k in sorted(set(now) | set(before), key=str):
            if now.get(k) != before.get(k):
                where = f"argument {k}" if isinstance(k, int) else k
                lines.append(f"  * at {where}, now {now.get(k)!r} and before {before.get(k)!r}")
    if old[4] != ins or old[5] != mesh:
        lines.append("  different input shardings or mesh")
    logger.warning("\n".join(lines))


# the options a jit cache key holds first (frontend/transforms/jit.py, JitFunction._entry)
CONFIG_NAMES = ("enable_x64", "numpy_rank_promotion", "numpy_dtype_promotion",
                "default_matmul_precision", "enable_checks", "default_device", "legacy_prng_key",
                "allow_f16_reductions", "user_context", "donated arguments")


def _aval(a) -> str:
    return "<not an array>" if a is None else a.str_short()
