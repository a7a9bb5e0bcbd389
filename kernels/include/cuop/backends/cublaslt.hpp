// The identity of one cuBLASLt matmul algorithm configuration and its stable text identifier.
// Plain C++ (no CUDA headers): the tuner stores, compares and parses identifiers without a GPU
// and without cuBLASLt. The back end that enumerates and runs them is cublaslt_backend.hpp.
//
// Namespace cuop::backends, not cuop::gemm: cuop::gemm is the op (a function, like cuop::softmax).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace cuop::backends {

// One algorithm as cuBLASLt describes it: every CUBLASLT_ALGO_CONFIG_* attribute of the installed
// cuBLASLt (13.x: ID, TILE_ID, STAGES_ID, SPLITK_NUM, REDUCTION_SCHEME, CTA_SWIZZLING,
// CUSTOM_OPTION, INNER_SHAPE_ID, CLUSTER_SHAPE_ID), with the attribute's own C type. The values
// are cuBLASLt's enum values (cublasLtMatmulTile_t, cublasLtMatmulStages_t, ...), stored as read
// back from the library, never renumbered.
struct lt_config {
  // Identity.
  std::int32_t algo_id = 0;         // CUBLASLT_ALGO_CONFIG_ID
  std::uint32_t tile = 0;           // CUBLASLT_ALGO_CONFIG_TILE_ID (0: undefined)
  std::uint32_t stages = 0;         // CUBLASLT_ALGO_CONFIG_STAGES_ID (0: undefined)
  std::int32_t split_k = 1;         // CUBLASLT_ALGO_CONFIG_SPLITK_NUM
  std::uint32_t reduction = 0;      // CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME (0: none)
  std::uint32_t swizzle = 0;        // CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING
  std::uint32_t custom = 0;         // CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION
  std::uint16_t inner_shape = 0;    // CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID (0: undefined)
  std::uint16_t cluster_shape = 0;  // CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID (0: auto)

  // What cublasLtMatmulAlgoCheck reported for the problem it was checked on. Not identity.
  std::size_t workspace_bytes = 0;
  float waves = 0;  // wavesCount: 1.0 fills the GPU once
};

// Equal algorithms: every identity field equal (workspace and waves ignored).
bool same_identity(const lt_config& a, const lt_config& b) noexcept;

// Strict weak order on the identity fields, in identifier order (for sorted sets and maps).
bool identity_less(const lt_config& a, const lt_config& b) noexcept;

// Stable identifier of the identity, e.g. "lt_a66_t18_s22_k1_r0_w0_c0_i0_cl0": the fields in
// this fixed order, each a key and the decimal value without leading zeros (a "-" only for a
// negative algo id or split-K count, which are int32 attributes cuBLASLt never sets negative):
//   a  algo id      t  tile id      s  stages id    k  split-K count   r  reduction scheme
//   w  swizzle      c  custom opt.  i  inner shape  cl cluster shape
// Never the heuristic's rank: the same algorithm has the same identifier in every run.
std::string lt_config_id(const lt_config& c);

// Parses an identifier. Accepts exactly the strings lt_config_id produces (so the round trip
// is exact both ways): every field once, in order, each value within its attribute's C type.
// On failure returns false, leaves `out` unchanged and sets *why (when non-null), e.g.
//   unknown field "x3" in "lt_a1_x3" (expected one of: a, t, s, k, r, w, c, i, cl)
// The values are checked for syntax and range only: whether the installed cuBLASLt accepts the
// algorithm is for the back end's build() to say.
bool parse_lt_config_id(std::string_view text, lt_config& out, std::string* why);

}  // namespace cuop::backends
