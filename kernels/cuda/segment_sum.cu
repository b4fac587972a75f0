// segment_sum on CUDA: out[..., s, :] = sum of the rows i of data[..., i, :] with
// segment_ids[..., i] == s (ids out of range dropped, as JAX's); one thread per element of
// data, adding atomically into the zeroed output.
#include <cstdint>
#include <vector>

#include "common.cuh"

namespace vmaplab {
namespace {

constexpr unsigned kThreads = 256;

template <typename T>
__global__ void SegmentSumAdd(const T* data, const int32_t* ids, T* out, cuda::Lead lead,
                              int64_t problems, int64_t n, int64_t r, int64_t segments) {
  const int64_t k = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (k >= problems * n * r) return;
  const int64_t j = k % r, i = (k / r) % n, p = k / (r * n);
  const int64_t s = ids[cuda::Offset(lead, 1, p) * n + i];
  if (s < 0 || s >= segments) return;
  atomicAdd(out + (p * segments + s) * r + j, data[(cuda::Offset(lead, 0, p) * n + i) * r + j]);
}

ffi::Error SegmentSumImpl(cudaStream_t stream, int64_t num_segments, ffi::AnyBuffer data,
                          ffi::AnyBuffer ids, ffi::Result<ffi::AnyBuffer> out) {
  const std::string name = "vmaplab_segment_sum";
  std::vector<int64_t> batch;
  int64_t n = 0, r = 0;
  if (auto e = CheckSegmentSum(name, num_segments, data, ids, *out, &batch, &n, &r); e.failure()) {
    return e;
  }
  cuda::Lead lead;
  if (!cuda::MakeLead({data.dimensions(), ids.dimensions()}, batch, &lead)) {
    return Invalid(name, "too many leading axes for the CUDA kernel");
  }
  int64_t problems = 1;
  for (int64_t b : batch) problems *= b;
  return DispatchFloat(name, data.element_type(), [&](auto t) {
    using T = decltype(t);
    cudaMemsetAsync(out->untyped_data(), 0, problems * num_segments * r * sizeof(T), stream);
    const int64_t work = problems * n * r;
    if (work > 0) {
      SegmentSumAdd<T><<<cuda::Blocks(work, kThreads), kThreads, 0, stream>>>(
          data.typed_data<T>(), ids.typed_data<int32_t>(), out->typed_data<T>(), lead, problems,
          n, r, num_segments);
    }
    return cuda::LaunchStatus(name);
  });
}

}  // namespace
}  // namespace vmaplab

VMAPLAB_DECLARE_HANDLER(VmaplabSegmentSumCuda);
XLA_FFI_DEFINE_HANDLER_SYMBOL(VmaplabSegmentSumCuda, vmaplab::SegmentSumImpl,
                              xla::ffi::Ffi::Bind()
                                  .Ctx<xla::ffi::PlatformStream<cudaStream_t>>()
                                  .Attr<int64_t>("num_segments")
                                  .Arg<xla::ffi::AnyBuffer>()
                                  .Arg<xla::ffi::AnyBuffer>()
                                  .Ret<xla::ffi::AnyBuffer>());
