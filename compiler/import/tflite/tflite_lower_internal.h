// Internal to the .tflite importer: TfliteModel -> lowered int8 IR (docs/tflite-import.md).
// One Lower* function per TFLite op family checks the op's operands and options and appends
// the equivalent lowered op(s) (docs/lowered-ops.md); integer parameters are computed by
// compiler/quant exactly as TensorFlow Lite Micro's Prepare() computes them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "import/tflite/tflite_import.h"
#include "import/tflite/tflite_model.h"
#include "import/tflite/tflite_options.h"
#include "ir/graph.h"
#include "quant/kernel_params.h"
#include "support/expected.h"

namespace tinyforge::import::tflite::internal {

// TFLite's BuiltinOptions union type codes, from schema_subset.fbs (the one list of them).
using Options = fb::BuiltinOptions;

class Lowering {
 public:
  explicit Lowering(const TfliteModel& m);

  const TfliteModel& model() const { return m_; }
  ir::Graph& graph() { return g_; }
  ir::Graph Take() { return std::move(g_); }

  // ---- the op being lowered ------------------------------------------------------------
  void Begin(size_t op_index);
  const TfOp& op() const { return m_.ops[index_]; }
  size_t index() const { return index_; }
  // "FILE: op #K (CONV_2D): message".
  Error Fail(const std::string& message) const;
  // The op's i-th input / output TFLite tensor, or nullptr for an omitted optional input or
  // an index beyond the list.
  const TfTensor* In(size_t i) const;
  const TfTensor* Out(size_t i) const;
  int32_t InIndex(size_t i) const { return op().inputs[i]; }

  // ---- checks (each returns the op's diagnostic) ------------------------------------------
  Status ExpectCounts(size_t min_in, size_t max_in, size_t outs) const;
  // int8 with per-tensor quantization, not a constant unless `allow_constant`.
  Status ExpectAct(const TfTensor* t, const std::string& field, bool allow_constant = false) const;
  Status ExpectRank(const TfTensor* t, const std::string& field, size_t rank) const;
  Status ExpectConstant(const TfTensor* t, const std::string& field) const;
  Status ExpectOptions(Options options_type, bool optional) const;
  Status ExpectActivation(std::initializer_list<TfActivation> allowed) const;
  Status ExpectSameQuant(const TfTensor* a, const std::string& field_a, const TfTensor* b,
                         const std::string& field_b, const std::string& why) const;
  // The op's output shape must equal `want` (what TFLite computes from the operands).
  Status ExpectOutputShape(const std::vector<int32_t>& want) const;

  // ---- building the graph --------------------------------------------------------------
  // The IR tensor for TFLite tensor `index` (created on first use, named after it).
  ir::TensorId Tensor(int32_t index);
  // A new constant int32 tensor of raw integers (no quantization): multipliers, shifts.
  ir::TensorId AddInt32(const std::string& name, std::vector<int32_t> values,
                        bool with_zero_quant = false);
  // A new constant int8 [256] table (qlut) quantized like `like` (its output).
  ir::TensorId AddInt8Table(const std::string& name, const quant::LutTable& table,
                            const TfTensor& like);
  // A new int8 activation tensor (per-tensor quant like `like`).
  ir::TensorId AddActivation(const std::string& name, std::vector<int64_t> shape,
                             const TfTensor& like);
  // Appends an op named "opKK_TYPE[suffix]".
  ir::Op& AddOp(ir::OpType type, std::vector<ir::TensorId> inputs,
                std::vector<ir::TensorId> outputs, ir::Attrs attrs, const std::string& suffix = "");
  // Appends multiplier and shift constants as the op's trailing inputs.
  void AddRequantInputs(ir::Op& op, std::vector<int32_t> multiplier, std::vector<int32_t> shift);
  // Unique tensor name derived from `base`.
  std::string UniqueName(const std::string& base);

  // The integer values of TFLite tensor `index`: its constant data, or what the importer
  // computed for it (SHAPE of a static tensor and the arithmetic on it: a dynamic-batch
  // graph's reshape target, folded for batch 1); nullopt if neither.
  std::optional<std::vector<int64_t>> KnownInts(int32_t index) const;
  void SetKnownInts(int32_t index, std::vector<int64_t> values);
  // Index wrapping before a GATHER (Keras Embedding: SELECT(LESS(i, 0), i + n, i)): the
  // SELECT's output is the IR tensor of i, and GATHER wraps negative indices itself.
  void SetWrapped(int32_t select_out, int32_t indices) { wrapped_[select_out] = indices; }
  bool Wrapped(int32_t index) const { return wrapped_.count(index) != 0; }

 private:
  const TfliteModel& m_;
  ir::Graph g_;
  std::vector<ir::TensorId> ids_;  // TFLite tensor index -> IR id, -1 = not created yet
  std::unordered_set<std::string> names_;  // names of the IR tensors so far
  std::map<int32_t, std::vector<int64_t>> known_;  // folded int32 tensors (KnownInts)
  std::map<int32_t, int32_t> wrapped_;              // SELECT output -> the indices it wraps
  size_t index_ = 0;
};

// Lowers a checked model (ReadTfliteModel) and verifies the result.
Expected<ir::Graph> LowerTfliteModel(const TfliteModel& m);

// ---- helpers shared by the op files ---------------------------------------------------------
quant::TensorQuant Q(const TfTensor& t);               // per-tensor int8 params (checked)
std::vector<float> Scales(const TfTensor& t);           // all scales of a (weight) tensor
Expected<quant::Activation> FusedActivation(int8_t code);  // NONE, RELU, RELU_N1_TO_1, RELU6
std::string ShapeText(const std::vector<int32_t>& shape);
std::vector<int64_t> Shape64(const std::vector<int32_t>& shape);
// Output size and padding of one spatial dim as TFLite computes them (ComputeOutSize,
// ComputePaddingHeightWidth; padding 0 = SAME, 1 = VALID), in int64 and range-checked so
// that no option value overflows; `axis` ("h"/"w") names the option fields in errors.
struct Dim {
  int64_t out = 0, before = 0, after = 0;
};
Expected<Dim> SpatialDim(const Lowering& l, const char* axis, int64_t in, int64_t k,
                         int64_t stride, int64_t dilation, int8_t padding);
// Values of a constant int32 (or int64) tensor.
std::vector<int64_t> IntValues(const TfTensor& t);

// ---- one function per op family ---------------------------------------------------------
// The importer's builtins and their highest accepted version, sorted by name.
std::vector<std::pair<std::string, int>> SupportedBuiltins();

Status LowerConv2d(Lowering& l);
Status LowerDepthwiseConv2d(Lowering& l);
Status LowerFullyConnected(Lowering& l);
Status LowerBatchMatmul(Lowering& l);  // BATCH_MATMUL (int8, adj_x / adj_y)
// UNIDIRECTIONAL_SEQUENCE_LSTM (int8x8_16, tflite_lower_lstm.cc): qlstm
Status LowerSequenceLstm(Lowering& l);
Status LowerTransposeConv(Lowering& l);  // TRANSPOSE_CONV: qconv2d over the stride phases
Status LowerPool(Lowering& l);  // AVERAGE_POOL_2D, MAX_POOL_2D
Status LowerTile(Lowering& l);                // TILE: concatenations of copies
// REVERSE_V2: a `gather` of the constant indices n-1 .. 0 per reversed axis
Status LowerReverse(Lowering& l);
// MIRROR_PAD (REFLECT, SYMMETRIC): a `gather` of constant source indices per padded dim
Status LowerMirrorPad(Lowering& l);
Status LowerGather(Lowering& l);              // GATHER (batch_dims 0): int32 indices
Status LowerIndexWrap(Lowering& l);  // LESS, int32 ADD, SELECT(_V2): a GATHER's index wrap
Status LowerArgMax(Lowering& l);              // ARG_MAX / ARG_MIN: int32 indices
Status LowerPrelu(Lowering& l);               // PRELU: a table (one slope) or qprelu
Status LowerMean(Lowering& l);  // MEAN, SUM, REDUCE_MAX, REDUCE_MIN
Status LowerAddMul(Lowering& l);  // ADD, SUB, MUL
Status LowerMinMax(Lowering& l);  // MAXIMUM, MINIMUM
Status LowerSquaredDifference(Lowering& l);
Status LowerSoftmax(Lowering& l);
// LOGISTIC, TANH, HARD_SWISH, LEAKY_RELU, ELU: a 256-entry table (qlut).
Status LowerLut(Lowering& l);
Status LowerRelu(Lowering& l);              // RELU, RELU6
Status LowerReshape(Lowering& l);           // RESHAPE, SQUEEZE
Status LowerPad(Lowering& l);               // PAD, PADV2
Status LowerConcatenation(Lowering& l);
Status LowerQuantize(Lowering& l);
Status LowerDequantize(Lowering& l);
// EXP, LOG, SQRT, SIN, COS, ABS, NEG, POW, ATAN2 on float32: the float fallback ops
// `unary` / `binary` (docs/decisions.md 47), between DEQUANTIZE and QUANTIZE.
Status LowerFloatFn(Lowering& l);
// Whether a float fallback op of the model reads tensor `t`.
bool ReadByFloatOp(const TfliteModel& m, int32_t t);
bool IsFloatFn(int32_t code);  // an op code LowerFloatFn takes
// tflite_lower_shape.cc: data movement with a runtime kernel and the shape arithmetic.
Status LowerTranspose(Lowering& l);
Status LowerSlice(Lowering& l);         // SLICE, STRIDED_SLICE
Status LowerSplit(Lowering& l);         // SPLIT, SPLIT_V
Status LowerPack(Lowering& l);
Status LowerUnpack(Lowering& l);
Status LowerExpandDims(Lowering& l);
Status LowerShape(Lowering& l);
// The INT32 shape arithmetic of a dynamic batch (CONCATENATION, GATHER, REDUCE_PROD,
// RESHAPE, EXPAND_DIMS with an INT32 output): folded for batch 1, no op. FoldsInts: the
// op writes one INT32 tensor.
bool FoldsInts(const Lowering& l);
Status FoldIntOp(Lowering& l);
Status LowerReduceProd(Lowering& l);
// tflite_lower_resize.cc
Status LowerResize(Lowering& l);        // RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR
Status LowerDepthSpace(Lowering& l);    // DEPTH_TO_SPACE, SPACE_TO_DEPTH: reshape + transpose

}  // namespace tinyforge::import::tflite::internal
