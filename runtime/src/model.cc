// Program loading and validation, the tensor and state queries (format:
// docs/program-format.md); what runs per inference is in execute.cc. Firmware compiles this
// file at -Os (runtime/CMakeLists.txt): it runs at init or once per query.
//
// Validation order matters: nothing is read before the bytes it lives in are known to be
// inside the image, and nothing in the head is trusted before the head CRC matched. Sizes
// are compared in 64 bits so that no sum of 32-bit fields can wrap.
#include <cstdint>

#include "kernels/common/rounding.h"
#include "tinyforge/in_place.h"
#include "tinyforge/runtime.h"
#include "records.h"

// The pipes' init check, with the streamed-op executor (runtime/ops/stream_run.cc).
extern "C" __attribute__((weak)) tinyforge::rt::Status tf_rt_check_pipes(tinyforge::rt::Model* model);

namespace tinyforge::rt {
namespace {

constexpr uint32_t kMaxOperands = 64;
constexpr uint32_t kMaxParams = 1024;

bool Aligned(const void* p, uint32_t align) {
  return (reinterpret_cast<uintptr_t>(p) & (align - 1)) == 0;
}

// A NUL-padded name field: non-empty and terminated inside the field.
bool ValidName(const uint8_t* name) {
  if (name[0] == 0) return false;
  for (uint32_t i = 0; i < fmt::kNameSize; ++i) {
    if (name[i] == 0) return true;
  }
  return false;
}

}  // namespace

Status Model::ParseHead(const tf_model_def& def) {
  if (def.program == nullptr) return Status::kNullArgument;
  if (!Aligned(def.program, fmt::kAlign)) return Status::kMisaligned;
  const uint8_t* p = def.program;
  const uint32_t n = def.program_size;
  if (n < fmt::kHeaderSize) return Status::kTruncated;
  for (uint32_t i = 0; i < 4; ++i) {
    if (p[fmt::kOffMagic + i] != fmt::kMagic[i]) return Status::kBadMagic;
  }
  if (fmt::LoadU16(p + fmt::kOffVersionMajor) != fmt::kVersionMajor) return Status::kBadVersion;
  const uint32_t total = fmt::LoadU32(p + fmt::kOffTotalSize);
  const uint32_t head = fmt::LoadU32(p + fmt::kOffHeadSize);
  // The image is the whole file, or (with external segments) at least the head.
  const bool external = def.segments != nullptr && def.num_segments > 0;
  if (!external) {
    if (n < total) return Status::kTruncated;
    if (n > total) return Status::kBadSize;
  } else if (n > total) {
    return Status::kBadSize;
  }
  if (head < fmt::kHeaderSize || head > total || head % fmt::kAlign != 0) {
    return Status::kBadSize;
  }
  if (n < head) return Status::kTruncated;
  const uint32_t crc = fmt::Crc32(p + fmt::kOffHeadCrc + 4, head - fmt::kOffHeadCrc - 4,
                                  fmt::Crc32(p, fmt::kOffHeadCrc));
  if (crc != fmt::LoadU32(p + fmt::kOffHeadCrc)) return Status::kBadCrc;

  // The head is intact; now check that it is well formed.
  const uint32_t sections = fmt::LoadU32(p + fmt::kOffSectionCount);
  rounding_ = fmt::LoadU32(p + fmt::kOffRounding);
  if (fmt::LoadU32(p + fmt::kOffFlags) != 0 || rounding_ > TF_ROUNDING_SINGLE ||
      sections > fmt::kMaxSections) {
    return Status::kBadHeader;
  }
  const uint64_t table_end = fmt::kHeaderSize + uint64_t{sections} * fmt::kSectionEntrySize;
  if (table_end > head) return Status::kBadSection;
  image_ = p;
  image_size_ = n;
  head_size_ = head;
  total_size_ = total;
  uint32_t seen = 0;
  for (uint32_t s = 0; s < sections; ++s) {
    const uint8_t* e = p + fmt::kHeaderSize + s * fmt::kSectionEntrySize;
    const uint32_t kind = fmt::LoadU32(e), offset = fmt::LoadU32(e + 4);
    const uint32_t size = fmt::LoadU32(e + 8), count = fmt::LoadU32(e + 12);
    if (offset % 4 != 0 || offset < table_end || uint64_t{offset} + size > head) {
      return Status::kBadSection;
    }
    // Sections must not overlap (each byte of the head has one meaning).
    for (uint32_t o = 0; o < s; ++o) {
      const uint8_t* f = p + fmt::kHeaderSize + o * fmt::kSectionEntrySize;
      const uint32_t fo = fmt::LoadU32(f + 4), fs = fmt::LoadU32(f + 8);
      if (offset < uint64_t{fo} + fs && fo < uint64_t{offset} + size) return Status::kBadSection;
    }
    if (kind < fmt::kSectionRegions || kind > fmt::kSectionState) continue;  // later minor
    if (seen & (1u << kind)) return Status::kBadSection;                   // duplicate
    seen |= 1u << kind;
    const uint8_t* data = p + offset;
    switch (kind) {
      case fmt::kSectionRegions:
        if (count > fmt::kMaxRegions || uint64_t{count} * fmt::kRegionRecordSize != size) {
          return Status::kBadRegion;
        }
        regions_ = data;
        num_regions_ = count;
        break;
      case fmt::kSectionSegments:
        if (count > fmt::kMaxSegments || uint64_t{count} * fmt::kSegmentRecordSize != size) {
          return Status::kBadSegment;
        }
        segments_ = data;
        num_segments_ = count;
        break;
      case fmt::kSectionTensors:
        if (count > 0xffff || uint64_t{count} * fmt::kTensorRecordSize != size) {
          return Status::kBadTensor;
        }
        tensors_ = data;
        num_tensors_ = count;
        break;
      case fmt::kSectionIo: {
        if (uint64_t{count} * fmt::kIoRecordSize != size) return Status::kBadIo;
        io_ = data;
        uint32_t inputs = 0;
        while (inputs < count && data[inputs * fmt::kIoRecordSize + 4] == 0) ++inputs;
        num_inputs_ = inputs;
        num_outputs_ = count - inputs;
        break;
      }
      case fmt::kSectionOps:
        ops_ = data;
        ops_size_ = size;
        num_ops_ = count;
        break;
      case fmt::kSectionState:
        if (count > fmt::kMaxStates || uint64_t{count} * fmt::kStateRecordSize != size) {
          return Status::kBadState;
        }
        state_ = data;
        num_states_ = count;
        break;
      default:
        break;
    }
  }
  constexpr uint32_t kRequired = (1u << fmt::kSectionRegions) | (1u << fmt::kSectionTensors) |
                                 (1u << fmt::kSectionIo) | (1u << fmt::kSectionOps);
  if ((seen & kRequired) != kRequired) return Status::kBadSection;
  return Status::kOk;
}

Status Model::CheckRegions() const {
  for (uint32_t r = 0; r < num_regions_; ++r) {
    const uint8_t* rec = regions_ + r * fmt::kRegionRecordSize;
    const uint32_t size = fmt::LoadU32(rec + 16), align = fmt::LoadU32(rec + 20);
    if (!ValidName(rec) || align < fmt::kAlign || align > 4096 || (align & (align - 1)) != 0 ||
        size > 0x7fffffffu || fmt::LoadU32(rec + 24) != 0 || fmt::LoadU32(rec + 28) != 0) {
      return Status::kBadRegion;
    }
  }
  return Status::kOk;
}

Status Model::BindRegions(const tf_model_def& def) {
  if (def.num_arenas != num_regions_ || (num_regions_ > 0 && def.arenas == nullptr)) {
    return Status::kArenaMissing;
  }
  for (uint32_t r = 0; r < num_regions_; ++r) {
    const uint8_t* rec = regions_ + r * fmt::kRegionRecordSize;
    const tf_arena& a = def.arenas[r];
    if (a.data == nullptr) return Status::kArenaMissing;
    if (!Aligned(a.data, fmt::LoadU32(rec + 20))) return Status::kMisaligned;
    if (a.size < fmt::LoadU32(rec + 16)) return Status::kArenaTooSmall;
  }
  arenas_ = def.arenas;
  return Status::kOk;
}

uint32_t Model::region_size(uint32_t r) const {
  return fmt::LoadU32(regions_ + r * fmt::kRegionRecordSize + 16);
}
uint32_t Model::region_align(uint32_t r) const {
  return fmt::LoadU32(regions_ + r * fmt::kRegionRecordSize + 20);
}

Status Model::BindSegments(const tf_model_def& def) {
  if (def.segments != nullptr && def.num_segments > num_segments_) return Status::kBadSegment;
  // Segments tile the file after the head exactly: no byte of the file escapes a CRC.
  uint64_t expected = head_size_;
  for (uint32_t s = 0; s < num_segments_; ++s) {
    const uint8_t* rec = segments_ + s * fmt::kSegmentRecordSize;
    const uint32_t offset = fmt::LoadU32(rec + 16), size = fmt::LoadU32(rec + 20);
    if (!ValidName(rec) || offset != expected || size % fmt::kAlign != 0 ||
        uint64_t{offset} + size > total_size_ || fmt::LoadU32(rec + 28) != 0) {
      return Status::kBadSegment;
    }
    expected += size;
    const uint8_t* data = nullptr;
    if (def.segments != nullptr && s < def.num_segments && def.segments[s].data != nullptr) {
      if (def.segments[s].size != size) return Status::kBadSegment;
      if (!Aligned(def.segments[s].data, fmt::kAlign)) return Status::kMisaligned;
      data = def.segments[s].data;
      if (def.segments[s].ram != nullptr) {  // hot constants: copied to RAM, checked there
        if (!Aligned(def.segments[s].ram, fmt::kAlign)) return Status::kMisaligned;
        __builtin_memcpy(def.segments[s].ram, data, size);
        data = def.segments[s].ram;
      }
    } else {
      if (uint64_t{offset} + size > image_size_) return Status::kTruncated;
      data = image_ + offset;
    }
    if (fmt::Crc32(data, size) != fmt::LoadU32(rec + 24)) return Status::kBadSegment;
    segment_data_[s] = data;
  }
  if (expected != total_size_) return Status::kBadSegment;
  return Status::kOk;
}

Status Model::CheckTensors() const {
  uint32_t in_arenas = 0;
  for (uint32_t t = 0; t < num_tensors_; ++t) {
    const uint8_t* r = tensors_ + t * fmt::kTensorRecordSize;
    const uint8_t location = r[0], dtype = r[1];
    const uint32_t offset = fmt::LoadU32(r + 4), size = fmt::LoadU32(r + 8);
    const uint32_t elem = fmt::DTypeSize(dtype);
    if (elem == 0 || fmt::LoadU16(r + 2) != 0 || size == 0 || size % elem != 0 ||
        offset % elem != 0) {
      return Status::kBadTensor;
    }
    // Quantization: none (0, 0), or an int8 tensor's scale and zero point.
    const float scale = fmt::LoadF32(r + fmt::kOffTensorScale);
    const int32_t zero_point = fmt::LoadI32(r + fmt::kOffTensorZeroPoint);
    if (scale == 0.0f ? zero_point != 0
                      : dtype != fmt::kInt8 || !(scale > 0.0f && scale < 3.4e38f) ||
                            zero_point < -128 || zero_point > 127) {
      return Status::kBadTensor;
    }
    uint64_t limit;
    if ((location & fmt::kLocationSegment) == 0) {
      if (location >= num_regions_ || ++in_arenas > fmt::kMaxArenaTensors) {
        return Status::kBadTensor;
      }
      limit = fmt::LoadU32(regions_ + location * fmt::kRegionRecordSize + 16);
    } else {
      const uint32_t s = location & 0x7fu;
      if (s >= num_segments_) return Status::kBadTensor;
      limit = fmt::LoadU32(segments_ + s * fmt::kSegmentRecordSize + 20);
    }
    if (uint64_t{offset} + size > limit) return Status::kBadTensor;
  }
  return Status::kOk;
}

// Constants are packed as the writer lays them out: in table order, each segment's tensors
// start at the next 16-byte boundary after the previous one's end, and the last one ends in
// the segment's final 16 bytes. So no tensor offset of a constant can change (and read
// other constants or padding) without the program being rejected.
Status Model::CheckConstantLayout() const {
  for (uint32_t s = 0; s < num_segments_; ++s) {
    uint64_t end = 0;
    for (uint32_t t = 0; t < num_tensors_; ++t) {
      const TensorRef r = TensorRecord(static_cast<int32_t>(t));
      if (r.location != (fmt::kLocationSegment | s)) continue;
      if (r.offset != (end + fmt::kAlign - 1) / fmt::kAlign * fmt::kAlign) {
        return Status::kBadTensor;
      }
      end = uint64_t{r.offset} + r.size;
    }
    const uint32_t size = fmt::LoadU32(segments_ + s * fmt::kSegmentRecordSize + 20);
    if ((end + fmt::kAlign - 1) / fmt::kAlign * fmt::kAlign != size) return Status::kBadTensor;
  }
  return Status::kOk;
}

Status Model::CheckIo() const {
  if (num_outputs_ == 0) return Status::kBadIo;
  for (uint32_t i = 0; i < num_inputs_ + num_outputs_; ++i) {
    const uint8_t* r = io_ + i * fmt::kIoRecordSize;
    const uint32_t tensor = fmt::LoadU32(r);
    const uint8_t direction = r[4], dtype = r[5], rank = r[6];
    if (tensor >= num_tensors_ || direction != (i < num_inputs_ ? 0 : 1) || r[7] != 0 || rank < 1 ||
        rank > fmt::kMaxRank || fmt::LoadU32(r + 40) != 0) {
      return Status::kBadIo;
    }
    const TensorRef t = TensorRecord(static_cast<int32_t>(tensor));
    if (t.dtype != dtype || !t.in_arena()) return Status::kBadIo;
    uint64_t elements = 1;
    for (uint32_t d = 0; d < fmt::kMaxRank; ++d) {
      const int32_t dim = fmt::LoadI32(r + 8 + 4 * d);
      if (d < rank) {
        if (dim < 1) return Status::kBadIo;
        elements *= static_cast<uint64_t>(dim);
        if (elements > 0x7fffffffu) return Status::kBadIo;
      } else if (dim != 0) {
        return Status::kBadIo;
      }
    }
    if (elements * fmt::DTypeSize(dtype) != t.size) return Status::kBadIo;
    const float scale = fmt::LoadF32(r + 32);
    const int32_t zero_point = fmt::LoadI32(r + 36);
    if (dtype == fmt::kFloat32) {
      if (scale != 0.0f || zero_point != 0) return Status::kBadIo;
    } else if (!(scale > 0.0f && scale < 3.4e38f) ||
               (dtype == fmt::kInt8 && (zero_point < -128 || zero_point > 127))) {
      return Status::kBadIo;
    }
    // The quantization of an int8 input or output is its tensor's, where recorded.
    const float recorded = TensorScale(static_cast<int32_t>(tensor));
    if (recorded != 0.0f && (recorded != scale ||
                             TensorZeroPoint(static_cast<int32_t>(tensor)) != zero_point)) {
      return Status::kBadIo;
    }
  }
  return Status::kOk;
}

// State pairs: an input and an output, each named once, with one dtype, shape, scale and
// zero point (the runtime copies the output's bytes into the input after a run).
Status Model::CheckState() const {
  for (uint32_t k = 0; k < num_states_; ++k) {
    const uint32_t in = fmt::LoadU32(state_ + k * fmt::kStateRecordSize);
    const uint32_t out = fmt::LoadU32(state_ + k * fmt::kStateRecordSize + 4);
    if (in >= num_inputs_ || out >= num_outputs_) return Status::kBadState;
    for (uint32_t j = 0; j < k; ++j) {
      if (fmt::LoadU32(state_ + j * fmt::kStateRecordSize) == in ||
          fmt::LoadU32(state_ + j * fmt::kStateRecordSize + 4) == out) {
        return Status::kBadState;
      }
    }
    // dtype, rank, dims, scale and zero point: bytes [5, 40) of the two IO records.
    const uint8_t* a = io_ + in * fmt::kIoRecordSize;
    const uint8_t* b = io_ + (num_inputs_ + out) * fmt::kIoRecordSize;
    for (uint32_t i = 5; i < 40; ++i) {
      if (a[i] != b[i]) return Status::kBadState;
    }
  }
  return Status::kOk;
}

Status Model::CheckKernelTable(const tf_model_def& def) const {
  if (def.num_kernels > 0 && def.kernels == nullptr) return Status::kBadKernelTable;
  for (uint32_t i = 0; i < def.num_kernels; ++i) {
    const KernelEntry& e = def.kernels[i];
    if (e.validate == nullptr || e.run == nullptr || e.kernel == nullptr ||
        e.scratch == nullptr) {
      return Status::kBadKernelTable;
    }
    for (uint32_t j = 0; j < i; ++j) {
      if (def.kernels[j].id == e.id) return Status::kBadKernelTable;
    }
  }
  return Status::kOk;
}

// The structure of every op record: bounds, counts, flags, operand indices and the declared
// in-place partners (none, or two distinct operand slots holding arena tensors that the
// operator allows as partners, tinyforge/in_place.h: the operator is the `op` of the kernel's
// entry in def's table; without a table, `Inspect` checks the slots only).
Status Model::CheckOpRecords(const tf_model_def& def) {
  uint32_t pos = 0;
  for (uint32_t i = 0; i < num_ops_; ++i) {
    error_op_ = static_cast<int32_t>(i);
    if (uint64_t{pos} + fmt::kOpHeaderSize > ops_size_) return Status::kBadOp;
    const uint8_t* rec = ops_ + pos;
    error_kernel_ = fmt::LoadU32(rec);
    const uint32_t operands = fmt::LoadU16(rec + 4), params = fmt::LoadU16(rec + 6);
    if (operands > kMaxOperands || params > kMaxParams ||
        (fmt::LoadU32(rec + 8) & ~fmt::kOpKnownFlags) != 0 ||
        ((fmt::LoadU32(rec + 8) & fmt::kOpFlagStream) == 0 &&
         fmt::LoadU16(rec + fmt::kOffOpStreamRows) != 0)) {
      return Status::kBadOp;
    }
    pipes_ = pipes_ || (fmt::LoadU32(rec + 8) & (fmt::kOpFlagPipeOut | fmt::kOpFlagPipeIn)) != 0;
    const uint32_t size = RecordSize(rec);
    if (uint64_t{pos} + size > ops_size_) return Status::kBadOp;
    for (uint32_t k = 0; k < operands; ++k) {
      const int32_t t = fmt::LoadI32(rec + fmt::kOpHeaderSize + 4 * k);
      if (t != fmt::kNoTensor && (t < 0 || static_cast<uint32_t>(t) >= num_tensors_)) {
        return Status::kBadOp;
      }
    }
    const uint8_t in = rec[fmt::kOffOpInPlaceInput], out = rec[fmt::kOffOpInPlaceOutput];
    if ((in == fmt::kNoSlot) != (out == fmt::kNoSlot)) return Status::kBadInPlace;
    if (in != fmt::kNoSlot) {
      if (in >= operands || out >= operands || in == out) return Status::kBadInPlace;
      const int32_t ti = fmt::LoadI32(rec + fmt::kOpHeaderSize + 4u * in);
      const int32_t to = fmt::LoadI32(rec + fmt::kOpHeaderSize + 4u * out);
      if (ti == fmt::kNoTensor || to == fmt::kNoTensor || !TensorRecord(ti).in_arena() ||
          !TensorRecord(to).in_arena()) {
        return Status::kBadInPlace;
      }
      const bool streamed = (fmt::LoadU32(rec + 8) & fmt::kOpFlagStream) != 0;
      const KernelEntry* e = def.kernels;
      for (uint32_t n = def.kernels != nullptr ? def.num_kernels : 0; n != 0; --n, ++e) {
        if (e->id == error_kernel_) {
          if (!InPlaceAllowed(e->op, streamed, in, out)) return Status::kBadInPlace;
          break;
        }
      }
    }
    pos += size;
  }
  error_op_ = -1;
  error_kernel_ = 0;
  if (pos != ops_size_) return Status::kBadOp;
  return Status::kOk;
}

// Live range of tensors [base, base + count): program positions of their first and last
// use. Position 0 is before the first op (the caller writes the inputs), op i is at i + 1,
// and num_ops + 1 after the last op (the caller reads the outputs). first > last: unused.
void Model::LiveRanges(uint32_t base, uint32_t count, LiveRange* r) const {
  for (uint32_t i = 0; i < count; ++i) r[i] = {0xffffffffu, 0};
  auto use = [&](uint32_t t, uint32_t at) {
    if (t < base || t - base >= count) return;
    LiveRange& x = r[t - base];
    if (at < x.first) x.first = at;
    if (at > x.last) x.last = at;
  };
  for (uint32_t i = 0; i < num_inputs_ + num_outputs_; ++i) {
    use(fmt::LoadU32(io_ + i * fmt::kIoRecordSize), i < num_inputs_ ? 0 : num_ops_ + 1);
  }
  // A state input keeps its bytes between runs: live until after the last op too.
  for (uint32_t k = 0; k < num_states_; ++k) {
    const uint32_t in = fmt::LoadU32(state_ + k * fmt::kStateRecordSize);
    use(fmt::LoadU32(io_ + in * fmt::kIoRecordSize), num_ops_ + 1);
  }
  // The members of a pipe run interleaved: they all take the step of its first op.
  uint32_t pos = 0, step = 0;
  for (uint32_t k = 0; k < num_ops_; ++k) {
    const uint8_t* rec = ops_ + pos;
    if (k == 0 || (fmt::LoadU32(rec + 8) & fmt::kOpFlagPipeIn) == 0) step = k + 1;
    const uint32_t operands = fmt::LoadU16(rec + 4);
    for (uint32_t j = 0; j < operands; ++j) {
      const int32_t t = fmt::LoadI32(rec + fmt::kOpHeaderSize + 4 * j);
      if (t != fmt::kNoTensor) use(static_cast<uint32_t>(t), step);
    }
    pos += RecordSize(rec);
  }
}

bool Model::AnyInArena(uint32_t base, uint32_t count) const {
  for (uint32_t i = 0; i < count; ++i) {
    if (TensorRecord(static_cast<int32_t>(base + i)).in_arena()) return true;
  }
  return false;
}

// Whether op `op` declares tensor `in` and tensor `out` as its in-place partners.
bool Model::DeclaredInPlace(uint32_t op, uint32_t in, uint32_t out) const {
  uint32_t pos = 0;
  for (uint32_t k = 0; k < op; ++k) pos += RecordSize(ops_ + pos);
  const uint8_t* rec = ops_ + pos;
  const uint8_t si = rec[fmt::kOffOpInPlaceInput];
  if (si == fmt::kNoSlot) return false;
  // A pipe's first op: its input with the last member's output (tinyforge/pipe.h).
  const uint8_t* last = rec;
  for (uint32_t k = op; (fmt::LoadU32(last + 8) & fmt::kOpFlagPipeOut) != 0 && k + 1 < num_ops_;
       ++k) {
    last += RecordSize(last);
  }
  const uint8_t so = last[fmt::kOffOpInPlaceOutput];
  if (so == fmt::kNoSlot) return false;
  return fmt::LoadI32(rec + fmt::kOpHeaderSize + 4u * si) == static_cast<int32_t>(in) &&
         fmt::LoadI32(last + fmt::kOpHeaderSize + 4u * so) == static_cast<int32_t>(out);
}


// Every tensor is used (by an op, or as an input or output), and no two arena tensors that
// are live at the same time share a byte, except an op's declared in-place partners at that
// op (the input's last use is the output's first).
// Every pair of tensors is compared, with live ranges computed for kBatch tensors per pass
// over the ops (no heap): O(T^2 + (T / kBatch)^2 * operands) for T <= kMaxArenaTensors.
// A first pass notes the steps each batch's arena tensors span (for the first kMaxSpans
// batches): two batches whose spans are disjoint are not compared, so a long unrolled
// sequence model (tensors numbered about in time order, each batch live with few others)
// costs about (T / kBatch) * (neighbours + 2) passes, not (T / kBatch)^2 / 2.
Status Model::CheckLifetimes() {
  constexpr uint32_t kBatch = 64, kMaxSpans = 128;
  struct Span {
    uint16_t first, last;  // first > last: no arena tensor
  };
  Span spans[kMaxSpans];
  LiveRange ra[kBatch], rb[kBatch];
  // (With two batches or fewer every pair is compared anyway: no first pass.)
  const bool use_spans = num_ops_ + 1 < 0xffffu && num_tensors_ > 2 * kBatch;
  for (uint32_t a0 = 0; use_spans && a0 < num_tensors_ && a0 / kBatch < kMaxSpans;
       a0 += kBatch) {
    const uint32_t na = num_tensors_ - a0 < kBatch ? num_tensors_ - a0 : kBatch;
    LiveRanges(a0, na, ra);
    uint32_t first = 0xffffu, last = 0;
    for (uint32_t i = 0; i < na; ++i) {
      if (ra[i].first > ra[i].last) return Status::kUnusedTensor;  // an operand changed?
      if (!TensorRecord(static_cast<int32_t>(a0 + i)).in_arena()) continue;
      first = ra[i].first < first ? ra[i].first : first;
      last = ra[i].last > last ? ra[i].last : last;
    }
    spans[a0 / kBatch] = {static_cast<uint16_t>(first), static_cast<uint16_t>(last)};
  }
  // Whether batches x and y (x < y) may hold tensors live at the same step.
  auto may_meet = [&](uint32_t x, uint32_t y) {
    if (!use_spans || y >= kMaxSpans) return true;
    const Span& u = spans[x];
    const Span& v = spans[y];
    return u.first <= u.last && v.first <= v.last && u.first <= v.last && v.first <= u.last;
  };
  for (uint32_t a0 = 0; a0 < num_tensors_; a0 += kBatch) {
    const uint32_t na = num_tensors_ - a0 < kBatch ? num_tensors_ - a0 : kBatch;
    LiveRanges(a0, na, ra);
    for (uint32_t i = 0; i < na; ++i) {
      if (ra[i].first > ra[i].last) return Status::kUnusedTensor;  // an operand changed?
    }
    if (!AnyInArena(a0, na)) continue;
    for (uint32_t b0 = a0; b0 < num_tensors_; b0 += kBatch) {
      const uint32_t nb = num_tensors_ - b0 < kBatch ? num_tensors_ - b0 : kBatch;
      if (b0 != a0 && !AnyInArena(b0, nb)) continue;  // constants: checked by their layout
      if (b0 != a0 && !may_meet(a0 / kBatch, b0 / kBatch)) continue;
      const LiveRange* rbp = ra;
      if (b0 != a0) {
        LiveRanges(b0, nb, rb);
        rbp = rb;
      }
      for (uint32_t i = 0; i < na; ++i) {
        const LiveRange& x = ra[i];
        const TensorRef ta = TensorRecord(static_cast<int32_t>(a0 + i));
        if (!ta.in_arena()) continue;
        for (uint32_t j = b0 == a0 ? i + 1 : 0; j < nb; ++j) {
          const LiveRange& y = rbp[j];
          if (y.first > y.last || x.last < y.first || y.last < x.first) continue;
          const TensorRef tb = TensorRecord(static_cast<int32_t>(b0 + j));
          if (!ta.Overlaps(tb)) continue;  // also false for constants (other location)
          const uint32_t a = a0 + i, b = b0 + j;
          if (x.last == y.first && y.first > 0 && DeclaredInPlace(y.first - 1, a, b)) continue;
          if (y.last == x.first && x.first > 0 && DeclaredInPlace(x.first - 1, b, a)) continue;
          const uint32_t at = x.first > y.first ? x.first : y.first;
          if (at > 0 && at <= num_ops_) {
            uint32_t pos = 0;
            for (uint32_t k = 0; k + 1 < at; ++k) pos += RecordSize(ops_ + pos);
            error_op_ = static_cast<int32_t>(at - 1);
            error_kernel_ = fmt::LoadU32(ops_ + pos);
          }
          return Status::kLiveOverlap;
        }
      }
    }
  }
  return Status::kOk;
}

// The kernel of every op: present in the caller's table, and its validator accepts the
// record.
Status Model::CheckOps() {
  uint32_t pos = 0;
  for (uint32_t i = 0; i < num_ops_; ++i) {
    const uint8_t* rec = ops_ + pos;
    error_op_ = static_cast<int32_t>(i);
    error_kernel_ = fmt::LoadU32(rec);
    const KernelEntry* entry = FindEntry(fmt::LoadU32(rec));
    if (entry == nullptr) return Status::kUnknownKernel;
    TF_RT_TRY(entry->validate(OpContext(*this, static_cast<int32_t>(i), rec, entry)));
    pos += RecordSize(rec);
  }
  error_op_ = -1;
  error_kernel_ = 0;
  return Status::kOk;
}

Status Model::CheckProgram(const tf_model_def& def) {
  TF_RT_TRY(ParseHead(def));
  TF_RT_TRY(CheckRegions());
  TF_RT_TRY(BindSegments(def));
  TF_RT_TRY(CheckTensors());
  TF_RT_TRY(CheckConstantLayout());
  TF_RT_TRY(CheckIo());
  TF_RT_TRY(CheckState());
  TF_RT_TRY(CheckOpRecords(def));
  return CheckLifetimes();
}

Status Model::Inspect(const tf_model_def& def) {
  *this = Model();  // forget any previous program
  const Status s = CheckProgram(def);
  if (!Ok(s)) Fail();
  return s;
}

void Model::Fail() {
  const int32_t op = error_op_;
  const uint32_t kernel = error_kernel_;
  *this = Model();
  error_op_ = op;
  error_kernel_ = kernel;
}

Status Model::Init(const tf_model_def& def) {
  *this = Model();  // forget any previous program
  Status s = CheckProgram(def);
  if (Ok(s)) s = BindRegions(def);
  if (Ok(s)) s = CheckKernelTable(def);
  if (Ok(s)) {
    kernels_ = def.kernels;
    num_kernels_ = def.num_kernels;
    s = CheckOps();
    // Pipes: checked by the streamed-op executor, which a program with a pipe links.
    if (Ok(s) && pipes_) s = tf_rt_check_pipes != nullptr ? tf_rt_check_pipes(this)
                                                          : Status::kUnknownKernel;
  }
  if (!Ok(s)) {
    Fail();
    return s;
  }
  ready_ = true;
  return ResetState();
}

Status Model::ResetState() {
  if (!ready_) return Status::kNotReady;
  for (uint32_t k = 0; k < num_states_; ++k) {
    TensorRef in, out;
    StatePair(k, &in, &out);
    const uint32_t i = fmt::LoadU32(state_ + k * fmt::kStateRecordSize);
    // Zero: the zero point for int8, 0 for int32 and float32 (all-zero bytes).
    const uint8_t fill = in.dtype == fmt::kInt8
                             ? static_cast<uint8_t>(fmt::LoadI32(io_ + i * fmt::kIoRecordSize + 36))
                             : 0;
    for (uint32_t b = 0; b < in.size; ++b) in.data[b] = fill;
  }
  return Status::kOk;
}

Status Model::StateInfo(int32_t index, int32_t* input, int32_t* output) const {
  if (!ready_) return Status::kNotReady;
  if (index < 0 || static_cast<uint32_t>(index) >= num_states_) return Status::kBadIndex;
  const uint8_t* r = state_ + static_cast<uint32_t>(index) * fmt::kStateRecordSize;
  if (input != nullptr) *input = static_cast<int32_t>(fmt::LoadU32(r));
  if (output != nullptr) *output = static_cast<int32_t>(fmt::LoadU32(r + 4));
  return Status::kOk;
}

Status Model::IoInfo(uint32_t record, tf_tensor_info* info) const {
  if (info == nullptr) return Status::kNullArgument;
  const uint8_t* r = io_ + record * fmt::kIoRecordSize;
  const TensorRef t = Tensor(static_cast<int32_t>(fmt::LoadU32(r)));
  info->data = t.data;
  info->bytes = t.size;
  info->dtype = r[5];
  info->rank = r[6];
  for (uint32_t d = 0; d < fmt::kMaxRank; ++d) info->dims[d] = fmt::LoadI32(r + 8 + 4 * d);
  info->scale = fmt::LoadF32(r + 32);
  info->zero_point = fmt::LoadI32(r + 36);
  return Status::kOk;
}

Status Model::Input(int32_t index, tf_tensor_info* info) const {
  if (!ready_) return Status::kNotReady;
  if (index < 0 || static_cast<uint32_t>(index) >= num_inputs_) return Status::kBadIndex;
  return IoInfo(static_cast<uint32_t>(index), info);
}

Status Model::Output(int32_t index, tf_tensor_info* info) const {
  if (!ready_) return Status::kNotReady;
  if (index < 0 || static_cast<uint32_t>(index) >= num_outputs_) return Status::kBadIndex;
  return IoInfo(num_inputs_ + static_cast<uint32_t>(index), info);
}

}  // namespace tinyforge::rt
