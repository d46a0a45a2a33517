// Names for diagnostics: TFLite's BuiltinOperator, TensorType and ActivationFunctionType
// enumerators (tensorflow/lite/schema/schema.fbs), and the labels of ops and tensors.
#include <array>
#include <string>

#include "import/tflite/tflite_model.h"

namespace tinyforge::import::tflite {
namespace {

// Index = BuiltinOperator code (0 .. 209, dense in schema.fbs).
constexpr std::array<const char*, 210> kBuiltinOpNames = {
    "ADD", "AVERAGE_POOL_2D", "CONCATENATION", "CONV_2D", "DEPTHWISE_CONV_2D", "DEPTH_TO_SPACE",
    "DEQUANTIZE", "EMBEDDING_LOOKUP", "FLOOR", "FULLY_CONNECTED", "HASHTABLE_LOOKUP",
    "L2_NORMALIZATION", "L2_POOL_2D", "LOCAL_RESPONSE_NORMALIZATION", "LOGISTIC",
    "LSH_PROJECTION", "LSTM", "MAX_POOL_2D", "MUL", "RELU", "RELU_N1_TO_1", "RELU6", "RESHAPE",
    "RESIZE_BILINEAR", "RNN", "SOFTMAX", "SPACE_TO_DEPTH", "SVDF", "TANH", "CONCAT_EMBEDDINGS",
    "SKIP_GRAM", "CALL", "CUSTOM", "EMBEDDING_LOOKUP_SPARSE", "PAD",
    "UNIDIRECTIONAL_SEQUENCE_RNN", "GATHER", "BATCH_TO_SPACE_ND", "SPACE_TO_BATCH_ND",
    "TRANSPOSE", "MEAN", "SUB", "DIV", "SQUEEZE", "UNIDIRECTIONAL_SEQUENCE_LSTM", "STRIDED_SLICE",
    "BIDIRECTIONAL_SEQUENCE_RNN", "EXP", "TOPK_V2", "SPLIT", "LOG_SOFTMAX", "DELEGATE",
    "BIDIRECTIONAL_SEQUENCE_LSTM", "CAST", "PRELU", "MAXIMUM", "ARG_MAX", "MINIMUM", "LESS",
    "NEG", "PADV2", "GREATER", "GREATER_EQUAL", "LESS_EQUAL", "SELECT", "SLICE", "SIN",
    "TRANSPOSE_CONV", "SPARSE_TO_DENSE", "TILE", "EXPAND_DIMS", "EQUAL", "NOT_EQUAL", "LOG",
    "SUM", "SQRT", "RSQRT", "SHAPE", "POW", "ARG_MIN", "FAKE_QUANT", "REDUCE_PROD", "REDUCE_MAX",
    "PACK", "LOGICAL_OR", "ONE_HOT", "LOGICAL_AND", "LOGICAL_NOT", "UNPACK", "REDUCE_MIN",
    "FLOOR_DIV", "REDUCE_ANY", "SQUARE", "ZEROS_LIKE", "FILL", "FLOOR_MOD", "RANGE",
    "RESIZE_NEAREST_NEIGHBOR", "LEAKY_RELU", "SQUARED_DIFFERENCE", "MIRROR_PAD", "ABS", "SPLIT_V",
    "UNIQUE", "CEIL", "REVERSE_V2", "ADD_N", "GATHER_ND", "COS", "WHERE", "RANK", "ELU",
    "REVERSE_SEQUENCE", "MATRIX_DIAG", "QUANTIZE", "MATRIX_SET_DIAG", "ROUND", "HARD_SWISH", "IF",
    "WHILE", "NON_MAX_SUPPRESSION_V4", "NON_MAX_SUPPRESSION_V5", "SCATTER_ND", "SELECT_V2",
    "DENSIFY", "SEGMENT_SUM", "BATCH_MATMUL", "PLACEHOLDER_FOR_GREATER_OP_CODES", "CUMSUM",
    "CALL_ONCE", "BROADCAST_TO", "RFFT2D", "CONV_3D", "IMAG", "REAL", "COMPLEX_ABS", "HASHTABLE",
    "HASHTABLE_FIND", "HASHTABLE_IMPORT", "HASHTABLE_SIZE", "REDUCE_ALL", "CONV_3D_TRANSPOSE",
    "VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE", "BROADCAST_ARGS", "RANDOM_STANDARD_NORMAL",
    "BUCKETIZE", "RANDOM_UNIFORM", "MULTINOMIAL", "GELU", "DYNAMIC_UPDATE_SLICE", "RELU_0_TO_1",
    "UNSORTED_SEGMENT_PROD", "UNSORTED_SEGMENT_MAX", "UNSORTED_SEGMENT_SUM", "ATAN2",
    "UNSORTED_SEGMENT_MIN", "SIGN", "BITCAST", "BITWISE_XOR", "RIGHT_SHIFT", "STABLEHLO_LOGISTIC",
    "STABLEHLO_ADD", "STABLEHLO_DIVIDE", "STABLEHLO_MULTIPLY", "STABLEHLO_MAXIMUM",
    "STABLEHLO_RESHAPE", "STABLEHLO_CLAMP", "STABLEHLO_CONCATENATE", "STABLEHLO_BROADCAST_IN_DIM",
    "STABLEHLO_CONVOLUTION", "STABLEHLO_SLICE", "STABLEHLO_CUSTOM_CALL", "STABLEHLO_REDUCE",
    "STABLEHLO_ABS", "STABLEHLO_AND", "STABLEHLO_COSINE", "STABLEHLO_EXPONENTIAL",
    "STABLEHLO_FLOOR", "STABLEHLO_LOG", "STABLEHLO_MINIMUM", "STABLEHLO_NEGATE", "STABLEHLO_OR",
    "STABLEHLO_POWER", "STABLEHLO_REMAINDER", "STABLEHLO_RSQRT", "STABLEHLO_SELECT",
    "STABLEHLO_SUBTRACT", "STABLEHLO_TANH", "STABLEHLO_SCATTER", "STABLEHLO_COMPARE",
    "STABLEHLO_CONVERT", "STABLEHLO_DYNAMIC_SLICE", "STABLEHLO_DYNAMIC_UPDATE_SLICE",
    "STABLEHLO_PAD", "STABLEHLO_IOTA", "STABLEHLO_DOT_GENERAL", "STABLEHLO_REDUCE_WINDOW",
    "STABLEHLO_SORT", "STABLEHLO_WHILE", "STABLEHLO_GATHER", "STABLEHLO_TRANSPOSE", "DILATE",
    "STABLEHLO_RNG_BIT_GENERATOR", "REDUCE_WINDOW", "STABLEHLO_COMPOSITE", "STABLEHLO_SHIFT_LEFT",
    "STABLEHLO_CBRT", "STABLEHLO_CASE",
};

}  // namespace

std::string BuiltinOpName(int32_t code) {
  if (code >= 0 && static_cast<size_t>(code) < kBuiltinOpNames.size()) {
    return kBuiltinOpNames[static_cast<size_t>(code)];
  }
  return "BuiltinOperator(" + std::to_string(code) + ")";
}

std::string TfTypeName(int8_t code) {
  static constexpr std::array<const char*, 21> kNames = {
      "FLOAT32", "FLOAT16", "INT32",     "UINT8",   "INT64",  "STRING",  "BOOL",
      "INT16",   "COMPLEX64", "INT8",    "FLOAT64", "COMPLEX128", "UINT64", "RESOURCE",
      "VARIANT", "UINT32",  "UINT16",    "INT4",    "BFLOAT16", "INT2",  "UINT4"};
  if (code >= 0 && static_cast<size_t>(code) < kNames.size()) {
    return kNames[static_cast<size_t>(code)];
  }
  return "TensorType(" + std::to_string(code) + ")";
}

int64_t TfTypeSize(int8_t code) {
  switch (static_cast<TfType>(code)) {
    case TfType::kFloat32:
    case TfType::kInt32:
      return 4;
    case TfType::kInt64:
      return 8;
    case TfType::kInt16:
      return 2;
    case TfType::kInt8:
    case TfType::kBool:  // a loop condition's constants (WHILE unrolling)
      return 1;
  }
  return 0;
}

std::string TfActivationName(int8_t code) {
  static constexpr std::array<const char*, 6> kNames = {"NONE", "RELU", "RELU_N1_TO_1",
                                                        "RELU6", "TANH", "SIGN_BIT"};
  if (code >= 0 && static_cast<size_t>(code) < kNames.size()) {
    return kNames[static_cast<size_t>(code)];
  }
  return "ActivationFunctionType(" + std::to_string(code) + ")";
}

std::string OpLabel(const TfliteModel& m, size_t op_index) {
  std::string label = "op #" + std::to_string(op_index);
  if (op_index < m.ops.size()) {
    const TfOp& o = m.ops[op_index];
    label += " (" + o.name();
    if (o.code == op::kCustom && !o.custom_code.empty()) {
      label += " '" + Escape(o.custom_code) + "'";
    }
    label += ")";
  }
  return label;
}

std::string TensorLabel(const TfliteModel& m, int32_t tensor_index) {
  std::string label = "tensor #" + std::to_string(tensor_index);
  if (tensor_index >= 0 && static_cast<size_t>(tensor_index) < m.tensors.size() &&
      !m.tensors[static_cast<size_t>(tensor_index)].name.empty()) {
    label += " ('" + Escape(m.tensors[static_cast<size_t>(tensor_index)].name) + "')";
  }
  return label;
}

}  // namespace tinyforge::import::tflite
