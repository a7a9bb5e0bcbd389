// Whole-file reads and atomic writes, shared by the cubin cache, the sweep, export and emit.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cuop::core {

// The file's bytes, or nullopt when it cannot be opened. For files this program wrote itself
// (the cubin cache); user input goes through read_regular_file.
std::optional<std::string> read_file(const std::string& path);

// Limits on what is read whole into memory (docs/cli.md, "Limits").
inline constexpr std::uintmax_t max_sweep_file_bytes = 16u << 20;     // sweep files, batch plans
inline constexpr std::uintmax_t max_results_file_bytes = 256u << 20;  // results files

// The bytes of the file at `path`, which must be a regular file of at most `max_bytes`: a FIFO,
// a device (/dev/zero), a socket or a folder is refused before anything is read (and without
// blocking on a FIFO), a larger file before it is read. `what` names the file's role in messages
// ("sweep file"). Throws cuop::error:
//   PATH: cannot open sweep file (No such file or directory)
//   PATH: sweep file is a FIFO, not a regular file
//   PATH: sweep file is 20000000 bytes, more than the limit of 16777216 (16 MiB)
std::string read_regular_file(const std::string& path, std::uintmax_t max_bytes, std::string_view what);

// The checks of read_regular_file without the read: for a file another reader reads (throws the
// same messages).
void require_regular_file(const std::string& path, std::uintmax_t max_bytes, std::string_view what);

// What `path` is when it exists and is not a regular file ("a folder", "a FIFO", "a character
// device", ...); empty when it is a regular file or does not exist. Follows symbolic links.
std::string non_regular_kind(const std::string& path);

// Creates the folder `path` (and its parents) if needed and proves it writable by creating,
// writing 4 KiB to, and removing a file in it: a path naming a file, a folder without write
// permission and a full disk are found before work that would store its results there starts.
// Throws cuop::error "<what> PATH: <why>" (e.g. "--cache /x: not a folder").
void require_writable_folder(const std::string& path, std::string_view what);

// Writes a unique temporary file next to `path`, then renames it over `path` (atomic on POSIX):
// a reader never sees half a file and an interrupted write leaves the old one. Creates the parent
// folder. Throws cuop::error naming the path on failure.
void write_atomically(const std::string& path, std::string_view data);

}  // namespace cuop::core
