// TRANSPOSE for any core (no SIMD), bit-identical to s8_transpose__ref: the loop nest of
// kernels/common/strided_copy.h, rows four elements per iteration (words written or read whole).
// Two shapes interleave rows directly by words, without the loop plan (whose set-up and
// per-element gathers cost more than the copy on these):
//   * [3, N] -> [N, 3] (a Conv1d model's NCW input to NWC, 3 accelerometer axes): four
//     columns per pass from one word per row (3 loads, 3 stores);
//   * [A, 2, N] -> [A, N, 2] (a channel shuffle of 2 groups in NHWC, ShuffleNetV2; A = 1 is
//     a [2, N] -> [N, 2] transpose): per pixel the two halves interleaved, eight columns
//     per pass from two words per row (4 loads, 4 stores).
// Other shapes take the plan (each case costs flash).
#include "kernels/transpose/transpose.h"
#include "kernels/common/strided_copy.h"
#include "kernels/common/word.h"

namespace {

// A transpose that interleaves g rows: the non-1 dims are [A, g, N] (A may be absent) and
// the output's order [A, N, g]. Fills g, A, N; false otherwise (cheap to reject: it runs
// before every other transpose's plan).
bool Interleave(const s8_transpose_params& p, int32_t* g, int32_t* a, int32_t* n) {
  int32_t dim[3], cnt = 0, out[3], ocnt = 0;
  for (int d = 0; d < kS8TransposeMaxDims; ++d) {
    if (p.input_dims[d] == 1) continue;
    if (cnt == 3) return false;
    dim[cnt++] = d;
  }
  if (cnt < 2) return false;
  const int32_t rows = p.input_dims[dim[cnt - 2]];
  if (rows != 2 && rows != 3) return false;  // before the output-order pass
  for (int d = 0; d < kS8TransposeMaxDims; ++d) {  // the non-1 dims in output order
    if (p.input_dims[p.perm[d]] != 1) out[ocnt++] = p.perm[d];
  }
  if (cnt == 2 && out[0] == dim[1]) {  // [g, N] -> [N, g]
    *a = 1, *g = p.input_dims[dim[0]], *n = p.input_dims[dim[1]];
  } else if (cnt == 3 && out[0] == dim[0] && out[1] == dim[2]) {  // [A, g, N] -> [A, N, g]
    *a = p.input_dims[dim[0]], *g = p.input_dims[dim[1]], *n = p.input_dims[dim[2]];
  } else {
    return false;
  }
  return (*g == 3 && *a == 1) || *g == 2;
}

// out[3 j + i] = in[i n + j]: 4 columns (12 bytes) per pass.
[[gnu::noinline]] void RunInterleave3(const int8_t* in, int8_t* out, int32_t n) {
  using tinyforge::LoadWord;
  using tinyforge::StoreWord;
  const int8_t* a = in;
  const int8_t* b = in + n;
  const int8_t* c = in + 2 * n;
  int32_t j = 0;
  for (; j + 4 <= n; j += 4, out += 12) {  // x0 y0 z0 x1 | y1 z1 x2 y2 | z2 x3 y3 z3
    const uint32_t x = LoadWord(a + j), y = LoadWord(b + j), z = LoadWord(c + j);
    StoreWord(out, (x & 0xFFu) | (y & 0xFFu) << 8 | (z & 0xFFu) << 16 | (x & 0xFF00u) << 16);
    StoreWord(out + 4,
              (y >> 8 & 0xFFu) | (z & 0xFF00u) | (x & 0xFF0000u) | (y & 0xFF0000u) << 8);
    StoreWord(out + 8,
              (z >> 16 & 0xFFu) | (x >> 16 & 0xFF00u) | (y >> 8 & 0xFF0000u) | (z & 0xFF000000u));
  }
  for (; j < n; ++j, out += 3) {
    out[0] = a[j];
    out[1] = b[j];
    out[2] = c[j];
  }
}

// Four columns of two rows, words x = [x3 x2 x1 x0], y = [y3 y2 y1 y0], as the two output
// words [y1 x1 y0 x0], [y3 x3 y2 x2] (even and odd bytes paired by masks, then halves).
inline void Zip4(uint32_t x, uint32_t y, int8_t* out) {
  const uint32_t e = (x & 0x00FF00FFu) | (y & 0x00FF00FFu) << 8;  // y2 x2 y0 x0
  const uint32_t o = (x >> 8 & 0x00FF00FFu) | (y & 0xFF00FF00u);  // y3 x3 y1 x1
  tinyforge::StoreWord(out, (e & 0xFFFFu) | o << 16);
  tinyforge::StoreWord(out + 4, (e >> 16) | (o & 0xFFFF0000u));
}

// out[k][2 j + i] = in[k][i n + j] for A blocks k of 2 n bytes: 8 columns per pass.
[[gnu::noinline]] void RunInterleave2(const int8_t* in, int8_t* out, int32_t blocks, int32_t n) {
  using tinyforge::LoadWord;
  for (int32_t k = 0; k < blocks; ++k, in += 2 * n, out += 2 * n) {
    const int8_t* a = in;
    const int8_t* b = in + n;
    int8_t* o = out;
    int32_t j = 0;
    for (; j + 8 <= n; j += 8, o += 16) {
      const uint32_t x0 = LoadWord(a + j), y0 = LoadWord(b + j);
      const uint32_t x1 = LoadWord(a + j + 4), y1 = LoadWord(b + j + 4);
      Zip4(x0, y0, o);
      Zip4(x1, y1, o + 8);
    }
    if (j + 4 <= n) {
      Zip4(LoadWord(a + j), LoadWord(b + j), o);
      j += 4, o += 8;
    }
    for (; j < n; ++j, o += 2) {
      o[0] = a[j];
      o[1] = b[j];
    }
  }
}

}  // namespace

extern "C" void s8_transpose__scalar(const s8_transpose_params* params, const int8_t* input,
                                     int8_t* output) {
  namespace sc = tinyforge::strided;
  int32_t g = 0, a = 0, n = 0;
  if (Interleave(*params, &g, &a, &n)) {
    if (g == 2) return RunInterleave2(input, output, a, n);
    return RunInterleave3(input, output, n);
  }
  sc::Transpose(*params, input, output, sc::BlockScalar, sc::RowScalar);
}
