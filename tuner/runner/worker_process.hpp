// The parent's handle on one worker process: spawn, send a request, wait for the answer with a
// timeout, and notice when the worker died (segfault, sticky CUDA error, hang killed by us).
#pragma once

#include <sys/types.h>

#include <string>

#include <nlohmann/json.hpp>

namespace cuop::runner {

// Path of the running executable (the worker is the same binary).
std::string self_executable();

class worker_process {
 public:
  // `executable` is a cuop-tune binary (default: this process's own executable).
  explicit worker_process(int device, std::string executable = self_executable());
  ~worker_process();
  worker_process(const worker_process&) = delete;
  worker_process& operator=(const worker_process&) = delete;

  enum class outcome_kind { answered, timed_out, died };
  struct outcome {
    outcome_kind kind = outcome_kind::answered;
    nlohmann::json answer;
    std::string message;  // for timed_out / died: what happened to the worker
  };

  // Starts the worker if it is not running, sends `request`, waits up to `timeout_s` for its
  // one-line answer. After timed_out or died the worker is gone and restarts on the next call.
  outcome call(const nlohmann::json& request, double timeout_s);
  int restarts() const { return m_restarts; }

 private:
  void start();
  void stop(bool kill_now);
  std::string reap();  // waits for the process; describes how it ended

  int m_device;
  std::string m_executable;
  pid_t m_pid = -1;
  int m_to_worker = -1;
  int m_from_worker = -1;
  std::string m_pending;  // bytes read past the last answer line
  int m_restarts = -1;    // the first start is not a restart
};

}  // namespace cuop::runner
