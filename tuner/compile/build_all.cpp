// compiler::build_all: a fixed pool of threads taking requests in turn; results keep request order.
#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>

#include "tuner/compile/compile.hpp"

namespace cuop::compile {

std::vector<result> compiler::build_all(const std::vector<request>& rs, int jobs) const {
  std::vector<result> out(rs.size());
  if (jobs <= 0) jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  jobs = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(jobs), rs.size()));
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < rs.size(); i = next++) {
      try {
        out[i] = build(rs[i]);
      } catch (const std::exception& e) {  // one bad request is a failed candidate, not a sweep
        out[i] = result{};
        out[i].status = build_status::compile_error;
        out[i].message = e.what();
      }
    }
  };
  {
    std::vector<std::jthread> pool;
    for (int j = 0; j < jobs; ++j) pool.emplace_back(work);
  }
  return out;
}

}  // namespace cuop::compile
