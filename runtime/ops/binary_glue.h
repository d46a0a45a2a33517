// ADD / SUB / SQUARED_DIFFERENCE / MUL / MAXIMUM / MINIMUM: the shared Validate / Run of a
// binary elementwise kind (internal): the parameter record, its ranges (`check`), no
// scratch, the broadcast shape against the operands, then the kernel call.
#ifndef TINYFORGE_RUNTIME_OPS_BINARY_GLUE_H_
#define TINYFORGE_RUNTIME_OPS_BINARY_GLUE_H_

#include "binary_common.h"

namespace tinyforge::rt::ops {

template <OpKind kKind, class P>
Status ValidateBinary(const OpContext& op, const char* (*check)(const P&)) {
  P p{};
  TF_RT_TRY((DecodeWhole<kKind>(op, abi::kBinOperands, check, &p)));
  return ValidateBroadcast(op, p.shape);
}

template <class P>
Status RunBinary(const OpContext& op) {
  return RunTwoInputs<P, int8_t, int8_t>(op, abi::kBinIn1, abi::kBinIn2, abi::kBinOut);
}

}  // namespace tinyforge::rt::ops

#endif  // TINYFORGE_RUNTIME_OPS_BINARY_GLUE_H_
