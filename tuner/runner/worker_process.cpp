#include "tuner/runner/worker_process.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>

#include "tuner/core/error.hpp"

namespace cuop::runner {

std::string self_executable() {
  char buffer[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  if (n <= 0) throw fatal("cannot find the cuop-tune executable (/proc/self/exe)");
  return std::string(buffer, static_cast<std::size_t>(n));
}

worker_process::worker_process(int device, std::string executable)
    : m_device(device), m_executable(std::move(executable)) {}

worker_process::~worker_process() { stop(false); }

void worker_process::start() {
  int to[2], from[2];
  // Close-on-exec: with several workers started from several threads, a worker must not inherit
  // another's pipe ends (its parent would then never see that one's EOF). dup2 below clears the
  // flag on the copies the worker keeps as its stdin and stdout.
  if (pipe2(to, O_CLOEXEC) != 0 || pipe2(from, O_CLOEXEC) != 0)
    throw error(fmt::format("pipe: {}", std::strerror(errno)));
  const std::string& exe = m_executable;
  const std::string device = std::to_string(m_device);
  const pid_t pid = fork();
  if (pid < 0) throw error(fmt::format("fork: {}", std::strerror(errno)));
  if (pid == 0) {
    // Ctrl-C reaches the whole process group: the parent decides when to stop, and a worker
    // killed by it would record the trial in flight as a crash.
    signal(SIGINT, SIG_IGN);
    dup2(to[0], STDIN_FILENO);
    dup2(from[1], STDOUT_FILENO);
    close(to[0]);
    close(to[1]);
    close(from[0]);
    close(from[1]);
    execl(exe.c_str(), exe.c_str(), "worker", "--device", device.c_str(), nullptr);
    _exit(127);
  }
  close(to[0]);
  close(from[1]);
  m_pid = pid;
  m_to_worker = to[1];
  m_from_worker = from[0];
  m_pending.clear();
  ++m_restarts;
}

std::string worker_process::reap() {
  int status = 0;
  if (m_pid > 0) waitpid(m_pid, &status, 0);
  m_pid = -1;
  if (m_to_worker >= 0) close(m_to_worker);
  if (m_from_worker >= 0) close(m_from_worker);
  m_to_worker = m_from_worker = -1;
  if (WIFSIGNALED(status))
    return fmt::format("worker killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  if (WIFEXITED(status)) return fmt::format("worker exited with code {}", WEXITSTATUS(status));
  return "worker ended";
}

void worker_process::stop(bool kill_now) {
  if (m_pid <= 0) return;
  if (kill_now) {
    kill(m_pid, SIGKILL);
  } else {
    const std::string quit = "{\"cmd\":\"quit\"}\n";
    if (write(m_to_worker, quit.data(), quit.size()) < 0) kill(m_pid, SIGKILL);
  }
  reap();
}

worker_process::outcome worker_process::call(const nlohmann::json& request, double timeout_s) {
  if (m_pid <= 0) start();
  outcome out;
  const std::string line = request.dump() + "\n";
  signal(SIGPIPE, SIG_IGN);  // a dead worker must show up as an error, not kill the sweep
  if (write(m_to_worker, line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
    out.kind = outcome_kind::died;
    out.message = reap();
    return out;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (;;) {
    if (const auto nl = m_pending.find('\n'); nl != std::string::npos) {
      const std::string answer = m_pending.substr(0, nl);
      m_pending.erase(0, nl + 1);
      try {
        out.answer = nlohmann::json::parse(answer);
      } catch (const std::exception& e) {
        out.kind = outcome_kind::died;
        stop(true);
        out.message = fmt::format("worker sent an unreadable answer ({})", e.what());
        return out;
      }
      if (out.answer.value("restart", false)) reap();  // it exits after a sticky error
      return out;
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      stop(true);
      out.kind = outcome_kind::timed_out;
      out.message = fmt::format("no answer within {:g} s; worker killed", timeout_s);
      return out;
    }
    pollfd p{m_from_worker, POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    char buffer[65536];
    const ssize_t n = read(m_from_worker, buffer, sizeof(buffer));
    if (n <= 0) {
      out.kind = outcome_kind::died;
      out.message = reap();
      return out;
    }
    m_pending.append(buffer, static_cast<std::size_t>(n));
  }
}

}  // namespace cuop::runner
