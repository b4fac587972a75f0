"""jax.nn: the activations and helpers, compared on one float32 batch (and where it matters, an
int operand or keyword). The issue-26 work completes the missing names."""
import numpy as np

from surface.common import c

JAX, OURS, REQUIRED = "jax.nn", "frontend.nn", 0.91  # issue 26 asks 0.95: a floor until then
X = np.linspace(-3, 3, 12, dtype=np.float32).reshape(3, 4)
_R = np.random.default_rng(0)
Q = _R.normal(size=(2, 5, 4, 8)).astype(np.float32)
K, V = (_R.normal(size=(2, 6, 2, 8)).astype(np.float32) for _ in range(2))
K3 = np.concatenate([K, K[:, :, :1]], axis=2)  # 3 heads: they do not divide 4
BIAS = _R.normal(size=(1, 4, 5, 6)).astype(np.float32)
MASK = _R.random((2, 1, 5, 6)) > 0.3
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
ELSEWHERE = {"initializers": "test_surface.py::test_every_name_is_accounted_for_once"}  # (table)
TODO = "not implemented yet (issue 26)"
ABSENT = {n: TODO for n in ["get_scaled_dot_general_config",
                            "scaled_dot_general", "scaled_matmul"]}
