// Whole-file reads and atomic writes, shared by the cubin cache, the sweep, export and emit.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace cuop::core {

// The file's bytes, or nullopt when it cannot be opened.
std::optional<std::string> read_file(const std::string& path);

// Writes a unique temporary file next to `path`, then renames it over `path` (atomic on POSIX):
// a reader never sees half a file and an interrupted write leaves the old one. Creates the parent
// folder. Throws cuop::error naming the path on failure.
void write_atomically(const std::string& path, std::string_view data);

}  // namespace cuop::core
