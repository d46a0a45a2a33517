// remove-noops: ops that move no data disappear by aliasing tensors instead of copying.
//  - a chain of reshapes and transposes with two or more transposes (a channel shuffle
//    view -> transpose -> view between the layout pass's NCHW transposes): one transpose
//    between two reshapes, found by splitting the dims into the common factors all shapes
//    of the chain are made of ("atoms"); fails (chain kept) when a dim straddles two atoms;
//  - transpose of a transpose: one transpose with the composed permutation;
//  - transpose that moves only size-1 dims (C order unchanged): a reshape;
//  - reshape of a reshape: one reshape; slice of a slice: one slice; a slice of a concat
//    within one of its inputs: a slice of that input;
//  - identity transpose, same-shape reshape or slice, requantize with equal quantization and a
//    clamp that clamps nothing, single-input qconcat: removed (readers read the input);
//  - qbmm reading a transpose that swaps the last two dims: qbmm reads the transpose's input
//    with its adj_x / adj_y flag flipped (the kernel takes either order).
// What stays is data movement that is real (edge transposes of an NCHW program) and
// reshape views: a reshape's output aliases its input's bytes, the planner gives both one
// buffer and the runtime does nothing (docs/lowered-ops.md).
#include <algorithm>
#include <numeric>

#include "ir/shape_inference.h"
#include "passes/pass.h"
#include "passes/util.h"

namespace tinyforge::passes {
namespace {

using ir::OpType;

bool SameQuant(const ir::Tensor& a, const ir::Tensor& b) {
  return a.dtype == b.dtype && a.quant == b.quant;
}

// True if permuting `shape` by `perm` keeps the C-order sequence of elements.
bool PreservesOrder(const ir::Shape& shape, const std::vector<int64_t>& perm) {
  int64_t last = -1;
  for (int64_t p : perm) {
    if (shape[static_cast<size_t>(p)] == 1) continue;
    if (p < last) return false;
    last = p;
  }
  return true;
}

bool IsIdentity(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

// perm exchanges the last two dims and keeps the others.
bool SwapsLastTwo(const std::vector<int64_t>& perm) {
  const size_t r = perm.size();
  if (r < 2) return false;
  for (size_t i = 0; i + 2 < r; ++i) {
    if (perm[i] != static_cast<int64_t>(i)) return false;
  }
  return perm[r - 2] == static_cast<int64_t>(r - 1) && perm[r - 1] == static_cast<int64_t>(r - 2);
}

// ---- reshape/transpose chains -------------------------------------------------------------
// A tensor as a list of dims, each a run of atoms (indices into `size`) in C order.
struct Atoms {
  std::vector<int64_t> size;
  std::vector<int> input_order;  // the chain input's atoms in C order
  std::vector<std::vector<int>> dims;

  explicit Atoms(const ir::Shape& shape) {
    for (int64_t d : shape) {
      dims.emplace_back();
      if (d == 1) continue;
      dims.back().push_back(static_cast<int>(size.size()));
      input_order.push_back(static_cast<int>(size.size()));
      size.push_back(d);
    }
  }
  void Transpose(const std::vector<int64_t>& perm) {
    std::vector<std::vector<int>> out;
    for (int64_t p : perm) out.push_back(dims[static_cast<size_t>(p)]);
    dims = std::move(out);
  }
  // Splits atom a into (first, size / first) wherever it appears; returns the first part.
  int Split(int a, int64_t first, std::vector<int>& pending) {
    const int b = static_cast<int>(size.size());
    size.push_back(size[static_cast<size_t>(a)] / first);
    size[static_cast<size_t>(a)] = first;
    for (std::vector<int>* list : {&input_order, &pending}) {
      auto it = std::find(list->begin(), list->end(), a);
      if (it != list->end()) list->insert(it + 1, b);
    }
    return a;
  }
  bool Reshape(const ir::Shape& shape) {
    std::vector<int> seq;  // (front at the back: pop from there)
    for (auto d = dims.rbegin(); d != dims.rend(); ++d) seq.insert(seq.end(), d->rbegin(), d->rend());
    std::vector<std::vector<int>> out;
    for (int64_t want : shape) {
      out.emplace_back();
      int64_t have = 1;
      while (have < want) {
        if (seq.empty()) return false;
        const int a = seq.back();
        const int64_t s = size[static_cast<size_t>(a)];
        if (want % (have * s) == 0) {
          seq.pop_back();
          out.back().push_back(a);
          have *= s;
        } else if (s % (want / have) == 0 && want % have == 0) {
          std::vector<int> rev(seq.rbegin(), seq.rend());  // Split inserts in C order
          Split(a, want / have, rev);
          seq.assign(rev.rbegin(), rev.rend());
        } else {
          return false;
        }
      }
    }
    if (!seq.empty()) return false;
    dims = std::move(out);
    return true;
  }
};

// Rewrites each chain x -> (reshape | transpose)* -> y holding two or more transposes, whose
// inner tensors have one reader and are no graph outputs, into reshape -> transpose ->
// reshape(s); the reshape rules below then merge the reshapes.
void FoldMovementChains(ir::Graph& g) {
  const auto readers = ir::ComputeConsumers(g);
  const auto producers = ir::ComputeProducers(g);
  std::vector<bool> is_output(g.tensors.size(), false);
  for (ir::TensorId t : g.outputs) is_output[static_cast<size_t>(t)] = true;
  auto movement = [&](int i) {
    const OpType t = g.ops[static_cast<size_t>(i)].type;
    return t == OpType::kReshape || t == OpType::kTranspose;
  };
  auto next = [&](int i) -> int {  // the chain's next op after op i, or -1
    const ir::TensorId y = g.ops[static_cast<size_t>(i)].outputs[0];
    const auto& r = readers[static_cast<size_t>(y)];
    if (r.size() != 1 || is_output[static_cast<size_t>(y)] || !movement(r[0])) return -1;
    return r[0];
  };
  for (int i = 0; i < static_cast<int>(g.ops.size()); ++i) {
    if (!movement(i)) continue;
    const int p = producers[static_cast<size_t>(g.ops[static_cast<size_t>(i)].inputs[0])];
    if (p != ir::kNoProducer && movement(p) && next(p) == i) continue;  // not a chain head
    std::vector<int> chain{i};
    for (int k = next(i); k >= 0; k = next(k)) chain.push_back(k);
    int transposes = 0;
    for (int k : chain) transposes += g.ops[static_cast<size_t>(k)].type == OpType::kTranspose;
    // (two transposes alone: the transpose-of-transpose rule below; rewritten here, the
    // second would write the chain's output in the merged shape, with no reshape after it)
    if (transposes < 2 || chain.size() < 3) continue;
    const ir::Op& first = g.ops[static_cast<size_t>(chain[0])];
    Atoms atoms(g.tensor(first.inputs[0]).shape);
    bool ok = true;
    for (int k : chain) {
      const ir::Op& op = g.ops[static_cast<size_t>(k)];
      if (op.type == OpType::kTranspose) {
        atoms.Transpose(op.attrs_as<ir::TransposeAttrs>().perm);
      } else {
        ok = ok && atoms.Reshape(g.tensor(op.outputs[0]).shape);
      }
    }
    if (!ok) continue;
    // Atoms in output order, merged where they are also adjacent in input order.
    std::vector<int> out_order;
    for (const auto& d : atoms.dims) out_order.insert(out_order.end(), d.begin(), d.end());
    std::vector<size_t> pos(atoms.size.size());
    for (size_t k = 0; k < atoms.input_order.size(); ++k) {
      pos[static_cast<size_t>(atoms.input_order[k])] = k;
    }
    std::vector<std::vector<int>> runs;  // in output order
    for (int a : out_order) {
      if (!runs.empty() && pos[static_cast<size_t>(runs.back().back())] + 1 == pos[static_cast<size_t>(a)]) {
        runs.back().push_back(a);
      } else {
        runs.push_back({a});
      }
    }
    if (runs.size() > 6) continue;
    std::vector<size_t> by_input(runs.size());
    std::iota(by_input.begin(), by_input.end(), 0);
    std::sort(by_input.begin(), by_input.end(), [&](size_t a, size_t b) {
      return pos[static_cast<size_t>(runs[a][0])] < pos[static_cast<size_t>(runs[b][0])];
    });
    ir::Shape in_shape, out_shape;
    std::vector<int64_t> perm(runs.size()), where(runs.size());
    for (size_t k = 0; k < by_input.size(); ++k) {
      int64_t n = 1;
      for (int a : runs[by_input[k]]) n *= atoms.size[static_cast<size_t>(a)];
      in_shape.push_back(n);
      where[by_input[k]] = static_cast<int64_t>(k);
    }
    for (size_t k = 0; k < runs.size(); ++k) {
      perm[k] = where[k];
      out_shape.push_back(in_shape[static_cast<size_t>(where[k])]);
    }
    if (in_shape.empty()) in_shape = out_shape = {1}, perm = {0};
    // chain[0]: reshape to in_shape; chain[1]: transpose; the rest: reshapes to their shapes.
    ir::Op& a = g.ops[static_cast<size_t>(chain[0])];
    a.type = OpType::kReshape;
    a.attrs = ir::ReshapeAttrs{in_shape};
    g.tensor(a.outputs[0]).shape = in_shape;
    ir::Op& b = g.ops[static_cast<size_t>(chain[1])];
    b.type = OpType::kTranspose;
    b.attrs = ir::TransposeAttrs{perm};
    g.tensor(b.outputs[0]).shape = out_shape;
    for (size_t k = 2; k < chain.size(); ++k) {
      ir::Op& c = g.ops[static_cast<size_t>(chain[k])];
      c.type = OpType::kReshape;
      c.attrs = ir::ReshapeAttrs{g.tensor(c.outputs[0]).shape};
    }
    i = chain.back();
  }
}

// The graph being simplified, with what the rewrites need kept current: removed ops stay
// in g.ops (marked) until the end, so indices hold; `readers` may list an op that no longer
// reads the tensor (harmless: replacing finds nothing there).
struct State {
  ir::Graph& g;
  std::vector<int> producer;
  std::vector<std::vector<int>> readers;
  std::vector<bool> removed;

  // Every read of `from` (op inputs, graph outputs) reads `to` instead.
  void ReplaceUses(ir::TensorId from, ir::TensorId to) {
    for (int r : readers[static_cast<size_t>(from)]) {
      if (removed[static_cast<size_t>(r)]) continue;
      for (ir::TensorId& t : g.ops[static_cast<size_t>(r)].inputs) {
        if (t == from) t = to;
      }
      readers[static_cast<size_t>(to)].push_back(r);
    }
    readers[static_cast<size_t>(from)].clear();
    for (ir::TensorId& t : g.outputs) {
      if (t == from) t = to;
    }
  }

  // Removes op i, whose single input x and output y hold the same values (shape, dtype and
  // quantization equal), keeping the later name where it matters: when y is a graph output,
  // x's producer writes y (and x's readers read y); otherwise y's readers read x. Returns
  // false (and changes nothing) when both x and y are graph inputs/outputs.
  bool AliasAway(size_t i) {
    const ir::TensorId x = g.ops[i].inputs[0];
    const ir::TensorId y = g.ops[i].outputs[0];
    auto contains = [](const std::vector<ir::TensorId>& v, ir::TensorId t) {
      return std::find(v.begin(), v.end(), t) != v.end();
    };
    const bool x_edge =
        contains(g.inputs, x) || contains(g.outputs, x) || g.tensor(x).is_constant();
    const bool y_out = contains(g.outputs, y);
    if (y_out && x_edge) return false;
    removed[i] = true;
    producer[static_cast<size_t>(y)] = ir::kNoProducer;
    if (y_out) {
      const int p = producer[static_cast<size_t>(x)];
      if (p != ir::kNoProducer) {
        for (ir::TensorId& t : g.ops[static_cast<size_t>(p)].outputs) {
          if (t == x) t = y;
        }
        producer[static_cast<size_t>(y)] = p;
        producer[static_cast<size_t>(x)] = ir::kNoProducer;
      }
      ReplaceUses(x, y);
    } else {
      ReplaceUses(y, x);
    }
    return true;
  }

  // op i now reads `t` as its first input.
  void SetInput(size_t i, ir::TensorId t) {
    g.ops[i].inputs[0] = t;
    readers[static_cast<size_t>(t)].push_back(static_cast<int>(i));
  }
};

// Slice op i of concat `cat` whose elements along the concat axis all come from one of its
// inputs (a recurrent layer's last step out of its stacked outputs): the slice reads that
// input, its begin moved by the input's offset. The concat then dies when nothing else reads
// it (its inputs no longer live until it: a 100-step GRU kept every step's output).
bool SliceOfConcat(State& st, size_t i, const ir::Op& cat) {
  ir::Graph& g = st.g;
  ir::Op& op = g.ops[i];
  const ir::Tensor& x = g.tensor(op.inputs[0]);
  const auto axis = ir::NormalizeAxis(cat.attrs_as<ir::CatAttrs>().axis,
                                      static_cast<int64_t>(x.shape.size()));
  if (!axis) return false;
  const size_t a = static_cast<size_t>(*axis);
  auto& attrs = op.attrs_as<ir::SliceAttrs>();
  const int64_t n = g.tensor(op.outputs[0]).shape[a];
  const int64_t first = attrs.begin[a], last = first + (n - 1) * attrs.stride[a];
  int64_t offset = 0;
  for (ir::TensorId in : cat.inputs) {
    const ir::Tensor& t = g.tensor(in);
    const int64_t len = t.shape[a];
    if (first >= offset && last < offset + len) {
      // (A constant input, a recurrent layer's initial state: the slice kernels read
      // activations; const-fold has run.)
      if (!SameQuant(t, x) || t.is_constant()) return false;
      attrs.begin[a] = first - offset;
      attrs.end[a] = attrs.begin[a] + (n - 1) * attrs.stride[a] + 1;
      st.SetInput(i, in);
      return true;
    }
    offset += len;
  }
  return false;
}

// The flat element range [*first, *first + count) a slice of `in` takes, if it is one
// contiguous run (trailing dims whole, one dim cut with stride 1, the dims before it of
// extent 1 in the output).
bool SliceRun(const ir::Shape& in, const ir::Shape& out, const ir::SliceAttrs& a,
              int64_t* first) {
  int64_t d = static_cast<int64_t>(in.size()) - 1;
  for (; d >= 0 && out[static_cast<size_t>(d)] == in[static_cast<size_t>(d)]; --d) {
  }
  if (d >= 0 && a.stride[static_cast<size_t>(d)] != 1 && out[static_cast<size_t>(d)] > 1) {
    return false;
  }
  for (int64_t e = d - 1; e >= 0; --e) {
    if (out[static_cast<size_t>(e)] != 1) return false;
  }
  int64_t flat = 0;
  for (size_t e = 0; e < in.size(); ++e) flat = flat * in[e] + a.begin[e];
  *first = flat;
  return true;
}

// Slice op i of a reshape (view) of concat `cat`, taking exactly one concat input's elements
// (the concat along its outermost non-unit dim, so each input is a run of the output; a
// time-major GRU's stacked step outputs viewed batch-first, then its last step): op i
// becomes a reshape (view) of that input.
bool SliceOfReshapedConcat(State& st, size_t i, const ir::Op& cat) {
  ir::Graph& g = st.g;
  ir::Op& op = g.ops[i];
  const ir::Tensor& x = g.tensor(op.inputs[0]);
  const ir::Tensor& y = g.tensor(op.outputs[0]);
  const ir::Shape& cs = g.tensor(cat.outputs[0]).shape;
  const auto axis =
      ir::NormalizeAxis(cat.attrs_as<ir::CatAttrs>().axis, static_cast<int64_t>(cs.size()));
  if (!axis) return false;
  for (int64_t d = 0; d < *axis; ++d) {
    if (cs[static_cast<size_t>(d)] != 1) return false;
  }
  int64_t first = 0;
  if (!SliceRun(x.shape, y.shape, op.attrs_as<ir::SliceAttrs>(), &first)) return false;
  const int64_t count = ir::NumElements(y.shape);
  int64_t offset = 0;
  for (ir::TensorId in : cat.inputs) {
    const ir::Tensor& t = g.tensor(in);
    const int64_t n = ir::NumElements(t.shape);
    if (offset == first && n == count) {
      if (!SameQuant(t, x) || t.is_constant()) return false;
      op.type = OpType::kReshape;
      op.attrs = ir::ReshapeAttrs{y.shape};
      st.SetInput(i, in);
      return true;
    }
    offset += n;
  }
  return false;
}

// One rewrite of op i, or false.
bool Simplify(State& st, size_t i) {
  ir::Graph& g = st.g;
  ir::Op& op = g.ops[i];
  const ir::Tensor& x = g.tensor(op.inputs[0]);
  const ir::Tensor& y = g.tensor(op.outputs[0]);
  const int p = st.producer[static_cast<size_t>(op.inputs[0])];
  const ir::Op* prev = p == ir::kNoProducer ? nullptr : &g.ops[static_cast<size_t>(p)];
  switch (op.type) {
    case OpType::kTranspose: {
      auto& perm = op.attrs_as<ir::TransposeAttrs>().perm;
      if (prev && prev->type == OpType::kTranspose) {
        const auto& first = prev->attrs_as<ir::TransposeAttrs>().perm;
        std::vector<int64_t> composed(perm.size());
        for (size_t d = 0; d < perm.size(); ++d) composed[d] = first[static_cast<size_t>(perm[d])];
        st.SetInput(i, prev->inputs[0]);
        perm = composed;
        return true;
      }
      if (IsIdentity(perm)) return st.AliasAway(i);
      if (PreservesOrder(x.shape, perm)) {
        op.type = OpType::kReshape;
        op.attrs = ir::ReshapeAttrs{y.shape};
        return true;
      }
      return false;
    }
    case OpType::kReshape:
      if (prev && prev->type == OpType::kReshape) {
        st.SetInput(i, prev->inputs[0]);
        return true;
      }
      if (x.shape == y.shape) return st.AliasAway(i);
      op.attrs_as<ir::ReshapeAttrs>().shape = y.shape;  // no -1 left
      return false;
    case OpType::kRequantize: {
      const auto& a = op.attrs_as<ir::ClampAttrs>();
      if (SameQuant(x, y) && a.act_min <= -128 && a.act_max >= 127) return st.AliasAway(i);
      return false;
    }
    case OpType::kQConcat:
    case OpType::kCat:  // (a float model's)
      if (op.inputs.size() == 1 && SameQuant(x, y)) return st.AliasAway(i);
      return false;
    case OpType::kSlice: {
      if (x.shape == y.shape) return st.AliasAway(i);  // the whole tensor
      if (prev && prev->type == OpType::kSlice) {  // one slice: elements b1 + s1 * (b2 + s2 * k)
        const auto& p = prev->attrs_as<ir::SliceAttrs>();
        auto& a = op.attrs_as<ir::SliceAttrs>();
        for (size_t d = 0; d < a.begin.size(); ++d) {
          const int64_t n = y.shape[d];
          a.begin[d] = p.begin[d] + p.stride[d] * a.begin[d];
          a.stride[d] *= p.stride[d];
          a.end[d] = a.begin[d] + (n - 1) * a.stride[d] + 1;
        }
        st.SetInput(i, prev->inputs[0]);
        return true;
      }
      if (prev && (prev->type == OpType::kQConcat || prev->type == OpType::kCat)) {
        return SliceOfConcat(st, i, *prev);
      }
      if (prev && prev->type == OpType::kReshape) {
        const int q = st.producer[static_cast<size_t>(prev->inputs[0])];
        const ir::Op* cat = q == ir::kNoProducer ? nullptr : &g.ops[static_cast<size_t>(q)];
        if (cat && (cat->type == OpType::kQConcat || cat->type == OpType::kCat)) {
          return SliceOfReshapedConcat(st, i, *cat);
        }
      }
      return false;
    }
    case OpType::kQBmm: {
      auto& a = op.attrs_as<ir::QBmmAttrs>();
      for (size_t s = 0; s < 2; ++s) {
        const int q = st.producer[static_cast<size_t>(op.inputs[s])];
        if (q == ir::kNoProducer || st.removed[static_cast<size_t>(q)]) continue;
        const ir::Op& t = g.ops[static_cast<size_t>(q)];
        if (t.type != OpType::kTranspose || !SwapsLastTwo(t.attrs_as<ir::TransposeAttrs>().perm)) {
          continue;
        }
        op.inputs[s] = t.inputs[0];
        st.readers[static_cast<size_t>(t.inputs[0])].push_back(static_cast<int>(i));
        bool& adj = s == 0 ? a.adj_x : a.adj_y;
        adj = !adj;
        return true;
      }
      return false;
    }
    default:
      return false;
  }
}

}  // namespace

// One pass in op order, each op rewritten until no rule applies (O(ops + uses)). A rewrite
// of op i changes only op i, the readers of its output and (aliasing a graph output) the
// output tensor of its input's producer, none of which decides whether a rule applies to
// an earlier op: so this does what restarting from the first op after every rewrite did.
Status RemoveNoops(ir::Graph& g, const PassOptions&) {
  FoldMovementChains(g);
  State st{g, ir::ComputeProducers(g), ir::ComputeConsumers(g),
           std::vector<bool>(g.ops.size(), false)};
  for (size_t i = 0; i < g.ops.size(); ++i) {
    while (!st.removed[i] && Simplify(st, i)) {
    }
  }
  size_t kept = 0;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    if (st.removed[i]) continue;
    if (kept != i) g.ops[kept] = std::move(g.ops[i]);  // (no self-move)
    ++kept;
  }
  g.ops.resize(kept);
  RemoveDeadCode(g);  // transposes/reshapes whose only reader now reads around them
  return OkStatus();
}

}  // namespace tinyforge::passes
