"""JAX's public surface, name by name: every public name of the installed JAX modules is present
in vmaplab and compared with JAX (tests/surface/*), or listed as absent with a reason."""
import importlib
import os
import pkgutil
import re

import jax
import numpy as np
import pytest
import surface
from harness import GroupedJit, assert_same
from surface.common import Side, public_names

import frontend as fe

HERE = os.path.dirname(__file__)
TABLES = {m.name: importlib.import_module(f"surface.{m.name}")
          for m in pkgutil.iter_modules(surface.__path__) if m.name != "common"}


def _modules(table):
    return importlib.import_module(table.JAX), importlib.import_module(table.OURS)


def _accounting(table):
    jax_mod, _ = _modules(table)
    names = set(public_names(jax_mod))
    parts = {"CASES": set(table.CASES), "ELSEWHERE": set(table.ELSEWHERE),
             "ABSENT": set(table.ABSENT)}
    return names, parts


@pytest.mark.parametrize("key", sorted(TABLES))
def test_every_name_is_accounted_for_once(key):
    table = TABLES[key]
    names, parts = _accounting(table)
    listed = [n for p in parts.values() for n in p]
    twice = sorted({n for n in listed if listed.count(n) > 1})
    assert not twice, f"{table.JAX}: listed in more than one table: {twice}"
    missing = sorted(names - set(listed))
    assert not missing, f"{table.JAX}: names in neither CASES, ELSEWHERE nor ABSENT: {missing}"
    _, ours = _modules(table)
    lacking = sorted(n for n in parts["CASES"] | parts["ELSEWHERE"] if not hasattr(ours, n))
    assert not lacking, f"{table.OURS} lacks names its table says it compares: {lacking}"
    for reason in table.ABSENT.values():
        assert isinstance(reason, str) and len(reason) > 10, f"{table.JAX}: give a reason"


@pytest.mark.parametrize("key", sorted(TABLES))
def test_tests_named_elsewhere_exist(key):
    for name, where in TABLES[key].ELSEWHERE.items():
        path, _, test = where.partition("::")
        with open(os.path.join(HERE, os.path.basename(path))) as f:
            text = f.read()
        assert re.search(rf"^def {re.escape(test)}\b", text, re.M), f"{name}: no {where}"


def _rows():
    """Every case of every name; the default run compares each name's first case (under
    jit), the slow run (``-m slow``) every case, eagerly and under jit."""
    for key in sorted(TABLES):
        for name, cases in sorted(TABLES[key].CASES.items()):
            for i in range(len(cases)):
                yield pytest.param(key, name, i, id=f"{key}.{name}[{i}]",
                                   marks=[pytest.mark.slow] if i else [])


def _array_positions(args):
    return [i for i, a in enumerate(args) if isinstance(a, np.ndarray)]


def _row_fn(name, case, module):
    """The row's function of its array arguments (the rest of its arguments bound), and
    those arrays."""
    args = [a.pick(module) if isinstance(a, Side) else a for a in case.args]
    kwargs = {k: v.pick(module) if isinstance(v, Side) else v for k, v in case.kwargs.items()}
    pos = _array_positions(args)

    def f(*arrays):
        args_ = list(args)
        for i, a in zip(pos, arrays, strict=True):
            args_[i] = a
        return getattr(module, name)(*args_, **kwargs)
    return f, [args[i] for i in pos]


def _call(module, name, case, jit_fn):
    f, arrays = _row_fn(name, case, module)
    return (jit_fn(f) if case.jit and jit_fn else f)(*arrays)


def _grouped_rows() -> dict:
    """The default run's rows (each name's first case under jit), for GroupedJit."""
    rows = {}
    for key in sorted(TABLES):
        table = TABLES[key]
        jax_mod, ours = _modules(table)
        for name, cases in sorted(table.CASES.items()):
            case = cases[0]
            if case.jit and case.raises is None and case.compare is None \
                    and _array_positions(case.args):
                mine, arrays = _row_fn(name, case, ours)
                rows[(key, name)] = (mine, _row_fn(name, case, jax_mod)[0], arrays)
    return rows


GROUPED = GroupedJit(_grouped_rows())


@pytest.mark.parametrize(("key", "name", "i"), list(_rows()))
def test_matches_jax(key, name, i, request):
    table = TABLES[key]
    jax_mod, ours = _modules(table)
    case = table.CASES[name][i]
    slow = request.config.getoption("-m") == "slow"
    if not slow and i == 0 and (key, name) in GROUPED:
        res = GROUPED.result((key, name))
        if res is not None:
            assert_same(*res, f"{table.OURS}.{name} case 0 under jit (with its group)")
            return
    modes = [None, (fe.jit, jax.jit)] if case.jit and _array_positions(case.args) else [None]
    if len(modes) == 2 and not slow:
        modes = modes[1:]  # (the default run: under jit; -m slow: eagerly too)
    for mode in modes:
        ours_jit, jax_jit = mode or (None, None)
        what = f"{table.OURS}.{name} case {i}{' under jit' if mode else ''}"
        if case.raises is not None:
            with pytest.raises(case.raises):
                _call(jax_mod, name, case, jax_jit)
            with pytest.raises(case.raises):
                _call(ours, name, case, ours_jit)
            continue
        theirs = _call(jax_mod, name, case, jax_jit)
        mine = _call(ours, name, case, ours_jit)
        if case.compare is not None:
            case.compare(mine, theirs)
        else:
            assert_same(mine, theirs, what)


def coverage() -> dict:
    """{JAX module: (compared, total, required)}: the figures the README states."""
    out = {}
    for table in TABLES.values():
        names, parts = _accounting(table)
        compared = len((parts["CASES"] | parts["ELSEWHERE"]) & names)
        out[table.JAX] = (compared, len(names), table.REQUIRED)
    return out


def test_coverage_meets_the_bar(capsys):
    lines, low = [], []
    for mod, (n, total, required) in sorted(coverage().items()):
        line = f"{mod:24s} {n:4d}/{total:4d} = {n / total:6.1%}"
        lines.append(line + (f" (bar {required:.0%})" if required else ""))
        if required and n / total < required:
            low.append(line)
    with capsys.disabled():
        print("\nJAX surface present and compared:\n  " + "\n  ".join(lines))
    assert not low, "below the bar:\n" + "\n".join(low)
