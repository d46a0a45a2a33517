// One operator case extracted from a TFLite model run by TensorFlow's reference
// interpreter (written by tests/kernels/tflite_cases.py): the op's options, its input
// tensors with their float quantization parameters, and the interpreter's output.
#ifndef TINYFORGE_TESTS_KERNELS_DRIVER_CASE_H_
#define TINYFORGE_TESTS_KERNELS_DRIVER_CASE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tinyforge::testing {

struct CaseTensor {
  std::vector<int32_t> shape;
  std::string dtype;          // "int8", "int32" or "float32"
  std::vector<float> scales;  // float32 values, exactly as stored in the .tflite
  std::vector<int32_t> zero_points;
  std::vector<int8_t> i8;    // data when dtype == int8
  std::vector<int32_t> i32;  // data when dtype == int32
  std::vector<float> f32;    // data when dtype == float32

  int64_t NumElements() const;
  float scale() const { return scales.empty() ? 0.0f : scales[0]; }
  int32_t zero_point() const { return zero_points.empty() ? 0 : zero_points[0]; }
};

struct Case {
  std::string name;
  std::string op;          // TFLite builtin operator name, e.g. "CONV_2D"
  nlohmann::json options;  // normalized builtin options (see tflite_cases.py)
  std::vector<std::optional<CaseTensor>> inputs;  // nullopt for an absent optional input
  std::vector<CaseTensor> outputs;
};

Case ParseCase(const nlohmann::json& j);

// What our kernel produced for output 0, in the output tensor's dtype.
struct KernelOutput {
  std::vector<int8_t> i8;
  std::vector<float> f32;
};

// Computes the case with the tinyforge __ref kernel, its parameters built from the float
// quantization parameters by compiler/quant. Returns an error message instead when the
// case is malformed or compiler/quant rejects it.
struct RunResult {
  std::optional<KernelOutput> output;
  std::string error;
};
RunResult RunCase(const Case& c);

}  // namespace tinyforge::testing

#endif  // TINYFORGE_TESTS_KERNELS_DRIVER_CASE_H_
