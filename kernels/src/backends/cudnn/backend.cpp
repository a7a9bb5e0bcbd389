// cuDNN 9 graph API calls of the conv2d back end (cudnn_backend.hpp). Compiled only where cuDNN
// was found (kernels/CMakeLists.txt).
#include "cuop/backends/cudnn_backend.hpp"

#include <algorithm>
#include <array>

namespace cuop::backends {

namespace {

namespace kc = kernels::conv;

constexpr std::int64_t alignment = 16;
constexpr int max_knobs = CUDNN_KNOB_TYPE_COUNTS;
constexpr int max_notes = 32;

cudnnStatus_t fail(cudnnStatus_t s, std::string* why, const std::string& during) {
  if (why != nullptr && s != CUDNN_STATUS_SUCCESS) {
    char last[512] = {};
    cudnnGetLastErrorString(last, sizeof last);
    *why = during + ": " + cudnnGetErrorString(s) + (last[0] ? std::string(" (") + last + ")" : std::string());
  }
  return s;
}

cudnnStatus_t create(cudnnBackendDescriptorType_t type, dnn_descriptor& out) {
  cudnnBackendDescriptor_t d = nullptr;
  const cudnnStatus_t s = cudnnBackendCreateDescriptor(type, &d);
  if (s == CUDNN_STATUS_SUCCESS) out = dnn_descriptor(d);
  return s;
}

template <typename T>
cudnnStatus_t set(const dnn_descriptor& d, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                  const T* values, std::int64_t count) {
  return cudnnBackendSetAttribute(d.get(), name, type, count, const_cast<T*>(values));
}

cudnnDataType_t data_type(dtype t) {
  switch (t) {
    case dtype::f16: return CUDNN_DATA_HALF;
    case dtype::bf16: return CUDNN_DATA_BFLOAT16;
    case dtype::f32: break;
  }
  return CUDNN_DATA_FLOAT;
}

// Dimensions are always given as (N, C, H, W) (K, C/g, R, S for the filter); strides carry the layout.
cudnnStatus_t make_tensor(std::int64_t uid, cudnnDataType_t type, std::array<std::int64_t, 4> dims, bool nhwc,
                          dnn_descriptor& out) {
  const auto [n, c, h, w] = dims;
  const std::array<std::int64_t, 4> strides =
      nhwc ? std::array<std::int64_t, 4>{h * w * c, 1, w * c, c} : std::array<std::int64_t, 4>{c * h * w, h * w, w, 1};
  if (auto s = create(CUDNN_BACKEND_TENSOR_DESCRIPTOR, out); s != CUDNN_STATUS_SUCCESS) return s;
  cudnnStatus_t s = set(out, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, &type, 1);
  if (s == CUDNN_STATUS_SUCCESS) s = set(out, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, dims.data(), 4);
  if (s == CUDNN_STATUS_SUCCESS) s = set(out, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, strides.data(), 4);
  if (s == CUDNN_STATUS_SUCCESS) s = set(out, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, &uid, 1);
  if (s == CUDNN_STATUS_SUCCESS) s = set(out, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, &alignment, 1);
  if (s == CUDNN_STATUS_SUCCESS) s = cudnnBackendFinalize(out.get());
  return s;
}

// `count` fresh descriptors of `type` for a getter that fills an array of descriptors.
cudnnStatus_t make_many(cudnnBackendDescriptorType_t type, int count, std::vector<dnn_descriptor>& owned,
                        std::vector<cudnnBackendDescriptor_t>& raw) {
  owned.clear();
  raw.clear();
  for (int i = 0; i < count; ++i) {
    dnn_descriptor d;
    if (auto s = create(type, d); s != CUDNN_STATUS_SUCCESS) return s;
    raw.push_back(d.get());
    owned.push_back(std::move(d));
  }
  return CUDNN_STATUS_SUCCESS;
}

// The engine and knob choices of a finalized engine configuration.
cudnnStatus_t read_config(cudnnBackendDescriptor_t cfg, dnn_descriptor& engine, cudnn_config& out) {
  if (auto s = create(CUDNN_BACKEND_ENGINE_DESCRIPTOR, engine); s != CUDNN_STATUS_SUCCESS) return s;
  cudnnBackendDescriptor_t e = engine.get();
  std::int64_t n = 0;
  if (auto s = cudnnBackendGetAttribute(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &e);
      s != CUDNN_STATUS_SUCCESS)
    return s;
  cudnn_config c;
  if (auto s = cudnnBackendGetAttribute(e, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &n, &c.engine);
      s != CUDNN_STATUS_SUCCESS)
    return s;
  std::vector<dnn_descriptor> owned;
  std::vector<cudnnBackendDescriptor_t> raw;
  if (auto s = make_many(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, max_knobs, owned, raw); s != CUDNN_STATUS_SUCCESS)
    return s;
  std::int64_t got = 0;
  if (auto s = cudnnBackendGetAttribute(cfg, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                        max_knobs, &got, raw.data());
      s != CUDNN_STATUS_SUCCESS)
    return s;
  for (std::int64_t i = 0; i < got && i < max_knobs; ++i) {
    cudnnBackendKnobType_t type{};
    cudnn_knob k;
    if (auto s = cudnnBackendGetAttribute(raw[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, 1, &n, &type);
        s != CUDNN_STATUS_SUCCESS)
      return s;
    if (auto s = cudnnBackendGetAttribute(raw[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_TYPE_INT64, 1, &n, &k.value);
        s != CUDNN_STATUS_SUCCESS)
      return s;
    k.type = static_cast<int>(type);
    c.knobs.push_back(k);
  }
  std::sort(c.knobs.begin(), c.knobs.end(), [](const auto& a, const auto& b) { return a.type < b.type; });
  out = std::move(c);
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace

dnn_descriptor::~dnn_descriptor() {
  if (m_d != nullptr) cudnnBackendDestroyDescriptor(m_d);
}

dnn_descriptor& dnn_descriptor::operator=(dnn_descriptor&& o) noexcept {
  if (this != &o) {
    if (m_d != nullptr) cudnnBackendDestroyDescriptor(m_d);
    m_d = o.m_d;
    o.m_d = nullptr;
  }
  return *this;
}

cudnnStatus_t dnn_conv::init(cudnnHandle_t handle, dtype t, const kc::conv_shape& sh, bool allow_tf32, std::string* why,
                             float alpha, float beta) {
  m_graph = dnn_descriptor();
  m_keep.clear();
  m_handle = handle;
  m_type = t;
  m_allow_tf32 = allow_tf32 && t == dtype::f32;
  const bool nhwc = sh.lay == kc::layout::nhwc;
  const cudnnDataType_t type = data_type(t);
  dnn_descriptor x, w, y, conv, op;
  if (auto s = make_tensor(x_uid, type, {sh.n, sh.c, sh.h, sh.w}, nhwc, x); s != CUDNN_STATUS_SUCCESS)
    return fail(s, why, "the x tensor");
  if (auto s = make_tensor(w_uid, type, {sh.k, sh.c / sh.groups, sh.r, sh.s}, nhwc, w); s != CUDNN_STATUS_SUCCESS)
    return fail(s, why, "the filter tensor");
  if (auto s = make_tensor(y_uid, type, {sh.n, sh.k, sh.p(), sh.q()}, nhwc, y); s != CUDNN_STATUS_SUCCESS)
    return fail(s, why, "the y tensor");

  const cudnnDataType_t compute = CUDNN_DATA_FLOAT;
  const cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  const std::int64_t dims = 2;
  const std::array<std::int64_t, 2> dil{sh.dil_h, sh.dil_w}, stride{sh.stride_h, sh.stride_w}, pad{sh.pad_h, sh.pad_w};
  cudnnStatus_t s = create(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, conv);
  if (s == CUDNN_STATUS_SUCCESS) s = set(conv, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, &compute, 1);
  if (s == CUDNN_STATUS_SUCCESS) s = set(conv, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, &mode, 1);
  if (s == CUDNN_STATUS_SUCCESS) s = set(conv, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, &dims, 1);
  if (s == CUDNN_STATUS_SUCCESS) s = set(conv, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, dil.data(), 2);
  if (s == CUDNN_STATUS_SUCCESS)
    s = set(conv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, stride.data(), 2);
  if (s == CUDNN_STATUS_SUCCESS) s = set(conv, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, pad.data(), 2);
  if (s == CUDNN_STATUS_SUCCESS) s = set(conv, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, pad.data(), 2);
  if (s == CUDNN_STATUS_SUCCESS) s = cudnnBackendFinalize(conv.get());
  if (s != CUDNN_STATUS_SUCCESS) return fail(s, why, "the convolution descriptor");

  const cudnnBackendDescriptor_t xd = x.get(), wd = w.get(), yd = y.get(), cd = conv.get();
  s = create(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, op);
  if (s == CUDNN_STATUS_SUCCESS)
    s = set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, &xd, 1);
  if (s == CUDNN_STATUS_SUCCESS)
    s = set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, &wd, 1);
  if (s == CUDNN_STATUS_SUCCESS)
    s = set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_TYPE_BACKEND_DESCRIPTOR, &yd, 1);
  if (s == CUDNN_STATUS_SUCCESS)
    s = set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, &cd, 1);
  if (s == CUDNN_STATUS_SUCCESS)
    s = set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, &alpha, 1);
  if (s == CUDNN_STATUS_SUCCESS) s = set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, &beta, 1);
  if (s == CUDNN_STATUS_SUCCESS) s = cudnnBackendFinalize(op.get());
  if (s != CUDNN_STATUS_SUCCESS) return fail(s, why, "the convolution-forward operation");

  dnn_descriptor graph;
  const cudnnBackendDescriptor_t od = op.get();
  s = create(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, graph);
  if (s == CUDNN_STATUS_SUCCESS) s = set(graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, &handle, 1);
  if (s == CUDNN_STATUS_SUCCESS) s = set(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, &od, 1);
  if (s == CUDNN_STATUS_SUCCESS) s = cudnnBackendFinalize(graph.get());
  if (s != CUDNN_STATUS_SUCCESS) return fail(s, why, "the operation graph");
  for (auto* d : {&x, &w, &y, &conv, &op}) m_keep.push_back(std::move(*d));
  m_graph = std::move(graph);
  return CUDNN_STATUS_SUCCESS;
}

bool dnn_conv::numerics_allowed(cudnnBackendDescriptor_t engine) const {
  if (m_type != dtype::f32 || m_allow_tf32) return true;
  std::array<cudnnBackendNumericalNote_t, max_notes> notes{};
  std::int64_t n = 0;
  if (cudnnBackendGetAttribute(engine, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE, max_notes, &n,
                               notes.data()) != CUDNN_STATUS_SUCCESS)
    return false;
  for (std::int64_t i = 0; i < n && i < max_notes; ++i)
    if (notes[i] == CUDNN_NUMERICAL_NOTE_TENSOR_CORE || notes[i] == CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS)
      return false;  // TF32 or lower-precision inputs for an f32 problem that excludes them
  return true;
}

cudnnStatus_t dnn_conv::heuristic(cudnnBackendHeurMode_t mode, int max, std::vector<cudnn_config>& out,
                                  std::string* why) const {
  out.clear();
  if (!ready()) return fail(CUDNN_STATUS_NOT_INITIALIZED, why, "heuristic");
  dnn_descriptor heur;
  const cudnnBackendDescriptor_t g = m_graph.get();
  cudnnStatus_t s = create(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, heur);
  if (s == CUDNN_STATUS_SUCCESS)
    s = set(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, &g, 1);
  if (s == CUDNN_STATUS_SUCCESS) s = set(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, &mode, 1);
  if (s == CUDNN_STATUS_SUCCESS) s = cudnnBackendFinalize(heur.get());
  if (s != CUDNN_STATUS_SUCCESS) return fail(s, why, "the engine heuristic");
  std::int64_t count = 0;
  s = cudnnBackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count,
                               nullptr);
  if (s != CUDNN_STATUS_SUCCESS) return fail(s, why, "the heuristic's result count");
  std::vector<dnn_descriptor> owned;
  std::vector<cudnnBackendDescriptor_t> raw;
  if (s = make_many(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, static_cast<int>(count), owned, raw); s != CUDNN_STATUS_SUCCESS)
    return fail(s, why, "engine configuration descriptors");
  std::int64_t got = 0;
  s = cudnnBackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &got,
                               raw.data());
  if (s != CUDNN_STATUS_SUCCESS) return fail(s, why, "the heuristic's results");
  for (std::int64_t i = 0; i < got && static_cast<int>(out.size()) < max; ++i) {
    dnn_descriptor engine;
    cudnn_config c;
    if (read_config(raw[i], engine, c) != CUDNN_STATUS_SUCCESS) continue;  // not describable: skipped
    if (!numerics_allowed(engine.get())) continue;
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(std::move(c));
  }
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t dnn_conv::engines(std::vector<cudnn_engine_knobs>& out, std::string* why) const {
  out.clear();
  if (!ready()) return fail(CUDNN_STATUS_NOT_INITIALIZED, why, "engines");
  std::int64_t count = 0, n = 0;
  const cudnnBackendDescriptor_t g = m_graph.get();
  if (auto s =
          cudnnBackendGetAttribute(g, CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT, CUDNN_TYPE_INT64, 1, &n, &count);
      s != CUDNN_STATUS_SUCCESS)
    return fail(s, why, "the engine count");
  for (std::int64_t index = 0; index < count; ++index) {
    dnn_descriptor engine;
    cudnnStatus_t s = create(CUDNN_BACKEND_ENGINE_DESCRIPTOR, engine);
    if (s == CUDNN_STATUS_SUCCESS)
      s = set(engine, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, &g, 1);
    if (s == CUDNN_STATUS_SUCCESS) s = set(engine, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, &index, 1);
    if (s == CUDNN_STATUS_SUCCESS) s = cudnnBackendFinalize(engine.get());
    if (s != CUDNN_STATUS_SUCCESS || !numerics_allowed(engine.get())) continue;  // not for this graph
    std::vector<dnn_descriptor> owned;
    std::vector<cudnnBackendDescriptor_t> raw;
    if (make_many(CUDNN_BACKEND_KNOB_INFO_DESCRIPTOR, max_knobs, owned, raw) != CUDNN_STATUS_SUCCESS) continue;
    std::int64_t got = 0;
    if (cudnnBackendGetAttribute(engine.get(), CUDNN_ATTR_ENGINE_KNOB_INFO, CUDNN_TYPE_BACKEND_DESCRIPTOR, max_knobs,
                                 &got, raw.data()) != CUDNN_STATUS_SUCCESS)
      continue;
    cudnn_engine_knobs e;
    e.engine = index;
    for (std::int64_t i = 0; i < got && i < max_knobs; ++i) {
      cudnnBackendKnobType_t type{};
      cudnn_knob_range k;
      if (cudnnBackendGetAttribute(raw[i], CUDNN_ATTR_KNOB_INFO_TYPE, CUDNN_TYPE_KNOB_TYPE, 1, &n, &type) !=
              CUDNN_STATUS_SUCCESS ||
          cudnnBackendGetAttribute(raw[i], CUDNN_ATTR_KNOB_INFO_MINIMUM_VALUE, CUDNN_TYPE_INT64, 1, &n, &k.min) !=
              CUDNN_STATUS_SUCCESS ||
          cudnnBackendGetAttribute(raw[i], CUDNN_ATTR_KNOB_INFO_MAXIMUM_VALUE, CUDNN_TYPE_INT64, 1, &n, &k.max) !=
              CUDNN_STATUS_SUCCESS ||
          cudnnBackendGetAttribute(raw[i], CUDNN_ATTR_KNOB_INFO_STRIDE, CUDNN_TYPE_INT64, 1, &n, &k.stride) !=
              CUDNN_STATUS_SUCCESS)
        continue;
      k.type = static_cast<int>(type);
      e.knobs.push_back(k);
    }
    out.push_back(std::move(e));
  }
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t dnn_conv::build(const cudnn_config& c, dnn_plan& out, std::string* why) const {
  if (!ready()) return fail(CUDNN_STATUS_NOT_INITIALIZED, why, "build");
  const std::string id = cudnn_config_id(c);
  const cudnnBackendDescriptor_t g = m_graph.get();
  dnn_descriptor engine;
  cudnnStatus_t s = create(CUDNN_BACKEND_ENGINE_DESCRIPTOR, engine);
  if (s == CUDNN_STATUS_SUCCESS)
    s = set(engine, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, &g, 1);
  if (s == CUDNN_STATUS_SUCCESS) s = set(engine, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, &c.engine, 1);
  if (s == CUDNN_STATUS_SUCCESS) s = cudnnBackendFinalize(engine.get());
  if (s != CUDNN_STATUS_SUCCESS) return fail(s, why, id + ": the engine");
  if (!numerics_allowed(engine.get()))
    return fail(CUDNN_STATUS_NOT_SUPPORTED, why, id + ": numerics (TF32) not allowed");
  std::vector<dnn_descriptor> knobs;
  std::vector<cudnnBackendDescriptor_t> raw;
  for (const auto& k : c.knobs) {
    dnn_descriptor d;
    const auto type = static_cast<cudnnBackendKnobType_t>(k.type);
    s = create(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, d);
    if (s == CUDNN_STATUS_SUCCESS) s = set(d, CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, &type, 1);
    if (s == CUDNN_STATUS_SUCCESS) s = set(d, CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_TYPE_INT64, &k.value, 1);
    if (s == CUDNN_STATUS_SUCCESS) s = cudnnBackendFinalize(d.get());
    if (s != CUDNN_STATUS_SUCCESS) return fail(s, why, id + ": knob " + std::to_string(k.type));
    raw.push_back(d.get());
    knobs.push_back(std::move(d));
  }
  dnn_descriptor cfg;
  const cudnnBackendDescriptor_t ed = engine.get();
  s = create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, cfg);
  if (s == CUDNN_STATUS_SUCCESS) s = set(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, &ed, 1);
  if (s == CUDNN_STATUS_SUCCESS && !raw.empty())
    s = set(cfg, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, CUDNN_TYPE_BACKEND_DESCRIPTOR, raw.data(),
            static_cast<std::int64_t>(raw.size()));
  if (s == CUDNN_STATUS_SUCCESS) s = cudnnBackendFinalize(cfg.get());
  if (s != CUDNN_STATUS_SUCCESS) return fail(s, why, id + ": the engine configuration");
  dnn_plan p;
  const cudnnBackendDescriptor_t cd = cfg.get();
  s = create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, p.plan);
  if (s == CUDNN_STATUS_SUCCESS) s = set(p.plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, &m_handle, 1);
  if (s == CUDNN_STATUS_SUCCESS)
    s = set(p.plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, &cd, 1);
  if (s == CUDNN_STATUS_SUCCESS) s = cudnnBackendFinalize(p.plan.get());
  if (s != CUDNN_STATUS_SUCCESS) return fail(s, why, id + ": the execution plan");
  std::int64_t n = 0;
  s = cudnnBackendGetAttribute(p.plan.get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &n,
                               &p.workspace_bytes);
  if (s != CUDNN_STATUS_SUCCESS) return fail(s, why, id + ": the workspace size");
  out = std::move(p);
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t dnn_conv::run(const dnn_plan& plan, const void* x, const void* w, void* y, void* workspace,
                            cudaStream_t stream) const {
  if (!ready()) return CUDNN_STATUS_NOT_INITIALIZED;
  if (auto s = cudnnSetStream(m_handle, stream); s != CUDNN_STATUS_SUCCESS) return s;
  const std::array<std::int64_t, 3> uids{x_uid, w_uid, y_uid};
  std::array<void*, 3> pointers{const_cast<void*>(x), const_cast<void*>(w), y};
  dnn_descriptor pack;
  cudnnStatus_t s = create(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, pack);
  if (s == CUDNN_STATUS_SUCCESS) s = set(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, uids.data(), 3);
  if (s == CUDNN_STATUS_SUCCESS)
    s = set(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, pointers.data(), 3);
  if (s == CUDNN_STATUS_SUCCESS) s = set(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, &workspace, 1);
  if (s == CUDNN_STATUS_SUCCESS) s = cudnnBackendFinalize(pack.get());
  if (s == CUDNN_STATUS_SUCCESS) s = cudnnBackendExecute(m_handle, plan.plan.get(), pack.get());
  return s;
}

}  // namespace cuop::backends
