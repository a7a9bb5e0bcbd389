#include "tuner/gate/suite_run.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "tuner/core/error.hpp"
#include "tuner/core/files.hpp"
#include "tuner/runner/worker_process.hpp"
#include "tuner/spec/spec.hpp"

namespace cuop::gate {

namespace fs = std::filesystem;

namespace {

bool is_executable_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

// While a sweep runs: Ctrl-C reaches it too (one process group) and it stops after its trial in
// flight, so the gate only notes it; SIGTERM, sent to the gate alone, is passed on.
std::atomic<pid_t> g_child{-1};
std::atomic<int> g_signal{0};

extern "C" void note_signal(int signal_number) {
  g_signal.store(signal_number);
  if (signal_number == SIGTERM)
    if (const pid_t child = g_child.load(); child > 0) ::kill(child, SIGTERM);
}

class signals_noted {
 public:
  signals_noted() {
    struct sigaction a {};
    a.sa_handler = note_signal;
    sigemptyset(&a.sa_mask);
    sigaction(SIGINT, &a, &m_int);
    sigaction(SIGTERM, &a, &m_term);
  }
  ~signals_noted() {
    sigaction(SIGINT, &m_int, nullptr);
    sigaction(SIGTERM, &m_term, nullptr);
  }
  signals_noted(const signals_noted&) = delete;
  signals_noted& operator=(const signals_noted&) = delete;

 private:
  struct sigaction m_int {
  }, m_term{};
};

std::string how_it_ended(int status) {
  if (WIFSIGNALED(status))
    return fmt::format("killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) return "could not be started (exit code 127)";
  return fmt::format("exit code {}", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

// Runs argv with stdout on our stderr; returns the wait status.
int run_to_stderr(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  signals_noted noted;
  const pid_t pid = ::fork();
  if (pid < 0) throw error(fmt::format("fork: {}", std::strerror(errno)));
  if (pid == 0) {
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    ::dup2(STDERR_FILENO, STDOUT_FILENO);
    ::execv(args[0], args.data());
    _exit(127);
  }
  g_child.store(pid);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  g_child.store(-1);
  return status;
}

}  // namespace

std::string resolve_cuop_tune(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw error(path + ": no such file or folder");
  if (fs::is_directory(path, ec)) {
    std::vector<std::string> tried;
    for (const char* rel : {"tuner/cuop-tune", "cuop-tune", "bin/cuop-tune"}) {
      const auto candidate = fs::path(path) / rel;
      if (is_executable_file(candidate)) return fs::absolute(candidate).lexically_normal().string();
      tried.push_back(candidate.string());
    }
    throw error(fmt::format("{}: no cuop-tune binary in this folder (tried {})", path, fmt::join(tried, ", ")));
  }
  if (!is_executable_file(path)) throw error(path + ": not an executable file");
  return fs::absolute(path).lexically_normal().string();
}

trial::device_info ask_worker(const std::string& executable, int device, double timeout_s) {
  runner::worker_process worker(device, executable);
  const auto hello = worker.call({{"cmd", "hello"}}, timeout_s);
  if (hello.kind != runner::worker_process::outcome_kind::answered)
    throw error(fmt::format("{}: its worker did not answer ({}); is it a cuop-tune binary that runs here?", executable,
                            hello.message));
  try {
    return trial::device_info_from_json(hello.answer);
  } catch (const std::exception& e) {
    throw error(fmt::format("{}: its worker's answer is not a cuop-tune worker's ({})", executable, e.what()));
  }
}

void require_same_protocol(const trial::device_info& other, const std::string& other_path) {
  if (other.protocol == trial::protocol_version) return;
  const auto theirs = other.protocol == 0 ? std::string("no protocol version (a build from before `gate`)")
                                          : fmt::format("protocol {}", other.protocol);
  throw error(
      fmt::format("{} speaks {}, this cuop-tune speaks protocol {}: the two builds cannot be gated against each "
                  "other; build both from revisions with the same protocol (tuner/trial/protocol.hpp)",
                  other_path, theirs, trial::protocol_version));
}

std::vector<std::string> sweep_command(const std::string& executable, const std::string& db, const suite_run& run) {
  std::vector<std::string> argv{executable, "sweep", "--db", db, "--device", std::to_string(run.device)};
  if (!run.cache_dir.empty()) argv.insert(argv.end(), {"--cache", run.cache_dir});
  if (run.jobs > 0) argv.insert(argv.end(), {"-j", std::to_string(run.jobs)});
  if (!run.only.empty()) argv.insert(argv.end(), {"--only", fmt::format("{}", fmt::join(run.only, ","))});
  if (!run.batch_plan.empty()) argv.insert(argv.end(), {"--batch-plan", run.batch_plan});
  argv.insert(argv.end(), run.specs.begin(), run.specs.end());
  return argv;
}

void run_suite(const std::string& executable, const std::string& db, const suite_run& run, const std::string& label) {
  std::error_code ec;
  if (fs::exists(db, ec))
    throw error(db +
                ": already exists; the gate measures into a fresh database (remove it or "
                "choose another --db)");
  const auto argv = sweep_command(executable, db, run);
  fmt::print(stderr, "cuop-tune: gate: {}: {}\n", label, fmt::join(argv, " "));
  g_signal.store(0);
  const int status = run_to_stderr(argv);
  if (const int s = g_signal.load(); s != 0)
    throw error(fmt::format("{}: interrupted (signal {}); measured trials are in {}", label, s, db));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw error(fmt::format("{}: its sweep failed ({}); its messages are above", label, how_it_ended(status)));
}

}  // namespace cuop::gate
