// What a kernel family's measurements were made on: the hash of its sources, so results are tied
// to the code that produced them (docs/cli.md, "Freshness"). A family's sources are its headers
// (family_desc::headers) and every project header they include, transitively, each with its
// comments removed and its blank space collapsed (a comment or layout edit is not new code), and
// the device flags both compilers use.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tuner/catalog/catalog.hpp"

namespace cuop::ops {

// Source text without comments, each line's runs of blanks made one space, blank lines dropped.
std::string normalized_source(std::string_view text);

// `headers` (paths under `include_dir`) and every header under it they include, sorted.
// Throws cuop::error naming a header that cannot be read.
std::vector<std::string> header_closure(const std::vector<std::string>& headers, const std::string& include_dir);

// Per kernel family of `op` (library back ends have none), 16 hex digits, from the kernel headers
// under compile::kernels_include_dir() and compile::device_flags().
std::map<std::string, std::string> family_source_hashes(const catalog::op_desc& op);

}  // namespace cuop::ops
