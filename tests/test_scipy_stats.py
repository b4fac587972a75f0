"""frontend.scipy.stats against jax.scipy.stats: every function of every distribution module
on sampled float32 inputs in and out of its support (under jit; a few eagerly)."""
import jax
import jax.scipy.stats as jst
import numpy as np
import pytest
from harness import GroupedJit, assert_same

import frontend as fe
import frontend.scipy.stats as fst

R = np.random.default_rng(11)
X = np.float32([-2.5, -0.3, 0.0, 0.4, 1.7, 3.0])
Q = np.float32([0.01, 0.2, 0.5, 0.77, 0.99, 0.5])
POS = np.float32([0.05, 0.3, 0.9, 1.5, 2.7, 6.0])
UNIT = np.float32([-0.1, 0.05, 0.3, 0.5, 0.95, 1.2])
K = np.float32([-1, 0, 1, 2, 5, 3.5])
A, B = np.float32(2.5), np.float32(1.5)
LOC, SCALE = np.float32(0.3), np.float32(1.7)
ANGLE = np.float32([0.1, 1.0, 2.0, 3.0, 4.5, 6.0])

_LOCSCALE = ["cdf", "logcdf", "logpdf", "pdf", "sf", "logsf"]
ROWS = []
for mod, fns in {"norm": _LOCSCALE + ["ppf", "isf"], "expon": _LOCSCALE + ["ppf"],
                 "logistic": ["cdf", "logpdf", "pdf", "sf", "ppf", "isf"],
                 "laplace": ["cdf", "logpdf", "pdf"], "cauchy": _LOCSCALE + ["ppf", "isf"],
                 "uniform": ["cdf", "logpdf", "pdf", "ppf"],
                 "gumbel_r": _LOCSCALE + ["ppf"], "gumbel_l": _LOCSCALE + ["ppf"]}.items():
    for fn in fns:
        first = Q if fn in ("ppf", "isf") else X
        ROWS += [(mod, fn, (first,)), (mod, fn, (first, LOC, SCALE))]
for fn in _LOCSCALE:
    ROWS += [("gamma", fn, (POS, A)), ("gamma", fn, (POS, A, LOC, SCALE)),
             ("chi2", fn, (POS, np.float32(3))), ("chi2", fn, (POS, np.float32(3), LOC, SCALE)),
             ("beta", fn, (UNIT, A, B)), ("beta", fn, (UNIT * 2, A, B, -0.1, 2.0)),
             ("pareto", fn, (POS + 0.5, A)), ("pareto", fn, (POS, A, LOC, SCALE)),
             ("truncnorm", fn, (X, np.float32(-1.0), np.float32(2.0))),
             ("truncnorm", fn, (X, np.float32(-0.5), np.float32(1.5), LOC, SCALE))]
ROWS += [("pareto", "ppf", (Q, A)), ("pareto", "ppf", (Q, A, LOC, SCALE))]
ROWS += [("t", fn, args) for fn in ("logpdf", "pdf") for args in [(X, A), (X, A, LOC, SCALE)]]
ROWS += [("gennorm", fn, (X, beta)) for fn in ("cdf", "logpdf", "pdf")
         for beta in (np.float32(0.7), np.float32(2.0))]
ROWS += [("vonmises", fn, (X, np.float32(2.0))) for fn in ("logpdf", "pdf")]
ROWS += [("wrapcauchy", fn, (ANGLE, np.float32(0.4))) for fn in ("logpdf", "pdf")]
for fn in ("logpmf", "pmf"):
    ROWS += [("poisson", fn, (K, np.float32(2.5))), ("poisson", fn, (K, np.float32(2.5), 1.0)),
             ("bernoulli", fn, (K, np.float32(0.3))), ("bernoulli", fn, (K, np.float32(0.3), 1)),
             ("geom", fn, (K, np.float32(0.3))), ("geom", fn, (K, np.float32(0.3), -1)),
             ("binom", fn, (K, np.float32(5), np.float32(0.3))),
             ("binom", fn, (K, np.float32(5), np.float32(0.3), 1)),
             ("nbinom", fn, (K, np.float32(3), np.float32(0.4))),
             ("betabinom", fn, (K, np.float32(5), A, B)),
             ("multinomial", fn, (np.int32([[1, 2, 0], [0, 1, 1], [3, 0, 0]]), np.int32(3),
                                  np.float32([0.2, 0.5, 0.3])))]
ROWS += [("poisson", "cdf", (K, np.float32(2.5))), ("bernoulli", "cdf", (K, np.float32(0.3))),
         ("bernoulli", "ppf", (Q, np.float32(0.3)))]
SIMPLEX = np.float32([[0.2, 0.5], [0.3, 0.1], [0.5, 0.4]])
ROWS += [("dirichlet", fn, (SIMPLEX, np.float32([1.5, 2.0, 0.7]))) for fn in ("logpdf", "pdf")]
MEAN = np.float32([0.5, -1.0])
COV = np.float32([[2.0, 0.3], [0.3, 1.0]])
ROWS += [("multivariate_normal", fn, (R.normal(size=(4, 2)).astype(np.float32), MEAN, COV))
         for fn in ("logpdf", "pdf")]
ROWS += [("multivariate_normal", "logpdf", (np.float32([0.5, 1.0]), np.float32(0.2),
                                             np.float32(1.5)))]


def _call(module, mod, fn, args):
    return getattr(getattr(module, mod), fn)(*args)


def _params():
    """Every row; the default run takes each function of each distribution once (its first
    row), ``-m slow`` every row."""
    seen = set()
    for i, (m, f, a) in enumerate(ROWS):
        first = (m, f) not in seen
        seen.add((m, f))
        yield pytest.param(m, f, a, id=f"{m}.{f}[{i}]", marks=[] if first else [pytest.mark.slow])


def _row_fn(module, mod, fn, args):
    """The row's function of its array arguments, and those arrays."""
    pos = [i for i, a in enumerate(args) if isinstance(a, np.ndarray) and a.ndim]

    def f(*arrays):
        full = list(args)
        for i, a in zip(pos, arrays, strict=True):
            full[i] = a
        return _call(module, mod, fn, full)
    return f, [args[i] for i in pos]


# the default run's rows, compiled a group at a time (harness.GroupedJit)
GROUPED = GroupedJit({p.id: (_row_fn(fst, *p.values)[0], *_row_fn(jst, *p.values))
                      for p in _params() if not p.marks})


@pytest.mark.parametrize(("mod", "fn", "args"), list(_params()))
def test_distribution_functions_vs_jax(mod, fn, args, request):
    key = request.node.callspec.id
    res = GROUPED.result(key) if key in GROUPED else None
    if res is None:
        (f_ours, arrays), (f_jax, _) = _row_fn(fst, mod, fn, args), _row_fn(jst, mod, fn, args)
        res = (fe.jit(f_ours)(*arrays), jax.jit(f_jax)(*arrays))
    assert_same(*res, f"{mod}.{fn}")


def test_eagerly_and_with_python_scalars():
    for mod, fn, args in [("norm", "logpdf", (X, 0.5, 2.0)), ("gamma", "cdf", (1.5, 2.0)),
                          ("poisson", "logpmf", (3, 2.0)), ("norm", "cdf", (0.0,))]:
        assert_same(_call(fst, mod, fn, args), _call(jst, mod, fn, args), f"{mod}.{fn} eager")


def test_sem_vs_jax():
    x = R.normal(size=(4, 5)).astype(np.float32)
    xn = x.copy()
    xn[1, 2] = np.nan
    for kw in [{}, {"axis": 1}, {"axis": None, "ddof": 0}, {"axis": 1, "keepdims": True}]:
        assert_same(fst.sem(x, **kw), jst.sem(x, **kw), f"sem {kw}")
    assert_same(fst.sem(xn, axis=1, nan_policy="omit"), jst.sem(xn, axis=1, nan_policy="omit"))


def test_every_function_of_every_module_is_compared():
    """Each module's public functions (JAX's list) appear in ROWS (poisson.entropy aside)."""
    import types
    seen = {(m, f) for m, f, _ in ROWS}
    missing = []
    for name in dir(fst):
        mod = getattr(fst, name)
        if not isinstance(mod, types.ModuleType) or name.startswith("_"):
            continue
        jmod = getattr(jst, name)
        for f in dir(jmod):
            if (callable(getattr(jmod, f)) and not f.startswith("_")
                    and getattr(getattr(jmod, f), "__module__", "").startswith("jax._src.scipy.stats")
                    and (name, f) not in seen and (name, f) != ("poisson", "entropy")):
                missing.append(f"{name}.{f}")
    assert not missing, missing
