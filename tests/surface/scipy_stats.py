"""jax.scipy.stats: the distributions' logpdf/pdf/cdf/... (a package of modules)."""
import jax.scipy.stats as _js

JAX, OURS, REQUIRED = "jax.scipy.stats", "frontend.scipy.stats", 0.95
CASES = {}
ELSEWHERE = {}
TODO = "not implemented yet (issue 26): frontend.scipy.stats does not exist yet"
ABSENT = {n: TODO for n in dir(_js) if not n.startswith("_")}
