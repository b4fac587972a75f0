// tridiagonal_solve: solves A x = b for tridiagonal A, as jax.lax.linalg.tridiagonal_solve:
// dl, d, du of shape [..., m] (dl[0] and du[m-1] are ignored), b and x of shape [..., m, n].
// The Thomas algorithm (no pivoting: for diagonally dominant or positive definite systems,
// like JAX's portable implementation); every leading axis indexes an independent system.
#include <cstdint>
#include <vector>

#include "common.h"

namespace vmaplab {
namespace {

template <typename T>
void ThomasSolve(const T* dl, const T* d, const T* du, const T* b, T* x, int64_t batch,
                 int64_t m, int64_t n) {
  std::vector<T> c(m);  // the modified super-diagonal
  for (int64_t s = 0; s < batch; ++s) {
    const T* dls = dl + s * m;
    const T* ds = d + s * m;
    const T* dus = du + s * m;
    const T* bs = b + s * m * n;
    T* xs = x + s * m * n;
    // forward sweep: row i of x holds the modified right-hand side
    T denom = ds[0];
    c[0] = m > 1 ? dus[0] / denom : T(0);
    for (int64_t j = 0; j < n; ++j) xs[j] = bs[j] / denom;
    for (int64_t i = 1; i < m; ++i) {
      denom = ds[i] - dls[i] * c[i - 1];
      c[i] = i + 1 < m ? dus[i] / denom : T(0);
      const T* prev = xs + (i - 1) * n;
      T* row = xs + i * n;
      const T* brow = bs + i * n;
      for (int64_t j = 0; j < n; ++j) row[j] = (brow[j] - dls[i] * prev[j]) / denom;
    }
    // back substitution
    for (int64_t i = m - 2; i >= 0; --i) {
      T* row = xs + i * n;
      const T* next = xs + (i + 1) * n;
      for (int64_t j = 0; j < n; ++j) row[j] -= c[i] * next[j];
    }
  }
}

ffi::Error TridiagonalSolve(ffi::AnyBuffer dl, ffi::AnyBuffer d, ffi::AnyBuffer du,
                            ffi::AnyBuffer b, ffi::Result<ffi::AnyBuffer> x) {
  const std::string name = "vmaplab_tridiagonal_solve";
  auto bd = b.dimensions();
  if (bd.size() < 2) {
    return Invalid(name, "b must have rank >= 2 ([..., m, n]), got shape " + ShapeString(bd));
  }
  const size_t lead = bd.size() - 2;
  const int64_t m = bd[lead], n = bd[lead + 1];
  for (const ffi::AnyBuffer* diag : {&dl, &d, &du}) {
    auto dd = diag->dimensions();
    if (dd.size() != lead + 1 || !SameLeading(dd, bd, lead) || dd[lead] != m) {
      return Invalid(name, "dl, d and du must have shape b.shape[:-1], got " + ShapeString(dd) +
                               " for b of shape " + ShapeString(bd));
    }
    if (diag->element_type() != b.element_type()) {
      return Invalid(name, "dl, d, du and b must have the same dtype");
    }
  }
  if (x->element_type() != b.element_type() || !(x->dimensions() == bd)) {
    return Invalid(name, "the result must have the shape and dtype of b");
  }
  const int64_t batch = LeadingSize(bd, lead);
  if (batch == 0 || m == 0 || n == 0) return ffi::Error::Success();
  return DispatchFloat(name, b.element_type(), [&](auto t) {
    using T = decltype(t);
    ThomasSolve<T>(dl.typed_data<T>(), d.typed_data<T>(), du.typed_data<T>(), b.typed_data<T>(),
                   x->typed_data<T>(), batch, m, n);
    return ffi::Error::Success();
  });
}

}  // namespace
}  // namespace vmaplab

VMAPLAB_DECLARE_HANDLER(VmaplabTridiagonalSolve);
XLA_FFI_DEFINE_HANDLER_SYMBOL(VmaplabTridiagonalSolve, vmaplab::TridiagonalSolve,
                              xla::ffi::Ffi::Bind()
                                  .Arg<xla::ffi::AnyBuffer>()
                                  .Arg<xla::ffi::AnyBuffer>()
                                  .Arg<xla::ffi::AnyBuffer>()
                                  .Arg<xla::ffi::AnyBuffer>()
                                  .Ret<xla::ffi::AnyBuffer>());
