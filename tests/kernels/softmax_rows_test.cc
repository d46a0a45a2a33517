// SOFTMAX on rows of 1 to 4,096 elements, all equal and nearly equal, against an
// independent float computation (double exp, correctly rounded to the int8 output grid):
// every host variant (__ref, __scalar) within kSoftmaxToleranceLsb of it (docs/numerics.md).
// Rows of more than 512 near-equal values make TFLite's sum of exps reach 512.0, where its
// output shift is 32 or more (undefined behaviour before issue 19: the host gave 0.996 on
// every class of a 520-way softmax instead of 0.0).
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/kernels.h"
#include "kernels/softmax/softmax_fast.h"
#include "quant/kernel_params.h"

namespace q = tinyforge::quant;

namespace {

// docs/numerics.md "Softmax": int8 softmax is within 1 LSB (1/256) of the float softmax
// rounded to the output grid (scale 1/256, zero point -128).
constexpr int kSoftmaxToleranceLsb = 1;

// Float softmax of the dequantized row, quantized to int8 (round half to even, clamped).
std::vector<int> FloatSoftmax(const std::vector<int8_t>& in, double beta_times_scale) {
  int max = -128;
  for (int8_t v : in) max = v > max ? v : max;
  std::vector<double> e(in.size());
  double sum = 0;
  for (size_t i = 0; i < in.size(); ++i) sum += e[i] = std::exp(beta_times_scale * (in[i] - max));
  std::vector<int> out(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const double qv = std::nearbyint(e[i] / sum * 256.0) - 128.0;
    out[i] = static_cast<int>(qv > 127 ? 127 : qv);
  }
  return out;
}

using SoftmaxFn = void (*)(const s8_softmax_params*, const int8_t*, int8_t*, void*);
struct Variant {
  const char* name;
  SoftmaxFn fn;
};
const Variant kHostVariants[] = {{"s8_softmax__ref", &s8_softmax__ref},
                                 {"s8_softmax__scalar", &s8_softmax__scalar}};

void CheckRow(const std::vector<int8_t>& row, float in_scale, const char* kind) {
  const int32_t dims[] = {1, static_cast<int32_t>(row.size())};
  auto p = q::MakeSoftmaxParams(dims, 1.0f, {in_scale, 0}, {1.0f / 256, -128});
  ASSERT_TRUE(p.ok()) << p.error().message();
  const std::vector<int> want = FloatSoftmax(row, static_cast<double>(in_scale));
  for (const Variant& v : kHostVariants) {
    std::vector<int8_t> got(row.size(), 0x5A);
    std::vector<int32_t> table(256, 0x5A5A5A5A);  // scratch: the exp table (softmax.h), junk
    v.fn(&*p, row.data(), got.data(), table.data());
    int worst = 0;
    size_t worst_at = 0;
    for (size_t i = 0; i < row.size(); ++i) {
      const int d = std::abs(got[i] - want[i]);
      if (d > worst) worst = d, worst_at = i;
    }
    EXPECT_LE(worst, kSoftmaxToleranceLsb)
        << v.name << " " << kind << " row of " << row.size() << " scale " << in_scale
        << ": element " << worst_at << " is " << int{got[worst_at]} << ", float gives "
        << want[worst_at];
  }
}

const int32_t kDepths[] = {1,   2,   3,   7,   64,  255,  256,  300,  511,  512,  513,
                           520, 600, 777, 1000, 1023, 1024, 1025, 2048, 3000, 4095, 4096};
const float kScales[] = {1.0f / 16, 0.05f, 0.25f, 1.0f / 256};

TEST(SoftmaxRows, AllEqualWithinOneLsbOfFloat) {
  for (int32_t depth : kDepths) {
    for (float scale : kScales) {
      for (int v : {-128, -3, 0, 127}) {
        CheckRow(std::vector<int8_t>(depth, static_cast<int8_t>(v)), scale, "all equal");
      }
    }
  }
}

TEST(SoftmaxRows, NearlyEqualWithinOneLsbOfFloat) {
  std::mt19937 rng(19);
  for (int32_t depth : kDepths) {
    for (float scale : kScales) {
      for (int spread : {1, 2, 4}) {
        std::uniform_int_distribution<int> pick(0, spread);
        const int top = std::uniform_int_distribution<int>(-120, 127)(rng);
        std::vector<int8_t> row(depth);
        for (int8_t& x : row) x = static_cast<int8_t>(top - pick(rng));
        CheckRow(row, scale, "nearly equal");
        // One clear winner among near-equal values.
        row[std::uniform_int_distribution<int>(0, depth - 1)(rng)] = 127;
        CheckRow(row, scale, "one above nearly equal");
      }
    }
  }
}

// The boundary itself: TFLite's output shift is num_bits_over_unit + 23 with a sum of exps
// in [2^k, 2^(k+1)) giving num_bits_over_unit = k; sums of 511 / 512 / 513 equal exps.
TEST(SoftmaxRows, SumOfExpsAroundFiveHundredTwelve) {
  for (int32_t depth : {511, 512, 513}) {
    const int32_t dims[] = {1, depth};
    auto p = q::MakeSoftmaxParams(dims, 1.0f, {0.1f, 0}, {1.0f / 256, -128});
    ASSERT_TRUE(p.ok());
    const std::vector<int8_t> row(depth, 5);
    for (const Variant& v : kHostVariants) {
      std::vector<int8_t> got(depth, 0);
      std::vector<int32_t> table(256, 0x5A5A5A5A);
      v.fn(&*p, row.data(), got.data(), table.data());
      // 256 / depth = 0.501, 0.5, 0.499: rounds to 1, 0 or 1 (a tie), 0.
      const int lo = depth == 511 ? -127 : -128, hi = depth == 513 ? -128 : -127;
      for (int8_t y : got) {
        EXPECT_TRUE(y >= lo && y <= hi) << v.name << " depth " << depth << ": " << int{y};
      }
    }
  }
}

}  // namespace

// The fast variants' reciprocal of the sum of exps (softmax_fast.h: one-instruction products
// where an operand doubles without overflow) against tflite::GetReciprocal (fx): every sum
// below 2^16, and a stride through [2^27, 2^28), where every mantissa occurs (smaller sums
// are the same mantissas shifted; an exhaustive run over that range found no difference).
TEST(SoftmaxRows, FastReciprocalEqualsGetReciprocal) {
  auto check = [](uint32_t sum) {
    int n_fast = 0, n_ref = 0;
    const int32_t fast = tinyforge::softmax_fast::Reciprocal(sum, &n_fast);
    const int32_t ref = tinyforge::fx::GetReciprocal(static_cast<int32_t>(sum), 12, &n_ref);
    return fast == ref && n_fast == n_ref;
  };
  int failures = 0;
  for (uint32_t sum = 1; sum < (1u << 16); ++sum) failures += check(sum) ? 0 : 1;
  for (uint32_t sum = 1u << 27; sum < (1u << 28); sum += 61) {
    if (!check(sum) && ++failures < 5) ADD_FAILURE() << "sum " << sum;
  }
  EXPECT_EQ(failures, 0);
}

