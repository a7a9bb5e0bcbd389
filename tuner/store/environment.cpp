#include <ctime>
#include <string>

#include "tuner/core/hash.hpp"
#include "tuner/store/store.hpp"

namespace cuop::store {

std::string environment::key() const {
  // Fields joined with a separator that cannot occur in them, so ("ab","c") != ("a","bc").
  std::string text;
  for (const std::string* f : {&gpu_uuid, &driver, &cuda_runtime, &build_flags, &source_hash}) {
    text += *f;
    text += '\x1f';
  }
  return fnv1a_hex(text);
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace cuop::store
