// Status codes on the kernel path: the library never throws.
#pragma once

namespace cuop {

enum class status : int {
  success = 0,
  invalid_argument,    // null pointer, negative size, bad stride
  unsupported,         // no kernel in this build handles the call (dtype, shape, arch)
  no_kernel_image,     // the binary carries no code this device can run
  launch_failed,       // the launch itself was refused (resources, configuration)
  cuda_error,          // any other CUDA runtime error
  out_of_memory,       // workspace allocation failed
};

const char* to_string(status s) noexcept;

}  // namespace cuop
