// Validation helpers shared by the kernel_params builders (internal to compiler/quant).
#ifndef TINYFORGE_COMPILER_QUANT_PARAMS_CHECK_H_
#define TINYFORGE_COMPILER_QUANT_PARAMS_CHECK_H_

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "quant/kernel_params.h"
#include "support/expected.h"

// Every family's <family>_limits.h (kernels/families.def).
#define TF_FAMILY(f) TF_FAMILY_LIMITS(f)
#include "kernels/families.def"

namespace tinyforge::quant::detail {

// A graph dimension or count as the kernels' int32 (the builders check ranges first).
inline int32_t I32(int64_t v) { return static_cast<int32_t>(v); }

// A shape as the kernels' int32 dims.
template <typename Shape>
std::vector<int32_t> Dims(const Shape& s) {
  std::vector<int32_t> d;
  for (int64_t v : s) d.push_back(I32(v));
  return d;
}

// Each returns an Error "<op>: <field> ..." or nullopt when the value is acceptable.
inline std::optional<Error> CheckPositive(const char* op, const char* field, int64_t v) {
  if (v > 0) return std::nullopt;
  return Error{std::string(op) + ": " + field + " must be > 0, got " + std::to_string(v)};
}

inline std::optional<Error> CheckNonNegative(const char* op, const char* field, int64_t v) {
  if (v >= 0) return std::nullopt;
  return Error{std::string(op) + ": " + field + " must be >= 0, got " + std::to_string(v)};
}

// A named value for the list forms below.
struct Field {
  const char* name;
  int64_t value;
};

// The first field that fails CheckPositive / CheckNonNegative, in list order.
inline std::optional<Error> CheckAllPositive(const char* op, std::initializer_list<Field> fields) {
  for (const Field& f : fields) {
    if (auto e = CheckPositive(op, f.name, f.value)) return e;
  }
  return std::nullopt;
}
inline std::optional<Error> CheckAllNonNegative(const char* op,
                                                std::initializer_list<Field> fields) {
  for (const Field& f : fields) {
    if (auto e = CheckNonNegative(op, f.name, f.value)) return e;
  }
  return std::nullopt;
}

inline std::optional<Error> CheckQuant(const char* op, const char* field, TensorQuant q) {
  if (!(q.scale > 0.0f) || q.scale != q.scale) {
    return Error{std::string(op) + ": " + field + ".scale must be > 0, got " +
                 std::to_string(q.scale)};
  }
  if (q.zero_point < -128 || q.zero_point > 127) {
    return Error{std::string(op) + ": " + field + ".zero_point " + std::to_string(q.zero_point) +
                 " is outside int8 [-128, 127]"};
  }
  return std::nullopt;
}

// The kernel family's parameter ranges (s8_<family>_check, kernels/<family>/<family>_limits.h),
// the same check the runtime validator applies to the program: `why` names the field.
inline std::optional<Error> CheckKernelParams(const char* op, const char* why) {
  if (why == nullptr) return std::nullopt;
  return Error{std::string(op) + ": kernel parameter " + why};
}

inline std::optional<Error> CheckWeightScales(const char* op, std::span<const float> scales,
                                              int64_t channels) {
  if (scales.size() != 1 && static_cast<int64_t>(scales.size()) != channels) {
    return Error{std::string(op) + ": weight_scales has " + std::to_string(scales.size()) +
                 " entries, expected 1 or " + std::to_string(channels)};
  }
  for (float s : scales) {
    if (!(s > 0.0f)) {
      return Error{std::string(op) + ": weight_scales entries must be > 0, got " +
                   std::to_string(s)};
    }
  }
  return std::nullopt;
}

}  // namespace tinyforge::quant::detail

// Evaluates a std::optional<Error> expression and returns it from the enclosing builder.
#define TF_QUANT_TRY_CHECK(expr)        \
  do {                                  \
    if (auto tf_quant_err_ = (expr)) {  \
      return std::move(*tf_quant_err_); \
    }                                   \
  } while (0)

#endif  // TINYFORGE_COMPILER_QUANT_PARAMS_CHECK_H_
