// Writes program images (format v3, docs/program-format.md) from a structured description.
// The emitter builds a Program from a planned graph; tests build small ones by hand.
// Host side, C++20.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "support/expected.h"
#include "tinyforge/op_abi.h"
#include "tinyforge/program_format.h"

namespace tinyforge::emit {

struct ProgramRegion {
  std::string name;   // <= 15 characters, e.g. "dtcm"
  uint32_t size = 0;  // bytes the program needs in it (the planned arena size)
  uint32_t align = rt::fmt::kAlign;
};

struct ProgramSegment {
  std::string region;          // memory region the constants live in, e.g. "qspi"
  std::vector<uint8_t> bytes;  // padded to a multiple of 16 when written
};

struct ProgramTensor {
  uint8_t location = 0;  // region index, or rt::fmt::kLocationSegment | segment index
  uint8_t dtype = rt::fmt::kInt8;
  uint32_t offset = 0;
  uint32_t size = 0;
  float scale = 0.0f;  // quantization (int8/int32 activations), or 0 and 0: none recorded
  int32_t zero_point = 0;
};

struct ProgramIo {
  int32_t tensor = 0;
  bool output = false;
  std::vector<int32_t> dims;  // 1..6 dims
  float scale = 0.0f;         // 0 for float32 tensors
  int32_t zero_point = 0;
};

struct ProgramOp {
  uint32_t kernel_id = 0;
  std::vector<int32_t> operands;  // tensor indices, rt::fmt::kNoTensor for absent ones
  std::vector<int32_t> params;
  uint32_t flags = 0;
  // Declared in-place partners (tinyforge/in_place.h): operand slots whose tensors may
  // share bytes although both are live at this op; rt::fmt::kNoSlot for none.
  uint8_t in_place_input = rt::fmt::kNoSlot;
  uint8_t in_place_output = rt::fmt::kNoSlot;
  uint16_t stream_rows = 0;  // with kOpFlagStream: output rows per kernel call (0: one)
};

struct Program {
  std::vector<ProgramRegion> regions;
  std::vector<ProgramSegment> segments;
  std::vector<ProgramTensor> tensors;
  std::vector<ProgramIo> io;  // any order: written inputs first, then outputs
  std::vector<ProgramOp> ops;
  uint32_t rounding = 0;  // TF_ROUNDING_DOUBLE / TF_ROUNDING_SINGLE: every op's `rounding`
  // State pairs (section STATE): (input index, output index) among the inputs / outputs.
  std::vector<std::pair<uint32_t, uint32_t>> state;

  // Appends `bytes` to segment `segment` at the next 16-byte boundary and adds a tensor
  // for them. Returns the tensor's index.
  int32_t AddConstant(uint32_t segment, uint8_t dtype, std::span<const uint8_t> bytes);
  // Adds a tensor in arena region `region`. Returns its index.
  int32_t AddArenaTensor(uint32_t region, uint8_t dtype, uint32_t offset, uint32_t size);
};

// The op flags that declare what the loader cannot derive from an op's tensors
// (docs/program-format.md, "Consistency checks"): fmt::kOpFlagClamp for an output clamp that
// is not a fused activation's for the output's quantization (tinyforge/clamp.h),
// fmt::kOpFlagPads for padding other than TFLite's SAME or VALID (tinyforge/window.h).
uint32_t DeclaredOpFlags(rt::OpKind kind, const ProgramOp& op, const Program& p);

// The image: header, section table, sections (the head), then the segments back to back.
// Fails on what the format cannot express (too many regions, a name too long, counts).
Expected<std::vector<uint8_t>> WriteProgram(const Program& program);

// Byte ranges of the written image, for splitting it into arrays (model.cc).
struct ImageLayout {
  uint32_t head_size = 0;
  std::vector<std::pair<uint32_t, uint32_t>> segments;    // (file offset, size)
  std::vector<std::pair<std::string, uint32_t>> regions;  // (name, arena bytes needed)
};
Expected<ImageLayout> ReadImageLayout(std::span<const uint8_t> image);

// Encodes a kernel parameter struct as op-record parameter words (tinyforge/op_abi.h).
template <class P>
std::vector<int32_t> EncodeParams(const P& p) {
  std::vector<int32_t> words(static_cast<size_t>(rt::abi::ParamCount<P>()));
  rt::abi::EncodeParams(p, words.data());
  return words;
}

}  // namespace tinyforge::emit
