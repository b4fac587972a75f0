// rms_norm on CUDA: y = x / sqrt(mean(x * x) + eps) over the last axis; one block per row,
// its threads summing strided parts of the row and reducing in shared memory.
#include <cmath>
#include <cstdint>

#include "common.cuh"

namespace vmaplab {
namespace {

constexpr unsigned kThreads = 256;

template <typename T>
__global__ void RmsNormRows(const T* x, T* y, int64_t n, double eps) {
  __shared__ T partial[kThreads];
  const T* xr = x + blockIdx.x * n;
  T* yr = y + blockIdx.x * n;
  T acc = 0;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) acc += xr[i] * xr[i];
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  const T scale = T(1) / sqrt(partial[0] / T(n) + T(eps));
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) yr[i] = xr[i] * scale;
}

ffi::Error RmsNorm(cudaStream_t stream, double eps, ffi::AnyBuffer x, ffi::Result<ffi::AnyBuffer> y) {
  const std::string name = "vmaplab_rms_norm";
  int64_t rows = 0, n = 0;
  if (auto e = CheckRmsNorm(name, x, *y, &rows, &n); e.failure()) return e;
  if (n == 0 || rows == 0) return ffi::Error::Success();
  return DispatchFloat(name, x.element_type(), [&](auto t) {
    using T = decltype(t);
    RmsNormRows<T><<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(
        x.typed_data<T>(), y->typed_data<T>(), n, eps);
    return cuda::LaunchStatus(name);
  });
}

}  // namespace
}  // namespace vmaplab

VMAPLAB_DECLARE_HANDLER(VmaplabRmsNormCuda);
XLA_FFI_DEFINE_HANDLER_SYMBOL(VmaplabRmsNormCuda, vmaplab::RmsNorm,
                              xla::ffi::Ffi::Bind()
                                  .Ctx<xla::ffi::PlatformStream<cudaStream_t>>()
                                  .Attr<double>("eps")
                                  .Arg<xla::ffi::AnyBuffer>()
                                  .Ret<xla::ffi::AnyBuffer>());
