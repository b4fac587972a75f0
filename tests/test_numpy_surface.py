"""frontend.numpy names that are not functions (constants, dtype classes), and behaviours the
surface table (tests/surface/jnp.py) cannot express as a call, compared with jax.numpy."""
import jax.numpy as jnp
import numpy as np

import frontend.numpy as fnp


def test_constants_match_jax():
    for name in ("e", "pi", "inf", "nan", "euler_gamma"):
        if hasattr(fnp, name):
            np.testing.assert_equal(getattr(fnp, name), getattr(jnp, name))
    assert fnp.newaxis is jnp.newaxis is None


def test_dtype_classes_match_jax():
    for name in ("complexfloating", "floating", "generic", "inexact", "integer", "number",
                 "signedinteger", "unsignedinteger"):
        for d in (np.float32, np.int8, np.uint16, np.complex64, np.bool_, jnp.bfloat16):
            assert fnp.issubdtype(d, getattr(fnp, name)) == jnp.issubdtype(d, getattr(jnp, name))
    assert fnp.dtype("float32") == jnp.dtype("float32")
    assert isinstance(fnp.ones(2), fnp.ndarray) and not isinstance(np.ones(2), fnp.ndarray)
    for d in (np.float32, jnp.bfloat16, np.float16):
        assert fnp.finfo(d).eps == jnp.finfo(d).eps and fnp.finfo(d).max == jnp.finfo(d).max
    for d in (np.int8, np.uint32):
        assert (fnp.iinfo(d).min, fnp.iinfo(d).max) == (jnp.iinfo(d).min, jnp.iinfo(d).max)
