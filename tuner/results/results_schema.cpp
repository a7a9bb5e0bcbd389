#include "tuner/results/results_schema.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <mutex>
#include <regex>
#include <set>

#include "cuop/dtype.hpp"
#include "tuner/catalog/catalog.hpp"
#include "tuner/compile/compile.hpp"
#include "tuner/core/suggest.hpp"
#include "tuner/core/text.hpp"
#include "tuner/results/json_lines.hpp"
#include "tuner/spec/spec.hpp"
#include "tuner/store/store.hpp"

namespace cuop::results {

using nlohmann::json;

namespace {

// Limits of the values a results file may hold: far above anything measured, low enough that no
// arithmetic on them overflows.
constexpr long long largest_dim = (1LL << 31) - 1;
constexpr double largest_us = 1e9;
constexpr std::size_t largest_text = 4096;
constexpr std::size_t largest_gpu_name = 255;  // cudaDeviceProp::name holds 256 bytes
// Versions, digests, revisions, times: short. libstdc++'s std::regex recurses once per character
// a `+` matches, so a 30000-digit "driver" overflowed the stack; longer values are not matched.
constexpr std::size_t largest_pattern_text = 256;

const std::vector<std::string> top_keys = {"format",       "op",          "gpu",  "cc",     "sm_count", "driver",
                                           "cuda_runtime", "source_hash", "runs", "trials", "builds"};
const std::vector<std::string> run_keys = {"id", "started_at", "spec_file", "env_key", "git_rev", "family_hashes"};
const std::vector<std::string> trial_keys = {"problem", "dtype",     "dims",   "instance", "family",    "params",
                                             "status",  "median_us", "min_us", "q1_us",    "q3_us",     "ci_us",
                                             "samples", "batch",     "gbps",   "run",      "samples_us"};
const std::vector<std::string> timing_keys = {"median_us", "min_us", "q1_us", "q3_us", "ci_us", "samples", "gbps"};
const std::vector<std::string> build_keys = {"instance", "target",       "status",      "registers",
                                             "smem",     "spill_stores", "spill_loads", "message"};
const std::vector<std::string> dtype_names = {"f32", "f16", "bf16"};
const std::vector<std::string> build_statuses = {"ok", "compile_error", "over_limit"};

// Patterns are compiled once each (a results file has thousands of values to match).
bool matches(const std::string& s, const std::string& pattern) {
  static std::mutex m;
  static std::map<std::string, std::regex> compiled;
  const std::regex* re = nullptr;
  {
    std::lock_guard lock(m);
    re = &compiled.try_emplace(pattern, pattern).first->second;
  }
  return std::regex_match(s, *re);
}

// Text with no control characters (a newline, an escape) and not too long.
std::string check_text(const std::string& s, std::size_t longest) {
  if (s.size() > longest) return fmt::format("longer than {} bytes", longest);
  for (unsigned char ch : s)
    if (ch < 0x20 || ch == 0x7f) return fmt::format("holds a control character in {}", core::quoted(s));
  return {};
}

class checker {
 public:
  checker(const json& j, std::string_view text, const std::string& path)
      : m_root(j), m_lines(scan_json_lines(text)), m_path(core::printable(path)) {}

  schema_report run() {
    if (!m_root.is_object()) {
      fail(1, "", fmt::format("expected an object of results, got {}", kind(m_root)));
      return finish();
    }
    // Another format (a newer cuop-tune's) is said alone: its fields are not ours to judge.
    const auto format = m_root.find("format");
    if (format == m_root.end() || !format->is_string() || format->get<std::string>() != results_format_tag) {
      fail(m_lines.of("format"), "",
           fmt::format("unknown results format {} (expected \"{}\")", format == m_root.end() ? "(none)" : kind(*format),
                       results_format_tag));
      return finish();
    }
    check_header();
    if (m_op) {
      check_runs();
      check_trials();
      check_builds();
    }
    return finish();
  }

 private:
  const json& m_root;
  json_lines m_lines;
  std::string m_path;
  std::vector<std::string> m_errors;
  std::size_t m_count = 0;
  const catalog::op_desc* m_op = nullptr;
  std::set<std::int64_t> m_run_ids;

  static std::string kind(const json& v) {
    if (v.is_object()) return "an object";
    if (v.is_array()) return "a list";
    if (v.is_null()) return "null";
    return v.dump(-1, ' ', false, json::error_handler_t::replace);
  }

  void fail(int line, const std::string& field, const std::string& what) {
    ++m_count;
    if (m_errors.size() < max_reported_errors)
      m_errors.push_back(field.empty() ? fmt::format("{}:{}: {}", m_path, line, what)
                                       : fmt::format("{}:{}: {}: {}", m_path, line, field, what));
  }

  schema_report finish() { return {std::move(m_errors), m_count}; }

  bool require(const json& obj, const std::vector<std::string>& required, int line, const std::string& at) {
    bool ok = true;
    for (const auto& key : required)
      if (!obj.contains(key)) {
        fail(line, at, fmt::format("missing field \"{}\"", key));
        ok = false;
      }
    return ok;
  }

  // Keys of `obj` outside `allowed` and required ones missing; false when any.
  bool check_keys(const json& obj, const std::vector<std::string>& allowed, const std::vector<std::string>& required,
                  int line, const std::string& at) {
    bool ok = true;
    for (const auto& [key, v] : obj.items())
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        fail(line, at.empty() ? key : at + "." + key, "unknown field" + suggest_suffix(key, allowed));
        ok = false;
      }
    return require(obj, required, line, at) && ok;
  }

  bool string_field(const json& obj, const std::string& key, int line, const std::string& at, std::string& out) {
    const auto it = obj.find(key);
    if (it == obj.end()) return false;
    if (!it->is_string()) {
      fail(line, at + key, fmt::format("expected a string, got {}", kind(*it)));
      return false;
    }
    out = it->get<std::string>();
    return true;
  }

  bool integer_field(const json& obj, const std::string& key, long long lo, long long hi, int line,
                     const std::string& at, long long& out) {
    const auto it = obj.find(key);
    if (it == obj.end()) return false;
    if (!it->is_number_integer()) {
      fail(line, at + key, fmt::format("expected an integer, got {}", kind(*it)));
      return false;
    }
    const bool too_large =
        it->is_number_unsigned() && it->get<unsigned long long>() > static_cast<unsigned long long>(hi);
    if (!too_large) out = it->get<long long>();
    if (too_large || out < lo || out > hi) {
      fail(line, at + key, fmt::format("{} is outside [{}, {}]", kind(*it), lo, hi));
      return false;
    }
    return true;
  }

  bool number_field(const json& obj, const std::string& key, double lo, double hi, int line, const std::string& at,
                    double& out) {
    const auto it = obj.find(key);
    if (it == obj.end()) return false;
    if (!it->is_number()) {
      fail(line, at + key, fmt::format("expected a number, got {}", kind(*it)));
      return false;
    }
    out = it->get<double>();
    if (!std::isfinite(out) || out < lo || out > hi) {
      fail(line, at + key, fmt::format("{} is outside [{}, {}]", kind(*it), lo, hi));
      return false;
    }
    return true;
  }

  void pattern_field(const json& obj, const std::string& key, const char* pattern, const char* meaning, int line,
                     const std::string& at) {
    std::string v;
    if (!string_field(obj, key, line, at, v)) return;
    if (v.size() > largest_pattern_text)
      fail(line, at + key, fmt::format("longer than {} bytes", largest_pattern_text));
    else if (!matches(v, pattern)) fail(line, at + key, fmt::format("{} is not {}", core::quoted(v), meaning));
  }

  void check_header() {
    const auto at = [this](const char* key) { return m_lines.of(key); };
    check_keys(m_root, top_keys, {"format", "op", "gpu", "cc", "runs", "trials", "builds"}, 1, "");
    std::string op;
    if (string_field(m_root, "op", at("op"), "", op)) {
      m_op = catalog::find_op(op);
      if (!m_op)
        fail(at("op"), "op", fmt::format("unknown op {}{}", core::quoted(op), suggest_suffix(op, catalog::op_names())));
    }
    std::string gpu;
    if (string_field(m_root, "gpu", at("gpu"), "", gpu))
      if (auto why = check_text(gpu, largest_gpu_name); !why.empty()) fail(at("gpu"), "gpu", why);
    long long v = 0;
    if (integer_field(m_root, "cc", 0, 999, at("cc"), "", v) && (v == 0) != gpu.empty())
      fail(at("cc"), "cc", gpu.empty() ? "a file without a GPU has cc 0" : "a measured file needs its GPU's cc");
    integer_field(m_root, "sm_count", 0, 100000, at("sm_count"), "", v);
    pattern_field(m_root, "driver", "[0-9]+(\\.[0-9]+)*|", "a version", at("driver"), "");
    pattern_field(m_root, "cuda_runtime", "[0-9]+(\\.[0-9]+)*|", "a version", at("cuda_runtime"), "");
    pattern_field(m_root, "source_hash", "[0-9a-f]{0,64}", "a hex digest", at("source_hash"), "");
  }

  // Each element of a top-level list, with its line and "name[i]." prefix.
  void each(const char* name, const std::function<void(const json&, int, const std::string&)>& check) {
    const auto it = m_root.find(name);
    if (it == m_root.end()) return;
    if (!it->is_array()) {
      fail(m_lines.of(name), name, fmt::format("expected a list, got {}", kind(*it)));
      return;
    }
    for (std::size_t i = 0; i < it->size(); ++i) {
      const json& e = (*it)[i];
      const int line = m_lines.of(name, i);
      const std::string at = fmt::format("{}[{}]", name, i);
      if (!e.is_object()) fail(line, at, fmt::format("expected an object, got {}", kind(e)));
      else check(e, line, at);
    }
  }

  void check_runs() {
    each("runs", [this](const json& r, int line, const std::string& at) {
      check_keys(r, run_keys, {"id", "started_at"}, line, at);
      const std::string p = at + ".";
      long long id = 0;
      if (integer_field(r, "id", 1, (1LL << 53), line, p, id) && !m_run_ids.insert(id).second)
        fail(line, p + "id", fmt::format("run {} is listed twice", id));
      pattern_field(r, "started_at", "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z", "a UTC time", line, p);
      std::string spec_file;
      if (string_field(r, "spec_file", line, p, spec_file) && spec_file.size() > largest_text)
        fail(line, p + "spec_file", fmt::format("longer than {} bytes", largest_text));
      pattern_field(r, "env_key", "[0-9a-f]{0,64}", "a hex digest", line, p);
      pattern_field(r, "git_rev", "[0-9A-Za-z._+-]{0,64}", "a revision", line, p);
      if (const auto h = r.find("family_hashes"); h != r.end()) check_family_hashes(*h, line, p + "family_hashes");
    });
  }

  void check_family_hashes(const json& h, int line, const std::string& at) {
    if (!h.is_object()) {
      fail(line, at, fmt::format("expected an object of family hashes, got {}", kind(h)));
      return;
    }
    for (const auto& [family, hash] : h.items()) {
      const auto* fam = m_op->find_family(family);
      if (!fam || fam->headers.empty())
        fail(line, at + "." + family, "not a kernel family of op \"" + m_op->name + "\"");
      else if (!hash.is_string() || !matches(hash.get<std::string>(), "[0-9a-f]{16}"))
        fail(line, at + "." + family, fmt::format("{} is not a 16-digit hex digest", kind(hash)));
    }
  }

  // dims: exactly the op's dimensions, each within its rules; returns false when not.
  bool check_dims(const json& t, int line, const std::string& p, catalog::stored_values& dims) {
    const auto it = t.find("dims");
    if (it == t.end()) return false;
    if (!it->is_object()) {
      fail(line, p + "dims", fmt::format("expected an object, got {}", kind(*it)));
      return false;
    }
    bool ok = check_keys(*it, m_op->problem_dims, m_op->problem_dims, line, p + "dims");
    for (const auto& name : m_op->problem_dims) {
      const auto rules = m_op->dim(name);
      const long long hi = rules.choices.empty() ? largest_dim : static_cast<long long>(rules.choices.size()) - 1;
      long long v = 0;
      if (integer_field(*it, name, rules.min, hi, line, p + "dims.", v)) dims[name] = v;
      else ok = false;
    }
    return ok;
  }

  void check_identity(const json& t, int line, const std::string& p, const std::string& dtype_name,
                      const catalog::stored_values& dims, bool dims_ok, bool ran) {
    std::string problem, family, instance;
    const auto type = parse_dtype(dtype_name);
    if (dims_ok && type && string_field(t, "problem", line, p, problem)) {
      spec::problem sp;
      sp.dtype = dtype_name;
      for (const auto& [k, v] : dims) sp.dims[k] = v;
      if (const auto key = sp.key(m_op->name); problem != key)
        fail(line, p + "problem",
             fmt::format("{} is not the key of its dims and dtype ({})", core::quoted(problem), core::quoted(key)));
      else if (!(m_op->bytes_of(sp.dtype, sp.dims) <= 1e15)) fail(line, p + "dims", "a problem no GPU could hold");
    }
    if (!string_field(t, "family", line, p, family)) return;
    const auto* fam = m_op->find_family(family);
    if (!fam) {
      fail(line, p + "family",
           fmt::format("unknown family {} of op \"{}\"{}", core::quoted(family), m_op->name,
                       suggest_suffix(family, m_op->family_names())));
      return;
    }
    catalog::stored_values params;
    const auto pit = t.find("params");
    if (pit != t.end() && !pit->is_object()) {
      fail(line, p + "params", fmt::format("expected an object, got {}", kind(*pit)));
      return;
    }
    bool params_ok = pit != t.end();
    if (params_ok)
      for (const auto& [name, v] : pit->items()) {
        long long x = 0;
        if (integer_field(*pit, name, -(1LL << 53), 1LL << 53, line, p + "params.", x)) params[name] = x;
        else params_ok = false;
      }
    if (!string_field(t, "instance", line, p, instance) || !params_ok || !type || !dims_ok) return;
    if (fam->user_source) {  // never shipped: a name the sweep could have written is enough
      const std::string pattern = fmt::format("{}_{}_custom_[A-Za-z0-9_]{{1,200}}", m_op->name, dtype_name);
      if (!matches(instance, pattern))
        fail(line, p + "instance", fmt::format("{} is not a custom kernel's instance name", core::quoted(instance)));
      return;
    }
    std::string why;
    if (fam->kind == "kernel") why = catalog::check_param_names(*fam, params);
    std::string expected;
    if (why.empty()) expected = m_op->instance_of(catalog::stored_config{family, *type, dims, params, ran}, why);
    if (!why.empty()) fail(line, p + "params", why);
    else if (instance != expected)
      fail(line, p + "instance",
           fmt::format("{} is not the name of its configuration ({})", core::quoted(instance), core::quoted(expected)));
  }

  void check_timings(const json& t, int line, const std::string& p, bool ok) {
    if (!ok) {
      for (const auto& key : timing_keys)
        if (t.contains(key)) fail(line, p + key, "timings belong to status \"ok\" only");
      if (t.contains("samples_us")) fail(line, p + "samples_us", "samples belong to status \"ok\" only");
      if (t.contains("batch")) fail(line, p + "batch", "a batch belongs to status \"ok\" only");
      return;
    }
    require(t, timing_keys, line, p.substr(0, p.size() - 1));
    double median = 0, lo = 0, q1 = 0, q3 = 0, v = 0;
    // Every field is read, so that each bad one is reported, before their order is checked.
    bool have = number_field(t, "median_us", 0, largest_us, line, p, median);
    have = number_field(t, "min_us", 0, largest_us, line, p, lo) && have;
    have = number_field(t, "q1_us", 0, largest_us, line, p, q1) && have;
    have = number_field(t, "q3_us", 0, largest_us, line, p, q3) && have;
    if (have && !(median > 0 && lo <= q1 && q1 <= median && median <= q3))
      fail(line, p + "median_us",
           fmt::format("not min <= q1 <= median <= q3 with median > 0 ({} {} {} {})", lo, q1, median, q3));
    if (const auto ci = t.find("ci_us"); ci != t.end()) {
      if (!ci->is_array() || ci->size() != 2 || !(*ci)[0].is_number() || !(*ci)[1].is_number() ||
          !std::isfinite((*ci)[0].get<double>()) || !std::isfinite((*ci)[1].get<double>()) ||
          (*ci)[0].get<double>() < 0 || (*ci)[0].get<double>() > (*ci)[1].get<double>() ||
          (*ci)[1].get<double>() > largest_us)
        fail(line, p + "ci_us", fmt::format("expected [lo, hi] with 0 <= lo <= hi, got {}", kind(*ci)));
    }
    long long n = 0;
    integer_field(t, "samples", 1, 10000000, line, p, n);
    integer_field(t, "batch", 2, 4096, line, p, n);
    number_field(t, "gbps", 0, 1e9, line, p, v);
    if (const auto s = t.find("samples_us"); s != t.end()) {
      bool good = s->is_array() && s->size() <= 10000000;
      if (good)
        for (const auto& x : *s)
          good = good && x.is_number() && std::isfinite(x.get<double>()) && x.get<double>() >= 0 &&
                 x.get<double>() <= largest_us;
      if (!good) fail(line, p + "samples_us", "expected a list of times in [0, 1e9] us");
    }
  }

  void check_trials() {
    std::set<std::pair<std::string, std::string>> seen;
    each("trials", [&](const json& t, int line, const std::string& at) {
      const std::string p = at + ".";
      check_keys(t, trial_keys, {"problem", "dtype", "dims", "instance", "family", "params", "status", "run"}, line,
                 at);
      std::string dtype_name;
      if (string_field(t, "dtype", line, p, dtype_name) && !parse_dtype(dtype_name))
        fail(line, p + "dtype",
             fmt::format("unknown dtype {}{}", core::quoted(dtype_name), suggest_suffix(dtype_name, dtype_names)));
      catalog::stored_values dims;
      const bool dims_ok = check_dims(t, line, p, dims);
      std::string status;
      const std::vector<std::string> statuses(std::begin(store::final_statuses), std::end(store::final_statuses));
      if (string_field(t, "status", line, p, status) &&
          std::find(statuses.begin(), statuses.end(), status) == statuses.end())
        fail(line, p + "status",
             fmt::format("unknown status {}{}", core::quoted(status), suggest_suffix(status, statuses)));
      check_identity(t, line, p, dtype_name, dims, dims_ok, status == "ok");
      check_timings(t, line, p, status == "ok");
      long long run = 0;
      if (integer_field(t, "run", 0, 1LL << 53, line, p, run) && run != 0 && !m_run_ids.contains(run))
        fail(line, p + "run", fmt::format("run {} is not among the file's runs", run));
      std::string problem, instance;
      if (string_field(t, "problem", line, p, problem) && string_field(t, "instance", line, p, instance) &&
          !seen.emplace(problem, instance).second)
        fail(line, at, fmt::format("a second trial of {} on {}", core::quoted(instance), core::quoted(problem)));
    });
  }

  void check_builds() {
    std::set<std::pair<std::string, std::string>> seen;
    const auto targets = compile::target_names();
    each("builds", [&](const json& b, int line, const std::string& at) {
      const std::string p = at + ".";
      check_keys(b, build_keys, {"instance", "target", "status"}, line, at);
      std::string instance, target, status, message;
      if (string_field(b, "instance", line, p, instance) && !matches(instance, "[A-Za-z0-9_]{1,256}"))
        fail(line, p + "instance", fmt::format("{} is not an instance name", core::quoted(instance)));
      if (string_field(b, "target", line, p, target) &&
          std::find(targets.begin(), targets.end(), target) == targets.end())
        fail(line, p + "target",
             fmt::format("unknown target {}{}", core::quoted(target), suggest_suffix(target, targets)));
      if (string_field(b, "status", line, p, status) &&
          std::find(build_statuses.begin(), build_statuses.end(), status) == build_statuses.end())
        fail(line, p + "status",
             fmt::format("unknown build status {}{}", core::quoted(status), suggest_suffix(status, build_statuses)));
      if (string_field(b, "message", line, p, message) && message.size() > 65536)
        fail(line, p + "message", "longer than 65536 bytes");
      long long v = 0;
      integer_field(b, "registers", 0, 65536, line, p, v);
      integer_field(b, "smem", 0, 1LL << 30, line, p, v);
      integer_field(b, "spill_stores", 0, 1LL << 40, line, p, v);
      integer_field(b, "spill_loads", 0, 1LL << 40, line, p, v);
      if (!instance.empty() && !target.empty() && !seen.emplace(instance, target).second)
        fail(line, at, fmt::format("a second build of {} for {}", core::quoted(instance), target));
    });
  }
};

}  // namespace

schema_report schema_errors(const json& j, std::string_view text, const std::string& path) {
  return checker(j, text, path).run();
}

}  // namespace cuop::results
