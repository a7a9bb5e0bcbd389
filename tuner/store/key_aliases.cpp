#include "tuner/store/key_aliases.hpp"

#include <array>
#include <regex>

#include "tuner/core/error.hpp"
#include "tuner/core/text.hpp"

namespace cuop::store {

namespace {

// The depthwise algorithms in the order of the old "stage" numbers (kernels::conv::depthwise_algo).
constexpr std::array<const char*, 6> depthwise_algos = {"direct", "smem", "smem_f32", "mma", "mma_tma", "mma_seg"};

using rewrite = std::string (*)(const std::smatch&);

struct old_spelling {
  std::regex pattern;
  rewrite to_current;
};

std::string depthwise(const std::smatch& m) {
  const std::string stage = m[10].str();
  const std::size_t i = stage.size() == 1 ? static_cast<std::size_t>(stage[0] - '0') : depthwise_algos.size();
  if (i >= depthwise_algos.size())
    throw error("instance " + core::quoted(m[0].str()) + ": stage " + stage +
                " of an old depthwise key is no algorithm (stages 0 to 5 are direct, smem, smem_f32, mma, mma_tma, "
                "mma_seg)");
  return "conv_depthwise_" + m[1].str() + "_" + depthwise_algos[i] + "_filter" + m[2].str() + "_stride" + m[3].str() +
         "_vec" + m[4].str() + "_cvecs" + m[5].str() + "_blockc" + m[6].str() + "_tile" + m[7].str() + "_ph" +
         m[8].str() + "_pw" + m[9].str();
}

std::string gemm_mma(const std::smatch& m) {
  return "gemm_" + m[1].str() + "_mma_block" + m[2].str() + "x" + m[3].str() + "x" + m[4].str() + "_warp" + m[5].str() +
         "x" + m[6].str() + "_stages" + m[7].str() + "_groupm" + m[8].str() + "_splitk" + m[9].str() +
         (m[10].matched ? "_pack" + m[10].str() : "");
}

std::string gemm_skinny(const std::smatch& m) {
  return "gemm_" + m[1].str() + "_skinny_blockn" + m[2].str() + "_threads" + m[3].str() + "_mtile" + m[4].str() +
         "_kchunk" + m[5].str() + "_splitk" + m[6].str();
}

std::string softmax(const std::smatch& m) {
  std::string n = "softmax_" + m[1].str() + "_vec" + m[2].str();
  n += m[3].matched ? "_rowthreads" + m[3].str() + "_blockrows" + m[4].str() : "_threads" + m[5].str();
  n += "_chunks" + m[6].str();
  if (m[7].matched) n += "_cluster" + m[7].str();
  if (m[8].matched) n += "_persistent" + m[8].str();
  if (m[9].matched) n += "_smemchunks" + m[9].str();
  return n;
}

// The old spellings, whole keys only. Library back ends' names (cublaslt_, conv2d_<dtype>_cudnn_,
// conv2d_<dtype>_fft_) and custom kernels' (softmax_<dtype>_custom_) never match.
const std::array<old_spelling, 4>& old_spellings() {
  static const std::array<old_spelling, 4> table = {{
      {std::regex(
           R"(conv_depthwise_([a-z0-9]+_n[a-z]+)_r(\d+x\d+)_st(\d+)_v(\d+)_cv(\d+)_c(\d+)_t(\d+x\d+)_ph(\d+)_pw(\d+)_stage(\d+))"),
       depthwise},
      {std::regex(
           R"(gemm_([a-z0-9]+_[a-z0-9]+_[a-z]+)_mma_m(\d+)_n(\d+)_k(\d+)_wm(\d+)_wn(\d+)_s(\d+)_g(\d+)_sk(\d+)(?:_pk(\d+))?)"),
       gemm_mma},
      {std::regex(R"(gemm_([a-z0-9]+_[a-z0-9]+_[a-z]+)_skinny_n(\d+)_t(\d+)_m(\d+)_kc(\d+)_sk(\d+))"), gemm_skinny},
      {std::regex(
           R"(softmax_([a-z0-9]+_(?:warp_row|block_row|split_row|cluster_row))_v(\d+)(?:_t(\d+)_r(\d+)|_b(\d+))_c(\d+)(?:_k(\d+))?(?:_p(\d+))?(?:_s(\d+))?)"),
       softmax},
  }};
  return table;
}

}  // namespace

std::optional<std::string> renamed_instance(std::string_view key) {
  const std::string k(key);
  std::smatch m;
  for (const auto& s : old_spellings())
    if (std::regex_match(k, m, s.pattern)) return s.to_current(m);
  return std::nullopt;
}

std::optional<std::string> renamed_problem(std::string_view key) {
  static const std::regex old_conv(
      R"(conv2d_([a-z0-9]+_n[a-z]+_\d+x\d+x\d+x\d+_k\d+)_r(\d+x\d+)_s(\d+)_p(\d+)_d(\d+)_g(\d+)(_tf32)?)");
  const std::string k(key);
  std::smatch m;
  if (!std::regex_match(k, m, old_conv)) return std::nullopt;
  return "conv2d_" + m[1].str() + "_filter" + m[2].str() + "_stride" + m[3].str() + "_pad" + m[4].str() + "_dil" +
         m[5].str() + "_groups" + m[6].str() + m[7].str();
}

std::optional<std::string> renamed_param(std::string_view op, std::string_view family, std::string_view name) {
  if (op == "conv2d" && family == "depthwise" && name == "stage") return "algo";
  return std::nullopt;
}

}  // namespace cuop::store
