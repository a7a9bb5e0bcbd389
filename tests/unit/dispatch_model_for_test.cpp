// Which GPU's model serves a call (kernels/src/dispatch/dispatch_common.hpp, model_for): the
// running GPU's own, else the one that has seen the most shapes, whatever the files' order.
#include <gtest/gtest.h>

#include "cuop/detail/dispatch_model.hpp"
#include "kernels/src/dispatch/dispatch_common.hpp"

namespace {

struct fake_model {
  cuop::detail::dispatch_model m;
  int group;
};

fake_model model(int arch, const char* gpu, int anchors, int group) {
  fake_model f{};
  f.m.arch = arch;
  f.m.gpu = gpu;
  f.m.anchors = anchors;
  f.group = group;
  return f;
}

const fake_model* pick(const std::vector<fake_model>& models, int arch, const char* gpu, int group) {
  return cuop::dispatch::model_for(models.data(), static_cast<int>(models.size()), arch, gpu,
                                   [&](const fake_model& m) { return m.group == group; });
}

TEST(dispatch_model_for, the_running_gpus_model_else_the_one_with_most_anchors) {
  // As emitted: the H100's file sorts before the H200's.
  const std::vector<fake_model> models = {model(90, "NVIDIA H100 80GB HBM3", 3, 1), model(90, "NVIDIA H200", 9, 1),
                                          model(90, "NVIDIA H200", 5, 2), model(80, "NVIDIA H200", 9, 1)};
  EXPECT_EQ(pick(models, 90, "NVIDIA H100 80GB HBM3", 1), &models[0]);
  EXPECT_EQ(pick(models, 90, "NVIDIA H200", 1), &models[1]);
  // Another Hopper: neither measured it, the H200's model has seen more of the group.
  EXPECT_EQ(pick(models, 90, "NVIDIA H20", 1), &models[1]);
  EXPECT_EQ(pick(models, 90, "NVIDIA H20", 2), &models[2]);
  EXPECT_EQ(pick(models, 80, "NVIDIA A100-SXM4-80GB", 1), &models[3]);
  EXPECT_EQ(pick(models, 90, "NVIDIA H20", 3), nullptr);
  EXPECT_EQ(pick(models, 100, "NVIDIA B200", 1), nullptr);
}

TEST(dispatch_model_for, equal_anchors_keep_the_first) {
  const std::vector<fake_model> models = {model(90, "A", 4, 1), model(90, "B", 4, 1)};
  EXPECT_EQ(pick(models, 90, "C", 1), &models[0]);
}

}  // namespace
