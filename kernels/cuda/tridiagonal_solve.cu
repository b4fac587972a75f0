// tridiagonal_solve on CUDA: the Thomas algorithm (as kernels/tridiagonal_solve.cc), one
// thread per (system, right-hand-side column); the modified super-diagonal of each thread
// lives in XLA's scratch memory.
#include <cstdint>
#include <vector>

#include "common.cuh"

namespace vmaplab {
namespace {

constexpr unsigned kThreads = 128;

template <typename T>
__global__ void ThomasColumns(const T* dl, const T* d, const T* du, const T* b, T* x, T* scratch,
                              cuda::Lead lead, int64_t systems, int64_t m, int64_t n) {
  const int64_t k = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (k >= systems * n) return;
  const int64_t j = k % n, s = k / n;
  const T* l = dl + cuda::Offset(lead, 0, s) * m;
  const T* dd = d + cuda::Offset(lead, 1, s) * m;
  const T* u = du + cuda::Offset(lead, 2, s) * m;
  const T* bs = b + cuda::Offset(lead, 3, s) * m * n;
  T* xs = x + s * m * n;
  T* c = scratch + k * m;
  T denom = dd[0];
  c[0] = m > 1 ? u[0] / denom : T(0);
  xs[j] = bs[j] / denom;
  for (int64_t i = 1; i < m; ++i) {
    denom = dd[i] - l[i] * c[i - 1];
    c[i] = i + 1 < m ? u[i] / denom : T(0);
    xs[i * n + j] = (bs[i * n + j] - l[i] * xs[(i - 1) * n + j]) / denom;
  }
  for (int64_t i = m - 2; i >= 0; --i) xs[i * n + j] -= c[i] * xs[(i + 1) * n + j];
}

ffi::Error TridiagonalSolve(cudaStream_t stream, ffi::ScratchAllocator scratch, ffi::AnyBuffer dl,
                            ffi::AnyBuffer d, ffi::AnyBuffer du, ffi::AnyBuffer b,
                            ffi::Result<ffi::AnyBuffer> x) {
  const std::string name = "vmaplab_tridiagonal_solve";
  std::vector<int64_t> batch;
  int64_t m = 0, n = 0;
  if (auto e = CheckTridiagonalSolve(name, dl, d, du, b, *x, &batch, &m, &n); e.failure()) return e;
  cuda::Lead lead;
  if (!cuda::MakeLead({dl.dimensions(), d.dimensions(), du.dimensions(), b.dimensions()}, batch, &lead)) {
    return Invalid(name, "too many leading axes for the CUDA kernel");
  }
  if (m == 0 || n == 0) return ffi::Error::Success();
  int64_t systems = 1;
  for (int64_t v : batch) systems *= v;
  return DispatchFloat(name, b.element_type(), [&](auto t) {
    using T = decltype(t);
    auto buf = scratch.Allocate(systems * n * m * sizeof(T), alignof(T));
    if (!buf.has_value()) {
      return ffi::Error(ffi::ErrorCode::kResourceExhausted, name + ": no scratch memory");
    }
    ThomasColumns<T><<<cuda::Blocks(systems * n, kThreads), kThreads, 0, stream>>>(
        dl.typed_data<T>(), d.typed_data<T>(), du.typed_data<T>(), b.typed_data<T>(),
        x->typed_data<T>(), static_cast<T*>(*buf), lead, systems, m, n);
    return cuda::LaunchStatus(name);
  });
}

}  // namespace
}  // namespace vmaplab

VMAPLAB_DECLARE_HANDLER(VmaplabTridiagonalSolveCuda);
XLA_FFI_DEFINE_HANDLER_SYMBOL(VmaplabTridiagonalSolveCuda, vmaplab::TridiagonalSolve,
                              xla::ffi::Ffi::Bind()
                                  .Ctx<xla::ffi::PlatformStream<cudaStream_t>>()
                                  .Ctx<xla::ffi::ScratchAllocator>()
                                  .Arg<xla::ffi::AnyBuffer>()
                                  .Arg<xla::ffi::AnyBuffer>()
                                  .Arg<xla::ffi::AnyBuffer>()
                                  .Arg<xla::ffi::AnyBuffer>()
                                  .Ret<xla::ffi::AnyBuffer>());
