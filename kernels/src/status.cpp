#include "cuop/status.hpp"

namespace cuop {

const char* to_string(status s) noexcept {
  switch (s) {
    case status::success: return "success";
    case status::invalid_argument: return "invalid argument";
    case status::unsupported: return "unsupported";
    case status::no_kernel_image: return "no kernel image for this device";
    case status::launch_failed: return "launch failed";
    case status::cuda_error: return "cuda error";
    case status::out_of_memory: return "out of memory";
    case status::capture_conflict: return "conflicts with a CUDA stream capture";
  }
  return "unknown status";
}

}  // namespace cuop
