#include "tuner/core/files.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "tuner/core/error.hpp"
#include "tuner/core/text.hpp"

namespace cuop::core {

namespace fs = std::filesystem;

namespace {

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// Closes a descriptor on every path out.
struct descriptor {
  int fd = -1;
  ~descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

std::string mib(std::uintmax_t bytes) {
  return bytes % (1u << 20) == 0 ? fmt::format(" ({} MiB)", bytes >> 20) : std::string();
}

}  // namespace

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

namespace {

error too_large(const std::string& path, std::string_view what, std::uintmax_t size, std::uintmax_t max_bytes) {
  return error(fmt::format("{}: {} is {} bytes, more than the limit of {}{}", printable(path), what, size, max_bytes,
                           mib(max_bytes)));
}

// Opens `path` for reading and checks it is a regular file of at most `max_bytes`; returns its size.
std::uintmax_t open_regular(descriptor& f, const std::string& path, std::uintmax_t max_bytes, std::string_view what) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
  f.fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (f.fd < 0) throw error(fmt::format("{}: cannot open {} ({})", printable(path), what, std::strerror(errno)));
  struct stat st {};
  if (::fstat(f.fd, &st) != 0)
    throw error(fmt::format("{}: cannot read {} ({})", printable(path), what, std::strerror(errno)));
  if (!S_ISREG(st.st_mode))
    throw error(fmt::format("{}: {} is {}, not a regular file", printable(path), what, kind_of(st.st_mode)));
  const auto size = static_cast<std::uintmax_t>(st.st_size);
  if (size > max_bytes) throw too_large(path, what, size, max_bytes);
  return size;
}

}  // namespace

void require_regular_file(const std::string& path, std::uintmax_t max_bytes, std::string_view what) {
  descriptor f;
  open_regular(f, path, max_bytes, what);
}

std::string read_regular_file(const std::string& path, std::uintmax_t max_bytes, std::string_view what) {
  descriptor f;
  const auto size = open_regular(f, path, max_bytes, what);
  std::string text;
  text.reserve(static_cast<std::size_t>(size));
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(f.fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw error(fmt::format("{}: cannot read {} ({})", printable(path), what, std::strerror(errno)));
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > max_bytes) throw too_large(path, what, text.size(), max_bytes);  // it grew while read
  }
  return text;
}

std::string non_regular_kind(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return {};
  return kind_of(st.st_mode);
}

void require_writable_folder(const std::string& path, std::string_view what) {
  const auto fail = [&](const std::string& why) { return error(fmt::format("{} {}: {}", what, printable(path), why)); };
  std::error_code ec;
  if (const auto kind = non_regular_kind(path); fs::exists(path, ec) && kind != "a folder")
    throw fail(kind.empty() ? "not a folder (a file is in the way)" : "not a folder (" + kind + ")");
  fs::create_directories(path, ec);
  if (ec) throw fail("cannot create the folder (" + ec.message() + ")");
  const std::string probe = (fs::path(path) / fmt::format(".cuop-tune-probe.{}", ::getpid())).string();
  descriptor f{::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)};
  if (f.fd < 0) throw fail(fmt::format("cannot write in it ({})", std::strerror(errno)));
  // A few KiB, flushed: a full disk refuses the data even when it still has an inode to give.
  const std::string block(4096, '\0');
  const bool written =
      ::write(f.fd, block.data(), block.size()) == static_cast<ssize_t>(block.size()) && ::fsync(f.fd) == 0;
  const int why = errno;
  const bool closed = ::close(f.fd) == 0;
  f.fd = -1;
  ::unlink(probe.c_str());
  if (!written || !closed) throw fail(fmt::format("cannot write in it ({})", std::strerror(written ? errno : why)));
}

void write_atomically(const std::string& path, std::string_view data) {
  static std::atomic<unsigned long long> counter{0};
  const fs::path target(path);
  std::error_code ec;
  // The rename would replace whatever is there: a device (as root, `--output /dev/full` turned
  // the device into a file), a FIFO, or fail on a folder with no useful reason.
  if (const auto kind = non_regular_kind(path); !kind.empty())
    throw error(fmt::format("{}: cannot write (it is {}, not a regular file)", printable(path), kind));
  if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
  const std::string tmp = fmt::format("{}.tmp.{}.{}", path, ::getpid(), counter++);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    out.close();
    if (!out) {
      const std::string why = errno ? std::strerror(errno) : "the write failed";
      fs::remove(tmp, ec);
      throw error(fmt::format("{}: cannot write ({})", path, why));
    }
  }
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw error(fmt::format("{}: cannot write ({})", path, ec.message()));
  }
}

}  // namespace cuop::core
