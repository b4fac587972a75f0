"""frontend.random against jax.random, bit for bit: every sampler at several shapes and
dtypes in one jitted program per key (several keys), eagerly, under vmap over keys (jit and
eager) and with typed keys."""
import jax
import ml_dtypes
import numpy as np
import pytest
from harness import assert_same, assert_same_bits

import frontend as fe
import frontend.numpy as fnp
from frontend import random as fr

BF16 = ml_dtypes.bfloat16
P = np.array([0.1, 0.5, 0.9], np.float32)
LOGITS = np.array([[0.0, 1.0, -1.0, 2.0], [3.0, 0.0, 0.0, -2.0]], np.float32)
LO = np.array([-5, 0, 7], np.int32)
HI = np.array([5, 3, 100], np.int32)


def draws(r, key):
    """The samplers of the random module ``r`` (ours or JAX's) from one key (one program:
    XLA's compile time grows with each threefry, so each code path appears once; the slow
    run adds the samplers that are transforms of these: laplace, logistic, exponential,
    rademacher, and bits/uniform of narrow dtypes)."""
    k = r.split(key, 20)
    return {
        "split": r.split(key, (2, 3)), "fold_in": r.fold_in(key, 7),
        "bits32": r.bits(k[0], (3, 4)),
        "uniform_range": r.uniform(k[3], (2, 3), minval=LO.astype(np.float32), maxval=7.0),
        "normal": r.normal(k[4], (6, 5)), "normal_bf16": r.normal(k[5], (3,), BF16),
        "normal_c64": r.normal(k[6], (4,), np.complex64),
        "bernoulli_p": r.bernoulli(k[7], P), "bernoulli_high": r.bernoulli(k[8], P, (2, 3), mode="high"),
        "randint": r.randint(k[9], (4, 3), LO, HI), "randint8": r.randint(k[10], (6,), -3, 200, np.int8),
        "gumbel_high": r.gumbel(k[12], (4,), mode="high"),
        "categorical": r.categorical(k[13], LOGITS, 0, shape=(3, 4)),
        "choice_arr": r.choice(k[14], LOGITS, (2, 2), axis=1),
        "cauchy": r.cauchy(k[18], (4,), np.float16),
    }


_JAX_DRAWS = jax.jit(lambda k: draws(jax.random, k))
_OUR_DRAWS = fe.jit(lambda k: draws(fr, k))


def test_every_sampler_bit_for_bit():
    """Under jit for several keys (one compiled program each side), and eagerly."""
    for seed in (0, 1, 2**40 + 5):
        assert_same_bits(_OUR_DRAWS(fr.PRNGKey(seed)), _JAX_DRAWS(jax.random.PRNGKey(seed)),
                    f"seed {seed}")
    # eagerly (each sampler one executable): a few in the default run, all in the slow one
    k = fr.split(fr.PRNGKey(1), 20)
    ours = {"uniform_range": fr.uniform(k[3], (2, 3), minval=LO.astype(np.float32), maxval=7.0),
            "normal": fr.normal(k[4], (6, 5)), "randint": fr.randint(k[9], (4, 3), LO, HI)}
    assert all(isinstance(v, fe.Array) for v in ours.values())
    theirs = _JAX_DRAWS(jax.random.PRNGKey(1))
    assert_same_bits(ours, {n: theirs[n] for n in ours}, "eager")


@pytest.mark.slow
def test_every_sampler_eagerly():
    ours = draws(fr, fr.PRNGKey(1))
    assert all(isinstance(v, fe.Array) for v in ours.values())
    assert_same_bits(ours, _JAX_DRAWS(jax.random.PRNGKey(1)), "eager")
    more = lambda r, k: {"laplace": r.laplace(k, (4,)), "logistic": r.logistic(k, (4,)),  # noqa: E731
                         "bits8": r.bits(k, (5,), np.uint8), "exponential": r.exponential(k, (3, 2)),
                         "rademacher": r.rademacher(k, (6,)), "uniform16": r.uniform(k, (7,), np.float16)}
    assert_same_bits(more(fr, fr.PRNGKey(2)), jax.jit(lambda k: more(jax.random, k))(jax.random.PRNGKey(2)),
                "more")


def _few(r, k):
    return {"u": r.uniform(k, (3,)), "n": r.normal(k, (2,)), "i": r.randint(k, (2,), LO[:2], 9),
            "s": r.split(k)}


def test_vmap_over_keys_bit_for_bit():
    keys = fr.split(fr.PRNGKey(11), 4)
    theirs = jax.jit(jax.vmap(lambda k: _few(jax.random, k)))(np.asarray(keys))
    assert_same_bits(fe.jit(fe.vmap(lambda k: _few(fr, k)))(keys), theirs, "jit(vmap)")
    # eagerly (normal's erf_inv is one chlo.erf_inv op, as JAX's)
    assert_same_bits(fe.vmap(lambda k: _few(fr, k))(keys), theirs, "eager vmap")


def test_typed_keys():
    k, jk = fr.key(5), jax.random.key(5)
    assert k.shape == () and str(k.dtype) == str(jk.dtype)
    np.testing.assert_array_equal(np.asarray(fr.key_data(k)), jax.random.key_data(jk))
    ks = fr.split(k, 3)
    np.testing.assert_array_equal(np.asarray(fr.key_data(ks)),
                                  jax.random.key_data(jax.random.split(jk, 3)))
    got = fe.vmap(lambda kk: fr.normal(kk, (2,)))(ks)
    want = jax.vmap(lambda kk: jax.random.normal(kk, (2,)))(jax.random.split(jk, 3))
    assert_same_bits({"n": got}, {"n": want}, "eager vmap of typed keys")
    out = fe.jit(lambda kk: fr.split(kk))(k)  # typed keys through jit, in and out
    np.testing.assert_array_equal(np.asarray(fr.key_data(out)),
                                  jax.random.key_data(jax.random.split(jk)))
    wrapped = fr.wrap_key_data(fr.key_data(ks))
    np.testing.assert_array_equal(np.asarray(fr.key_data(wrapped)), np.asarray(fr.key_data(ks)))


@pytest.mark.skipif(not hasattr(fe.lax, "erf"), reason="needs lax.erf (issue 14's primitive)")
def test_truncated_normal_bit_for_bit():
    f = lambda r, k: (r.truncated_normal(k, -2.0, 2.0, (5, 3)),  # noqa: E731
                      r.truncated_normal(k, LO.astype(np.float32), 3.0))
    assert_same_bits(dict(enumerate(fe.jit(lambda k: f(fr, k))(fr.PRNGKey(0)))),
                dict(enumerate(jax.jit(lambda k: f(jax.random, k))(jax.random.PRNGKey(0)))),
                "truncated_normal")


def test_normal_in_more_dtypes_and_gumbel_highest_bit_for_bit(x64):
    """normal (and truncated_normal) in float64 and bfloat16 (the erf_inv primitive), and
    float32 gumbel(mode='highest') (lax.clz): bit for bit JAX's, one program each side."""
    dts = (np.float64, jax.numpy.bfloat16)

    def f(r, k):
        return {**{np.dtype(d).name: r.normal(k, (7,), d) for d in dts},
                "trunc64": r.truncated_normal(k, -1.0, 2.0, (5,), np.float64),
                "gumbel_highest": r.gumbel(k, (4000,), np.float32, mode="highest")}
    assert_same_bits(fe.jit(lambda k: f(fr, k))(fr.PRNGKey(4)),
                jax.jit(lambda k: f(jax.random, k))(jax.random.PRNGKey(4)), "normal dtypes")


def test_samplers_inside_programs():
    """A key threaded through a traced loop, and sampled shapes from static arguments."""
    def body(carry, _):
        k, acc = carry
        k, sub = fr.split(k)
        return (k, acc + fr.normal(sub, (3,))), fnp.sum(fr.uniform(sub, (2,)))

    def jbody(carry, _):
        k, acc = carry
        k, sub = jax.random.split(k)
        return (k, acc + jax.random.normal(sub, (3,))), jax.numpy.sum(jax.random.uniform(sub, (2,)))

    ours = fe.jit(lambda k: fe.lax.scan(body, (k, fnp.zeros(3)), None, length=4))(fr.PRNGKey(9))
    theirs = jax.jit(lambda k: jax.lax.scan(jbody, (k, jax.numpy.zeros(3)), None, length=4))(
        jax.random.PRNGKey(9))
    assert_same(ours, theirs, "scan")


SORT = pytest.mark.skipif(not hasattr(fe.lax, "sort_key_val"),
                          reason="needs lax.sort_key_val/top_k, numpy.linalg (issue 14)")
COV = np.array([[2.0, 0.5], [0.5, 1.0]], np.float32)
MEAN = np.array([1.0, -1.0], np.float32)


def sorted_draws(r, key):
    k = r.split(key, 8)
    x = LOGITS.astype(np.float32)
    return {"perm_int": r.permutation(k[0], 10), "perm_axis": r.permutation(k[1], x, axis=1),
            "perm_indep": r.permutation(k[2], x, axis=1, independent=True),
            "choice_norep": r.choice(k[3], x, (2,), replace=False, axis=1),
            "choice_p": r.choice(k[4], 4, (6,), p=P[[0, 1, 2, 2]] / 1.8),
            "choice_p_norep": r.choice(k[5], 4, (3,), replace=False, p=P[[0, 1, 2, 2]] / 1.8),
            "mvn": r.multivariate_normal(k[6], MEAN, COV, (3,)),
            "mvn_eigh": r.multivariate_normal(k[7], MEAN, COV, method="eigh"),
            "mvn_svd": r.multivariate_normal(k[7], MEAN, COV, (2,), method="svd"),
            "categorical_norep": r.categorical(k[0], LOGITS, shape=(3, 2), replace=False),
            "categorical_norep0": r.categorical(k[1], LOGITS, axis=0, shape=(2, 4), replace=False)}


@SORT
def test_sort_based_samplers_bit_for_bit():
    ours = fe.jit(lambda k: sorted_draws(fr, k))(fr.PRNGKey(4))
    theirs = jax.jit(lambda k: sorted_draws(jax.random, k))(jax.random.PRNGKey(4))
    mvn = [n for n in theirs if n.startswith("mvn")]  # (LAPACK factors: equal to rounding)
    assert_same_bits({n: v for n, v in ours.items() if n not in mvn},
                {n: v for n, v in theirs.items() if n not in mvn}, "sorted draws")
    assert_same({n: ours[n] for n in mvn}, {n: theirs[n] for n in mvn}, "multivariate_normal")
    keys = fr.split(fr.PRNGKey(5), 3)
    got = fe.vmap(lambda k: fr.permutation(k, 6))(keys)
    want = jax.vmap(lambda k: jax.random.permutation(k, 6))(np.asarray(keys))
    np.testing.assert_array_equal(np.asarray(got), want)


P3 = np.array([0.5, 1.0, 2.5], np.float32)


def transform_draws(r, key):
    """The samplers that transform uniform/normal/exponential draws (one program a side)."""
    k = r.split(key, 12)
    return {"lognormal": r.lognormal(k[0], P3, (2, 3)),
            "rayleigh": r.rayleigh(k[1], P3), "weibull": r.weibull_min(k[2], 2.0, P3, (2, 3)),
            "pareto": r.pareto(k[3], P3, (4, 3)), "maxwell": r.maxwell(k[4], (5,)),
            "dsm": r.double_sided_maxwell(k[5], 1.0, P3),
            "dsm_shape": r.double_sided_maxwell(k[5], P3, 2.0, (2,)),
            "triangular": r.triangular(k[6], -1.0, P3 - 1, 3.0, (2, 3)), "wald": r.wald(k[7], P3, (4, 3)),
            "geometric": r.geometric(k[8], P3 / 3), "geometric8": r.geometric(k[9], 0.3, (5,), np.int8),
            "orthogonal": r.orthogonal(k[10], 3), "orthogonal_wide": r.orthogonal(k[11], 2, (2,), m=4)}


def test_transformed_samplers_bit_for_bit():
    """Under jit (two keys), eagerly and under vmap over keys (float64: in the gamma test's
    64-bit program)."""
    ours, theirs = fe.jit(lambda k: transform_draws(fr, k)), jax.jit(lambda k: transform_draws(jax.random, k))
    for seed in (0, 2**40 + 5):
        assert_same_bits(ours(fr.PRNGKey(seed)), theirs(jax.random.PRNGKey(seed)), f"transforms, seed {seed}")
    want = theirs(jax.random.PRNGKey(3))["wald"]
    assert_same_bits({"wald": fr.wald(fr.split(fr.PRNGKey(3), 12)[7], P3, (4, 3))}, {"wald": want}, "wald eagerly")

    def few(r, k):
        return {"lognormal": r.lognormal(k, 0.5, (3,)), "orthogonal": r.orthogonal(k, 2)}
    keys = fr.split(fr.PRNGKey(11), 3)
    assert_same_bits(fe.jit(fe.vmap(lambda k: few(fr, k)))(keys),
                jax.jit(jax.vmap(lambda k: few(jax.random, k)))(np.asarray(keys)), "vmap of transforms")


def test_key_dtype():
    assert fr.key_dtype() == fr.key(0).dtype == fr.key_dtype("threefry2x32")
    assert str(fr.key_dtype()) == str(jax.random.key_dtype())
    with pytest.raises(ValueError, match="unrecognized PRNG implementation"):
        fr.key_dtype("nope")
