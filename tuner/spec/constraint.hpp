// Constraints compiled for one candidate: each expression is parsed once by its own muparser
// object bound to one shared symbol table (the candidate's parameters, the problem fields and
// elem_bytes); evaluating a point only writes values into the table.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tuner/spec/spec.hpp"

namespace mu {
class Parser;
}

namespace cuop::spec::detail {

class constraint_set {
 public:
  // `sweep_wide` apply to every candidate (an unknown symbol there names the family), then the
  // candidate's own. Throws cuop::error at a constraint's location for a syntax error or an
  // unknown symbol.
  constraint_set(const candidate& cand, const std::vector<constraint>& sweep_wide,
                 const std::vector<std::string>& problem_fields);
  ~constraint_set();
  constraint_set(constraint_set&&) noexcept;
  constraint_set& operator=(constraint_set&&) noexcept;

  // Symbol values: parameters are indexed in the candidate's order; other symbols by name.
  void set_param(std::size_t index, double value) { m_values[index] = value; }
  void set_symbol(std::string_view name, double value);

  // The first constraint that is false for the current values (nullptr: all hold). Throws
  // cuop::error if one evaluates to NaN or infinity; `describe_point` names the point then (built
  // only for the error, not for every point).
  const constraint* first_false(const std::function<std::string()>& describe_point) const;

  const std::vector<std::string>& symbols() const { return m_symbols; }

 private:
  std::vector<std::string> m_symbols;  // params, then problem fields, then elem_bytes
  std::unique_ptr<double[]> m_values;  // muparser holds pointers into this
  std::vector<const constraint*> m_constraints;
  std::vector<std::unique_ptr<mu::Parser>> m_parsers;
};

}  // namespace cuop::spec::detail

namespace cuop::spec {

// Parses every constraint of the sweep once and checks it names only known symbols; throws
// cuop::error at the constraint's location otherwise (unknown symbol quoted, with the closest
// known name). Called by spec validation, before anything runs.
void check_constraints(const sweep& s, const std::vector<std::string>& problem_fields);

// Every such error, each constraint parsed on its own (a top-level one once per candidate), in
// file order, none repeated: what `validate` lists.
std::vector<std::string> constraint_errors(const sweep& s, const std::vector<std::string>& problem_fields);

}  // namespace cuop::spec
