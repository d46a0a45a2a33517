// WHILE loops unrolled at import (tflite_model.h UnrollWhileLoops; docs/decisions.md 75).
//
// TF's converter writes a Keras 3 LSTM / GRU / SimpleRNN (and tf_keras' GRU) as a WHILE op
// whose condition compares loop counters with the sequence length and whose body is one
// time step: int8 FULLY_CONNECTED, ADD, MUL, LOGISTIC, TANH, SPLIT, GATHER of the step's
// input, with the loop-carried state in float32 (DEQUANTIZE at the end of the body,
// QUANTIZE at its start) and int32 counters. For batch 1 the trip count is a constant, so
// the body is inlined once per trip, each copy reading the previous copy's outputs. What
// only computes constants is folded here (the counters and the condition, the SHAPE ->
// STRIDED_SLICE -> PACK -> FILL of the zero initial state, DEQUANTIZE / QUANTIZE of
// constants), a DEQUANTIZE -> QUANTIZE pair with equal parameters between two trips
// becomes the int8 value itself, a TensorList's zero-sized SLICEs and their CONCATENATION
// operands are dropped, and ops nobody reads are removed. The result is one subgraph of
// ops the importer already lowers.
#include <cmath>
#include <cstring>
#include <map>

#include "import/tflite/tflite_model.h"

namespace tinyforge::import::tflite {
namespace {

constexpr int kMaxTrips = 4096;

bool Is(const TfTensor& t, TfType type) { return t.type == static_cast<int8_t>(type); }

// The values of a constant INT32 or BOOL tensor.
std::vector<int64_t> IntsOf(const TfTensor& t) {
  std::vector<int64_t> v;
  const std::vector<uint8_t>& d = *t.data;
  if (Is(t, TfType::kBool)) {
    for (uint8_t b : d) v.push_back(b != 0);
  } else {
    for (size_t i = 0; i + 4 <= d.size(); i += 4) {
      int32_t x;
      std::memcpy(&x, d.data() + i, 4);
      v.push_back(x);
    }
  }
  return v;
}

void SetInts(TfTensor& t, const std::vector<int64_t>& v) {
  std::vector<uint8_t> d;
  for (int64_t x : v) {
    if (Is(t, TfType::kBool)) {
      d.push_back(x != 0);
    } else {
      const int32_t y = static_cast<int32_t>(x);
      uint8_t b[4];
      std::memcpy(b, &y, 4);
      d.insert(d.end(), b, b + 4);
    }
  }
  t.data = std::move(d);
}

bool PerTensor(const TfTensor& t) { return t.quant && !t.quant->per_channel(); }

class Unroller {
 public:
  Unroller(TfliteModel& m, const std::vector<TfliteModel>& subs) : m_(m), subs_(subs) {}

  Status Run() {
    alias_.resize(m_.tensors.size());
    for (size_t t = 0; t < alias_.size(); ++t) alias_[t] = static_cast<int32_t>(t);
    const std::vector<TfOp> ops = std::move(m_.ops);
    m_.ops.clear();
    for (size_t k = 0; k < ops.size(); ++k) {
      TfOp o = ops[k];
      for (int32_t& t : o.inputs) t = A(t);
      if (o.code == op::kWhile) {
        TF_RETURN_IF_ERROR(Inline(o, k));
      } else if (!Fold(o)) {
        m_.ops.push_back(std::move(o));
      }
    }
    Cleanup();
    return OkStatus();
  }

 private:
  int32_t A(int32_t t) const {
    while (t >= 0 && alias_[static_cast<size_t>(t)] != t) t = alias_[static_cast<size_t>(t)];
    return t;
  }

  int32_t AddTensor(TfTensor t) {
    m_.tensors.push_back(std::move(t));
    const int32_t id = static_cast<int32_t>(m_.tensors.size() - 1);
    alias_.push_back(id);
    return id;
  }

  Error Fail(size_t k, const std::string& message) const {
    return Error(m_.file + ": op #" + std::to_string(k) + " (WHILE): " + message);
  }

  // Folds `o` if it computes a constant from constants: its outputs get data, true.
  bool Fold(const TfOp& o) {
    if (!FoldValue(o)) return false;
    m_.tensors[static_cast<size_t>(o.outputs[0])].folded = true;
    return true;
  }

  bool FoldValue(const TfOp& o) {
    if (o.outputs.size() != 1) return false;
    std::vector<const TfTensor*> in;
    for (int32_t t : o.inputs) in.push_back(t < 0 ? nullptr : &m_.tensors[static_cast<size_t>(t)]);
    TfTensor& y = m_.tensors[static_cast<size_t>(o.outputs[0])];
    const int64_t n = y.zero_sized ? 0 : y.num_elements();
    if (o.code == op::kShape) {  // the static shape (batch 1)
      if (in.size() != 1 || !in[0] || !Is(y, TfType::kInt32)) return false;
      SetInts(y, std::vector<int64_t>(in[0]->shape.begin(), in[0]->shape.end()));
      return true;
    }
    if (o.code == op::kSlice) return FoldSlice(in, y);
    for (const TfTensor* t : in) {
      if (t && !t->is_constant()) return false;
    }
    switch (o.code) {
      case op::kFill: {  // dims, value
        if (in.size() != 2 || !in[0] || !in[1] || in[1]->data->empty()) return false;
        const std::vector<uint8_t>& v = *in[1]->data;
        if (y.type != in[1]->type) return false;
        std::vector<uint8_t> d;
        for (int64_t i = 0; i < n; ++i) d.insert(d.end(), v.begin(), v.end());
        y.data = std::move(d);
        return true;
      }
      case op::kDequantize: {  // TFLite: float(scale * (q - zero_point)), scale in double
        if (in.size() != 1 || !Is(*in[0], TfType::kInt8) || !PerTensor(*in[0]) ||
            !Is(y, TfType::kFloat32)) {
          return false;
        }
        const double s = in[0]->quant->scale[0];
        const int64_t zp = in[0]->quant->zero_point[0];
        std::vector<uint8_t> d(static_cast<size_t>(n) * 4);
        for (int64_t i = 0; i < n; ++i) {
          const float f = static_cast<float>(
              s * static_cast<double>(static_cast<int8_t>((*in[0]->data)[i]) - zp));
          std::memcpy(d.data() + 4 * i, &f, 4);
        }
        y.data = std::move(d);
        return true;
      }
      case op::kQuantize: {  // TFLite: round(x / scale) + zero_point, clamped
        if (in.size() != 1 || !Is(*in[0], TfType::kFloat32) || !Is(y, TfType::kInt8) ||
            !PerTensor(y)) {
          return false;
        }
        const float s = y.quant->scale[0];
        const int64_t zp = y.quant->zero_point[0];
        std::vector<uint8_t> d(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) {
          float f;
          std::memcpy(&f, in[0]->data->data() + 4 * i, 4);
          int64_t q = static_cast<int64_t>(std::round(f / s)) + zp;
          q = std::min<int64_t>(127, std::max<int64_t>(-128, q));
          d[static_cast<size_t>(i)] = static_cast<uint8_t>(static_cast<int8_t>(q));
        }
        y.data = std::move(d);
        return true;
      }
      default:
        break;
    }
    // Integer and boolean arithmetic: loop counters, conditions, shapes.
    if (!Is(y, TfType::kInt32) && !Is(y, TfType::kBool)) return false;
    std::vector<std::vector<int64_t>> v;
    for (const TfTensor* t : in) {
      if (!t) continue;
      if (!Is(*t, TfType::kInt32) && !Is(*t, TfType::kBool)) return false;
      v.push_back(IntsOf(*t));
    }
    std::vector<int64_t> out;
    auto binary = [&](auto f) {
      if (v.size() != 2) return false;
      const size_t len = std::max(v[0].size(), v[1].size());
      for (const auto& x : v) {
        if (x.size() != 1 && x.size() != len) return false;  // scalar or same size only
      }
      for (size_t i = 0; i < len; ++i) {
        out.push_back(f(v[0][v[0].size() == 1 ? 0 : i], v[1][v[1].size() == 1 ? 0 : i]));
      }
      return true;
    };
    bool ok = false;
    switch (o.code) {
      case op::kAdd: ok = binary([](int64_t a, int64_t b) { return a + b; }); break;
      case op::kSub: ok = binary([](int64_t a, int64_t b) { return a - b; }); break;
      case op::kMul: ok = binary([](int64_t a, int64_t b) { return a * b; }); break;
      case op::kLess: ok = binary([](int64_t a, int64_t b) -> int64_t { return a < b; }); break;
      case op::kLessEqual: ok = binary([](int64_t a, int64_t b) -> int64_t { return a <= b; }); break;
      case op::kGreater: ok = binary([](int64_t a, int64_t b) -> int64_t { return a > b; }); break;
      case op::kGreaterEqual: ok = binary([](int64_t a, int64_t b) -> int64_t { return a >= b; }); break;
      case op::kEqual: ok = binary([](int64_t a, int64_t b) -> int64_t { return a == b; }); break;
      case op::kNotEqual: ok = binary([](int64_t a, int64_t b) -> int64_t { return a != b; }); break;
      case op::kLogicalAnd: ok = binary([](int64_t a, int64_t b) -> int64_t { return a && b; }); break;
      case op::kLogicalOr: ok = binary([](int64_t a, int64_t b) -> int64_t { return a || b; }); break;
      case op::kPack:  // scalars (or equal vectors along axis 0) stacked
      case op::kConcatenation:  // 1-D vectors joined
        if (o.code == op::kPack && o.options.axis != 0) return false;
        if (o.code == op::kConcatenation && y.shape.size() != 1) return false;
        for (const auto& x : v) out.insert(out.end(), x.begin(), x.end());
        ok = true;
        break;
      case op::kReshape:
      case op::kSqueeze:
      case op::kExpandDims:
        out = v[0];
        ok = true;
        break;
      case op::kStridedSlice: {  // a 1-D vector, positive strides
        if (v.size() != 4 || in[0]->shape.size() != 1 || v[1].size() != 1 || v[2].size() != 1 ||
            v[3].size() != 1 || v[3][0] < 1 || o.options.ellipsis_mask || o.options.new_axis_mask ||
            o.options.offset) {
          return false;
        }
        const int64_t len = static_cast<int64_t>(v[0].size());
        auto wrap = [&](int64_t i) { return std::min(len, std::max<int64_t>(0, i < 0 ? i + len : i)); };
        const int64_t b = (o.options.begin_mask & 1) ? 0 : wrap(v[1][0]);
        int64_t e = (o.options.end_mask & 1) ? len : wrap(v[2][0]);
        if (o.options.shrink_axis_mask & 1) e = b + 1;
        for (int64_t i = b; i < e && i < len; i += v[3][0]) out.push_back(v[0][static_cast<size_t>(i)]);
        ok = true;
        break;
      }
      default:
        return false;
    }
    if (!ok || static_cast<int64_t>(out.size()) != n) return false;
    SetInts(y, out);
    return true;
  }

  // SLICE with constant begin and size (a TensorList's read or write at a trip's index): the
  // output's shape, which the file stores as of one trip only (a dynamic shape), is set from
  // them; a constant input is sliced here (true).
  bool FoldSlice(const std::vector<const TfTensor*>& in, TfTensor& y) {
    if (in.size() != 3 || !in[0] || !in[1] || !in[2] || !in[1]->is_constant() ||
        !in[2]->is_constant() || !Is(*in[1], TfType::kInt32) || !Is(*in[2], TfType::kInt32)) {
      return false;
    }
    const std::vector<int32_t>& dims = in[0]->shape;
    const std::vector<int64_t> begin = IntsOf(*in[1]), size = IntsOf(*in[2]);
    if (begin.size() != dims.size() || size.size() != dims.size()) return false;
    std::vector<int32_t> shape(dims.size());
    for (size_t d = 0; d < dims.size(); ++d) {
      const int64_t s = size[d] == -1 ? dims[d] - begin[d] : size[d];
      if (begin[d] < 0 || s < 0 || begin[d] + s > dims[d]) return false;
      shape[d] = static_cast<int32_t>(s);
    }
    y.shape = shape;
    y.zero_sized = false;
    for (int32_t d : shape) y.zero_sized = y.zero_sized || d == 0;
    if (!in[0]->is_constant() || y.zero_sized) return false;
    const size_t elem = static_cast<size_t>(TfTypeSize(in[0]->type));
    if (elem == 0) return false;
    std::vector<uint8_t> out;
    std::vector<int64_t> idx(dims.size(), 0);
    const int64_t n = y.num_elements();
    for (int64_t i = 0; i < n; ++i) {
      int64_t off = 0;
      for (size_t d = 0; d < dims.size(); ++d) off = off * dims[d] + begin[d] + idx[d];
      const uint8_t* p = in[0]->data->data() + static_cast<size_t>(off) * elem;
      out.insert(out.end(), p, p + elem);
      for (size_t d = dims.size(); d-- > 0;) {  // next index, last dim fastest
        if (++idx[d] < shape[d]) break;
        idx[d] = 0;
      }
    }
    y.data = std::move(out);
    return true;
  }

  // Instantiates op `o` of subgraph `sub` with `map` (subgraph tensor -> model tensor):
  // constants are shared (one copy per subgraph tensor), other tensors new per trip.
  TfOp Instantiate(const TfOp& o, int sub_index, std::vector<int32_t>& map, int trip) {
    const TfliteModel& sub = subs_[static_cast<size_t>(sub_index)];
    auto get = [&](int32_t t, bool output) -> int32_t {
      if (t < 0) return t;
      int32_t& id = map[static_cast<size_t>(t)];
      if (id >= 0 && !output) return A(id);
      const TfTensor& src = sub.tensors[static_cast<size_t>(t)];
      if (src.is_constant() && !output) {
        int32_t& shared = consts_[{sub_index, t}];
        if (shared == 0) shared = AddTensor(src) + 1;  // 0 = not copied yet
        return id = shared - 1;
      }
      TfTensor copy = src;
      copy.name = (src.name.empty() ? "t" + std::to_string(t) : src.name) + "@" +
                  std::to_string(trip);
      return id = AddTensor(std::move(copy));
    };
    TfOp n = o;
    for (int32_t& t : n.inputs) t = get(t, false);
    for (int32_t& t : n.intermediates) t = get(t, false);
    for (int32_t& t : n.outputs) t = get(t, true);
    return n;
  }

  Status Inline(const TfOp& w, size_t k) {
    const int n_sub = static_cast<int>(subs_.size());
    const int ci = w.options.cond_subgraph, bi = w.options.body_subgraph;
    if (ci <= 0 || ci >= n_sub || bi <= 0 || bi >= n_sub) {
      return Fail(k, "cond / body subgraph index " + std::to_string(ci) + " / " +
                         std::to_string(bi) + " out of range (" + std::to_string(n_sub) +
                         " subgraphs; 0 is the main one)");
    }
    const TfliteModel& cond = subs_[static_cast<size_t>(ci)];
    const TfliteModel& body = subs_[static_cast<size_t>(bi)];
    const size_t n = w.inputs.size();
    if (cond.inputs.size() != n || body.inputs.size() != n || body.outputs.size() != n ||
        w.outputs.size() != n || cond.outputs.size() != 1) {
      return Fail(k, "the loop's " + std::to_string(n) + " values do not match its cond (" +
                         std::to_string(cond.inputs.size()) + " inputs, " +
                         std::to_string(cond.outputs.size()) + " outputs) and body (" +
                         std::to_string(body.inputs.size()) + " inputs, " +
                         std::to_string(body.outputs.size()) + " outputs) subgraphs");
    }
    if (w.version > kMaxWhileVersion) {
      return Fail(k, "version: " + std::to_string(w.version) +
                         " is newer than this importer knows (" +
                         std::to_string(kMaxWhileVersion) + ")");
    }
    for (int32_t t : w.inputs) {
      if (t < 0) return Fail(k, "an input is omitted (-1)");
    }
    std::vector<int32_t> cur = w.inputs;
    for (int trip = 0;; ++trip) {
      std::vector<int32_t> cmap(cond.tensors.size(), -1);
      for (size_t i = 0; i < n; ++i) cmap[static_cast<size_t>(cond.inputs[i])] = cur[i];
      for (size_t j = 0; j < cond.ops.size(); ++j) {
        if (!Fold(Instantiate(cond.ops[j], ci, cmap, trip))) {
          return Fail(k, "the loop's condition is not a constant (cond subgraph op #" +
                             std::to_string(j) + " (" + cond.ops[j].name() +
                             ") on values known only at run time); the importer unrolls "
                             "loops with a static trip count only");
        }
      }
      const int32_t c = cmap[static_cast<size_t>(cond.outputs[0])];
      const TfTensor& ct = m_.tensors[static_cast<size_t>(c >= 0 ? A(c) : 0)];
      if (c < 0 || !ct.is_constant() || !Is(ct, TfType::kBool) || ct.data->size() != 1) {
        return Fail(k, "the loop's condition is not one constant BOOL");
      }
      if ((*ct.data)[0] == 0) break;
      if (trip == kMaxTrips) {
        return Fail(k, "the loop runs more than " + std::to_string(kMaxTrips) +
                           " trips; the importer unrolls loops up to that length");
      }
      std::vector<int32_t> bmap(body.tensors.size(), -1);
      for (size_t i = 0; i < n; ++i) bmap[static_cast<size_t>(body.inputs[i])] = cur[i];
      for (const TfOp& o : body.ops) {
        TfOp inst = Instantiate(o, bi, bmap, trip);
        if (inst.code == op::kWhile) return Fail(k, "a WHILE inside a loop's body is not supported");
        if (!Fold(inst)) m_.ops.push_back(std::move(inst));
      }
      for (size_t i = 0; i < n; ++i) {
        const int32_t t = bmap[static_cast<size_t>(body.outputs[i])];
        if (t < 0) return Fail(k, "the body's outputs[" + std::to_string(i) + "] is never written");
        cur[i] = A(t);
      }
    }
    for (size_t i = 0; i < n; ++i) alias_[static_cast<size_t>(w.outputs[i])] = cur[i];
    return OkStatus();
  }

  bool SameQuant(const TfTensor& a, const TfTensor& b) const {
    return PerTensor(a) && PerTensor(b) && a.quant->scale == b.quant->scale &&
           a.quant->zero_point == b.quant->zero_point && a.type == b.type;
  }

  void Cleanup() {
    std::vector<int32_t> producer(m_.tensors.size(), -1);
    std::vector<TfOp> kept;
    for (TfOp& o : m_.ops) {
      for (int32_t& t : o.inputs) t = A(t);
      const TfTensor* y = o.outputs.size() == 1 ? &m_.tensors[static_cast<size_t>(o.outputs[0])]
                                                : nullptr;
      if (y && y->zero_sized) continue;  // a TensorList's empty SLICE: read by nothing below
      if (o.code == op::kConcatenation) {
        std::vector<int32_t> ins;
        for (int32_t t : o.inputs) {
          if (t < 0 || !m_.tensors[static_cast<size_t>(t)].zero_sized) ins.push_back(t);
        }
        o.inputs = ins;
        if (ins.size() == 1 && y && m_.tensors[static_cast<size_t>(ins[0])].shape == y->shape &&
            SameQuant(m_.tensors[static_cast<size_t>(ins[0])], *y)) {
          alias_[static_cast<size_t>(o.outputs[0])] = ins[0];
          continue;
        }
      }
      if (o.code == op::kQuantize && y && o.inputs.size() == 1 && o.inputs[0] >= 0) {
        const int32_t p = producer[static_cast<size_t>(o.inputs[0])];
        if (p >= 0 && kept[static_cast<size_t>(p)].code == op::kDequantize) {
          const int32_t x = kept[static_cast<size_t>(p)].inputs[0];
          const TfTensor* xt = x >= 0 ? &m_.tensors[static_cast<size_t>(x)] : nullptr;
          if (xt && xt->shape == y->shape && SameQuant(*xt, *y)) {
            alias_[static_cast<size_t>(o.outputs[0])] = x;  // the int8 value itself
            continue;
          }
          if (xt && xt->shape == y->shape && PerTensor(*xt) && Is(*xt, TfType::kInt8) &&
              !xt->is_constant()) {
            o.inputs[0] = x;  // TF's float round trip: the exact dequantize-quantize table
            o.via_float = true;
          }
        }
      }
      for (int32_t t : o.outputs) producer[static_cast<size_t>(t)] = static_cast<int32_t>(kept.size());
      kept.push_back(std::move(o));
    }
    for (int32_t& t : m_.outputs) t = A(t);
    // Ops nobody reads (the loop's unused state, the DEQUANTIZEs the pairs above bypass).
    std::vector<uint8_t> used(m_.tensors.size(), 0);
    for (int32_t t : m_.outputs) used[static_cast<size_t>(t)] = 1;
    std::vector<uint8_t> keep(kept.size(), 0);
    for (size_t k = kept.size(); k-- > 0;) {
      bool any = false;
      for (int32_t t : kept[k].outputs) any = any || used[static_cast<size_t>(t)];
      if (!any) continue;
      keep[k] = 1;
      for (int32_t t : kept[k].inputs) {
        if (t >= 0) used[static_cast<size_t>(t)] = 1;
      }
    }
    m_.ops.clear();
    for (size_t k = 0; k < kept.size(); ++k) {
      if (keep[k]) m_.ops.push_back(std::move(kept[k]));
    }
  }

  TfliteModel& m_;
  const std::vector<TfliteModel>& subs_;
  std::vector<int32_t> alias_;                     // tensor -> the tensor that replaces it
  std::map<std::pair<int, int32_t>, int32_t> consts_;  // (subgraph, tensor) -> model tensor + 1
};

}  // namespace

Status UnrollWhileLoops(TfliteModel& m, const std::vector<TfliteModel>& subgraphs) {
  return Unroller(m, subgraphs).Run();
}

}  // namespace tinyforge::import::tflite
