// Model's record readers shared by the loader (model.cc) and the executor (execute.cc):
// inlined into both (internal to runtime/src).
#ifndef TINYFORGE_RUNTIME_SRC_RECORDS_H_
#define TINYFORGE_RUNTIME_SRC_RECORDS_H_

#include "tinyforge/runtime.h"

namespace tinyforge::rt {

// Inlined: Tensor() is on every op's path (about 7 calls per op); as a call it cost 8
// instructions each (ad on the M55: +56 per op).
[[gnu::always_inline]] inline TensorRef Model::TensorRecord(int32_t index) const {
  const uint8_t* r = tensors_ + static_cast<uint32_t>(index) * fmt::kTensorRecordSize;
  TensorRef t;
  t.location = r[0];
  t.dtype = r[1];
  t.offset = fmt::LoadU32(r + 4);
  t.size = fmt::LoadU32(r + 8);
  return t;
}

// Inlined: Run() steps through the records with it.
[[gnu::always_inline]] inline uint32_t Model::RecordSize(const uint8_t* rec) {
  return fmt::kOpHeaderSize + 4 * (uint32_t{fmt::LoadU16(rec + 4)} + fmt::LoadU16(rec + 6));
}

}  // namespace tinyforge::rt

#endif  // TINYFORGE_RUNTIME_SRC_RECORDS_H_
