// Status codes on the kernel path: the library never throws. Every op checks its arguments and
// its stream before it queues anything; a status from those checks means nothing was queued.
#pragma once

namespace cuop {

enum class status : int {
  success = 0,
  invalid_argument,  // null pointer, negative size, bad stride
  unsupported,       // no kernel in this build handles the call (dtype, shape, arch)
  no_kernel_image,   // the binary carries no code this device can run
  launch_failed,     // the launch itself was refused (resources, configuration)
  cuda_error,        // any other CUDA runtime error
  out_of_memory,     // workspace allocation failed
  capture_conflict,  // the stream cannot take work under the current CUDA stream capture: the
                     // legacy default stream while a blocking stream of the device is being
                     // captured, a capture already invalidated, or a step CUDA refused in capture
};

const char* to_string(status s) noexcept;

}  // namespace cuop
