// Program format v3: the constants both the emitter (compiler/emit) and the loader
// (runtime/src/program.cc) use. The format itself is documented in docs/program-format.md;
// every number here appears there.
//
// All integers are little-endian; every record starts at a multiple of 4 bytes from the
// start of the image, so a 4-byte-aligned image can be read with aligned loads.
#ifndef TINYFORGE_RUNTIME_PROGRAM_FORMAT_H_
#define TINYFORGE_RUNTIME_PROGRAM_FORMAT_H_

#include <cstdint>

namespace tinyforge::rt::fmt {

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "tinyforge programs are little-endian; big-endian hosts need byte swapping here"
#endif

inline constexpr uint8_t kMagic[4] = {'T', 'F', 'P', 'G'};
// Incompatible changes (2: in-place partners; 3: tensor quantization, program rounding;
// 4: PARTIAL / BETA flags, stream rows; 5: ADD / SUB's linear form).
inline constexpr uint16_t kVersionMajor = 5;
inline constexpr uint16_t kVersionMinor = 2;  // compatible additions (ignored by readers)

// Alignment of the image, of every section, segment and constant tensor, and of arenas.
inline constexpr uint32_t kAlign = 16;

// Header (32 bytes).
inline constexpr uint32_t kHeaderSize = 32;
inline constexpr uint32_t kOffMagic = 0;          // u8[4]  "TFPG"
inline constexpr uint32_t kOffVersionMajor = 4;   // u16
inline constexpr uint32_t kOffVersionMinor = 6;   // u16
inline constexpr uint32_t kOffTotalSize = 8;      // u32 bytes of the whole file
inline constexpr uint32_t kOffHeadCrc = 12;       // u32 CRC-32 of the head without this field
inline constexpr uint32_t kOffHeadSize = 16;      // u32 header + section table + sections
inline constexpr uint32_t kOffFlags = 20;         // u32 reserved, 0
inline constexpr uint32_t kOffSectionCount = 24;  // u32
inline constexpr uint32_t kOffRounding = 28;      // u32 requantization rounding of the program
// kOffRounding: TF_ROUNDING_DOUBLE (0) or TF_ROUNDING_SINGLE (1); every op's `rounding`
// parameter must equal it (one rounding mode per program, as the compiler writes it).
// The head CRC covers bytes [0, 12) and [16, head_size): every byte of the head but itself.
// Segments follow the head back to back (each size a multiple of 16, zero-padded), each
// with its own CRC, so every byte of a program file is covered by exactly one CRC.

// Section table: section_count entries of 16 bytes right after the header.
inline constexpr uint32_t kSectionEntrySize = 16;  // u32 kind, offset, size, count
inline constexpr uint32_t kMaxSections = 16;
enum SectionKind : uint32_t {
  kSectionRegions = 1,   // arena regions the program needs       (required)
  kSectionSegments = 2,  // constant segments                      (optional)
  kSectionTensors = 3,   // tensor table                           (required)
  kSectionIo = 4,        // inputs then outputs                    (required)
  kSectionOps = 5,       // op records in execution order          (required)
  kSectionState = 6,     // state kept across runs                 (optional)
};

// REGIONS: count x 32 bytes.
inline constexpr uint32_t kRegionRecordSize = 32;
inline constexpr uint32_t kNameSize = 16;  // NUL-padded, at least one NUL
// char name[16]; u32 size (bytes); u32 align (power of two, >= 16); u32 flags (0); u32 0
inline constexpr uint32_t kMaxRegions = 8;

// SEGMENTS: count x 32 bytes. Segment i's bytes are in the file at file_offset, right after
// the head (i = 0) or segment i - 1; generated firmware may keep them in separate arrays
// (tf_model_def.segments). char region[16] (where the firmware keeps it, informative);
// u32 file_offset; u32 size (multiple of 16); u32 crc32 of its bytes; u32 flags (0)
inline constexpr uint32_t kSegmentRecordSize = 32;
inline constexpr uint32_t kMaxSegments = 8;

// TENSORS: count x 20 bytes.
// u8 location; u8 dtype; u16 flags (0); u32 offset; u32 size (bytes, > 0);
// f32 scale; i32 zero_point: the tensor's quantization (scale > 0; zero point in [-128, 127]
// for int8, 0 for int32), or both 0 when none is recorded (float32, constants, scratch).
inline constexpr uint32_t kTensorRecordSize = 20;
inline constexpr uint32_t kOffTensorScale = 12;      // f32
inline constexpr uint32_t kOffTensorZeroPoint = 16;  // i32
inline constexpr uint8_t kLocationSegment = 0x80;  // location = 0x80 | segment index
enum DType : uint8_t { kInt8 = 1, kInt32 = 2, kFloat32 = 3 };
inline constexpr uint32_t DTypeSize(uint8_t dtype) {
  return dtype == kInt8 ? 1u : (dtype == kInt32 || dtype == kFloat32) ? 4u : 0u;
}

// IO: count x 44 bytes, the inputs first, then the outputs (in their order).
// u32 tensor; u8 direction (0 input, 1 output); u8 dtype; u8 rank (1..6); u8 0;
// i32 dims[6] (unused 0); f32 scale (0 for float32); i32 zero_point; u32 0
inline constexpr uint32_t kIoRecordSize = 44;
inline constexpr uint32_t kMaxRank = 6;

// STATE: count x 8 bytes: u32 input, u32 output (indices among the inputs / among the
// outputs). After every successful run the output's bytes are copied into the input's
// tensor; init and tf_model_reset_state() set the input to zero (its zero point). Both have
// one dtype, shape, scale and zero point; the input is live over the whole program.
inline constexpr uint32_t kStateRecordSize = 8;
inline constexpr uint32_t kMaxStates = 16;

// OPS: `count` records, back to back:
// u32 kernel_id; u16 num_operands; u16 num_params; u32 flags;
// u8 in_place_input, u8 in_place_output (operand slots of the op's declared in-place
// partners, tinyforge/in_place.h; both kNoSlot if none); u16 stream_rows (with
// kOpFlagStream: output rows per kernel call, 0 or 1 meaning one; otherwise 0);
// i32 operands[num_operands] (tensor index, or -1 where an operand is optional);
// i32 params[num_params] (floats as their bit patterns)
inline constexpr uint32_t kOpHeaderSize = 16;
inline constexpr uint32_t kOffOpInPlaceInput = 12;   // u8
inline constexpr uint32_t kOffOpInPlaceOutput = 13;  // u8
inline constexpr uint32_t kOffOpStreamRows = 14;     // u16, 0 unless kOpFlagStream
inline constexpr uint8_t kNoSlot = 0xff;
inline constexpr uint32_t kOpFlagStream = 1u;  // in-place by output rows, see stream.h
// conv, dwconv, fc: the input zero point is folded into the bias (precompute-bias), so
// input_offset is 0; otherwise it is minus the input tensor's zero point.
inline constexpr uint32_t kOpFlagZpFolded = 2u;
// conv, dwconv, fc, pools: act_min/act_max are an arbitrary clamp (PyTorch's clamp,
// hardtanh); otherwise they are a fused activation's for the output's quantization
// (tinyforge/clamp.h).
inline constexpr uint32_t kOpFlagClamp = 4u;
// conv, dwconv, pools: explicit padding (a PyTorch or graph-file model); otherwise TFLite's
// SAME or VALID padding (tinyforge/window.h).
inline constexpr uint32_t kOpFlagPads = 8u;
// conv, dwconv, pools: the windows leave input rows or columns unread (a gap between windows
// or input past the last one, tinyforge/window.h); otherwise every input row and column is
// read. Declared exactly: set where the geometry leaves input unread and only there.
inline constexpr uint32_t kOpFlagPartial = 16u;
// softmax: the input multiplier is beta * input scale for a beta other than 1 (a .tflite
// SoftmaxOptions.beta); otherwise it is the input scale's (tinyforge/softmax_scale.h).
inline constexpr uint32_t kOpFlagBeta = 32u;
// conv, dwconv (streamed): a pipe (tinyforge/pipe.h). PIPE_OUT: the op's output is a window
// of rows read only by the next op, which has PIPE_IN (its input is that window); the ops of
// a pipe (one without PIPE_IN, then ops with PIPE_IN, the last without PIPE_OUT) run
// interleaved by blocks of rows. Window operands hold whole rows, fewer than the tensor's;
// a PIPE_OUT op has no line buffer (its last operand is kNoTensor).
inline constexpr uint32_t kOpFlagPipeOut = 64u;
inline constexpr uint32_t kOpFlagPipeIn = 128u;
// conv (s8_conv__mve only): the bias operand holds, after its out_c words, the effective bias
// and the kernel's per-channel table (s8_conv_mve_lean_words, kernels/conv/conv.h), which the
// kernel reads instead of building them in scratch; dwconv (s8_dwconv__mve only): its plane
// path fills chunks of 4 channels' planes, not 8. Both: s8_*_params::lean, less scratch.
inline constexpr uint32_t kOpFlagLean = 256u;
inline constexpr uint32_t kOpKnownFlags = kOpFlagStream | kOpFlagZpFolded | kOpFlagClamp |
                                          kOpFlagPads | kOpFlagPartial | kOpFlagBeta |
                                          kOpFlagPipeOut | kOpFlagPipeIn | kOpFlagLean;
inline constexpr int32_t kNoTensor = -1;

// Loader bounds (docs/program-format.md): the lifetime check compares every pair of arena
// tensors, so their number is bounded; a program with more is rejected (TF_E_BAD_TENSOR).
inline constexpr uint32_t kMaxArenaTensors = 8192;

// Little-endian loads that are valid at any alignment (compile to one load on Cortex-M
// and x86) and do not break strict aliasing.
inline uint32_t LoadU32(const uint8_t* p) {
  uint32_t v;
  __builtin_memcpy(&v, p, 4);
  return v;
}
inline int32_t LoadI32(const uint8_t* p) {
  int32_t v;
  __builtin_memcpy(&v, p, 4);
  return v;
}
inline uint16_t LoadU16(const uint8_t* p) {
  uint16_t v;
  __builtin_memcpy(&v, p, 2);
  return v;
}
inline float LoadF32(const uint8_t* p) {
  float v;
  __builtin_memcpy(&v, p, 4);
  return v;
}

// CRC-32 (IEEE 802.3, reflected, as zlib's crc32()). `crc` is a previous result (0 to
// start), so a CRC can be computed piecewise.
uint32_t Crc32(const uint8_t* data, uint32_t size, uint32_t crc = 0);

}  // namespace tinyforge::rt::fmt

#endif  // TINYFORGE_RUNTIME_PROGRAM_FORMAT_H_
