// What every op's dispatch-table entry holds beside its shape and configuration, and how each op
// fills it: dispatch_parts' Entry derives from table_entry.
#pragma once

#include <string>
#include <string_view>

#include "tuner/emit/emit_common.hpp"
#include "tuner/emit/model_build.hpp"
#include "tuner/results/results_file.hpp"

namespace cuop::emit {

struct table_entry {
  int arch = 0;
  std::string gpu;     // measured on ("" for defaults)
  std::string source;  // tuned, nearest_arch, fallback
  double median_us = 0;
  std::string provenance;  // the run it was measured in ("" for defaults)
};

// Sets table_entry's fields for trial t of model m, on a table of compute capability cc.
void set_measured(table_entry& e, const built_model& m, const results::result_trial& t, int cc);

// A baseline's default entry on a table of compute capability cc (source fallback).
template <class Entry>
Entry default_entry(int cc) {
  Entry e;
  e.arch = cc;
  e.source = "fallback";
  return e;
}

// The comment line above a row: `default_name` for a default, else "<source> <shape>", then
// " <- <provenance>" when the entry was measured.
std::string row_comment(const table_entry& e, std::string_view default_name, std::string_view shape);

// `c` with trial t's family and parameters set (results files are validated: the family and its
// parameters exist; the kernel namespace's parse_family and set_param).
template <class Config>
Config with_trial_params(Config c, const results::result_trial& t) {
  parse_family(t.family, c.fam);
  for (const auto& [name, value] : t.params) set_param(c, name, value);
  return c;
}

// dispatch_parts::kernel_of for ops whose every entry is one of their kernels (its `config`).
template <class Entry, class Config>
bool config_is_kernel(const Entry& e, std::string& name, Config& c) {
  name = instance_name(e.config);
  c = e.config;
  return true;
}

// dispatch_parts::kernel_of for ops whose entries run one of their kernels (`kind` "kernel":
// its `instance` and `config`) or a library's configuration (GEMM, conv2d).
template <class Entry, class Config>
bool kernel_kind_is_kernel(const Entry& e, std::string& name, Config& c) {
  if (e.kind != "kernel") return false;
  name = e.instance;
  c = e.config;
  return true;
}

}  // namespace cuop::emit
