// cuop-tune sources: the hash of each kernel family's sources, as a sweep records it with its run
// and validate compares committed results against (docs/cli.md, "Freshness").
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "tuner/catalog/catalog.hpp"
#include "tuner/cli/commands.hpp"
#include "tuner/ops/family_sources.hpp"

namespace cuop::cli {

void add_sources(CLI::App& app, action& run) {
  auto* cmd = app.add_subcommand("sources", "Print the hash of each kernel family's sources (JSON)");
  auto op = std::make_shared<std::string>();
  cmd->add_option("--op", *op, "Only this op")->check(CLI::IsMember(catalog::op_names()));
  cmd->callback([&run, op] {
    run = [op] {
      nlohmann::json out = nlohmann::json::object();
      for (const auto& name : catalog::op_names())
        if (op->empty() || name == *op) out[name] = ops::family_source_hashes(*catalog::find_op(name));
      fmt::print("{}\n", out.dump(1));
      return 0;
    };
  });
}

}  // namespace cuop::cli
