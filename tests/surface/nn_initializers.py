"""jax.nn.initializers: each initializer drawn from one raw key, bit for bit with JAX's."""
import numpy as np

from surface.common import c

JAX, OURS, REQUIRED = "jax.nn.initializers", "frontend.nn.initializers", None
KEY = np.array([0, 7], np.uint32)


def _draw(*shape_dtype):
    def compare(ours, theirs):
        o, t = np.asarray(ours(KEY, *shape_dtype)), np.asarray(theirs(KEY, *shape_dtype))
        assert o.dtype == t.dtype and o.shape == t.shape
        np.testing.assert_allclose(o, t, rtol=1e-6, atol=1e-7)
    return compare


SHAPES = [((4, 5),), ((3, 3, 2, 4), np.float32), ((6, 2), np.float16)]
FACTORIES = ["glorot_normal", "glorot_uniform", "he_normal", "he_uniform", "kaiming_normal",
             "kaiming_uniform", "lecun_normal", "lecun_uniform", "xavier_normal",
             "xavier_uniform", "normal", "uniform", "truncated_normal"]
CASES = {n: [c(_jit=False, _compare=_draw(*s)) for s in SHAPES] for n in FACTORIES}
CASES.update({
    "variance_scaling": [c(2.0, "fan_avg", "uniform", _jit=False, _compare=_draw((4, 5))),
                         c(1.0, "fan_in", "truncated_normal", _jit=False, _compare=_draw((3, 4)))],
    "constant": [c(0.5, _jit=False, _compare=_draw((2, 3)))],
    "zeros": [c(KEY, (2, 3), _jit=False)], "ones": [c(KEY, (2, 3), np.int32, _jit=False)],
})
CASES.update({
    "orthogonal": [c(_jit=False, _compare=_draw(s)) for s in [(4, 5), (5, 3), (2, 3, 4)]]
    + [c(2.0, 0, _jit=False, _compare=_draw((3, 4, 2)))],
    "delta_orthogonal": [c(_jit=False, _compare=_draw(s)) for s in [(3, 2, 4), (3, 3, 2, 2),
                                                                      (1, 3, 3, 2, 5)]],
})
ELSEWHERE = {"Initializer": "test_surface_extra.py::test_initializer_protocol_and_log1mexp_grad"}
ABSENT = {}
