#include <algorithm>
#include <charconv>
#include <limits>

#include "cuop/backends/cudnn.hpp"

namespace cuop::backends {

namespace {

constexpr std::string_view prefix = "dnn_e";
constexpr std::int64_t max_values_per_knob = 1 << 16;  // a range wider than this is sampled by stride

bool set_why(std::string* why, std::string text) {
  if (why != nullptr) *why = std::move(text);
  return false;
}

// A decimal integer without a leading '+' or leading zeros ("-" allowed), consumed from s.
bool take_int(std::string_view& s, std::int64_t& v) {
  std::size_t n = 0;
  if (n < s.size() && s[n] == '-') ++n;
  const std::size_t digits = n;
  while (n < s.size() && s[n] >= '0' && s[n] <= '9') ++n;
  if (n == digits) return false;
  if (s[digits] == '0' && n - digits > 1) return false;
  if (s.substr(0, n) == "-0") return false;
  const auto r = std::from_chars(s.data(), s.data() + n, v);
  if (r.ec != std::errc()) return false;
  s.remove_prefix(n);
  return true;
}

std::vector<std::int64_t> values_of(const cudnn_knob_range& k) {
  std::vector<std::int64_t> out;
  if (k.max < k.min) return out;
  const std::int64_t stride = k.stride < 1 ? 1 : k.stride;
  for (std::int64_t v = k.min; v <= k.max && static_cast<std::int64_t>(out.size()) < max_values_per_knob; v += stride) {
    out.push_back(v);
    if (v > std::numeric_limits<std::int64_t>::max() - stride) break;
  }
  return out;
}

// The combinations of one engine, generated lazily in a fixed order (last knob fastest).
struct engine_stream {
  std::int64_t engine = 0;
  std::vector<int> types;
  std::vector<std::vector<std::int64_t>> values;
  std::vector<std::size_t> at;
  bool done = false;

  cudnn_config current() const {
    cudnn_config c;
    c.engine = engine;
    for (std::size_t i = 0; i < types.size(); ++i) c.knobs.push_back({types[i], values[i][at[i]]});
    return c;
  }
  void advance() {
    for (std::size_t i = at.size(); i-- > 0;) {
      if (++at[i] < values[i].size()) return;
      at[i] = 0;
    }
    done = true;
  }
};

}  // namespace

bool operator==(const cudnn_config& a, const cudnn_config& b) noexcept {
  if (a.engine != b.engine || a.knobs.size() != b.knobs.size()) return false;
  for (std::size_t i = 0; i < a.knobs.size(); ++i)
    if (a.knobs[i].type != b.knobs[i].type || a.knobs[i].value != b.knobs[i].value) return false;
  return true;
}

std::string cudnn_config_id(const cudnn_config& c) {
  std::string out = std::string(prefix) + std::to_string(c.engine);
  for (const auto& k : c.knobs) out += "_k" + std::to_string(k.type) + "v" + std::to_string(k.value);
  return out;
}

bool parse_cudnn_config_id(std::string_view text, cudnn_config& out, std::string* why) {
  const std::string quoted = "\"" + std::string(text) + "\"";
  std::string_view s = text;
  if (s.substr(0, prefix.size()) != prefix)
    return set_why(why, "cuDNN configuration " + quoted + " does not start with \"dnn_e\"");
  s.remove_prefix(prefix.size());
  cudnn_config c;
  if (!take_int(s, c.engine) || c.engine < 0) return set_why(why, "bad engine index in " + quoted);
  while (!s.empty()) {
    if (s.substr(0, 2) != "_k")
      return set_why(why, "expected \"_k<type>v<value>\" at \"" + std::string(s) + "\" in " + quoted);
    s.remove_prefix(2);
    std::int64_t type = 0, value = 0;
    if (!take_int(s, type) || type < 0 || type > std::numeric_limits<int>::max())
      return set_why(why, "bad knob type in " + quoted);
    if (s.empty() || s[0] != 'v') return set_why(why, "knob type without \"v<value>\" in " + quoted);
    s.remove_prefix(1);
    if (!take_int(s, value)) return set_why(why, "bad knob value in " + quoted);
    if (!c.knobs.empty() && c.knobs.back().type >= type) return set_why(why, "knob types not increasing in " + quoted);
    c.knobs.push_back({static_cast<int>(type), value});
  }
  out = std::move(c);
  return true;
}

std::vector<cudnn_config> enumerate_cudnn_knobs(const std::vector<cudnn_engine_knobs>& engines, int budget,
                                                const std::vector<cudnn_config>& already) {
  std::vector<engine_stream> streams;
  for (const auto& e : engines) {
    engine_stream st;
    st.engine = e.engine;
    auto knobs = e.knobs;
    std::sort(knobs.begin(), knobs.end(), [](const auto& a, const auto& b) { return a.type < b.type; });
    for (const auto& k : knobs) {
      if (!st.types.empty() && st.types.back() == k.type) continue;  // a type once
      auto v = values_of(k);
      if (v.empty()) continue;
      st.types.push_back(k.type);
      st.values.push_back(std::move(v));
    }
    st.at.assign(st.types.size(), 0);
    streams.push_back(std::move(st));
  }
  std::vector<cudnn_config> out;
  const auto seen = [&](const cudnn_config& c) {
    return std::find(already.begin(), already.end(), c) != already.end() ||
           std::find(out.begin(), out.end(), c) != out.end();
  };
  bool progress = true;
  while (static_cast<int>(out.size()) < budget && progress) {
    progress = false;
    for (auto& st : streams) {
      if (static_cast<int>(out.size()) >= budget) break;
      while (!st.done) {  // this engine's next configuration not already listed
        cudnn_config c = st.current();
        st.advance();
        if (!seen(c)) {
          out.push_back(std::move(c));
          progress = true;
          break;
        }
      }
    }
  }
  return out;
}

}  // namespace cuop::backends
