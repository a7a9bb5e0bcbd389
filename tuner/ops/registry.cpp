#include "tuner/ops/registry.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tuner/catalog/catalog.hpp"
#include "tuner/core/error.hpp"
#include "tuner/ops/registry_table.inc"  // generated: registered_ops()

namespace cuop::ops {

const std::vector<const op*>& all_ops() {
  static const std::vector<const op*> ops = registered_ops();
  return ops;
}

const op* find(std::string_view name) noexcept {
  for (const op* o : all_ops())
    if (o->name() == name) return o;
  return nullptr;
}

const op& named(std::string_view name) {
  if (const op* o = find(name)) return *o;
  throw error(fmt::format("unknown op \"{}\" (ops: {})", name, fmt::join(catalog::op_names(), ", ")));
}

}  // namespace cuop::ops

namespace cuop::catalog {

const op_desc* find_op(std::string_view name) noexcept {
  const ops::op* o = ops::find(name);
  return o ? &o->desc() : nullptr;
}

std::vector<std::string> op_names() {
  std::vector<std::string> out;
  for (const ops::op* o : ops::all_ops()) out.push_back(o->name());
  return out;
}

}  // namespace cuop::catalog
