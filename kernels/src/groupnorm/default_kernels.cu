#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "cuop/kernels/groupnorm/group_loop.cuh"
#include "default_kernels.hpp"

namespace cuop::kernels::groupnorm {

namespace {

template <class Family>
__global__ void __launch_bounds__(Family::block_threads) entry(groupnorm_args a) {
  Family::run(a);
}

// default_config's block; tests/unit/groupnorm_test.cpp checks every entry against the rule.
constexpr int threads = 512;

}  // namespace

const default_kernel default_kernels[] = {
    {{family::group_loop, dtype::f32, layout::nhwc, false, 4, threads},
     reinterpret_cast<const void*>(entry<group_loop<float, 4, threads, nhwc_layout, 0>>)},
    {{family::group_loop, dtype::f32, layout::nhwc, true, 4, threads},
     reinterpret_cast<const void*>(entry<group_loop<float, 4, threads, nhwc_layout, 1>>)},
    {{family::group_loop, dtype::f32, layout::nchw, false, 4, threads},
     reinterpret_cast<const void*>(entry<group_loop<float, 4, threads, nchw_layout, 0>>)},
    {{family::group_loop, dtype::f32, layout::nchw, true, 4, threads},
     reinterpret_cast<const void*>(entry<group_loop<float, 4, threads, nchw_layout, 1>>)},
    {{family::group_loop, dtype::f16, layout::nhwc, false, 8, threads},
     reinterpret_cast<const void*>(entry<group_loop<__half, 8, threads, nhwc_layout, 0>>)},
    {{family::group_loop, dtype::f16, layout::nhwc, true, 8, threads},
     reinterpret_cast<const void*>(entry<group_loop<__half, 8, threads, nhwc_layout, 1>>)},
    {{family::group_loop, dtype::f16, layout::nchw, false, 8, threads},
     reinterpret_cast<const void*>(entry<group_loop<__half, 8, threads, nchw_layout, 0>>)},
    {{family::group_loop, dtype::f16, layout::nchw, true, 8, threads},
     reinterpret_cast<const void*>(entry<group_loop<__half, 8, threads, nchw_layout, 1>>)},
    {{family::group_loop, dtype::bf16, layout::nhwc, false, 8, threads},
     reinterpret_cast<const void*>(entry<group_loop<__nv_bfloat16, 8, threads, nhwc_layout, 0>>)},
    {{family::group_loop, dtype::bf16, layout::nhwc, true, 8, threads},
     reinterpret_cast<const void*>(entry<group_loop<__nv_bfloat16, 8, threads, nhwc_layout, 1>>)},
    {{family::group_loop, dtype::bf16, layout::nchw, false, 8, threads},
     reinterpret_cast<const void*>(entry<group_loop<__nv_bfloat16, 8, threads, nchw_layout, 0>>)},
    {{family::group_loop, dtype::bf16, layout::nchw, true, 8, threads},
     reinterpret_cast<const void*>(entry<group_loop<__nv_bfloat16, 8, threads, nchw_layout, 1>>)},
};
const int default_kernel_count = static_cast<int>(sizeof(default_kernels) / sizeof(default_kernels[0]));

}  // namespace cuop::kernels::groupnorm
