#include "tuner/spec/constraint.hpp"

#include <muParser.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <numeric>

#include "tuner/core/error.hpp"
#include "tuner/core/suggest.hpp"
#include "tuner/core/text.hpp"

namespace cuop::spec::detail {

namespace {

// A constraint is watched for non-finite values everywhere in it, not only in its result: a
// comparison or a function around a NaN or an infinity would turn it into a finite 0 or 1 (or 1.57
// for atan), and the configuration would be silently kept or rejected. So
// - muparser's binary operators and its functions are replaced by the watched ones below, which
//   note the first non-finite argument or result. Callbacks are plain function pointers, hence the
//   thread-local flag;
// - constant folding is off (EnableOptimizer(false)): it would evaluate a constant
//   sub-expression such as `sqrt(-1)` once, while the expression is parsed, and never again;
// - a number too large for a double (`1e400`), which muparser's own reader refuses as an
//   "unexpected token", is read as infinity and refused when the expression is parsed.
// Ternaries still skip their untaken branch, so `vec > 1 ? x / (vec - 1) : 0` guards a division;
// `&&` and `||` evaluate both sides.
thread_local bool t_non_finite = false;
thread_local double t_first_bad = 0;
thread_local std::string t_huge_number;  // the first literal too large for a double, while parsing

double watch(double a, double b, double r) {
  for (double v : {a, b, r})
    if (!std::isfinite(v) && !t_non_finite) {
      t_non_finite = true;
      t_first_bad = v;
    }
  return r;
}

double watch1(double a, double r) { return watch(a, a, r); }

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

// muparser 2.3's functions, as it computes them (`log` is the natural logarithm, `rint` rounds
// halves up), each watched. ClearFun() removes muparser's own first, so a function a later
// muparser adds is an unknown name rather than an unwatched one.
struct unary_fn {
  const char* name;
  mu::fun_type1 fn;
};

const unary_fn unary_fns[] = {
    {"sin", [](double a) { return watch1(a, std::sin(a)); }},
    {"cos", [](double a) { return watch1(a, std::cos(a)); }},
    {"tan", [](double a) { return watch1(a, std::tan(a)); }},
    {"asin", [](double a) { return watch1(a, std::asin(a)); }},
    {"acos", [](double a) { return watch1(a, std::acos(a)); }},
    {"atan", [](double a) { return watch1(a, std::atan(a)); }},
    {"sinh", [](double a) { return watch1(a, std::sinh(a)); }},
    {"cosh", [](double a) { return watch1(a, std::cosh(a)); }},
    {"tanh", [](double a) { return watch1(a, std::tanh(a)); }},
    {"asinh", [](double a) { return watch1(a, std::asinh(a)); }},
    {"acosh", [](double a) { return watch1(a, std::acosh(a)); }},
    {"atanh", [](double a) { return watch1(a, std::atanh(a)); }},
    {"log2", [](double a) { return watch1(a, std::log2(a)); }},
    {"log10", [](double a) { return watch1(a, std::log10(a)); }},
    {"log", [](double a) { return watch1(a, std::log(a)); }},
    {"ln", [](double a) { return watch1(a, std::log(a)); }},
    {"exp", [](double a) { return watch1(a, std::exp(a)); }},
    {"sqrt", [](double a) { return watch1(a, std::sqrt(a)); }},
    {"sign", [](double a) { return watch1(a, a < 0   ? -1.0
                                             : a > 0 ? 1.0
                                                     : 0.0); }},
    {"rint", [](double a) { return watch1(a, std::floor(a + 0.5)); }},
    {"abs", [](double a) { return watch1(a, std::fabs(a)); }},
};

// atan2(y, x).
double watched_atan2(double y, double x) { return watch(y, x, std::atan2(y, x)); }

// sum, avg, min, max: any number of arguments, each watched.
double watch_all(const double* args, int n, double r) {
  for (int i = 0; i < n; ++i) watch1(args[i], args[i]);
  return watch1(r, r);
}

struct variadic_fn {
  const char* name;
  mu::multfun_type fn;
};

const variadic_fn variadic_fns[] = {
    {"sum", [](const double* a, int n) { return watch_all(a, n, std::accumulate(a, a + n, 0.0)); }},
    {"avg", [](const double* a, int n) { return watch_all(a, n, std::accumulate(a, a + n, 0.0) / n); }},
    {"min", [](const double* a, int n) { return watch_all(a, n, *std::min_element(a, a + n)); }},
    {"max", [](const double* a, int n) { return watch_all(a, n, *std::max_element(a, a + n)); }},
};

// Reads a number muparser's own reader refused, when it is one that overflows a double (its
// digits and exponent, "1e400"): as infinity, noted for the error. Anything else is left to the
// other readers (a name, an operator, a syntax error).
int huge_number(const char* text, int* pos, double* value) {
  if (!std::isdigit(static_cast<unsigned char>(text[0])) && text[0] != '.') return 0;
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  if (end == text || std::isfinite(v)) return 0;
  if (t_huge_number.empty()) t_huge_number.assign(text, static_cast<std::size_t>(end - text));
  *pos += static_cast<int>(end - text);
  *value = v;
  return 1;
}

// muparser's messages are sentences ("Unexpected token ... at position 4."): restyle them.
std::string restyle(std::string msg) {
  while (!msg.empty() &&
         (msg.back() == '.' || msg.back() == '!' || std::isspace(static_cast<unsigned char>(msg.back()))))
    msg.pop_back();
  if (!msg.empty()) msg[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(msg[0])));
  return msg;
}

// The names constraints may call, for messages.
std::vector<std::string> function_names() {
  std::vector<std::string> out;
  for (const auto& f : unary_fns) out.push_back(f.name);
  out.push_back("atan2");
  for (const auto& f : variadic_fns) out.push_back(f.name);
  std::sort(out.begin(), out.end());
  return out;
}

// muparser says `unexpected parenthesis "(" at position 4` for `fmod(3, 2)`: the name before the
// parenthesis is what is wrong, so say that instead.
std::string describe(const mu::Parser::exception_type& e, const std::string& expr,
                     const std::vector<std::string>& symbols) {
  const std::string message = restyle(e.GetMsg());
  if (e.GetCode() != mu::ecUNEXPECTED_PARENS || e.GetPos() <= 0 || static_cast<std::size_t>(e.GetPos()) > expr.size())
    return message;
  std::size_t start = static_cast<std::size_t>(e.GetPos());
  while (start > 0 && (std::isalnum(static_cast<unsigned char>(expr[start - 1])) || expr[start - 1] == '_')) --start;
  const std::string name = expr.substr(start, static_cast<std::size_t>(e.GetPos()) - start);
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return message;
  if (std::find(symbols.begin(), symbols.end(), name) != symbols.end())
    return core::quoted(name) + " is a value, not a function";
  return "unknown function " + core::quoted(name) + suggest_suffix(name, function_names());
}

std::string head(const constraint& c) { return c.where.str() + ": constraint " + core::quoted(c.expr); }

}  // namespace

constraint_set::constraint_set(const candidate& cand, const std::vector<constraint>& sweep_wide,
                               const std::vector<std::string>& problem_fields) {
  for (const auto& p : cand.params) m_symbols.push_back(p.name);
  for (const auto& f : problem_fields) m_symbols.push_back(f);
  m_symbols.push_back("elem_bytes");
  m_values = std::make_unique<double[]>(m_symbols.size());
  std::fill_n(m_values.get(), m_symbols.size(), 1.0);

  for (const auto& c : sweep_wide) m_constraints.push_back(&c);
  for (const auto& c : cand.constraints) m_constraints.push_back(&c);
  for (std::size_t i = 0; i < m_constraints.size(); ++i) {
    const constraint& c = *m_constraints[i];
    auto parser = std::make_unique<mu::Parser>();
    try {
      parser->EnableOptimizer(false);
      parser->EnableBuiltInOprt(false);
      for (const auto& op : binary_ops)
        parser->DefineOprt(op.name, op.fn, static_cast<unsigned>(op.precedence), op.assoc, false);
      parser->ClearFun();
      for (const auto& f : unary_fns) parser->DefineFun(f.name, f.fn, false);
      for (const auto& f : variadic_fns) parser->DefineFun(f.name, f.fn, false);
      parser->DefineFun("atan2", watched_atan2, false);
      parser->AddValIdent(huge_number);
      for (std::size_t s = 0; s < m_symbols.size(); ++s) parser->DefineVar(m_symbols[s], &m_values[s]);
      // A named parameter's names stand for their values: "algo == smem_f32".
      for (const auto& p : cand.params)
        for (std::size_t v = 0; v < p.choices.size(); ++v) parser->DefineConst(p.choices[v], static_cast<double>(v));
      t_huge_number.clear();
      parser->SetExpr(c.expr);
      // GetUsedVar parses with undefined names allowed and lists them with a null address.
      for (const auto& [name, address] : parser->GetUsedVar()) {
        if (address) continue;
        const bool shared = i < sweep_wide.size();
        throw error(c.where.str() + ": unknown symbol " + core::quoted(name) + " in constraint " +
                    core::quoted(c.expr) + (shared ? " for family " + core::quoted(cand.family) : "") +
                    suggest_suffix(name, m_symbols));
      }
      if (!t_huge_number.empty())
        throw error(head(c) + " is not finite (inf): the number " + core::quoted(t_huge_number) +
                    " is too large for a double");
      parser->Eval();
      if (parser->GetNumResults() != 1)
        throw error(head(c) + " has " + std::to_string(parser->GetNumResults()) +
                    " comma-separated results (expected one)");
    } catch (const mu::Parser::exception_type& e) {
      throw error(head(c) + ": " + core::printable(describe(e, c.expr, m_symbols)));
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

const constraint* constraint_set::first_false(const std::function<std::string()>& describe_point) const {
  for (std::size_t i = 0; i < m_parsers.size(); ++i) {
    double v = 0;
    t_non_finite = false;
    try {
      v = m_parsers[i]->Eval();
    } catch (const mu::Parser::exception_type& e) {
      throw error(head(*m_constraints[i]) + ": " + core::printable(restyle(e.GetMsg())) + " at " + describe_point());
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

}  // namespace cuop::spec::detail

namespace cuop::spec {

void check_constraints(const sweep& s, const std::vector<std::string>& problem_fields) {
  for (const auto& cand : s.candidates) detail::constraint_set(cand, s.constraints, problem_fields);
}

std::vector<std::string> constraint_errors(const sweep& s, const std::vector<std::string>& problem_fields) {
  std::vector<std::string> out;
  const auto check = [&](const candidate& cand, const std::vector<constraint>& sweep_wide) {
    try {
      detail::constraint_set(cand, sweep_wide, problem_fields);
    } catch (const error& e) {
      if (std::find(out.begin(), out.end(), e.what()) == out.end()) out.push_back(e.what());
    }
  };
  for (const auto& cand : s.candidates) {
    candidate one = cand;  // its parameters with one constraint at a time
    one.constraints.clear();
    for (const auto& c : s.constraints) check(one, {c});
    for (const auto& c : cand.constraints) {
      one.constraints = {c};
      check(one, {});
    }
  }
  return out;
}

}  // namespace cuop::spec
