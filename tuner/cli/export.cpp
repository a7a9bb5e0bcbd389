// cuop-tune export: the database's results as reviewable files under results/<op>/.
#include <fmt/format.h>

#include <filesystem>

#include "tuner/catalog/catalog.hpp"
#include "tuner/cli/commands.hpp"
#include "tuner/cli/validators.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/files.hpp"
#include "tuner/core/text.hpp"
#include "tuner/report/results_csv.hpp"
#include "tuner/results/results_file.hpp"

namespace cuop::cli {

namespace {

// --format csv: <out>/<op>/<gpu slug>.csv per file export would write (the same trials), without
// raw samples; results files are left alone.
std::vector<std::string> export_csv(store::database& db, const std::string& op, const std::string& out,
                                    const std::string& db_path) {
  const auto* desc = catalog::find_op(op);
  std::vector<std::string> written;
  for (const auto& f : results::database_results(db, op, db_path)) {
    const auto json = std::filesystem::path(f.path);
    const auto path = (std::filesystem::path(out) / json.parent_path() / json.stem()).string() + ".csv";
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    core::write_atomically(path, report::results_csv(f, desc->problem_dims));
    written.push_back(path);
  }
  return written;
}

}  // namespace

void add_export(CLI::App& app, action& run) {
  auto* cmd = app.add_subcommand("export", "Write results/<op>/<gpu>.json from the database");
  struct options {
    std::string db = default_db_path();
    std::string out = "results";
    std::string op;  // empty: every op the database holds
    std::string samples = "winners";
    std::string format = "json";
    bool update = false;
    bool add = false;
  };
  auto o = std::make_shared<options>();
  cmd->add_option("--db", o->db, "SQLite database")->check(non_empty_path());
  cmd->add_option("--out", o->out, "Results folder (default: results)")->check(non_empty_path());
  cmd->add_option("--op", o->op, "Operator (default: every one the database holds)")
      ->check(CLI::IsMember(catalog::op_names()));
  cmd->add_option("--samples", o->samples, "Raw samples kept per problem: winners (default), all or none")
      ->check(CLI::IsMember({"winners", "all", "none"}));
  cmd->add_option("--format", o->format,
                  "json (default): results files; csv: the same trials as <op>/<gpu>.csv, for spreadsheets")
      ->check(CLI::IsMember({"json", "csv"}));
  cmd->add_flag("--update", o->update,
                "Keep the problems of an existing file that the database does not hold (measure a "
                "few problems again, replace only theirs)");
  auto* add = cmd->add_flag("--add", o->add,
                            "Keep every trial of an existing file but those of a problem and configuration the "
                            "database holds (measure one more candidate at problems already there)");
  add->excludes(cmd->get_option("--update"));
  cmd->callback([&run, o] {
    run = [o] {
      const auto samples = o->samples == "all"    ? results::export_samples::all
                           : o->samples == "none" ? results::export_samples::none
                                                  : results::export_samples::winners;
      if (o->format == "csv" && (o->update || o->add))
        throw usage_error("--update and --add apply to results files (--format json): a CSV export is written whole");
      const auto merge = o->add      ? results::export_merge::add
                         : o->update ? results::export_merge::update
                                     : results::export_merge::replace;
      auto db = store::database::open(o->db, store::open_mode::read_only);
      const auto ops = o->op.empty() ? ops_in_database(*db) : std::vector<std::string>{o->op};
      std::vector<std::string> written;
      for (const auto& op : ops)
        for (auto& path : o->format == "csv" ? export_csv(*db, op, o->out, o->db)
                                             : results::export_results(*db, op, o->out, samples, merge))
          written.push_back(path);
      for (const auto& path : written) fmt::print("{}\n", path);
      // Nothing written is said, so that it is not taken for a silent failure.
      if (written.empty())
        fmt::print(stderr, "cuop-tune: {}: no trial of {} to export: nothing written\n", core::printable(o->db),
                   o->op.empty() ? std::string("any op") : "op \"" + o->op + "\"");
      return 0;
    };
  });
}

}  // namespace cuop::cli
