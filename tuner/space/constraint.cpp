#include "tuner/space/constraint.hpp"

#include <muParser.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "tuner/core/error.hpp"
#include "tuner/core/suggest.hpp"

namespace cuop::space::detail {

namespace {

// muparser's built-in operators are replaced by these so that a division by zero (or an
// overflow, or NaN from a function) anywhere in an expression is seen, even when a comparison
// around it would turn it into a finite 0 or 1. Callbacks are plain function pointers, hence the
// thread-local flag. Ternaries still skip their untaken branch, so `vec > 1 ? x / (vec - 1) : 0`
// guards a division; `&&` and `||` evaluate both sides.
thread_local bool t_non_finite = false;
thread_local double t_first_bad = 0;

double watch(double a, double b, double r) {
  for (double v : {a, b, r})
    if (!std::isfinite(v) && !t_non_finite) {
      t_non_finite = true;
      t_first_bad = v;
    }
  return r;
}

struct binary_op {
  const char* name;
  mu::fun_type2 fn;
  int precedence;
  mu::EOprtAssociativity assoc;
};

// Same precedences and associativity as muparser's built-ins, plus `%` (fmod).
const binary_op binary_ops[] = {
    {"+", [](double a, double b) { return watch(a, b, a + b); }, mu::prADD_SUB, mu::oaLEFT},
    {"-", [](double a, double b) { return watch(a, b, a - b); }, mu::prADD_SUB, mu::oaLEFT},
    {"*", [](double a, double b) { return watch(a, b, a * b); }, mu::prMUL_DIV, mu::oaLEFT},
    {"/", [](double a, double b) { return watch(a, b, a / b); }, mu::prMUL_DIV, mu::oaLEFT},
    {"%", [](double a, double b) { return watch(a, b, std::fmod(a, b)); }, mu::prMUL_DIV, mu::oaLEFT},
    {"^", [](double a, double b) { return watch(a, b, std::pow(a, b)); }, mu::prPOW, mu::oaRIGHT},
    {"<", [](double a, double b) { return watch(a, b, a < b); }, mu::prCMP, mu::oaLEFT},
    {"<=", [](double a, double b) { return watch(a, b, a <= b); }, mu::prCMP, mu::oaLEFT},
    {">", [](double a, double b) { return watch(a, b, a > b); }, mu::prCMP, mu::oaLEFT},
    {">=", [](double a, double b) { return watch(a, b, a >= b); }, mu::prCMP, mu::oaLEFT},
    {"==", [](double a, double b) { return watch(a, b, a == b); }, mu::prCMP, mu::oaLEFT},
    {"!=", [](double a, double b) { return watch(a, b, a != b); }, mu::prCMP, mu::oaLEFT},
    {"&&", [](double a, double b) { return watch(a, b, a != 0 && b != 0); }, mu::prLAND, mu::oaLEFT},
    {"||", [](double a, double b) { return watch(a, b, a != 0 || b != 0); }, mu::prLOR, mu::oaLEFT},
};

// muparser's messages are sentences ("Unexpected token ... at position 4."): restyle them.
std::string restyle(std::string msg) {
  while (!msg.empty() && (msg.back() == '.' || std::isspace(static_cast<unsigned char>(msg.back()))))
    msg.pop_back();
  if (!msg.empty()) msg[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(msg[0])));
  return msg;
}

std::string head(const spec::constraint& c) {
  return c.where.str() + ": constraint \"" + c.expr + "\"";
}

}  // namespace

constraint_set::constraint_set(const spec::candidate& cand,
                               const std::vector<spec::constraint>& sweep_wide,
                               const std::vector<std::string>& problem_fields) {
  for (const auto& p : cand.params) m_symbols.push_back(p.name);
  for (const auto& f : problem_fields) m_symbols.push_back(f);
  m_symbols.push_back("elem_bytes");
  m_values = std::make_unique<double[]>(m_symbols.size());
  std::fill_n(m_values.get(), m_symbols.size(), 1.0);

  for (const auto& c : sweep_wide) m_constraints.push_back(&c);
  for (const auto& c : cand.constraints) m_constraints.push_back(&c);
  for (std::size_t i = 0; i < m_constraints.size(); ++i) {
    const spec::constraint& c = *m_constraints[i];
    auto parser = std::make_unique<mu::Parser>();
    try {
      parser->EnableBuiltInOprt(false);
      for (const auto& op : binary_ops)
        parser->DefineOprt(op.name, op.fn, static_cast<unsigned>(op.precedence), op.assoc, true);
      for (std::size_t s = 0; s < m_symbols.size(); ++s) parser->DefineVar(m_symbols[s], &m_values[s]);
      parser->SetExpr(c.expr);
      // GetUsedVar parses with undefined names allowed and lists them with a null address.
      for (const auto& [name, address] : parser->GetUsedVar()) {
        if (address) continue;
        const bool shared = i < sweep_wide.size();
        throw error(c.where.str() + ": unknown symbol \"" + name + "\" in constraint \"" + c.expr +
                    "\"" + (shared ? " for family \"" + cand.family + "\"" : "") +
                    suggest_suffix(name, m_symbols));
      }
      parser->Eval();
      if (parser->GetNumResults() != 1)
        throw error(head(c) + " has " + std::to_string(parser->GetNumResults()) +
                    " comma-separated results (expected one)");
    } catch (const mu::Parser::exception_type& e) {
      throw error(head(c) + ": " + restyle(e.GetMsg()));
    }
    m_parsers.push_back(std::move(parser));
  }
}

constraint_set::~constraint_set() = default;
constraint_set::constraint_set(constraint_set&&) noexcept = default;
constraint_set& constraint_set::operator=(constraint_set&&) noexcept = default;

void constraint_set::set_symbol(std::string_view name, double value) {
  for (std::size_t s = 0; s < m_symbols.size(); ++s)
    if (m_symbols[s] == name) {
      m_values[s] = value;
      return;
    }
}

const spec::constraint* constraint_set::first_false(
    const std::function<std::string()>& describe_point) const {
  for (std::size_t i = 0; i < m_parsers.size(); ++i) {
    double v = 0;
    t_non_finite = false;
    try {
      v = m_parsers[i]->Eval();
    } catch (const mu::Parser::exception_type& e) {
      throw error(head(*m_constraints[i]) + ": " + restyle(e.GetMsg()) + " at " + describe_point());
    }
    if (t_non_finite || !std::isfinite(v)) {
      const double bad = t_non_finite ? t_first_bad : v;
      const char* name = std::isnan(bad) ? "nan" : bad > 0 ? "inf" : "-inf";
      throw error(head(*m_constraints[i]) + " is not finite (" + name + ") at " + describe_point());
    }
    if (v == 0) return m_constraints[i];
  }
  return nullptr;
}

}  // namespace cuop::space::detail
