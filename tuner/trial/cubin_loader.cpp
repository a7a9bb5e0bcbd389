#include "tuner/trial/cubin_loader.hpp"

#include <fmt/format.h>

#include <fstream>
#include <iterator>
#include <vector>

#include "tuner/trial/cuda_errors.hpp"

namespace cuop::trial {

cubin_loader::~cubin_loader() {
  for (auto& [path, library] : m_libraries) cudaLibraryUnload(library);
}

cudaError_t cubin_loader::kernel(const std::string& cubin_path, const std::string& entry, cudaKernel_t& out,
                                 std::string& message) {
  auto it = m_libraries.find(cubin_path);
  if (it == m_libraries.end()) {
    std::ifstream file(cubin_path, std::ios::binary);
    if (!file) {
      message = fmt::format("{}: cannot read the cubin", cubin_path);
      return cudaErrorInvalidValue;
    }
    std::vector<char> image((std::istreambuf_iterator<char>(file)), {});
    cudaLibrary_t library{};
    if (auto e = cudaLibraryLoadData(&library, image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
        e != cudaSuccess) {
      message = fmt::format("{} while loading {}", describe(e), cubin_path);
      return e;
    }
    it = m_libraries.emplace(cubin_path, library).first;
  }
  if (auto e = cudaLibraryGetKernel(&out, it->second, entry.c_str()); e != cudaSuccess) {
    message = fmt::format("{} looking up kernel \"{}\"", describe(e), entry);
    return e;
  }
  return cudaSuccess;
}

trial_response trial_failure(cudaError_t e, const std::string& during) {
  trial_response r;
  r.worker_must_restart = is_sticky(e);
  r.status = r.worker_must_restart ? "crashed" : "launch_error";
  r.message = fmt::format("{} during {}", describe(e), during);
  return r;
}

const void* load_kernel(cubin_loader& loader, const trial_request& request, trial_response& failed) {
  cudaKernel_t kernel{};
  if (auto e = loader.kernel(request.cubin_path, request.entry, kernel, failed.message); e != cudaSuccess) {
    failed.status = is_sticky(e) ? "crashed" : "launch_error";
    failed.worker_must_restart = is_sticky(e);
    return nullptr;
  }
  return reinterpret_cast<const void*>(kernel);
}

}  // namespace cuop::trial
