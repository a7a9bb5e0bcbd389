#include "tuner/ops/conv2d/library.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <map>
#include <set>

#include "cuop/backends/cudnn.hpp"
#include "cuop/backends/fft_conv.hpp"
#include "cuop/backends/fft_conv_backend.hpp"
#if CUOP_HAVE_CUDNN
#include "cuop/backends/cudnn_backend.hpp"
#endif
#include "tuner/ops/conv2d/conv2d_op.hpp"

namespace cuop::ops {

namespace bk = backends;
namespace kc = kernels::conv;

std::vector<std::string> cudnn_param_names() { return {"top", "space", "workspace_mb"}; }

std::string conv_library_instance(dtype t, const std::string& identifier) {
  return fmt::format("conv2d_{}_cudnn_{}", name_of(t), identifier);
}

std::vector<std::string> fft_param_names() { return {"tile", "pad", "kb"}; }

std::string fft_instance(dtype t, const bk::fft_conv_config& c) {
  return fmt::format("conv2d_{}_{}", name_of(t), bk::fft_conv_config_id(c));
}

namespace {

bool is_fft(const nlohmann::json& config) { return config.value("family", "") == fft_family; }

// The FFT configuration of a point's or a listed configuration's parameters.
std::string fft_config_of(const nlohmann::json& params, bk::fft_conv_config& c) {
  for (const auto& [name, value] : params.items()) {
    const int v = value.get<int>();
    if (name == "tile") c.tile = v;
    else if (name == "pad") c.pad = v;
    else if (name == "kb") c.kb = v;
    else return fmt::format("unknown fft parameter \"{}\"", name);
  }
  return {};
}

}  // namespace

std::string cudnn_instance_of(dtype t, const catalog::stored_values& params, std::string& why) {
  if (params.contains("rank")) {  // the heuristic's first plan
    for (const auto& [name, v] : params)
      if (name != "rank" && name != "workspace_mb") {
        why = fmt::format("unknown parameter \"{}\" of the cuDNN heuristic's plan", name);
        return {};
      }
    const long long mb = catalog::value_or(params, "workspace_mb", -1);
    if (params.at("rank") != 0 || mb < 0 || mb > (1 << 20)) {
      why = "the heuristic's plan must have \"rank\" 0 and \"workspace_mb\" in [0, 1048576]";
      return {};
    }
    return conv_library_instance(t, "heuristic");
  }
  bk::cudnn_config c;
  if (!params.contains("engine")) {
    why = "missing parameter \"engine\" of family \"cudnn\"";
    return {};
  }
  c.engine = params.at("engine");
  for (const auto& [name, value] : params) {  // "k<type>", in increasing type order (map order
    if (name == "engine") continue;           // is text order: sorted below)
    int type = -1;
    const bool digits = name.size() >= 2 && name.size() <= 4 && name[0] == 'k' &&
                        std::all_of(name.begin() + 1, name.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
    if (digits) type = std::stoi(name.substr(1));
    if (type < 0) {
      why = fmt::format("unknown parameter \"{}\" of family \"cudnn\" (expected \"engine\" or \"k<knob type>\")", name);
      return {};
    }
    c.knobs.push_back({type, value});
  }
  std::sort(c.knobs.begin(), c.knobs.end(), [](const auto& a, const auto& b) { return a.type < b.type; });
  const std::string id = bk::cudnn_config_id(c);
  bk::cudnn_config round_trip;
  if (!bk::parse_cudnn_config_id(id, round_trip, &why)) return {};
  return conv_library_instance(t, id);
}

std::string fft_instance_of(dtype t, const catalog::stored_values& params, std::string& why) {
  nlohmann::json p;
  for (const auto& [name, value] : params) {
    if (value < INT_MIN || value > INT_MAX) {
      why = fmt::format("parameter \"{}\" = {} is not an int", name, value);
      return {};
    }
    p[name] = value;
  }
  bk::fft_conv_config c;
  if (why = fft_config_of(p, c); !why.empty()) return {};
  for (const auto& name : fft_param_names())
    if (!params.contains(name)) {
      why = fmt::format("missing parameter \"{}\" of family \"fft\"", name);
      return {};
    }
  if (why = bk::check_fft_conv_config(c); !why.empty()) return {};
  return fft_instance(t, c);
}

// An FFT point is one configuration; whether it suits the problem is the trial's to say.
nlohmann::json conv_library::list(dtype t, const kc::conv_shape& sh, const nlohmann::json& point,
                                  std::string& message) {
  if (!is_fft(point)) return dnn_list(t, sh, point, message);
  bk::fft_conv_config c;
  if (message = fft_config_of(point.at("params"), c); !message.empty()) return nullptr;
  nlohmann::json params = point.at("params");
  return nlohmann::json::array(
      {{{"instance", fft_instance(t, c)}, {"family", std::string(fft_family)}, {"params", params}}});
}

std::string conv_library::prepare(dtype t, const kc::conv_shape& sh, const nlohmann::json& config,
                                  conv_library_call& out) {
  if (!is_fft(config)) return dnn_prepare(t, sh, config, out);
  bk::fft_conv_config c;
  if (auto why = fft_config_of(config.at("params"), c); !why.empty()) return why;
  if (auto why = bk::check_fft_conv(t, sh, c); !why.empty()) return why;
  auto fft = std::make_shared<bk::fft_conv>();
  std::string why;
  if (fft->init(t, sh, c, &why) != status::success) return why.empty() ? "cuFFT plan creation failed" : why;
  out.workspace_bytes = fft->workspace_bytes();
  out.fft = true;
  out.state = std::move(fft);
  return {};
}

cudaError_t conv_library::run(const conv_library_call& call, const void* x, const void* w, void* y, void* workspace,
                              cudaStream_t stream) {
  if (!call.fft) return dnn_run(call, x, w, y, workspace, stream);
  return static_cast<const bk::fft_conv*>(call.state.get())->run(x, w, y, 1.f, 0.f, workspace, stream);
}

#if CUOP_HAVE_CUDNN

namespace {

// A configuration as stored: {"engine": e, "k<type>": value, ...}.
nlohmann::json params_of(const bk::cudnn_config& c) {
  nlohmann::json p = {{"engine", c.engine}};
  for (const auto& k : c.knobs) p[fmt::format("k{}", k.type)] = k.value;
  return p;
}

bool config_of(const nlohmann::json& p, bk::cudnn_config& c, std::string& why) {
  if (!p.contains("engine")) {
    why = "cuDNN configuration without \"engine\"";
    return false;
  }
  c.engine = p.at("engine").get<std::int64_t>();
  for (const auto& [name, value] : p.items()) {
    if (name == "engine") continue;
    if (name.size() < 2 || name[0] != 'k') {
      why = fmt::format("unknown cuDNN configuration parameter \"{}\"", name);
      return false;
    }
    c.knobs.push_back({std::stoi(name.substr(1)), value.get<std::int64_t>()});
  }
  std::sort(c.knobs.begin(), c.knobs.end(), [](const auto& a, const auto& b) { return a.type < b.type; });
  return true;
}

std::int64_t workspace_limit(const nlohmann::json& params) {
  return static_cast<std::int64_t>(params.value("workspace_mb", 256LL)) << 20;
}

}  // namespace

struct conv_library::impl {
  cudnnHandle_t handle = nullptr;
  cudnnStatus_t handle_status = CUDNN_STATUS_NOT_INITIALIZED;
  std::map<std::string, bk::dnn_conv> problems;  // by dtype and problem key

  const bk::dnn_conv* problem(dtype t, const kc::conv_shape& sh, std::string& why) {
    if (!handle) {
      why = std::string("cudnnCreate failed: ") + cudnnGetErrorString(handle_status);
      return nullptr;
    }
    const std::string key = fmt::format("{}_{}", name_of(t), conv_problem_key(sh));
    if (auto it = problems.find(key); it != problems.end()) return &it->second;
    bk::dnn_conv conv;
    if (conv.init(handle, t, sh, sh.allow_tf32, &why) != CUDNN_STATUS_SUCCESS) return nullptr;
    return &problems.emplace(key, std::move(conv)).first->second;
  }
};

struct prepared_plan {
  const bk::dnn_conv* conv = nullptr;
  bk::dnn_plan plan;
};

conv_library::conv_library() : m(std::make_unique<impl>()) {
  m->handle_status = cudnnCreate(&m->handle);
  if (m->handle_status != CUDNN_STATUS_SUCCESS) m->handle = nullptr;
}

conv_library::~conv_library() {
  m->problems.clear();
  if (m->handle) cudnnDestroy(m->handle);
}

nlohmann::json conv_library::dnn_list(dtype t, const kc::conv_shape& sh, const nlohmann::json& point,
                                      std::string& message) {
  const auto* conv = m->problem(t, sh, message);
  if (!conv) return nullptr;
  const auto& params = point.at("params");
  const int top = static_cast<int>(params.value("top", 8LL));
  const int space = static_cast<int>(params.value("space", 0LL));
  const std::int64_t limit = workspace_limit(params);
  const long long workspace_mb = static_cast<long long>(limit >> 20);

  // Ranked answers of modes A, B and the fallback list; the first of mode A is the reference.
  // Mode A must answer; B and the fallback list add what they can (mode B does not cover every
  // graph). top 0: mode A's first answer alone, the baseline of a sweep that tunes our kernels.
  std::vector<bk::cudnn_config> ranked;
  const std::vector<cudnnBackendHeurMode_t> modes =
      top == 0 ? std::vector{CUDNN_HEUR_MODE_A}
               : std::vector{CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_B, CUDNN_HEUR_MODE_FALLBACK};
  for (auto mode : modes) {
    std::vector<bk::cudnn_config> answers;
    std::string why;
    if (conv->heuristic(mode, std::max(1, top), answers, &why) != CUDNN_STATUS_SUCCESS) {
      if (mode != CUDNN_HEUR_MODE_A) continue;
      message = why;
      return nullptr;
    }
    for (auto& c : answers)
      if (std::find(ranked.begin(), ranked.end(), c) == ranked.end()) ranked.push_back(std::move(c));
  }
  if (ranked.empty()) {
    message = "cuDNN's heuristics have no engine configuration for this problem";
    return nullptr;
  }
  nlohmann::json out = nlohmann::json::array();
  out.push_back({{"instance", conv_library_instance(t, "heuristic")},
                 {"family", std::string(cudnn_family)},
                 {"params", {{"rank", 0}, {"workspace_mb", workspace_mb}}}});
  std::set<std::string> seen{bk::cudnn_config_id(ranked.front())};
  const auto add = [&](const bk::cudnn_config& c) {
    const auto id = bk::cudnn_config_id(c);
    if (!seen.insert(id).second) return;
    out.push_back(
        {{"instance", conv_library_instance(t, id)}, {"family", std::string(cudnn_family)}, {"params", params_of(c)}});
  };
  for (std::size_t i = 1; i < ranked.size(); ++i) add(ranked[i]);
  if (space > 0) {
    std::vector<bk::cudnn_engine_knobs> engines;
    if (conv->engines(engines, &message) != CUDNN_STATUS_SUCCESS) return nullptr;
    for (const auto& c : bk::enumerate_cudnn_knobs(engines, space, ranked)) add(c);
  }
  message.clear();
  return out;
}

std::string conv_library::dnn_prepare(dtype t, const kc::conv_shape& sh, const nlohmann::json& config,
                                      conv_library_call& out) {
  std::string why;
  const auto* conv = m->problem(t, sh, why);
  if (!conv) return why;
  const auto& params = config.at("params");
  bk::cudnn_config c;
  if (params.contains("rank")) {  // the heuristic's answer of that rank (mode A), asked now
    const int rank = params.at("rank").get<int>();
    std::vector<bk::cudnn_config> ranked;
    if (conv->heuristic(CUDNN_HEUR_MODE_A, rank + 1, ranked, &why) != CUDNN_STATUS_SUCCESS) return why;
    if (static_cast<int>(ranked.size()) <= rank) return fmt::format("cuDNN's heuristic has no answer of rank {}", rank);
    c = ranked[static_cast<std::size_t>(rank)];
  } else if (!config_of(params, c, why)) {
    return why;
  }
  auto state = std::make_shared<prepared_plan>();
  state->conv = conv;
  if (conv->build(c, state->plan, &why) != CUDNN_STATUS_SUCCESS) return why;
  if (state->plan.workspace_bytes > workspace_limit(params))
    return fmt::format("{} needs {} bytes of workspace, more than the limit of {} MiB", bk::cudnn_config_id(c),
                       state->plan.workspace_bytes, workspace_limit(params) >> 20);
  out.workspace_bytes = static_cast<std::size_t>(state->plan.workspace_bytes);
  out.state = std::move(state);
  return {};
}

cudaError_t conv_library::dnn_run(const conv_library_call& call, const void* x, const void* w, void* y, void* workspace,
                                  cudaStream_t stream) {
  const auto* p = static_cast<const prepared_plan*>(call.state.get());
  if (p->conv->run(p->plan, x, w, y, workspace, stream) == CUDNN_STATUS_SUCCESS) return cudaSuccess;
  const cudaError_t e = cudaGetLastError();  // the CUDA error says whether the context survived
  return e != cudaSuccess ? e : cudaErrorNotSupported;
}

#else  // built without cuDNN

struct conv_library::impl {};

conv_library::conv_library() : m(std::make_unique<impl>()) {}
conv_library::~conv_library() = default;

nlohmann::json conv_library::dnn_list(dtype, const kc::conv_shape&, const nlohmann::json&, std::string& message) {
  message = "built without cuDNN: the cudnn candidates cannot be listed (docs/conv.md)";
  return nullptr;
}

std::string conv_library::dnn_prepare(dtype, const kc::conv_shape&, const nlohmann::json&, conv_library_call&) {
  return "built without cuDNN";
}

cudaError_t conv_library::dnn_run(const conv_library_call&, const void*, const void*, void*, void*, cudaStream_t) {
  return cudaErrorNotSupported;
}

#endif

}  // namespace cuop::ops
