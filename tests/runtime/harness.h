// Test helpers: build small programs with emit::Program, run them through the runtime with
// arenas the test owns, and seeded random kernel parameters.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <span>
#include <vector>

#include "emit/program_writer.h"
#include "kernels/common/rounding.h"
#include "tinyforge/op_abi.h"
#include "tinyforge/in_place.h"
#include "tinyforge/kernel_table.h"
#include "tinyforge/runtime.h"

namespace tinyforge::rt::testing {

// A 16-byte aligned byte buffer.
class Aligned {
 public:
  explicit Aligned(size_t size = 0) { Resize(size); }
  void Resize(size_t size) {
    storage_.assign(size + 16, 0);
    const auto addr = reinterpret_cast<uintptr_t>(storage_.data());
    data_ = storage_.data() + ((16 - addr % 16) % 16);
    size_ = size;
  }
  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  std::vector<uint8_t> storage_;
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

// A program image plus arenas sized from its regions, and a Model bound to them.
struct Loaded {
  Aligned image;
  std::vector<Aligned> arenas;
  std::vector<tf_arena> arena_defs;
  tf_model_def def{};
  Model model;
  Status status = Status::kOk;

  Loaded(std::span<const uint8_t> bytes, const std::vector<uint32_t>& arena_sizes,
         const tf_kernel_entry* kernels = tf_all_kernels,
         uint32_t num_kernels = tf_all_kernels_count)
      : image(bytes.size()) {
    if (!bytes.empty()) std::memcpy(image.data(), bytes.data(), bytes.size());
    arenas.reserve(arena_sizes.size());
    for (uint32_t s : arena_sizes) {
      arenas.emplace_back(s);
      arena_defs.push_back({arenas.back().data(), s});
    }
    def.program = image.data();
    def.program_size = static_cast<uint32_t>(bytes.size());
    def.arenas = arena_defs.data();
    def.num_arenas = static_cast<uint32_t>(arena_defs.size());
    def.kernels = kernels;
    def.num_kernels = num_kernels;
    status = model.Init(def);
  }
};

inline std::vector<uint8_t> Write(const emit::Program& p) {
  auto image = emit::WriteProgram(p);
  if (!image.ok()) return {};
  return std::move(*image);
}

inline std::vector<uint32_t> RegionSizes(const emit::Program& p) {
  std::vector<uint32_t> s;
  for (const auto& r : p.regions) s.push_back(r.size);
  return s;
}

template <class T>
std::span<const uint8_t> AsBytes(const std::vector<T>& v) {
  return {reinterpret_cast<const uint8_t*>(v.data()), v.size() * sizeof(T)};
}

class Rng {
 public:
  explicit Rng(uint32_t seed) : g_(seed) {}
  int32_t Int(int32_t lo, int32_t hi) { return std::uniform_int_distribution<int32_t>(lo, hi)(g_); }
  std::vector<int8_t> Int8s(size_t n) {
    std::vector<int8_t> v(n);
    for (auto& x : v) x = static_cast<int8_t>(Int(-128, 127));
    return v;
  }
  std::vector<int32_t> Int32s(size_t n, int32_t lo, int32_t hi) {
    std::vector<int32_t> v(n);
    for (auto& x : v) x = Int(lo, hi);
    return v;
  }
  std::mt19937& engine() { return g_; }

 private:
  std::mt19937 g_;
};

}  // namespace tinyforge::rt::testing

namespace tinyforge::rt::testing {

// Builds a one-region ("ram"), one-segment ("flash") program.
struct Builder {
  emit::Program p;
  explicit Builder(uint32_t arena_bytes) {
    p.regions = {{"ram", arena_bytes, 16}};
    p.segments = {{"flash", {}}};
  }
  template <class T>
  int32_t Const(const std::vector<T>& v, uint8_t dtype) {
    return p.AddConstant(0, dtype, AsBytes(v));
  }
  int32_t Arena(uint8_t dtype, uint32_t offset, uint32_t size) {
    return p.AddArenaTensor(0, dtype, offset, size);
  }
  void Input(int32_t t, std::vector<int32_t> dims, float scale = 0.5f, int32_t zp = 0) {
    p.io.push_back({t, false, std::move(dims), scale, zp});
  }
  void Output(int32_t t, std::vector<int32_t> dims, float scale = 0.25f, int32_t zp = 0) {
    p.io.push_back({t, true, std::move(dims), scale, zp});
  }
  // Adds an op. Like the emitter, sets the program's rounding, the op flags that declare
  // explicit pads and arbitrary clamps, and the operator's in-place partners
  // (tinyforge/in_place.h) when their tensors share bytes; clear
  // p.ops.back().in_place_input/output to test an undeclared overlap.
  void Op(uint32_t id, std::vector<int32_t> operands, std::vector<int32_t> params,
          uint32_t flags = 0) {
    p.ops.push_back({id, std::move(operands), std::move(params), flags});
    emit::ProgramOp& op = p.ops.back();
    const KernelInfo* k = FindKernel(id);
    if (k == nullptr) return;
    SetRounding(k->op, op.params);
    op.flags |= emit::DeclaredOpFlags(k->op, op, p);  // explicit pads, arbitrary clamps
    const InPlaceRule rule = InPlaceRuleOf(k->op);
    const bool streamed = (flags & fmt::kOpFlagStream) != 0;
    if (rule.mode == InPlaceMode::kNone || (rule.mode == InPlaceMode::kStream) != streamed ||
        rule.output >= op.operands.size()) {
      return;
    }
    const int32_t out = op.operands[rule.output];
    for (uint8_t slot = 0; slot < 8 && slot < op.operands.size(); ++slot) {
      const int32_t in = op.operands[slot];
      if (((rule.inputs >> slot) & 1u) == 0 || in < 0 || out < 0 || in == out) continue;
      const emit::ProgramTensor& a = p.tensors[static_cast<size_t>(in)];
      const emit::ProgramTensor& b = p.tensors[static_cast<size_t>(out)];
      if (a.location == b.location && a.offset < b.offset + b.size &&
          b.offset < a.offset + a.size) {
        op.in_place_input = slot;
        op.in_place_output = rule.output;
        return;
      }
    }
  }
  std::vector<uint8_t> Image() const { return Write(p); }

  // Like the emitter, the program's rounding is its requantizing ops' (here: the last one
  // added with a valid rounding word; a test may set p.rounding itself).
  template <class P>
  void TakeRounding(const std::vector<int32_t>& params) {
    if constexpr (requires(P q) { q.rounding; }) {
      if (params.size() < static_cast<size_t>(abi::ParamCount<P>())) return;
      P q{};
      abi::DecodeParams([&](int32_t i) { return params[static_cast<size_t>(i)]; }, &q);
      if (q.rounding == TF_ROUNDING_DOUBLE || q.rounding == TF_ROUNDING_SINGLE) {
        p.rounding = static_cast<uint32_t>(q.rounding);
      }
    }
  }
  void SetRounding(OpKind kind, const std::vector<int32_t>& params) {
    switch (kind) {
#define TF_OP_KIND(op, Kind, Params) \
  case OpKind::k##Kind:              \
    TakeRounding<Params>(params);    \
    break;
#include "kernels/families.def"
      default:
        break;
    }
  }
};

}  // namespace tinyforge::rt::testing
