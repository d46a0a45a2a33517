// What runs per inference: the op loop, the tensor lookups every op glue makes and the kernel
// entry search (format: docs/program-format.md). Apart from model.cc so that firmware can
// compile the loader and validator for size (-Os) and this file for speed (-O2 in firmware,
// runtime/CMakeLists.txt): model.cc at -Os with these in it cost kws 559 instructions per
// inference.
#include "records.h"
#include "tinyforge/runtime.h"

namespace tinyforge::rt {

OpContext::OpContext(const Model& model, int32_t index, const uint8_t* record,
                     const KernelEntry* entry, PipeRun* pipe)
    : model_(model), index_(index), record_(record), entry_(entry), pipe_(pipe) {}

TensorRef OpContext::tensor(int32_t slot) const { return model_.Tensor(operand(slot)); }
float OpContext::scale(int32_t slot) const { return model_.TensorScale(operand(slot)); }
int32_t OpContext::zero_point(int32_t slot) const { return model_.TensorZeroPoint(operand(slot)); }
uint32_t OpContext::rounding() const { return model_.rounding(); }

float Model::TensorScale(int32_t index) const {
  return fmt::LoadF32(tensors_ + static_cast<uint32_t>(index) * fmt::kTensorRecordSize +
                      fmt::kOffTensorScale);
}
int32_t Model::TensorZeroPoint(int32_t index) const {
  return fmt::LoadI32(tensors_ + static_cast<uint32_t>(index) * fmt::kTensorRecordSize +
                      fmt::kOffTensorZeroPoint);
}

TensorRef Model::Tensor(int32_t index) const {
  TensorRef t = TensorRecord(index);
  t.data = TensorData(index);
  return t;
}

const KernelEntry* Model::FindEntry(uint32_t id) const {
  // Counting down beside a pointer: Run() looks an entry up per op, and an index or end-pointer
  // loop over the 20-byte entries cost GCC a trip-count division per lookup.
  const KernelEntry* e = kernels_;
  for (uint32_t n = num_kernels_; n != 0; --n, ++e) {
    if (e->id == id) return e;
  }
  return nullptr;
}

// The IO records' tensors of state pair k.
void Model::StatePair(uint32_t k, TensorRef* in, TensorRef* out) const {
  const uint32_t i = fmt::LoadU32(state_ + k * fmt::kStateRecordSize);
  const uint32_t o = fmt::LoadU32(state_ + k * fmt::kStateRecordSize + 4);
  *in = Tensor(static_cast<int32_t>(fmt::LoadU32(io_ + i * fmt::kIoRecordSize)));
  *out = Tensor(static_cast<int32_t>(fmt::LoadU32(io_ + (num_inputs_ + o) * fmt::kIoRecordSize)));
}

Status Model::Run() {
  if (!ready_) return Status::kNotReady;
  uint32_t pos = 0;
  for (uint32_t i = 0; i < num_ops_; ++i) {
    const uint8_t* rec = ops_ + pos;
    const uint32_t id = fmt::LoadU32(rec);
    const KernelEntry* entry = FindEntry(id);  // present: checked at init
    const OpContext op(*this, static_cast<int32_t>(i), rec, entry);
    if (profile_ != nullptr) profile_(profile_user_, static_cast<int32_t>(i), id, 0);
    const Status s = entry->run(op);
    if (profile_ != nullptr) profile_(profile_user_, static_cast<int32_t>(i), id, 1);
    if (!Ok(s)) return s;
    pos += RecordSize(rec);
  }
  // The new state becomes the next run's: output bytes into the input (distinct tensors
  // never overlap, the lifetime check made sure).
  for (uint32_t k = 0; k < num_states_; ++k) {
    TensorRef in, out;
    StatePair(k, &in, &out);
    if (in.data != out.data) __builtin_memcpy(in.data, out.data, in.size);
  }
  return Status::kOk;
}

}  // namespace tinyforge::rt
