// tinyforge runtime, C++ interface (the C API in tf_model.h wraps it).
//
// Ownership: the caller owns the program image, the constant segments, the arenas, the
// kernel table and the tf_model_def that lists them, and keeps them alive while the Model
// is used. The runtime never allocates, throws or uses RTTI; errors are Status values.
//
// Init validates everything a run relies on, once ("validate in prepare, assume in eval"):
// the header, the head CRC and every segment's CRC, every table entry (each tensor inside
// its region or segment, each input/output shape matching its tensor), every op record
// (kernel id present in the table, operand and parameter counts, each operand's dtype,
// size and location, parameter ranges the kernels assume, no forbidden overlap). After a
// successful Init, Run cannot read or write outside the program's tensors.
#ifndef TINYFORGE_RUNTIME_RUNTIME_H_
#define TINYFORGE_RUNTIME_RUNTIME_H_

#include <cstdint>

#include "tinyforge/kernel_ids.h"
#include "tinyforge/pipe.h"
#include "tinyforge/program_format.h"
#include "tinyforge/status.h"
#include "tinyforge/tf_model.h"

// Set-up code that runs once, at tf_model_init (loading, validation): GCC optimizes it for
// size and keeps it out of the hot code (docs/decisions.md 45).
#define TF_RT_COLD __attribute__((cold))

namespace tinyforge::rt {

class Model;
class OpContext;
struct PipeRun;

}  // namespace tinyforge::rt

// One kernel the runtime can call: `validate` checks an op record for this kernel at init,
// `run` decodes it and calls `kernel` (the kernel's symbol, cast back to its real type).
// Tables are built with TF_KERNEL_ENTRY (tinyforge/kernel_table.h).
struct tf_kernel_entry {
  uint32_t id;  // tinyforge::rt::KernelId("symbol")
  tinyforge::rt::Status (*validate)(const tinyforge::rt::OpContext& op);
  tinyforge::rt::Status (*run)(const tinyforge::rt::OpContext& op);
  void (*kernel)();
  // Scratch bytes the kernel with this id needs for `params`, a parameter struct of operator
  // `op`; -1 when `op` is not its operator (tinyforge::rt::kernel_scratch in
  // tinyforge/kernel_table.h).
  int64_t (*scratch)(const void* params, tinyforge::rt::OpKind op);
  // The kernel's operator: the in-place partners it allows (tinyforge/in_place.h), checked
  // at init against each op's declaration.
  tinyforge::rt::OpKind op;
};

namespace tinyforge::rt {

using KernelEntry = tf_kernel_entry;

// A tensor of the program, resolved to memory.
struct TensorRef {
  uint8_t* data = nullptr;  // const tensors point into read-only memory: never write them
  uint32_t size = 0;        // bytes
  uint8_t dtype = 0;        // fmt::DType
  uint8_t location = 0;     // arena index, or fmt::kLocationSegment | segment index
  uint32_t offset = 0;      // within the arena or segment

  bool in_arena() const { return (location & fmt::kLocationSegment) == 0; }
  // Same arena or segment and intersecting byte ranges.
  bool Overlaps(const TensorRef& o) const {
    return location == o.location && offset < o.offset + o.size && o.offset < offset + size;
  }
  bool SameBytes(const TensorRef& o) const {
    return location == o.location && offset == o.offset && size == o.size;
  }
};

// One op record, as validators and runners see it.
class OpContext {
 public:
  OpContext(const Model& model, int32_t index, const uint8_t* record, const KernelEntry* entry,
            PipeRun* pipe = nullptr);

  int32_t index() const { return index_; }
  uint32_t kernel_id() const { return fmt::LoadU32(record_); }
  int32_t num_operands() const { return fmt::LoadU16(record_ + 4); }
  int32_t num_params() const { return fmt::LoadU16(record_ + 6); }
  uint32_t flags() const { return fmt::LoadU32(record_ + 8); }
  bool streamed() const { return (flags() & fmt::kOpFlagStream) != 0; }
  // A streamed op's output rows per kernel call (the record's u16 at kOffOpStreamRows; 0
  // means 1). 1 for an op that is not streamed.
  int32_t stream_rows() const {
    const int32_t k = fmt::LoadU16(record_ + fmt::kOffOpStreamRows);
    return k < 1 ? 1 : k;
  }
  const KernelEntry& entry() const { return *entry_; }
  // Pipes (tinyforge/pipe.h, fmt::kOpFlagPipeOut / kOpFlagPipeIn): whether the op's output
  // (its declared in-place output slot) or input (in-place input slot) is a window, and,
  // while a pipe runs, its state (null otherwise).
  bool pipe_out() const { return (flags() & fmt::kOpFlagPipeOut) != 0; }
  bool pipe_in() const { return (flags() & fmt::kOpFlagPipeIn) != 0; }
  // Whether operand `slot` is a pipe window.
  bool window(int32_t slot) const {
    return (pipe_in() && slot == record_[fmt::kOffOpInPlaceInput]) ||
           (pipe_out() && slot == record_[fmt::kOffOpInPlaceOutput]);
  }
  PipeRun* pipe() const { return pipe_; }
  const uint8_t* record() const { return record_; }
  const Model& model() const { return model_; }

  // Tensor index in operand slot `slot`, or fmt::kNoTensor. Precondition: slot in range.
  int32_t operand(int32_t slot) const {
    return fmt::LoadI32(record_ + fmt::kOpHeaderSize + 4 * static_cast<uint32_t>(slot));
  }
  bool has(int32_t slot) const { return operand(slot) != fmt::kNoTensor; }
  // The tensor in `slot`. Precondition: has(slot) (validated at init).
  TensorRef tensor(int32_t slot) const;
  // Its bytes only (inline: the op glue resolves 3-8 operands per call, and the whole
  // TensorRef by call cost about 27 instructions each on the M55).
  inline uint8_t* data(int32_t slot) const;
  // Parameter word i. Precondition: 0 <= i < num_params().
  int32_t param(int32_t i) const {
    return fmt::LoadI32(record_ + fmt::kOpHeaderSize + 4 * static_cast<uint32_t>(num_operands()) +
                        4 * static_cast<uint32_t>(i));
  }
  // Quantization of the tensor in `slot` (its record; scale 0: none recorded) and the
  // program's rounding mode, for the checks of Validate_<op>.
  float scale(int32_t slot) const;
  int32_t zero_point(int32_t slot) const;
  uint32_t rounding() const;
  // Adapter for abi::DecodeParams.
  int32_t operator()(int32_t i) const { return param(i); }
  // The parameter words (param(i) is at params_data() + 4 i, unaligned).
  const uint8_t* params_data() const {
    return record_ + fmt::kOpHeaderSize + 4 * static_cast<uint32_t>(num_operands());
  }

 private:
  const Model& model_;
  int32_t index_;
  const uint8_t* record_;
  const KernelEntry* entry_;
  PipeRun* pipe_;
};

// A pipe while it runs (tinyforge/pipe.h): Model::Run runs its first op as any other; that
// op's glue, on reaching its streamed loop (tf_rt_run_streamed_units), starts the pipe here
// and runs the next member (Model::RunPipeNext), which records its stage and runs the next,
// so every member's decoded parameters stay on the stack; the last member runs the schedule.
// The members after the first, reached by Model::Run afterwards, do nothing. dry: the
// schedule's bookkeeping only (the check at init).
struct PipeRun {
  struct Stage {  // (pointers and sizes, not TensorRefs: the state is on the stack)
    StreamGeometry g;
    // Stage 0: the pipe's input. The last stage, an ADD: its other input (the pipe's input
    // itself in a residual pipe). Other stages read their predecessor's window instead.
    const uint8_t* in;
    uint8_t* out;
    uint8_t* ring;
    uint32_t out_size, ring_size;
    void (*unit)(const void* ctx, int32_t u, const uint8_t* in, uint8_t* out);
    const void* ctx;
  };
  const uint8_t* record = nullptr;  // the member running
  int32_t index = 0;
  int32_t stages = 0;
  bool dry = false;
  Stage stage[kMaxPipeStages];
};

namespace abi {
// abi::DecodeParams from an op record, every word read from one base pointer: the generic
// reader's per-word param(i) reloads the record header after each field store (a store
// through the int32 fields may alias the record's bytes for the compiler), about three
// times the instructions; binary and unary ops decode 15-31 words per call.
struct ParamWords {
  const uint8_t* base;
  int32_t operator()(int32_t i) const { return fmt::LoadI32(base + 4 * static_cast<uint32_t>(i)); }
};
template <class P>
inline int DecodeParams(const OpContext& op, P* p, int first = 0) {
  return DecodeParams(ParamWords{op.params_data()}, p, first);
}
}  // namespace abi

class Model {
 public:
  // Validates `def` and everything it points to. On failure the model stays unusable.
  TF_RT_COLD Status Init(const tf_model_def& def);
  // Validates everything in the program that needs neither arenas nor kernels (header,
  // CRCs, tables, op record structure, tensor lifetimes), so that a host can size the
  // arenas from a checked program (region_size) before allocating them. The model is not
  // ready to run after it; Init does all of it again.
  Status Inspect(const tf_model_def& def);
  uint32_t num_regions() const { return num_regions_; }
  // Precondition: a successful Inspect or Init, r < num_regions().
  uint32_t region_size(uint32_t r) const;
  uint32_t region_align(uint32_t r) const;
  // After a failed Init or Inspect: the op the failure is about (-1: none, or before the
  // first op) and its kernel id (0 if none).
  int32_t error_op() const { return error_op_; }
  uint32_t error_kernel() const { return error_kernel_; }
  Status Run();
  // Pipes (tinyforge/pipe.h), defined with the streamed-op executor (runtime/ops/
  // stream_run.cc, linked on demand): the pipe member after st's (the op glue of a member
  // with kOpFlagPipeOut); the pipe whose first op is op `index`, record `rec` (dry: the
  // schedule only); and the init check of every pipe.
  Status RunPipeNext(PipeRun& st) const;
  Status RunPipeFrom(uint32_t index, const uint8_t* rec, bool dry) const;
  TF_RT_COLD Status CheckPipes();

  bool ready() const { return ready_; }
  int32_t num_inputs() const { return static_cast<int32_t>(num_inputs_); }
  int32_t num_outputs() const { return static_cast<int32_t>(num_outputs_); }
  int32_t num_ops() const { return static_cast<int32_t>(num_ops_); }
  // The program's head CRC (header field kOffHeadCrc). Precondition: a successful Init.
  uint32_t program_crc() const { return fmt::LoadU32(image_ + fmt::kOffHeadCrc); }
  int32_t num_tensors() const { return static_cast<int32_t>(num_tensors_); }
  Status Input(int32_t index, tf_tensor_info* info) const;
  Status Output(int32_t index, tf_tensor_info* info) const;
  // State kept across runs (program section STATE): pair `index`'s input and output
  // indices; ResetState sets every state input to zero (int8: its zero point).
  int32_t num_states() const { return static_cast<int32_t>(num_states_); }
  Status StateInfo(int32_t index, int32_t* input, int32_t* output) const;
  Status ResetState();
  // Precondition: 0 <= index < num_tensors() (tensor records are validated at init).
  TensorRef Tensor(int32_t index) const;
  // Tensor(index).data alone.
  uint8_t* TensorData(int32_t index) const {
    const uint8_t* r = tensors_ + static_cast<uint32_t>(index) * fmt::kTensorRecordSize;
    const uint32_t location = r[0], offset = fmt::LoadU32(r + 4);
    // Constants: the kernels take const pointers; the arenas' data is non-const.
    uint8_t* base = (location & fmt::kLocationSegment) == 0
                        ? arenas_[location].data
                        : const_cast<uint8_t*>(segment_data_[location & 0x7f]);
    return base + offset;
  }
  // The tensor's record without resolving its data pointer (usable before arenas are bound).
  TensorRef TensorRecord(int32_t index) const;
  // The tensor's quantization (scale 0 and zero point 0: none recorded).
  float TensorScale(int32_t index) const;
  int32_t TensorZeroPoint(int32_t index) const;
  // TF_ROUNDING_DOUBLE or TF_ROUNDING_SINGLE: the rounding of every requantizing op.
  uint32_t rounding() const { return rounding_; }
  void SetProfiler(tf_profile_fn fn, void* user) {
    profile_ = fn;
    profile_user_ = user;
  }

 private:
  struct LiveRange {
    uint32_t first, last;
  };
  TF_RT_COLD Status CheckProgram(const tf_model_def& def);
  void Fail();
  TF_RT_COLD Status ParseHead(const tf_model_def& def);
  TF_RT_COLD Status CheckRegions() const;
  TF_RT_COLD Status BindRegions(const tf_model_def& def);
  TF_RT_COLD Status BindSegments(const tf_model_def& def);
  TF_RT_COLD Status CheckTensors() const;
  TF_RT_COLD Status CheckConstantLayout() const;
  TF_RT_COLD Status CheckIo() const;
  TF_RT_COLD Status CheckState() const;
  void StatePair(uint32_t k, TensorRef* in, TensorRef* out) const;
  TF_RT_COLD Status CheckKernelTable(const tf_model_def& def) const;
  TF_RT_COLD Status CheckOpRecords(const tf_model_def& def);
  TF_RT_COLD Status CheckLifetimes();
  TF_RT_COLD Status CheckOps();
  static uint32_t RecordSize(const uint8_t* rec);
  TF_RT_COLD void LiveRanges(uint32_t base, uint32_t count, LiveRange* r) const;
  TF_RT_COLD bool DeclaredInPlace(uint32_t op, uint32_t in, uint32_t out) const;
  bool AnyInArena(uint32_t base, uint32_t count) const;
  Status IoInfo(uint32_t record, tf_tensor_info* info) const;
  const KernelEntry* FindEntry(uint32_t id) const;

  const uint8_t* image_ = nullptr;
  uint32_t image_size_ = 0;
  uint32_t head_size_ = 0;
  uint32_t total_size_ = 0;
  uint32_t rounding_ = 0;
  const uint8_t* regions_ = nullptr;
  uint32_t num_regions_ = 0;
  const uint8_t* segments_ = nullptr;
  uint32_t num_segments_ = 0;
  const uint8_t* tensors_ = nullptr;
  uint32_t num_tensors_ = 0;
  const uint8_t* io_ = nullptr;
  uint32_t num_inputs_ = 0, num_outputs_ = 0;
  const uint8_t* ops_ = nullptr;
  uint32_t ops_size_ = 0, num_ops_ = 0;
  const uint8_t* state_ = nullptr;
  uint32_t num_states_ = 0;
  const tf_arena* arenas_ = nullptr;
  const uint8_t* segment_data_[fmt::kMaxSegments] = {};
  const KernelEntry* kernels_ = nullptr;
  uint32_t num_kernels_ = 0;
  tf_profile_fn profile_ = nullptr;
  void* profile_user_ = nullptr;
  bool ready_ = false;
  bool pipes_ = false;  // some op has kOpFlagPipeOut or kOpFlagPipeIn
  int32_t error_op_ = -1;
  uint32_t error_kernel_ = 0;
};

inline uint8_t* OpContext::data(int32_t slot) const { return model_.TensorData(operand(slot)); }

}  // namespace tinyforge::rt

#endif  // TINYFORGE_RUNTIME_RUNTIME_H_
