// IR as text: one line per tensor declaration and per op, deterministic (same graph, same
// bytes), so pass tests can compare IR text and --print-after dumps can be diffed.
//
//   graph ds_cnn kind=qdq
//     input %0 x: float32[1,1,49,10]
//     const %1 w_q: int8[2,1,1,1] q(axis=0, s=[0.5,0.25], zp=[0,0], range=[-127,127]) = [1,-2]
//     const %4 big: int8[64,1,10,4] q(...) = blob(2560 bytes, fnv1a=0x1c3d...)
//     %2 w: float32[2,1,1,1] = dequantize(%1)  # dq_w
//     %8 y: int8[1,64,25,5] q(s=0.02, zp=-128) = conv2d(%3, %2, %7) {stride=[2,2], ...}  # conv1 @
//     m.py:41 output %8
//
// Order: inputs (graph order), constants and tensors nothing defines (`tensor` lines) by id,
// ops in order, outputs. Names matching [A-Za-z0-9_./-]+ print bare, others quoted; the
// source after `@` runs to the end of the line (quoted only if it has control characters).
// Quant prints `range=` only when it is not the dtype's full range. Doubles print in their
// shortest exact form. Constants print inline up to `max_inline_constant` elements.
// Works on unverified graphs too (bad ids print as %?N).
#pragma once

#include <string>

#include "ir/graph.h"

namespace tinyforge::ir {

struct PrintOptions {
  bool tensor_names = true;      // "%8 y: ..." vs "%8: ..."
  bool op_names = true;          // "  # conv1"
  bool sources = true;           // " @ m.py:41"
  int max_inline_constant = 16;  // elements; larger constants print as blob(size, hash)
  int max_list = 0;              // quant lists longer than this are elided (lossy); 0 = all
};

std::string PrintGraph(const Graph& g, const PrintOptions& options = {});
std::string PrintOp(const Graph& g, size_t op_index, const PrintOptions& options = {});

// "int8[1,64,25,5] q(s=0.02, zp=-128)".
std::string PrintTensorType(const Tensor& t, const PrintOptions& options = {});
std::string PrintQuant(const QuantParams& q, DType dtype, int max_list = 0);
// "{stride=[2,2], padding=[0,0,0,0], dilation=[1,1], groups=1}"; "" for NoAttrs.
std::string PrintAttrs(const Attrs& attrs);
// A name bare if it matches [A-Za-z0-9_./-]+, else quoted.
std::string PrintName(const std::string& name);

// 64-bit FNV-1a of constant bytes (identifies large constants in IR text).
uint64_t Fnv1a64(const std::vector<uint8_t>& bytes);

}  // namespace tinyforge::ir
