// TRANSPOSE for any core (no SIMD), bit-identical to s8_transpose__ref: the loop nest of
// kernels/common/strided_copy.h, rows four elements per iteration (words written or read whole).
// A 2-D transpose of 3 rows ([3, N] -> [N, 3]: a Conv1d model's NCW input to NWC, 3
// accelerometer axes) interleaves the rows directly, four columns per pass from one word per
// row (3 loads, 3 stores), without the loop plan (whose set-up cost more than the copy on a
// 384-byte input). Other row counts take the plan (each case costs flash).
#include "kernels/transpose/transpose.h"
#include "kernels/common/strided_copy.h"
#include "kernels/common/word.h"

namespace {

// N when the non-1 dims are two, swapped, the first of them 3; else 0 (cheap to reject: it
// runs before every other transpose's plan).
int32_t Interleave3(const s8_transpose_params& p) {
  int32_t first = -1, second = -1;
  for (int d = 0; d < kS8TransposeMaxDims; ++d) {
    if (p.input_dims[d] == 1) continue;
    if (first < 0) {
      first = d;
    } else if (second < 0) {
      second = d;
    } else {
      return 0;
    }
  }
  if (second < 0 || p.input_dims[first] != 3) return 0;
  for (int d = 0; d < kS8TransposeMaxDims; ++d) {  // the output's first non-1 dim: second
    if (p.perm[d] == first) return 0;
    if (p.perm[d] == second) return p.input_dims[second];
  }
  return 0;
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

}  // namespace

extern "C" void s8_transpose__scalar(const s8_transpose_params* params, const int8_t* input,
                                     int8_t* output) {
  namespace sc = tinyforge::strided;
  const int32_t n = Interleave3(*params);
  if (n > 0) return RunInterleave3(input, output, n);
  sc::Transpose(*params, input, output, sc::BlockScalar, sc::RowScalar);
}
