#include "tuner/space/space.hpp"

#include <algorithm>

#include "cuop/dtype.hpp"
#include "tuner/catalog/catalog.hpp"
#include "tuner/core/error.hpp"
#include "tuner/spec/constraint.hpp"

namespace cuop::space {

namespace {

std::vector<std::string> fields_of(const spec::sweep& s) {
  if (const catalog::op_desc* op = catalog::find_op(s.op)) return op->problem_dims;
  throw error(s.file + ": unknown op \"" + s.op + "\"");
}

}  // namespace

std::map<std::string, double> problem_symbols(const spec::problem& p) {
  const auto type = parse_dtype(p.dtype);
  if (!type) throw error(p.where.str() + ": unknown dtype \"" + p.dtype + "\"");
  std::map<std::string, double> out;
  for (const auto& [name, v] : p.dims) out[name] = static_cast<double>(v);
  out["elem_bytes"] = static_cast<double>(size_of(*type));
  return out;
}

std::string str(const point& p) {
  std::string out = p.family + "(";
  for (std::size_t i = 0; i < p.params.size(); ++i) {
    if (i) out += ", ";
    out += p.params[i].first + "=" + std::to_string(p.params[i].second);
  }
  return out + ")";
}

std::vector<verdict> enumerate(const spec::sweep& s, const spec::problem& p) {
  const auto fields = fields_of(s);
  const auto symbols = problem_symbols(p);
  const std::string key = p.key(s.op);
  std::vector<verdict> out;
  for (const auto& cand : s.candidates) {
    spec::detail::constraint_set cs(cand, s.constraints, fields);
    for (const auto& [name, v] : symbols) cs.set_symbol(name, v);

    // An odometer over the parameters: the last one turns fastest, so points come out in the
    // order of nested loops written in the candidate's parameter order.
    const std::size_t n = cand.params.size();
    std::vector<std::size_t> at(n, 0);
    verdict v;
    v.config.family = cand.family;
    v.config.source = cand.source;
    v.config.kernel = cand.kernel;
    for (const auto& ps : cand.params) v.config.params.emplace_back(ps.name, 0);
    bool done = false;
    for (const auto& ps : cand.params) done = done || ps.values.empty();
    while (!done) {
      for (std::size_t i = 0; i < n; ++i) {
        const std::int64_t value = cand.params[i].values[at[i]];
        v.config.params[i].second = value;
        cs.set_param(i, static_cast<double>(value));
      }
      const spec::constraint* failed = cs.first_false([&] { return "problem " + key + ", " + str(v.config); });
      v.accepted = failed == nullptr;
      v.reason = failed ? "constraint \"" + failed->expr + "\" (" + failed->where.str() + ") is false" : std::string();
      out.push_back(v);
      std::size_t i = n;
      while (i > 0 && ++at[i - 1] == cand.params[i - 1].values.size()) at[--i] = 0;
      done = i == 0;
    }
  }
  return out;
}

std::size_t space_size(const spec::sweep& s) {
  std::size_t total = 0;
  for (const auto& cand : s.candidates) {
    std::size_t points = 1;
    for (const auto& ps : cand.params) points *= ps.values.size();
    total += points;
  }
  return total;
}

std::vector<std::string> empty_problems(const spec::sweep& s) {
  std::vector<std::string> out;
  for (const auto& p : s.problems) {
    const auto points = enumerate(s, p);
    if (std::none_of(points.begin(), points.end(), [](const verdict& v) { return v.accepted; }))
      out.push_back(p.key(s.op));
  }
  return out;
}

void require_nonempty(const spec::sweep& s) {
  const auto empty = empty_problems(s);
  if (!empty.empty()) throw error(s.file + ": no configuration satisfies the constraints for problem " + empty.front());
}

}  // namespace cuop::space
