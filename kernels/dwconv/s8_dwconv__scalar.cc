// DEPTHWISE_CONV_2D in plain C++ (Cortex-M0/M3 class, also the host), bit-identical to
// s8_dwconv__ref.
//
// Fast path (3x3, dilation 1, any depth multiplier, stride and padding): per input channel
// the input is copied once into a zero-point padded plane (scratch; the same geometry as
// s8_dwconv__dsp, s8_dwconv_dsp_scratch_bytes in dwconv.h), so every output is an unrolled
// 3x3 multiply-accumulate without bounds checks and the input offset folds into the bias.
// For stride 1 two adjacent outputs share their loads (12 loads, 18 MLA per pair).
//
// General path (other kernels, dilation): the reference loop.
#include "kernels/common/fixed_point.h"
#include "kernels/dwconv/dwconv.h"

namespace {

namespace fx = tinyforge::fx;

struct Geo {
  bool y;  // the plane's contiguous axis b is y
  int32_t n_a_out, n_b_out, s_a, s_b, pad_a, pad_b, in_a, in_b;
  int32_t in_step_a, in_step_b, out_step_a, out_step_b;
  int32_t n_a, pitch;
};

// Mirrors s8_dwconv_dsp_scratch_bytes (dwconv.h).
Geo MakeGeo(const s8_dwconv_params& p) {
  Geo g{};
  const bool y = p.out_h >= p.out_w;
  g.y = y;
  g.n_a_out = y ? p.out_w : p.out_h;
  g.n_b_out = y ? p.out_h : p.out_w;
  g.s_a = y ? p.stride_w : p.stride_h;
  g.s_b = y ? p.stride_h : p.stride_w;
  g.pad_a = y ? p.pad_left : p.pad_top;
  g.pad_b = y ? p.pad_top : p.pad_left;
  g.in_a = y ? p.in_w : p.in_h;
  g.in_b = y ? p.in_h : p.in_w;
  g.in_step_a = y ? p.in_c : p.in_w * p.in_c;
  g.in_step_b = y ? p.in_w * p.in_c : p.in_c;
  g.out_step_a = y ? p.out_c : p.out_w * p.out_c;
  g.out_step_b = y ? p.out_w * p.out_c : p.out_c;
  g.n_a = (g.n_a_out - 1) * g.s_a + 3;
  g.pitch = (g.n_b_out - 1) * g.s_b + 4;
  return g;
}

void FillPlane(const Geo& g, const int8_t* in, int32_t c, int8_t* plane) {
  const int32_t a0 = g.pad_a, a1 = fx::Min(g.n_a, g.pad_a + g.in_a);
  const int32_t j0 = g.pad_b, j1 = fx::Min(g.pitch, g.pad_b + g.in_b);
  const int32_t rows = j1 - j0, step_b = g.in_step_b;
  if (rows <= 0) return;
  const int8_t* src_col = in + c;
  int8_t* dst_col = plane + a0 * g.pitch + j0;
  for (int32_t a = a0; a < a1; ++a, src_col += g.in_step_a, dst_col += g.pitch) {
    const int8_t* src = src_col;
    int8_t* dst = dst_col;
    for (int32_t j = 0; j < rows; ++j, src += step_b) dst[j] = *src;
  }
}

template <bool kSingle>
inline int8_t Out(int32_t acc, int32_t mult, int32_t shift, int32_t off, int32_t lo, int32_t hi) {
  const int32_t v = fx::WrapAdd(
      fx::Requantize(acc, mult, shift, kSingle ? TF_ROUNDING_SINGLE : TF_ROUNDING_DOUBLE), off);
  return static_cast<int8_t>(fx::Clamp(v, lo, hi));
}

template <bool kSingle>
void RunFast(const s8_dwconv_params& p, const Geo& g, const int8_t* in, const int8_t* weights,
             const int32_t* bias, int8_t* out, int8_t* plane) {
  const int32_t C = p.out_c, pitch = g.pitch, s_b = g.s_b, nb = g.n_b_out;
  const int32_t off = p.output_offset, lo = p.act_min, hi = p.act_max;
  int32_t ic = 0, j = 0;  // input channel, and output c's place among its m outputs
  for (int32_t c = 0; c < C; ++c) {
    // Depth multiplier m: output channels ic*m .. ic*m+m-1 read input channel ic's plane.
    if (j == 0) FillPlane(g, in, ic, plane);
    if (++j == p.depth_multiplier) j = 0, ++ic;
    // Weights in plane order: w[ka][kb], ka along a, kb along b.
    int32_t w[3][3];
    int32_t sum = 0;
    for (int ka = 0; ka < 3; ++ka) {
      for (int kb = 0; kb < 3; ++kb) {
        const int ky = g.y ? kb : ka, kx = g.y ? ka : kb;
        w[ka][kb] = weights[(ky * 3 + kx) * C + c];
        sum += w[ka][kb];
      }
    }
    const int32_t init = fx::WrapAdd(bias != nullptr ? bias[c] : 0, p.input_offset * sum);
    const int32_t mult = p.multiplier[c], shift = p.shift[c];
    const int8_t* col = plane;
    int8_t* out_col = out + c;
    for (int32_t a = 0; a < g.n_a_out; ++a, col += g.s_a * pitch, out_col += g.out_step_a) {
      const int8_t* c0 = col;
      const int8_t* c1 = col + pitch;
      const int8_t* c2 = col + 2 * pitch;
      int8_t* o = out_col;
      int32_t b = 0;
      if (s_b == 1) {
        for (; b + 2 <= nb; b += 2, o += 2 * g.out_step_b) {
          int32_t acc0 = init, acc1 = init;
          int32_t x0 = c0[b], x1 = c0[b + 1], x2 = c0[b + 2], x3 = c0[b + 3];
          acc0 += x0 * w[0][0] + x1 * w[0][1] + x2 * w[0][2];
          acc1 += x1 * w[0][0] + x2 * w[0][1] + x3 * w[0][2];
          x0 = c1[b], x1 = c1[b + 1], x2 = c1[b + 2], x3 = c1[b + 3];
          acc0 += x0 * w[1][0] + x1 * w[1][1] + x2 * w[1][2];
          acc1 += x1 * w[1][0] + x2 * w[1][1] + x3 * w[1][2];
          x0 = c2[b], x1 = c2[b + 1], x2 = c2[b + 2], x3 = c2[b + 3];
          acc0 += x0 * w[2][0] + x1 * w[2][1] + x2 * w[2][2];
          acc1 += x1 * w[2][0] + x2 * w[2][1] + x3 * w[2][2];
          o[0] = Out<kSingle>(acc0, mult, shift, off, lo, hi);
          o[g.out_step_b] = Out<kSingle>(acc1, mult, shift, off, lo, hi);
        }
      }
      for (; b < nb; ++b, o += g.out_step_b) {
        const int32_t r = b * s_b;
        int32_t acc = init;
        acc += c0[r] * w[0][0] + c0[r + 1] * w[0][1] + c0[r + 2] * w[0][2];
        acc += c1[r] * w[1][0] + c1[r + 1] * w[1][1] + c1[r + 2] * w[1][2];
        acc += c2[r] * w[2][0] + c2[r + 1] * w[2][1] + c2[r + 2] * w[2][2];
        o[0] = Out<kSingle>(acc, mult, shift, off, lo, hi);
      }
    }
  }
}

}  // namespace

extern "C" void s8_dwconv__scalar(const s8_dwconv_params* params, const int8_t* input,
                                  const int8_t* weights, const int32_t* bias, int8_t* output,
                                  void* scratch) {
  const s8_dwconv_params& p = *params;
  if (scratch == nullptr || s8_dwconv_dsp_scratch_bytes(p) == 0) {
    s8_dwconv__ref(params, input, weights, bias, output, nullptr);  // the general case
    return;
  }
  const Geo g = MakeGeo(p);
  int8_t* plane = static_cast<int8_t*>(scratch);
  const int8_t zp = static_cast<int8_t>(-p.input_offset);
  for (int32_t i = 0; i < g.n_a * g.pitch; ++i) plane[i] = zp;
  for (int32_t b = 0; b < p.batches; ++b) {
    const int8_t* in = input + b * p.in_h * p.in_w * p.in_c;
    int8_t* out = output + b * p.out_h * p.out_w * p.out_c;
    if (p.rounding == TF_ROUNDING_SINGLE) {
      RunFast<true>(p, g, in, weights, bias, out, plane);
    } else {
      RunFast<false>(p, g, in, weights, bias, out, plane);
    }
  }
}
