// The four kernels of FFT convolution around cuFFT's transforms (kernels.cu), as launch functions
// backend.cpp calls. Internal to the back end. Every launch is asynchronous on `s` and returns
// the launch's error.
#pragma once

#include <cuda_runtime_api.h>

#include "cuop/backends/fft_conv.hpp"

namespace cuop::backends::fft_detail {

// Input tiles, as f32, zero outside the image and beyond the patch: real[n][tile][c][lh][lw].
cudaError_t gather_input(dtype t, const kernels::conv::conv_shape& sh, const fft_conv_sizes& z, const void* x,
                         float* real, cudaStream_t s);

// The filter with its taps `dilation` apart at the top-left, zero elsewhere: real[k][c][lh][lw].
cudaError_t pad_filter(dtype t, const kernels::conv::conv_shape& sh, const fft_conv_sizes& z, const void* w,
                       float* real, cudaStream_t s);

// ys[n * tiles][k][bin] = sum_c xs[n * tiles][c][bin] * conj(ws[k][c][bin]) (complex f32 as
// float pairs), `kb` output channels per thread.
cudaError_t multiply_spectra(int kb, const kernels::conv::conv_shape& sh, const fft_conv_sizes& z, const float* xs,
                             const float* ws, float* ys, cudaStream_t s);

// y = alpha / (lh * lw) * (the top-left tile_h x tile_w of each C2R output) + beta * y, written as
// the dtype in the shape's layout; y is not read when beta == 0.
cudaError_t crop_output(dtype t, const kernels::conv::conv_shape& sh, const fft_conv_sizes& z, const float* real,
                        void* y, float alpha, float beta, cudaStream_t s);

}  // namespace cuop::backends::fft_detail
