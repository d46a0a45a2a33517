#include "emit/program_writer.h"

#include <algorithm>
#include <cstring>

#include "tinyforge/clamp.h"
#include "tinyforge/op_abi.h"
#include "tinyforge/softmax_scale.h"
#include "tinyforge/window.h"

namespace tinyforge::emit {
namespace {

namespace fmt = rt::fmt;

uint32_t AlignUp(uint32_t v, uint32_t a) { return (v + a - 1) / a * a; }

class Bytes {
 public:
  void U8(uint8_t v) { b_.push_back(v); }
  void U16(uint16_t v) { Raw(&v, 2); }
  void U32(uint32_t v) { Raw(&v, 4); }
  void I32(int32_t v) { Raw(&v, 4); }
  void F32(float v) { Raw(&v, 4); }
  void Name(const std::string& s) {
    for (uint32_t i = 0; i < fmt::kNameSize; ++i) U8(i < s.size() ? static_cast<uint8_t>(s[i]) : 0);
  }
  void Raw(const void* p, size_t n) {
    const auto* c = static_cast<const uint8_t*>(p);
    b_.insert(b_.end(), c, c + n);
  }
  void PadTo(uint32_t align) {
    while (b_.size() % align != 0) b_.push_back(0);
  }
  std::vector<uint8_t>& data() { return b_; }

 private:
  std::vector<uint8_t> b_;
};

}  // namespace

int32_t Program::AddConstant(uint32_t segment, uint8_t dtype, std::span<const uint8_t> bytes) {
  std::vector<uint8_t>& seg = segments.at(segment).bytes;
  seg.resize(AlignUp(static_cast<uint32_t>(seg.size()), fmt::kAlign), 0);
  ProgramTensor t;
  t.location = static_cast<uint8_t>(fmt::kLocationSegment | segment);
  t.dtype = dtype;
  t.offset = static_cast<uint32_t>(seg.size());
  t.size = static_cast<uint32_t>(bytes.size());
  seg.insert(seg.end(), bytes.begin(), bytes.end());
  tensors.push_back(t);
  return static_cast<int32_t>(tensors.size() - 1);
}

int32_t Program::AddArenaTensor(uint32_t region, uint8_t dtype, uint32_t offset, uint32_t size) {
  tensors.push_back({static_cast<uint8_t>(region), dtype, offset, size});
  return static_cast<int32_t>(tensors.size() - 1);
}

// The flags that declare what the loader cannot derive from the op's tensors: an output
// clamp that is not a fused activation's for the output's quantization (an arbitrary clamp:
// PyTorch's clamp, hardtanh; fmt::kOpFlagClamp, tinyforge/clamp.h), and padding that is not
// TFLite's SAME or VALID (explicit pads; fmt::kOpFlagPads, tinyforge/window.h), windows that
// leave input unread (fmt::kOpFlagPartial, tinyforge/window.h) and a softmax input multiplier
// that is not the input scale's (another beta: fmt::kOpFlagBeta, tinyforge/softmax_scale.h).
uint32_t DeclaredOpFlags(rt::OpKind kind, const ProgramOp& rec, const Program& p) {
  auto decode = [&](auto q) {
    if (rec.params.size() < static_cast<size_t>(rt::abi::ParamCount<decltype(q)>())) return q;
    rt::abi::DecodeParams([&](int32_t i) { return rec.params[static_cast<size_t>(i)]; }, &q);
    return q;
  };
  auto clamp = [&](const auto& q, int out_slot) {
    if (rec.operands.size() <= static_cast<size_t>(out_slot)) return 0u;
    const int32_t t = rec.operands[static_cast<size_t>(out_slot)];
    if (t < 0 || static_cast<size_t>(t) >= p.tensors.size()) return 0u;
    const ProgramTensor& out = p.tensors[static_cast<size_t>(t)];
    return out.scale > 0.0f &&
                   !rt::FusedActivationClamp(out.scale, out.zero_point, q.act_min, q.act_max)
               ? fmt::kOpFlagClamp
               : 0u;
  };
  auto pads = [](const auto& q, int32_t k_h, int32_t k_w, int32_t dilation_h,
                 int32_t dilation_w) {
    const uint32_t pads =
        rt::TflitePadding(q.in_h, q.out_h, k_h, q.stride_h, dilation_h, q.pad_top) &&
                rt::TflitePadding(q.in_w, q.out_w, k_w, q.stride_w, dilation_w, q.pad_left)
            ? 0u
            : fmt::kOpFlagPads;
    const bool unread =
        rt::WindowLeavesInputUnread(q.in_h, q.out_h, k_h, q.stride_h, dilation_h, q.pad_top) ||
        rt::WindowLeavesInputUnread(q.in_w, q.out_w, k_w, q.stride_w, dilation_w, q.pad_left);
    return pads | (unread ? fmt::kOpFlagPartial : 0u);
  };
  switch (kind) {
    case rt::OpKind::kConv: {
      const auto q = decode(s8_conv_params{});
      return clamp(q, rt::abi::kConvOut) | pads(q, q.k_h, q.k_w, q.dilation_h, q.dilation_w);
    }
    case rt::OpKind::kDwconv: {
      const auto q = decode(s8_dwconv_params{});
      return clamp(q, rt::abi::kConvOut) | pads(q, q.k_h, q.k_w, q.dilation_h, q.dilation_w);
    }
    case rt::OpKind::kFc:
      return clamp(decode(s8_fc_params{}), rt::abi::kConvOut);
    case rt::OpKind::kAvgpool:
    case rt::OpKind::kMaxpool: {
      const auto q = decode(s8_pool_params{});
      return clamp(q, rt::abi::kPoolOut) | pads(q, q.filter_h, q.filter_w, 1, 1);
    }
    case rt::OpKind::kSoftmax: {
      const auto q = decode(s8_softmax_params{});
      if (rec.operands.size() <= static_cast<size_t>(rt::abi::kSoftmaxIn)) return 0u;
      const int32_t t = rec.operands[static_cast<size_t>(rt::abi::kSoftmaxIn)];
      if (t < 0 || static_cast<size_t>(t) >= p.tensors.size()) return 0u;
      const float scale = p.tensors[static_cast<size_t>(t)].scale;
      int32_t multiplier = 0, shift = 0;
      return scale > 0.0f && !(rt::SoftmaxUnitBetaMultiplier(scale, &multiplier, &shift) &&
                               multiplier == q.input_multiplier && shift == q.input_left_shift)
                 ? fmt::kOpFlagBeta
                 : 0u;
    }
    case rt::OpKind::kF32Conv:  // float models: no quantized clamp to declare
    case rt::OpKind::kF32Dwconv: {
      const auto q = decode(f32_conv_params{});
      return pads(q, q.k_h, q.k_w, q.dilation_h, q.dilation_w);
    }
    case rt::OpKind::kF32Avgpool:
    case rt::OpKind::kF32Maxpool: {
      const auto q = decode(f32_pool_params{});
      return pads(q, q.filter_h, q.filter_w, 1, 1);
    }
    default:
      return 0;
  }
}

Expected<std::vector<uint8_t>> WriteProgram(const Program& p) {
  if (p.regions.size() > fmt::kMaxRegions) return Error("program: more than 8 regions");
  if (p.segments.size() > fmt::kMaxSegments) return Error("program: more than 8 segments");
  if (p.tensors.size() > 0xffff) return Error("program: more than 65535 tensors");
  for (const auto& r : p.regions) {
    if (r.name.empty() || r.name.size() >= fmt::kNameSize) {
      return Error("program: region name '" + r.name + "' must have 1..15 characters");
    }
  }
  for (const auto& s : p.segments) {
    if (s.region.empty() || s.region.size() >= fmt::kNameSize) {
      return Error("program: segment region '" + s.region + "' must have 1..15 characters");
    }
  }
  for (const auto& op : p.ops) {
    if (op.operands.size() > 0xffff || op.params.size() > 0xffff) {
      return Error("program: op record too large");
    }
  }

  // Sections, each starting at a 16-byte boundary.
  Bytes regions, segments, tensors, io, ops, state;
  for (const auto& r : p.regions) {
    regions.Name(r.name);
    regions.U32(r.size);
    regions.U32(r.align);
    regions.U32(0);
    regions.U32(0);
  }
  for (const auto& t : p.tensors) {
    tensors.U8(t.location);
    tensors.U8(t.dtype);
    tensors.U16(0);
    tensors.U32(t.offset);
    tensors.U32(t.size);
    tensors.F32(t.scale);
    tensors.I32(t.zero_point);
  }
  std::vector<const ProgramIo*> ordered;
  for (const auto& e : p.io)
    if (!e.output) ordered.push_back(&e);
  for (const auto& e : p.io)
    if (e.output) ordered.push_back(&e);
  for (const ProgramIo* e : ordered) {
    if (e->dims.empty() || e->dims.size() > fmt::kMaxRank) return Error("program: io rank");
    if (e->tensor < 0 || static_cast<size_t>(e->tensor) >= p.tensors.size()) {
      return Error("program: io tensor out of range");
    }
    io.U32(static_cast<uint32_t>(e->tensor));
    io.U8(e->output ? 1 : 0);
    io.U8(p.tensors[static_cast<size_t>(e->tensor)].dtype);
    io.U8(static_cast<uint8_t>(e->dims.size()));
    io.U8(0);
    for (size_t d = 0; d < fmt::kMaxRank; ++d) io.I32(d < e->dims.size() ? e->dims[d] : 0);
    io.F32(e->scale);
    io.I32(e->zero_point);
    io.U32(0);
  }
  for (const auto& op : p.ops) {
    ops.U32(op.kernel_id);
    ops.U16(static_cast<uint16_t>(op.operands.size()));
    ops.U16(static_cast<uint16_t>(op.params.size()));
    ops.U32(op.flags);
    ops.U8(op.in_place_input);
    ops.U8(op.in_place_output);
    ops.U16(op.stream_rows);
    for (int32_t v : op.operands) ops.I32(v);
    for (int32_t v : op.params) ops.I32(v);
  }

  if (p.state.size() > fmt::kMaxStates) return Error("program: too many state pairs");
  for (const auto& [in, out] : p.state) {
    state.U32(in);
    state.U32(out);
  }

  struct Section {
    uint32_t kind;
    Bytes* bytes;
    uint32_t count;
  };
  std::vector<Section> sections = {
      {fmt::kSectionRegions, &regions, static_cast<uint32_t>(p.regions.size())},
      {fmt::kSectionTensors, &tensors, static_cast<uint32_t>(p.tensors.size())},
      {fmt::kSectionIo, &io, static_cast<uint32_t>(p.io.size())},
      {fmt::kSectionOps, &ops, static_cast<uint32_t>(p.ops.size())},
  };
  if (!p.state.empty()) {
    sections.push_back({fmt::kSectionState, &state, static_cast<uint32_t>(p.state.size())});
  }
  // Segment records need the head size, known once the other sections are laid out.
  if (!p.segments.empty()) {
    sections.insert(sections.begin() + 1,
                    {fmt::kSectionSegments, &segments, static_cast<uint32_t>(p.segments.size())});
  }
  uint32_t offset =
      AlignUp(fmt::kHeaderSize + static_cast<uint32_t>(sections.size()) * fmt::kSectionEntrySize,
              fmt::kAlign);
  std::vector<uint32_t> offsets;
  for (const Section& s : sections) {
    offsets.push_back(offset);
    const uint32_t size = s.kind == fmt::kSectionSegments
                              ? static_cast<uint32_t>(p.segments.size()) * fmt::kSegmentRecordSize
                              : static_cast<uint32_t>(s.bytes->data().size());
    offset = AlignUp(offset + size, fmt::kAlign);
  }
  const uint32_t head_size = offset;
  uint32_t file_offset = head_size;
  std::vector<std::vector<uint8_t>> padded;
  for (const auto& s : p.segments) {
    std::vector<uint8_t> b = s.bytes;
    b.resize(AlignUp(static_cast<uint32_t>(b.size()), fmt::kAlign), 0);
    segments.Name(s.region);
    segments.U32(file_offset);
    segments.U32(static_cast<uint32_t>(b.size()));
    segments.U32(fmt::Crc32(b.data(), static_cast<uint32_t>(b.size())));
    segments.U32(0);
    file_offset += static_cast<uint32_t>(b.size());
    padded.push_back(std::move(b));
  }

  Bytes out;
  out.Raw(fmt::kMagic, 4);
  out.U16(fmt::kVersionMajor);
  out.U16(fmt::kVersionMinor);
  out.U32(file_offset);  // total size
  out.U32(0);            // CRC, below
  out.U32(head_size);
  out.U32(0);
  out.U32(static_cast<uint32_t>(sections.size()));
  out.U32(p.rounding);
  for (size_t i = 0; i < sections.size(); ++i) {
    const Section& s = sections[i];
    out.U32(s.kind);
    out.U32(offsets[i]);
    out.U32(static_cast<uint32_t>(s.bytes->data().size()));
    out.U32(s.count);
  }
  for (size_t i = 0; i < sections.size(); ++i) {
    out.PadTo(fmt::kAlign);
    out.Raw(sections[i].bytes->data().data(), sections[i].bytes->data().size());
  }
  out.PadTo(fmt::kAlign);
  std::vector<uint8_t>& image = out.data();
  if (image.size() != head_size) return Error::Internal("program: laying out the head");
  const uint32_t crc =
      fmt::Crc32(image.data() + fmt::kOffHeadCrc + 4, head_size - fmt::kOffHeadCrc - 4,
                 fmt::Crc32(image.data(), fmt::kOffHeadCrc));
  std::memcpy(image.data() + fmt::kOffHeadCrc, &crc, 4);
  for (const auto& b : padded) image.insert(image.end(), b.begin(), b.end());
  return std::move(image);
}

Expected<ImageLayout> ReadImageLayout(std::span<const uint8_t> image) {
  if (image.size() < fmt::kHeaderSize) return Error("program: truncated");
  ImageLayout layout;
  layout.head_size = fmt::LoadU32(image.data() + fmt::kOffHeadSize);
  const uint32_t sections = fmt::LoadU32(image.data() + fmt::kOffSectionCount);
  // The section table must lie inside the head, and the head inside the image.
  if (layout.head_size > image.size() || sections > fmt::kMaxSections ||
      fmt::kHeaderSize + uint64_t{sections} * fmt::kSectionEntrySize > layout.head_size) {
    return Error("program: malformed header");
  }
  for (uint32_t s = 0; s < sections; ++s) {
    const uint8_t* e = image.data() + fmt::kHeaderSize + s * fmt::kSectionEntrySize;
    const uint32_t off = fmt::LoadU32(e + 4), count = fmt::LoadU32(e + 12);
    if (fmt::LoadU32(e) == fmt::kSectionRegions) {
      if (count > fmt::kMaxRegions ||
          uint64_t{off} + uint64_t{count} * fmt::kRegionRecordSize > layout.head_size) {
        return Error("program: malformed region table");
      }
      for (uint32_t i = 0; i < count; ++i) {
        const uint8_t* r = image.data() + off + i * fmt::kRegionRecordSize;
        std::string name(reinterpret_cast<const char*>(r), fmt::kNameSize);
        name.resize(name.find('\0') == std::string::npos ? name.size() : name.find('\0'));
        layout.regions.emplace_back(name, fmt::LoadU32(r + 16));
      }
      continue;
    }
    if (fmt::LoadU32(e) != fmt::kSectionSegments) continue;
    if (uint64_t{off} + uint64_t{count} * fmt::kSegmentRecordSize > layout.head_size) {
      return Error("program: malformed segment table");
    }
    for (uint32_t i = 0; i < count; ++i) {
      const uint8_t* r = image.data() + off + i * fmt::kSegmentRecordSize;
      layout.segments.emplace_back(fmt::LoadU32(r + 16), fmt::LoadU32(r + 20));
    }
  }
  return layout;
}

}  // namespace tinyforge::emit
