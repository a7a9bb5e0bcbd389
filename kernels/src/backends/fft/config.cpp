// FFT convolution's configurations, identifiers, support checks and size plans (fft_conv.hpp).
// Plain C++: the tuner uses it without a GPU. The workspace layout here is the one
// kernels/src/backends/fft/backend.cpp carves: change both together.
#include "cuop/backends/fft_conv.hpp"

#include <algorithm>
#include <charconv>

namespace cuop::backends {

namespace {

namespace kc = kernels::conv;

constexpr std::string_view prefix = "fft_t";
constexpr int min_tile = 8;              // smaller tiles spend most of each transform on the halo
constexpr long long max_side = 1 << 14;  // the largest input patch side (and so transform side)
constexpr int max_size = 1 << 30;        // fast_fft_size's answers fit an int

std::string str(long long v) { return std::to_string(v); }

bool set_why(std::string* why, std::string text) {
  if (why != nullptr) *why = std::move(text);
  return false;
}

// A non-negative decimal int without sign or leading zeros, consumed from s.
bool take_int(std::string_view& s, int& v) {
  std::size_t n = 0;
  while (n < s.size() && s[n] >= '0' && s[n] <= '9') ++n;
  if (n == 0 || (s[0] == '0' && n > 1)) return false;
  const auto r = std::from_chars(s.data(), s.data() + n, v);
  if (r.ec != std::errc() || r.ptr != s.data() + n) return false;
  s.remove_prefix(n);
  return true;
}

bool only_small_factors(long long m) {
  for (long long f : {2, 3, 5, 7})
    while (m % f == 0) m /= f;
  return m == 1;
}

long long round_up(long long bytes) {
  return (bytes + fft_conv_alignment - 1) / fft_conv_alignment * fft_conv_alignment;
}

}  // namespace

bool operator==(const fft_conv_config& a, const fft_conv_config& b) noexcept {
  return a.tile == b.tile && a.pad == b.pad && a.kb == b.kb;
}

std::string fft_conv_config_id(const fft_conv_config& c) {
  return std::string(prefix) + str(c.tile) + "_p" + str(c.pad) + "_kb" + str(c.kb);
}

bool parse_fft_conv_config_id(std::string_view text, fft_conv_config& out, std::string* why) {
  const std::string quoted = "\"" + std::string(text) + "\"";
  std::string_view s = text;
  if (s.substr(0, prefix.size()) != prefix)
    return set_why(why, "fft configuration " + quoted + " does not start with \"fft_t\"");
  s.remove_prefix(prefix.size());
  fft_conv_config c;
  if (!take_int(s, c.tile)) return set_why(why, "bad tile in " + quoted);
  if (s.substr(0, 2) != "_p") return set_why(why, "expected \"_p<pad>\" after the tile in " + quoted);
  s.remove_prefix(2);
  if (!take_int(s, c.pad)) return set_why(why, "bad pad in " + quoted);
  if (s.substr(0, 3) != "_kb") return set_why(why, "expected \"_kb<kb>\" after the pad in " + quoted);
  s.remove_prefix(3);
  if (!take_int(s, c.kb)) return set_why(why, "bad kb in " + quoted);
  if (!s.empty()) return set_why(why, "unexpected \"" + std::string(s) + "\" at the end of " + quoted);
  if (std::string bad = check_fft_conv_config(c); !bad.empty()) return set_why(why, bad + " in " + quoted);
  out = c;
  return true;
}

std::string check_fft_conv_config(const fft_conv_config& c) {
  if (c.tile != 0 && (c.tile < min_tile || c.tile > max_side))
    return "tile " + str(c.tile) + " is neither 0 (the whole output) nor in [" + str(min_tile) + ", " + str(max_side) +
           "]";
  if (c.pad != 0 && c.pad != 1) return "pad " + str(c.pad) + " is not 0 (2,3,5,7-smooth) or 1 (power of two)";
  if (c.kb != 1 && c.kb != 2 && c.kb != 4 && c.kb != 8) return "kb " + str(c.kb) + " is not one of 1, 2, 4, 8";
  return {};
}

std::string check_fft_conv(dtype t, const kc::conv_shape& sh, const fft_conv_config& c) {
  if (t != dtype::f32 && t != dtype::f16 && t != dtype::bf16) return "unknown dtype";
  if (std::string bad = check_fft_conv_config(c); !bad.empty()) return bad;
  if (std::string bad = kc::check_shape(sh); !bad.empty()) return bad;
  if (sh.groups != 1) return "fft convolution needs groups 1, not " + str(sh.groups);
  if (sh.stride_h != 1 || sh.stride_w != 1)
    return "fft convolution needs stride 1, not " + str(sh.stride_h) + "x" + str(sh.stride_w) +
           " (a strided output would discard most of every transform)";
  const int p = sh.p(), q = sh.q();
  if (c.tile != 0 && c.tile >= p && c.tile >= q)
    return "tile " + str(c.tile) + " covers the whole " + str(p) + "x" + str(q) + " output: the same as tile 0";
  const long long th = c.tile != 0 ? std::min(c.tile, p) : p, tw = c.tile != 0 ? std::min(c.tile, q) : q;
  const long long in_h = th + static_cast<long long>(sh.r - 1) * sh.dil_h;
  const long long in_w = tw + static_cast<long long>(sh.s - 1) * sh.dil_w;
  if (in_h > max_side || in_w > max_side)
    return "input patch " + str(in_h) + "x" + str(in_w) + " exceeds the largest transform side " + str(max_side) +
           " (use a smaller tile)";
  return {};
}

int fast_fft_size(int n, int pad_mode) {
  if (n < 1) return 1;
  if (n > max_size) return 0;
  long long m = n;
  if (pad_mode == 0) {
    while (!only_small_factors(m)) ++m;
  } else if (pad_mode == 1) {
    m = 1;
    while (m < n) m *= 2;
  } else {
    return 0;
  }
  return m > max_size ? 0 : static_cast<int>(m);
}

fft_conv_sizes plan_fft_conv(dtype t, const kc::conv_shape& sh, const fft_conv_config& c) {
  fft_conv_sizes z;
  if (!check_fft_conv(t, sh, c).empty()) return z;
  z.p = sh.p();
  z.q = sh.q();
  z.tile_h = c.tile != 0 ? std::min(c.tile, z.p) : z.p;
  z.tile_w = c.tile != 0 ? std::min(c.tile, z.q) : z.q;
  z.tiles_h = (z.p + z.tile_h - 1) / z.tile_h;
  z.tiles_w = (z.q + z.tile_w - 1) / z.tile_w;
  z.in_h = z.tile_h + (sh.r - 1) * sh.dil_h;
  z.in_w = z.tile_w + (sh.s - 1) * sh.dil_w;
  z.lh = fast_fft_size(z.in_h, c.pad);
  z.lw = fast_fft_size(z.in_w, c.pad);
  z.bins = static_cast<long long>(z.lh) * (z.lw / 2 + 1);
  const long long tiles = static_cast<long long>(z.tiles_h) * z.tiles_w;
  z.x_batch = sh.n * tiles * sh.c;
  z.w_batch = static_cast<long long>(sh.k) * sh.c;
  z.y_batch = sh.n * tiles * sh.k;
  const long long real_count = std::max({z.x_batch, z.w_batch, z.y_batch}) * z.lh * z.lw;
  z.real_bytes = round_up(real_count * 4);
  z.x_spectra_bytes = round_up(z.x_batch * z.bins * 8);
  z.w_spectra_bytes = round_up(z.w_batch * z.bins * 8);
  z.y_spectra_bytes = round_up(z.y_batch * z.bins * 8);
  z.buffer_bytes = z.real_bytes + z.x_spectra_bytes + z.w_spectra_bytes + z.y_spectra_bytes;
  z.fft_work_bytes = std::max({z.x_spectra_bytes, z.w_spectra_bytes, z.y_spectra_bytes});
  z.workspace_bytes = z.buffer_bytes + z.fft_work_bytes;
  return z;
}

}  // namespace cuop::backends
