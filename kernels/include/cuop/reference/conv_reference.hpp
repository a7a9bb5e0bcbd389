// Reference 2-D convolution used to verify kernels: a direct loop nest in f64, on the host (small
// problems, tests) and on the GPU (one thread per output; sweeps), obviously correct rather than
// fast, for any layout, stride, padding, dilation and groups; and the tolerance of a comparison,
// derived from the reduction length and dtype. Plain C++ header.
#pragma once

#include <cuda_runtime_api.h>

#include "cuop/dtype.hpp"
#include "cuop/kernels/conv/family.hpp"

namespace cuop::reference {

// y (N x K x P x Q in the shape's layout) = conv(x, w): x (N x C x H x W) and w (K x R x S x
// C/groups for NHWC, K x C/groups x R x S for NCHW) in the shape's layout hold the input values
// as floats (already rounded to the dtype).
void conv2d_reference_cpu(const kernels::conv::conv_shape& sh, const float* x, const float* w, double* y);

// The same on the GPU: ref_f32 (the output's shape and layout, contiguous) from x and w of type t
// on the device. Asynchronous on `s`.
cudaError_t conv2d_reference(dtype t, const kernels::conv::conv_shape& sh, const void* x, const void* w, float* ref_f32,
                             cudaStream_t s);

// Tolerances for an output that sums (C / groups) * R * S products of inputs in [-1, 1] in f32
// and is written as `t`: the same model as GEMM's (gemm_reference.hpp) with K = that length;
// an f32 shape that allows TF32 adds TF32's input rounding (conv_reference_cpu.cpp).
double conv_rtol(dtype t);
double conv_atol(dtype t, const kernels::conv::conv_shape& sh);

}  // namespace cuop::reference
