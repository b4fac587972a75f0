"""jax.nn: the activations and helpers, compared on one float32 batch (and where it matters, an
int operand or keyword). The issue-26 work completes the missing names."""
import numpy as np

from surface.common import Side, c

JAX, OURS, REQUIRED = "jax.nn", "frontend.nn", 0.95
X = np.linspace(-3, 3, 12, dtype=np.float32).reshape(3, 4)
_R = np.random.default_rng(0)
Q = _R.normal(size=(2, 5, 4, 8)).astype(np.float32)
K, V = (_R.normal(size=(2, 6, 2, 8)).astype(np.float32) for _ in range(2))
K3 = np.concatenate([K, K[:, :, :1]], axis=2)  # 3 heads: they do not divide 4
BIAS = _R.normal(size=(1, 4, 5, 6)).astype(np.float32)
MASK = _R.random((2, 1, 5, 6)) > 0.3
SA, SB = _R.normal(size=(2, 3, 64)).astype(np.float32), _R.normal(size=(2, 4, 64)).astype(np.float32)
BMM = (((2,), (2,)), ((0,), (0,)))


def _same_repr(ours, theirs):
    assert repr(ours) == repr(theirs), (ours, theirs)


UNARY = ["celu", "elu", "gelu", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh",
         "identity", "leaky_relu", "log_sigmoid", "mish", "relu6", "selu", "sigmoid", "silu",
         "soft_sign", "softplus", "sparse_plus", "sparse_sigmoid", "squareplus", "swish"]
CASES = {name: [c(X)] for name in UNARY}
CASES.update({
    "relu": [c(X), c(np.int32(3))],
    "gelu": [c(X), c(X, approximate=False)],
    "softmax": [c(X, axis=0), c(X)],
    "log_softmax": [c(X, axis=0), c(X)],
    "logsumexp": [c(X, axis=1), c(X)],
    "logmeanexp": [c(X, axis=1)],
    "standardize": [c(X, axis=1)],
    "glu": [c(X)],
    "one_hot": [c(np.array([0, 2, 1]), 3)],
    "log1mexp": [c(np.float32([1e-4, 0.3, 0.69, 0.7, 2, 30])), c(1.0)],
    "tanh": [c(X), c(0.5)],
    "dot_product_attention": [c(Q, K, V), c(Q, K, V, is_causal=True),
                              c(Q, K, V, BIAS, MASK), c(Q[0], K[0], V[0], scale=0.5),
                              c(Q, K[:, :, :1], V[:, :, :1]),
                              c(Q, K3, K3, _raises=ValueError)],
})
CASES.update({
    "get_scaled_dot_general_config": [c("mxfp8", _compare=_same_repr),
                                      c("nvfp4", _compare=_same_repr),
                                      c("nvfp4", np.float32([0.5]), _jit=False, _compare=_same_repr),
                                      c("fp8", _raises=ValueError)],
    "scaled_dot_general": [c(SA, SB, BMM), c(SA, SB, BMM, preferred_element_type=np.float16),
                           c(SA[0], SB[0], (((1,), (1,)), ((), ()))),
                           c(SA, SB, BMM, configs=Side(
                               lambda m: [m.get_scaled_dot_general_config("mxfp8")] * 3),
                             _raises=NotImplementedError)],
})
# scaled_matmul: JAX has no CPU lowering for it (NotImplementedError), so its values are compared
# with JAX's documented formula, and its shapes, dtypes and errors with JAX's, in that test.
ELSEWHERE = {"initializers": "test_surface.py::test_every_name_is_accounted_for_once",
             "scaled_matmul": "test_nn_scaled.py::test_scaled_matmul_matches_jax"}
ABSENT = {}
