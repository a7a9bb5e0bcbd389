// Runs the built cuop-tune binary and captures its exit code and output.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace cuop::test {

struct cli_result {
  int code = -1;
  std::string out;  // stdout and stderr together
};

// A shell command line, its stdout and stderr together, and its exit code.
inline cli_result run_command(const std::string& cmd) {
  cli_result r;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe)) r.out += buffer.data();
  const int status = pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// The whole file as bytes ("" when it cannot be read).
inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline cli_result run_cli(const std::string& args) {
  return run_command(std::string(CUOP_TUNE_BIN) + " " + args + " 2>&1");
}

// The binary with no visible GPU (CUDA_VISIBLE_DEVICES emptied): a machine with one answers as
// CI's does.
inline cli_result run_cli_without_gpu(const std::string& args) {
  return run_command("env CUDA_VISIBLE_DEVICES= " + std::string(CUOP_TUNE_BIN) + " " + args + " 2>&1");
}

// A fresh temporary folder per test, removed afterwards.
struct temp_dir {
  std::filesystem::path path;
  temp_dir() {
    char tmpl[] = "/tmp/cuop-cli-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

}  // namespace cuop::test
