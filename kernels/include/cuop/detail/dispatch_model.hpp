// The shape of an emitted dispatch model (generated/cuop/generated/<op>_dispatch.hpp; docs/
// dispatch.md): which tuned shapes ("anchors") and candidates it holds, where their rows sit in
// the op's model arrays, and how it chooses. Each op's model adds the group its shapes share.
#pragma once

#include <limits>

#include "cuop/detail/entry_source.hpp"
#include "cuop/detail/nearest_choice.hpp"

namespace cuop::detail {

// A candidate that was not measured at an anchor, in the speedup arrays.
inline constexpr float unmeasured = std::numeric_limits<float>::quiet_NaN();

struct dispatch_model {
  int arch;             // compute capability of the table: 80, 90, 100
  const char* gpu;      // GPU its anchors were measured on
  entry_source source;  // tuned: measured on this architecture; nearest_arch: on another one
  int first_anchor;     // its anchors' rows in <op>_model_features
  int anchors;
  int first_column;  // its candidates in <op>_model_columns and <op>_model_trusted
  int columns;
  int first_speedup;  // its anchors x columns block in <op>_model_speedups
  choice_params params;
  int group_default;     // the column that runs where the anchors choose none (-1: the baseline)
  int floor_features;    // > 0: the group default holds at or above default_floor only
  double default_floor;  // (choice_model_view)
};

// The model's data as nearest_choice reads it, from the op's arrays.
inline choice_model_view view_of(const dispatch_model& m, int feature_count, const double* features,
                                 const float* speedups, const unsigned char* trusted) noexcept {
  return {features + m.first_anchor * feature_count,
          speedups + m.first_speedup,
          trusted + m.first_column,
          m.anchors,
          feature_count,
          m.columns,
          m.params,
          m.group_default,
          m.floor_features,
          m.default_floor};
}

}  // namespace cuop::detail
