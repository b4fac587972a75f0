// Shared helpers of vmaplab's CUDA kernels (the GPU versions of kernels/*.cc, with the same
// operands, attributes, checks and error messages; registered for platform "CUDA"). Shape
// checks run on the host and return an ffi::Error; the leading (batch) axes broadcast as on
// the CPU: each operand's leading axes are described by strides (0 where it has size 1)
// that a kernel turns into the operand's problem offset.
#ifndef VMAPLAB_KERNELS_CUDA_COMMON_CUH_
#define VMAPLAB_KERNELS_CUDA_COMMON_CUH_

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "../checks.h"
#include "../common.h"

namespace vmaplab {
namespace cuda {

constexpr int kMaxLead = 8;      // leading (batch) axes a kernel takes
constexpr int kMaxOperands = 4;  // operands with broadcasting leading axes

// The leading axes of the output and, per operand, the stride (in problems) of each axis.
struct Lead {
  int rank = 0;
  int64_t out[kMaxLead] = {};
  int64_t stride[kMaxOperands][kMaxLead] = {};
};

// The Lead of operands whose leading dims are `dims` (each equal to `batch` or 1); false when
// there are too many leading axes for a kernel.
inline bool MakeLead(std::initializer_list<ffi::AnyBuffer::Dimensions> dims,
                     const std::vector<int64_t>& batch, Lead* lead) {
  if (batch.size() > static_cast<size_t>(kMaxLead) || dims.size() > kMaxOperands) return false;
  lead->rank = static_cast<int>(batch.size());
  int k = 0;
  for (auto d : dims) {
    int64_t s = 1;
    for (int a = lead->rank - 1; a >= 0; --a) {
      lead->out[a] = batch[a];
      lead->stride[k][a] = d[a] == 1 ? 0 : s;
      s *= d[a];
    }
    ++k;
  }
  return true;
}

// The problem of operand `which` that output problem `p` reads.
__device__ inline int64_t Offset(const Lead& lead, int which, int64_t p) {
  int64_t off = 0;
  for (int a = lead.rank - 1; a >= 0; --a) {
    off += (p % lead.out[a]) * lead.stride[which][a];
    p /= lead.out[a];
  }
  return off;
}

inline ffi::Error LaunchStatus(const std::string& kernel) {
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) return ffi::Error::Success();
  return ffi::Error(ffi::ErrorCode::kInternal, kernel + ": CUDA launch failed: " + cudaGetErrorString(e));
}

inline unsigned Blocks(int64_t work, unsigned threads) {
  return static_cast<unsigned>((work + threads - 1) / threads);
}

}  // namespace cuda
}  // namespace vmaplab

#endif  // VMAPLAB_KERNELS_CUDA_COMMON_CUH_
