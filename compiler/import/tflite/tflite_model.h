// A .tflite model decoded into plain structs, after every structural check: the first stage
// of the .tflite importer (docs/tflite-import.md). Nothing here points into the file: the
// reader copies what it keeps, so a TfliteModel outlives the bytes it came from.
//
// ReadTfliteModel checks, in this order, and returns the first problem as one line:
//   FILE: flatbuffer: ...                    identifier, size, flatbuffers Verifier
//   FILE: model: FIELD: ...                  schema version
//   FILE: operator_codes[K]: FIELD: ...      builtin_code vs deprecated_builtin_code, version
//   FILE: op #K (WHILE): ...                 several subgraphs: the control-flow op, named
//   FILE: model: FIELD: ...                  subgraph count, buffers
//   FILE: tensor #K ('NAME'): FIELD: ...     shape, type, buffer index and size, quantization
//   FILE: subgraph: FIELD: ...               graph inputs/outputs
//   FILE: op #K (CONV_2D): FIELD: ...        opcode index, tensor indices, options type,
//                                            topological order, single producer
// Per-op semantics (operand types and shapes, option values) are checked by
// ValidateTfliteOps (tflite_ops.h); unsupported op types are reported there too, so that
// the first op the importer cannot handle is named with its index.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "support/expected.h"
#include "support/text.h"  // Escape: tensor names and custom codes in messages

namespace tinyforge::import::tflite {

// TFLite's TensorType values the importer handles (schema.fbs); others are kept as their
// code and rejected when an op uses them.
enum class TfType : int8_t { kFloat32 = 0, kInt32 = 2, kInt64 = 4, kBool = 6, kInt16 = 7, kInt8 = 9 };

// "INT8", "FLOAT32", ... or "TensorType(17)" for a code the importer does not name.
std::string TfTypeName(int8_t code);
// Bytes per element of a type the importer can hold constant data for, or 0.
int64_t TfTypeSize(int8_t code);

// TFLite's BuiltinOperator codes used by the importer (schema.fbs values).
namespace op {
inline constexpr int32_t kAdd = 0;
inline constexpr int32_t kAveragePool2d = 1;
inline constexpr int32_t kConcatenation = 2;
inline constexpr int32_t kConv2d = 3;
inline constexpr int32_t kDepthwiseConv2d = 4;
inline constexpr int32_t kDequantize = 6;
inline constexpr int32_t kFullyConnected = 9;
inline constexpr int32_t kLogistic = 14;
inline constexpr int32_t kMaxPool2d = 17;
inline constexpr int32_t kMul = 18;
inline constexpr int32_t kRelu = 19;
inline constexpr int32_t kRelu6 = 21;
inline constexpr int32_t kReshape = 22;
inline constexpr int32_t kSoftmax = 25;
inline constexpr int32_t kTanh = 28;
inline constexpr int32_t kCustom = 32;
inline constexpr int32_t kPad = 34;
inline constexpr int32_t kTranspose = 39;
inline constexpr int32_t kMean = 40;
inline constexpr int32_t kSub = 41;
inline constexpr int32_t kDiv = 42;
inline constexpr int32_t kMaximum = 55;
inline constexpr int32_t kMinimum = 57;
inline constexpr int32_t kSqueeze = 43;
inline constexpr int32_t kStridedSlice = 45;
inline constexpr int32_t kUnidirectionalSequenceLstm = 44;
inline constexpr int32_t kSplit = 49;
inline constexpr int32_t kPadV2 = 60;
inline constexpr int32_t kSquaredDifference = 99;
inline constexpr int32_t kSlice = 65;
inline constexpr int32_t kTile = 69;
inline constexpr int32_t kExpandDims = 70;
inline constexpr int32_t kRsqrt = 76;
inline constexpr int32_t kShape = 77;
inline constexpr int32_t kPack = 83;
inline constexpr int32_t kUnpack = 88;
inline constexpr int32_t kSplitV = 102;
inline constexpr int32_t kQuantize = 114;
inline constexpr int32_t kLeakyRelu = 98;
inline constexpr int32_t kElu = 111;
inline constexpr int32_t kHardSwish = 117;
inline constexpr int32_t kGelu = 150;
inline constexpr int32_t kMirrorPad = 100;
inline constexpr int32_t kReduceMin = 89;
inline constexpr int32_t kPrelu = 54;
inline constexpr int32_t kGather = 36;
inline constexpr int32_t kReverseV2 = 105;
inline constexpr int32_t kArgMax = 56;
inline constexpr int32_t kArgMin = 79;
inline constexpr int32_t kSum = 74;
inline constexpr int32_t kReduceMax = 82;
inline constexpr int32_t kReduceProd = 81;
inline constexpr int32_t kSpaceToBatchNd = 38;  // (not imported: named in the refusal)
inline constexpr int32_t kBatchToSpaceNd = 37;
inline constexpr int32_t kTransposeConv = 67;
inline constexpr int32_t kDepthToSpace = 5;
inline constexpr int32_t kResizeBilinear = 23;
inline constexpr int32_t kSpaceToDepth = 26;
inline constexpr int32_t kResizeNearestNeighbor = 97;
inline constexpr int32_t kBatchMatmul = 126;
inline constexpr int32_t kLess = 58;
inline constexpr int32_t kSelect = 64;
inline constexpr int32_t kSelectV2 = 123;
// Float-only ops (the float fallback between DEQUANTIZE and QUANTIZE).
inline constexpr int32_t kExp = 47;
inline constexpr int32_t kNeg = 59;
inline constexpr int32_t kSin = 66;
inline constexpr int32_t kLog = 73;
inline constexpr int32_t kSqrt = 75;
inline constexpr int32_t kPow = 78;
inline constexpr int32_t kAbs = 101;
inline constexpr int32_t kCos = 108;
inline constexpr int32_t kAtan2 = 156;
inline constexpr int32_t kPlaceholderForGreaterOpCodes = 127;
// Control flow (not imported: named in the refusal of a model with several subgraphs).
inline constexpr int32_t kCall = 31;
inline constexpr int32_t kIf = 118;
inline constexpr int32_t kWhile = 119;
inline constexpr int32_t kCallOnce = 129;
// Integer / boolean ops the WHILE unrolling folds (a loop's counter and condition).
inline constexpr int32_t kGreater = 61;
inline constexpr int32_t kGreaterEqual = 62;
inline constexpr int32_t kLessEqual = 63;
inline constexpr int32_t kEqual = 71;
inline constexpr int32_t kNotEqual = 72;
inline constexpr int32_t kLogicalOr = 84;
inline constexpr int32_t kLogicalAnd = 86;
inline constexpr int32_t kFill = 94;
}  // namespace op

// "CONV_2D", ... (TFLite's enumerator name) or "BuiltinOperator(250)" for an unknown code.
std::string BuiltinOpName(int32_t code);

// Per-tensor or per-channel affine quantization as stored: real = scale * (q - zero_point).
struct TfQuant {
  std::vector<float> scale;         // >= 1 entries, each finite and > 0 (checked)
  std::vector<int64_t> zero_point;  // same length as scale (checked)
  int32_t axis = 0;                 // quantized_dimension; meaningful when per_channel()
  bool per_channel() const { return scale.size() > 1; }
};

struct TfTensor {
  std::string name;
  std::vector<int32_t> shape;  // each dim >= 1; [] = scalar
  int8_t type = 0;             // TensorType code
  std::optional<TfQuant> quant;
  // Constant data (little-endian, C order), present iff the tensor's buffer holds bytes;
  // its size equals numel * TfTypeSize(type) (checked).
  std::optional<std::vector<uint8_t>> data;
  bool is_constant() const { return data.has_value(); }
  int64_t num_elements() const;
  // A variable (is_variable: an LSTM's state, which only that op may read) or a tensor with
  // a 0 dim (an LSTM's unquantized "intermediates", which no op may read or write).
  bool is_variable = false;
  bool zero_sized = false;
  // Constant data computed by the WHILE unrolling (a loop's initial state and what only it
  // determines), not read from the file: accepted where an activation is expected (the
  // compiler's const-fold pass evaluates what reads only constants).
  bool folded = false;
};

// Fused activation (ActivationFunctionType values).
enum class TfActivation : int8_t {
  kNone = 0,
  kRelu = 1,
  kReluN1To1 = 2,
  kRelu6 = 3,
  kTanh = 4,
  kSignBit = 5
};
std::string TfActivationName(int8_t code);

// The builtin options of the ops the importer supports, flattened: each op reads the fields
// its options table has (defaults are TFLite's schema defaults).
struct TfOptions {
  int32_t options_type = 0;  // BuiltinOptions union type code (ubyte), 0 = none
  int8_t padding = 0;       // Padding: 0 SAME, 1 VALID
  int32_t stride_w = 0, stride_h = 0;
  int32_t dilation_w = 1, dilation_h = 1;
  int32_t filter_w = 0, filter_h = 0;
  int32_t depth_multiplier = 0;
  int8_t activation = 0;  // TfActivation code
  float beta = 0.0f;
  float alpha = 0.0f;  // LeakyReluOptions
  int32_t axis = 0;
  bool keep_dims = false;
  int8_t weights_format = 0;
  bool keep_num_dims = false;
  bool asymmetric_quantize_inputs = false;
  int8_t quantized_bias_type = 0;
  std::vector<int32_t> new_shape;     // RESHAPE (may be empty)
  std::vector<int32_t> squeeze_dims;  // SQUEEZE
  // STRIDED_SLICE masks (bit d: dim d) and offset; PACK/UNPACK count (values_count / num);
  // SPLIT/SPLIT_V num_splits; SHAPE / ARG_MAX / ARG_MIN out_type.
  int32_t begin_mask = 0, end_mask = 0, ellipsis_mask = 0, new_axis_mask = 0;
  int32_t shrink_axis_mask = 0;
  bool offset = false;
  int32_t count = 0;
  int32_t num_splits = 0;
  int8_t out_type = 2;  // INT32
  // RESIZE_BILINEAR / RESIZE_NEAREST_NEIGHBOR flags; DEPTH_TO_SPACE / SPACE_TO_DEPTH block.
  bool align_corners = false, half_pixel_centers = false;
  int32_t block_size = 0;
  int32_t batch_dims = 0;  // GATHER (its axis is `axis`)
  bool adj_x = false, adj_y = false;  // BATCH_MATMUL
  // UNIDIRECTIONAL_SEQUENCE_LSTM (activation: fused_activation_function)
  float cell_clip = 0.0f, proj_clip = 0.0f;
  bool time_major = false;
  bool diagonal_recurrent_tensors = false;
  int32_t cond_subgraph = 0, body_subgraph = 0;  // WHILE (unrolled by the reader)
  bool approximate = false;  // GELU: the tanh approximation
  int8_t mirror_mode = 0;    // MIRROR_PAD: 0 REFLECT, 1 SYMMETRIC
};

inline constexpr int32_t kNoTensor = -1;  // an omitted optional input (e.g. no bias)

struct TfOp {
  int32_t code = 0;  // BuiltinOperator, resolved from builtin_code/deprecated_builtin_code
  std::string custom_code;  // for CUSTOM
  int32_t version = 1;
  std::vector<int32_t> inputs;  // tensor indices or kNoTensor
  std::vector<int32_t> outputs;
  std::vector<int32_t> intermediates;  // tensor indices (UNIDIRECTIONAL_SEQUENCE_LSTM)
  TfOptions options;
  // Set by the importer's float-island rewrite, not read from the file: a QUANTIZE whose
  // float input was int8 data moved in float32; it lowers to the dequantize-then-quantize
  // table (tflite_lower.cc, FoldFloatMovement).
  bool via_float = false;
  // Set by the same rewrite on the island's DEQUANTIZE: its readers now read its input.
  bool folded = false;
  std::string name() const { return BuiltinOpName(code); }
};

struct TfliteModel {
  std::string file;  // the FILE of diagnostics
  uint32_t schema_version = 0;
  std::string description;
  std::string subgraph_name;
  std::vector<TfTensor> tensors;
  std::vector<TfOp> ops;  // execution order (checked topological)
  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs;
};

// True if `bytes` look like a TFLite flatbuffer: at least 8 bytes with the "TFL3" file
// identifier at offset 4. Used by the CLI to dispatch on content, not only the extension.
bool LooksLikeTflite(std::span<const uint8_t> bytes);

// Decodes and structurally validates `bytes`; `file` is the FILE of diagnostics.
Expected<TfliteModel> ReadTfliteModel(std::span<const uint8_t> bytes, std::string_view file);

// Replaces each WHILE op of `m` (the main subgraph) by its body inlined once per trip, for a
// loop whose condition folds to constants (a counter compared with a constant: Keras'
// recurrent layers), and folds the integer and constant arithmetic around it (the loop
// counters, SHAPE -> ... -> FILL of the initial state, DEQUANTIZE -> QUANTIZE of the
// loop-carried values). `subgraphs[k]` is subgraph k as read (index 0 unused). The result
// is a plain single-subgraph model for the checks that follow (tflite_unroll.cc).
Status UnrollWhileLoops(TfliteModel& m, const std::vector<TfliteModel>& subgraphs);
inline constexpr int32_t kMaxWhileVersion = 1;  // TF's op_version.cc: WHILE has version 1

// "op #K (CONV_2D)": the subject of op diagnostics.
std::string OpLabel(const TfliteModel& m, size_t op_index);
// "tensor #K ('name')".
std::string TensorLabel(const TfliteModel& m, int32_t tensor_index);

}  // namespace tinyforge::import::tflite
