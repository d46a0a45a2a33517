// The executor of pipes (tinyforge/pipe.h, docs/decisions.md 84): their schedule, their
// start from the first op's glue, and Model's pipe members (the init check, the dry run).
// Linked on demand: the generated model.cc of a program with a pipe names it (TF_PIPE_LINK,
// tinyforge/kernel_table.h); the op glue hands it a pipe's ops (RunStreamed, op_util.h).
#include "kernels/add/add_limits.h"
#include "op_util.h"
#include "runtime/src/records.h"

using namespace tinyforge::rt;  // NOLINT: the C symbol's types

namespace {

// The last member of a pipe: runs the schedule over every member's recorded stage.
// Out of line: its frame (the pipe state) stays off the single streamed op's stack.
[[gnu::noinline]] Status RunPipeStages(const PipeRun& st) {
  const int32_t n = st.stages;
  Pipe p;
  p.stages = n;
  for (int32_t s = 0; s < n; ++s) {
    p.g[s] = st.stage[s].g;
    if (s + 1 < n) {
      p.window_rows[s] = static_cast<int32_t>(st.stage[s].out_size / PipeRowBytes(p.g[s]));
    }
  }
  const PipeRun::Stage& last = st.stage[n - 1];
  // A residual pipe: the last stage (an ADD) reads the pipe's input row for row too.
  p.residual = last.in == st.stage[0].in ? 1 : 0;
  const uint32_t out_unit = static_cast<uint32_t>(last.g.out_unit_bytes);
  const int32_t slots = static_cast<int32_t>(last.ring_size / out_unit);
  const int64_t in_base = static_cast<int64_t>(reinterpret_cast<uintptr_t>(st.stage[0].in));
  const int64_t out_base = static_cast<int64_t>(reinterpret_cast<uintptr_t>(last.out));
  if (st.dry) return PipeFits(p, in_base, out_base, slots) ? Status::kOk : Status::kStreamOverrun;
  const bool ok = RunPipe(
      p, in_base, out_base, slots,
      [&](int32_t s, int32_t u, int32_t in_row, int32_t out_row) {
        const PipeRun::Stage& x = st.stage[s];
        const uint8_t* src = (s == 0 ? x.in : st.stage[s - 1].out) +
                             static_cast<uint32_t>(in_row) * static_cast<uint32_t>(x.g.in_unit_bytes);
        uint8_t* dst = s + 1 < n ? x.out + static_cast<uint32_t>(out_row) *
                                                    static_cast<uint32_t>(PipeRowBytes(x.g))
                                 : last.ring + static_cast<uint32_t>(out_row) * out_unit;
        x.unit(x.ctx, u, src, dst);
      },
      [&](int32_t s, int32_t from, int32_t rows) {
        const uint32_t row = static_cast<uint32_t>(PipeRowBytes(st.stage[s].g));
        uint8_t* w = st.stage[s].out;
        // A window's rows its consumer still needs, down to its start.
        ops::CopyForward(w, w + static_cast<uint32_t>(from) * row, static_cast<uint32_t>(rows) * row);
      },
      [&](int32_t v, int32_t slot) {
        ops::CopyForward(last.out + static_cast<uint32_t>(v) * out_unit,
                         last.ring + static_cast<uint32_t>(slot) * out_unit,
                         static_cast<uint32_t>(StreamUnitBytes(last.g, v)));
      });
  return ok ? Status::kOk : Status::kStreamOverrun;
}

// A pipe's first op (Model::Run): the pipe state on this frame, out of line so that a
// single streamed op's stack does not hold it.
[[gnu::noinline]] Status StartPipe(const OpContext& op, const StreamGeometry& g,
                                   const TensorRef& in, const TensorRef& out,
                                   const TensorRef& ring, ops::StreamUnitFn unit,
                                   const void* ctx) {
  PipeRun st;
  st.record = op.record();
  st.index = op.index();
  st.stages = 1;
  st.stage[0] = {g, in.data, out.data, ring.data, out.size, ring.size, unit, ctx};
  return op.model().RunPipeNext(st);
}

}  // namespace

extern "C" Status tf_rt_pipe_units(const OpContext& op, const StreamGeometry& g,
                                   const TensorRef& in, const TensorRef& out,
                                   const TensorRef& ring, ops::StreamUnitFn unit,
                                   const void* ctx) {
  if (op.pipe() == nullptr) {
    // Model::Run reaches a pipe's ops one by one: the first runs the whole pipe, the others
    // ran with it.
    if (op.pipe_in()) return Status::kOk;
    return StartPipe(op, g, in, out, ring, unit, ctx);
  }
  PipeRun& st = *op.pipe();
  if (st.stages >= kMaxPipeStages) return Status::kBadOp;
  st.stage[st.stages++] = {g, in.data, out.data, ring.data, out.size, ring.size, unit, ctx};
  return op.pipe_out() ? op.model().RunPipeNext(st) : RunPipeStages(st);
}

// ---- An ADD ending a pipe (a residual block's add; docs/decisions.md 99) ----------------
namespace tinyforge::rt::ops {
namespace {

using AddFn = void (*)(const s8_add_params*, const int8_t*, const int8_t*, int8_t*);

// An ADD ending a pipe: plain (both inputs read densely), by rows of its [.., H, W, C]
// output: rows = out_dims[0..3], a row out_dims[4] * out_dims[5] bytes. The window it
// reads is its in-place input slot (kBinIn1 or kBinIn2), the other input `side`.
struct AddRows {
  int32_t rows, row, window, side;
};

Status AddRowsOf(const OpContext& op, const s8_add_params& p, AddRows* r) {
  if (!op.pipe_in() || op.pipe_out()) return Status::kBadOp;
  int64_t rows = 1, row = 1;
  for (int i = 0; i < kS8BroadcastMaxDims; ++i) {
    if (!InRange(p.shape.out_dims[i], 1, kMaxDim)) return Status::kBadParams;
    (i < 4 ? rows : row) = Product(i < 4 ? rows : row, p.shape.out_dims[i]);
  }
  if (rows < 1 || row < 1 || Product(rows, row) < 1 || !kernels::Extent(p.shape).plain) {
    return Status::kBadParams;
  }
  r->rows = static_cast<int32_t>(rows);
  r->row = static_cast<int32_t>(row);
  r->window = op.window(abi::kBinIn1) ? abi::kBinIn1 : abi::kBinIn2;
  r->side = r->window == abi::kBinIn1 ? abi::kBinIn2 : abi::kBinIn1;
  return op.window(r->window) ? Status::kOk : Status::kBadOp;
}

TF_RT_COLD Status ValidateAddRows(const OpContext& op) {
  s8_add_params p{};
  TF_RT_TRY((DecodeChecked<OpKind::kAdd>(op, abi::kBinOperands, s8_add_check, &p)));
  AddRows r{};
  TF_RT_TRY(AddRowsOf(op, p, &r));
  const int64_t bytes = int64_t{r.rows} * r.row;
  TF_RT_TRY(Expect(op, abi::kBinIn1, fmt::kInt8, bytes));  // (the window: some rows)
  TF_RT_TRY(Expect(op, abi::kBinIn2, fmt::kInt8, bytes));
  TF_RT_TRY(Expect(op, abi::kBinOut, fmt::kInt8, bytes, true));
  const TensorRef side = op.tensor(r.side), out = op.tensor(abi::kBinOut);
  TF_RT_TRY(Disjoint(op.tensor(r.window), out));
  // The side input may overlap the output only as the pipe's input (the lifetime check
  // allows the pipe's declared partners alone; the schedule keeps its unread rows).
  const StreamGeometry g = StreamedGeometry(op, ElementwiseRows(r.rows, r.row));
  return ExpectLineBuffer(op, abi::kBinOperands, g.out_unit_bytes, side, out);
}

// Unit u: rows u * k .. of both inputs (the window's from `in`), one plain kernel call.
struct AddRowsRun {
  const s8_add_params* p;
  AddFn fn;
  const int8_t* side;
  AddRows r;
  int32_t k;
};

Status RunAddRows(const OpContext& op) {
  s8_add_params copy;
  AddRows r{};
  const s8_add_params* p = Params(op, &copy);
  TF_RT_TRY(AddRowsOf(op, *p, &r));
  const StreamGeometry g = StreamedGeometry(op, ElementwiseRows(r.rows, r.row));
  const AddRowsRun run{p, reinterpret_cast<AddFn>(op.entry().kernel),
                       reinterpret_cast<const int8_t*>(op.data(r.side)), r, g.rows_per_unit};
  const StreamUnitFn unit = [](const void* c, int32_t u, const uint8_t* in, uint8_t* out) {
    const AddRowsRun& x = *static_cast<const AddRowsRun*>(c);
    const int32_t r0 = u * x.k;
    const int32_t n = (x.r.rows - r0 < x.k ? x.r.rows - r0 : x.k) * x.r.row;
    s8_add_params q = *x.p;
    for (int i = 0; i < kS8BroadcastMaxDims; ++i) {
      q.shape.out_dims[i] = 1, q.shape.in1_strides[i] = 0, q.shape.in2_strides[i] = 0;
    }
    q.shape.out_dims[5] = n, q.shape.in1_strides[5] = 1, q.shape.in2_strides[5] = 1;
    const int8_t* w = reinterpret_cast<const int8_t*>(in);
    const int8_t* s = x.side + r0 * x.r.row;
    const bool first = x.r.window == abi::kBinIn1;
    x.fn(&q, first ? w : s, first ? s : w, reinterpret_cast<int8_t*>(out));
  };
  return tf_rt_pipe_units(op, g, op.tensor(r.side), op.tensor(abi::kBinOut),
                          op.tensor(abi::kBinOperands), unit, &run);
}

}  // namespace
}  // namespace tinyforge::rt::ops

// Validate_add / Run_add of a streamed ADD (runtime/ops/add.cc).
extern "C" Status tf_rt_pipe_add(const OpContext& op, bool validate) {
  return validate ? ops::ValidateAddRows(op) : ops::RunAddRows(op);
}

// ---- Model's pipe members (tinyforge/runtime.h) ----------------------------------------
namespace tinyforge::rt {

Status Model::RunPipeFrom(uint32_t index, const uint8_t* rec, bool dry) const {
  PipeRun st;
  st.record = rec;
  st.index = static_cast<int32_t>(index);
  st.dry = dry;
  const KernelEntry* entry = FindEntry(fmt::LoadU32(rec));
  return entry->run(OpContext(*this, st.index, rec, entry, &st));
}

Status Model::RunPipeNext(PipeRun& st) const {
  st.record += RecordSize(st.record);
  ++st.index;
  const KernelEntry* entry = FindEntry(fmt::LoadU32(st.record));
  return entry->run(OpContext(*this, st.index, st.record, entry, &st));
}

// Pipes (tinyforge/pipe.h): PIPE_IN exactly on the ops after a PIPE_OUT op, every member a
// streamed conv or depthwise conv (the last may be an ADD), at most kMaxPipeStages members,
// each reading the window its predecessor writes (their declared in-place slots); and each
// pipe's schedule completes with its windows and line buffer (a dry run).
Status Model::CheckPipes() {
  uint32_t pos = 0, head = 0, members = 0;
  const uint8_t* head_rec = nullptr;
  const uint8_t* prev = nullptr;
  for (uint32_t i = 0; i < num_ops_; ++i) {
    const uint8_t* rec = ops_ + pos;
    error_op_ = static_cast<int32_t>(i);
    error_kernel_ = fmt::LoadU32(rec);
    const uint32_t flags = fmt::LoadU32(rec + 8);
    const bool out = (flags & fmt::kOpFlagPipeOut) != 0, in = (flags & fmt::kOpFlagPipeIn) != 0;
    const bool prev_out = prev != nullptr && (fmt::LoadU32(prev + 8) & fmt::kOpFlagPipeOut) != 0;
    if (in || out) {
      const KernelEntry* e = FindEntry(fmt::LoadU32(rec));
      const uint8_t si = rec[fmt::kOffOpInPlaceInput], so = rec[fmt::kOffOpInPlaceOutput];
      // (An ADD ends a pipe only: a residual block's.)
      if ((flags & fmt::kOpFlagStream) == 0 || e == nullptr ||
          (e->op != OpKind::kConv && e->op != OpKind::kDwconv &&
           !(e->op == OpKind::kAdd && in && !out)) ||
          si == fmt::kNoSlot || so == fmt::kNoSlot) {
        return Status::kBadOp;
      }
    }
    if (in != prev_out) return Status::kBadOp;
    if (in) {
      const uint8_t po = prev[fmt::kOffOpInPlaceOutput], si = rec[fmt::kOffOpInPlaceInput];
      if (++members > static_cast<uint32_t>(kMaxPipeStages) ||
          fmt::LoadI32(prev + fmt::kOpHeaderSize + 4u * po) !=
              fmt::LoadI32(rec + fmt::kOpHeaderSize + 4u * si)) {
        return Status::kBadOp;
      }
    } else if (out) {
      head = i, head_rec = rec, members = 1;
    }
    if (in && !out) TF_RT_TRY(RunPipeFrom(head, head_rec, true));
    prev = rec;
    pos += RecordSize(rec);
  }
  if (prev != nullptr && (fmt::LoadU32(prev + 8) & fmt::kOpFlagPipeOut) != 0) return Status::kBadOp;
  error_op_ = -1;
  error_kernel_ = 0;
  return Status::kOk;
}

}  // namespace tinyforge::rt

extern "C" Status tf_rt_check_pipes(Model* model) { return model->CheckPipes(); }
