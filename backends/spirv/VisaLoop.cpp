// The whole K loop as one inline-vISA statement (VisaLoop.h). Two parts:
//  1. Match (pure IR): the body of the lane-level scf.for is traced element by element. Every scalar
//     index value is "base + constant" (base: a value defined outside the loop, the induction variable,
//     or a loop-carried coordinate whose yield is itself + constant); every vector element is known
//     to be (load L, element e), (accumulator argument a, element e) or (dpas D, element e). Allowed
//     ops: arith.constant/addi/subi/convert on indices, vector.extract/from_elements, xe.load_2d,
//     xe.prefetch_2d, xe.dpas (the probed bf16/f16 -> f32 8x16x16 and s8 -> s32 8x16x32 forms), the
//     f32 FMA GEMM's lane.broadcast of a load element from a constant lane and lane.fma of that
//     broadcast, a load element and an accumulator (one `mad` whose A is a scalar region <0;1,0> of
//     the message's response: the per-op path rebuilds both 2D headers every step instead),
//     gpu.barrier, scf.yield, and scf.if on "induction variable % 2^n ==/!= 0" whose then-region
//     holds only barriers, prefetches and index math and whose results are loop-carried coordinates
//     stepped by a constant there (RFC 2.5's L2 prefetch every fourth step behind a barrier). Each dpas
//     accumulator must be a chain that starts at consecutive elements of an accumulator argument and
//     ends in the yield at the same elements; A and B operands must be load elements. Anything else:
//     no match (the per-op lowering).
//  2. Emit: loads of one surface whose rectangles tile a larger legal message are merged into it
//     (same block width; more blocks side by side, more rows); every DPAS operand must then be a
//     GRF-aligned register range of one message's response, checked element by element against the
//     response layout (reference §2.3) -- else no match. The asm builds one header per message before
//     the loop (raw_sends, SFID 15 = UGM, descriptor per reference §2.1), bumps x/y per iteration and
//     keeps the accumulators in its output variable ($0, tied to the initial accumulators). An scf.if
//     becomes a block inside the loop that a predicated forward jmp skips (`and`, `cmp.eq`): its
//     barrier, prefetches and the header bumps of the coordinates it advances.
//  3. SLM (RFC 2.4's ring buffers): xe.block_read / xe.block_write on an SLM buffer at indices the
//     index program computes (VisaIndexProgram.h: the ring stage's divisions and remainders), sent as
//     SIMD1 transposed LSC messages; such a loop keeps the body's order (walkSlm, planSlm).
#include "backends/spirv/VisaLoop.h"

#include "backends/spirv/LoopCoords.h"
#include "backends/spirv/VisaIndexProgram.h"
#include "ir/ops/XeOps.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Metadata.h>

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <map>
#include <optional>
#include <tuple>
#include <regex>
#include <set>
#include <span>
#include <sstream>

namespace xtc::backend {

namespace {

using ir::ElemKind;

constexpr int64_t kGrf = 64;  // bytes per register (pvc)

enum class Src : uint8_t { Load, Acc, Dpas };
struct Elem {
  Src kind;
  int src;  // load / dpas number, or accumulator argument number (block argument index)
  int idx;  // element
  bool operator==(const Elem& o) const { return kind == o.kind && src == o.src && idx == o.idx; }
};

// A 2D block message: a load of the IR (or a merge of several), or a prefetch.
struct Msg {
  const ir::Operation* surface;  // the op whose operands 0..3 are base, width, height, pitch
  Sym x, y;
  int64_t bits, bw, h, blocks;
  bool vnni, prefetch, cached, transpose = false;
  int cond = -1;  // the IfBlock it is sent in (a prefetch inside an scf.if), -1: every step
  // An SLM block read (xe.block_read): `slmBytes` from element `idx` of `mem`, the value's elements
  // `slmEb` bytes each, lane-interleaved in units of `slmPack` bytes (elem_bits / 8), sent as 256-byte
  // d32x64t messages at byte address addrBase + addrOff (+ 256 per message).
  bool slm = false;
  const ir::Value* mem = nullptr;
  VisaIndexProgram::Aff idx{};
  int64_t slmBytes = 0, slmEb = 0, slmPack = 0;
  VisaIndexProgram::Root addrBase{};
  int64_t addrOff = 0;
  int64_t eb() const { return bits / 8; }
  int64_t wpad() const { return std::bit_ceil(static_cast<uint64_t>(bw)); }
  // A transposed block is one row of pow2(h) elements per column (reference §2.3).
  int64_t blockBytes() const {
    int64_t raw = transpose ? bw * static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(h))) * eb() : h * wpad() * eb();
    return (raw + kGrf - 1) / kGrf * kGrf;
  }
  int64_t respBytes() const { return slm ? slmBytes : prefetch ? 0 : blocks * blockBytes(); }
  // Byte of (row r, column c) in the response, c counted over all blocks (reference §2.3).
  int64_t byteOf(int64_t r, int64_t c) const {
    int64_t b = c / bw, cc = c % bw;
    if (!vnni) return b * blockBytes() + (r * wpad() + cc) * eb();
    int64_t p = 4 / eb();
    return b * blockBytes() + ((r / p) * wpad() + cc) * 4 + (r % p) * eb();
  }
  // Inverse of byteOf for a byte inside the response.
  std::pair<int64_t, int64_t> rowColOf(int64_t byte) const {
    int64_t b = byte / blockBytes(), q = byte % blockBytes();
    if (!vnni) return {q / (wpad() * eb()), (q % (wpad() * eb())) / eb() + b * bw};
    int64_t p = 4 / eb(), rem = q % (wpad() * 4);
    return {(q / (wpad() * 4)) * p + (rem % 4) / eb(), rem / 4 + b * bw};
  }
  uint32_t shapeDword() const {
    return static_cast<uint32_t>((bw - 1) | ((h - 1) << 8) | ((blocks - 1) << 16));
  }
  uint32_t descriptor() const {
    uint32_t size = bits == 8 ? 0u : bits == 16 ? 1u : 2u;
    uint32_t rlen = static_cast<uint32_t>(std::min<int64_t>(31, respBytes() / kGrf));
    uint32_t cache = prefetch ? (cached ? 4u : 2u) : 0u;  // L1/L3: cached 0x80000, uncached L1 0x40000
    return 3u | (vnni ? 1u << 7 : 0u) | size << 9 | (transpose ? 1u << 15 : 0u) | cache << 17 | rlen << 20 | 1u << 25;
  }
};

// Byte of element e of lane 0 in a per-lane vector whose LLVM elements are `packBytes` wide and
// hold packBytes/eb IR elements each (IGC's layout of a SIMD16 vector: element-major, lanes inside).
int64_t laneByte(int64_t e, int64_t eb, int64_t packBytes) {
  int64_t p = packBytes / eb;
  return (e / p) * 16 * packBytes + (e % p) * eb;
}

// The load message shapes the whole-loop asm may emit: each has a tests/isa/builtins/visa_loop_*.ir
// probe (raw_sends with this descriptor and header). {bits, block width, height, blocks, vnni}.
struct Shape {
  int64_t bits, bw, h, blocks;
  bool vnni, transpose = false;
};
// Tried in this order (the first that tiles a group, every load inside one piece, wins; a transposed
// shape only for its own load, never as a piece of a plain group): visa_loop_{bf16,f16}_32x32 (d16
// 2x16x32 plain and VNNI), visa_loop_f16_16x32 (VNNI 2x16x16, plain 1x16x16), visa_loop_f16_8x32
// (1x16x8), visa_loop_i8_16x16 (d8 plain 1x32x16, VNNI 1x16x32), visa_loop_f16_bt (transposed d32
// 1x8x16, never merged: each is one DPAS B operand of 16-bit pairs, the VNNI layout),
// visa_loop_f32_fma (d32 plain 1x8x8 and 1x16x8, the FMA GEMMs' A and B), visa_loop_f32_fma_at (the
// transposed d32 A of gemm_acc read by scalar regions), tests/isa/gemm/rfc_2_4_gemm_slm.pvc.isa (d16
// 2x16x4: RFC 2.4's cooperative 4-row slices). Issue #10, tiles with one 16-column DPAS block (N = 16)
// or a K step of 32 (16-bit) or 64 (i8): visa_loop_f16_16x16 (VNNI 1x16x16), visa_loop_f16_32x16
// (plain 1x16x32), visa_loop_f16_16x16_k32 (plain 2x16x16, VNNI 1x16x32), visa_loop_bf16_8x16_k32
// (plain 2x16x8), visa_loop_i8_32x32_k64 (d8 plain 2x32x32, VNNI 2x16x32), visa_loop_i8_32x32 (d8
// plain 1x32x32), visa_loop_i8_16x16_k64 (d8 plain 2x32x16), visa_loop_i8_8x16_k64 (d8 plain
// 2x32x8), visa_loop_i8_8x16 (d8 plain 1x32x8: an 8-row A at K step 32, last: every box an older
// d8 shape tiles keeps it), visa_loop_i8_8x64 (VNNI d8 4x16x32, 32 GRF: a 64-column i8 B in one
// message per 32 K rows, before the two-block form, which then tiles only 32-column boxes); 24 rows
// (M = 24 tiles, whose A split-accumulators leaves as a 16-row and an 8-row slice: one message a K
// step, not two): visa_loop_f16_pf_24x16 (d16 plain 1x16x24), visa_loop_f16_pf_24x16_k32 (2x16x24),
// visa_loop_i8_24x16 (d8 plain 1x32x24), visa_loop_i8_24x16_k64 (2x32x24), after the 32-row forms
// (a 96-row box: three messages, not four) and before the 16-row ones (a 48-row box of 8-row loads:
// two, not three; a box with a 16-row load across row 24 is not theirs). The one-block VNNI d16 shapes come last (no group an older shape tiled changes); the
// others come before the older shapes of their form that tile the same box in more messages, so a
// box of two such loads is one message, not two (no example has such a box: their statements are
// byte-identical). Last, the A of a 1/2/4-row DPAS at K step 16 (issue #10): d16 plain 1x16x4
// (visa_loop_bf16_4x16), 1x16x2 (visa_loop_f16_2x16), 1x16x1 (visa_loop_f16_1x32; its 32-byte row
// padded to a GRF, blockBytes); the i8 ones, d8 1x32x4, 1x32x2, 1x32x1 (visa_loop_i8_{4,2,1}x16).
constexpr Shape kLoadShapes[] = {
    {16, 16, 32, 2, false}, {16, 16, 32, 2, true}, {16, 16, 16, 2, true}, {16, 16, 32, 1, false},
    {16, 16, 24, 2, false}, {16, 16, 24, 1, false},
    {16, 16, 16, 2, false}, {16, 16, 16, 1, false}, {16, 16, 8, 2, false}, {16, 16, 8, 1, false},
    {8, 32, 32, 2, false},  {8, 32, 32, 1, false},  {8, 32, 24, 2, false}, {8, 32, 24, 1, false},
    {8, 32, 16, 2, false}, {8, 32, 8, 2, false},
    {8, 32, 16, 1, false},  {8, 16, 32, 4, true},   {8, 16, 32, 2, true},   {8, 16, 32, 1, true},  {32, 8, 16, 1, false, true},
    {32, 8, 8, 1, false},   {32, 16, 8, 1, false},  {16, 16, 4, 2, false}, {16, 16, 32, 1, true},
    {16, 16, 16, 1, true},  {8, 32, 8, 1, false},   {16, 16, 4, 1, false}, {16, 16, 2, 1, false},
    {16, 16, 1, 1, false},  {8, 32, 4, 1, false},   {8, 32, 2, 1, false},  {8, 32, 1, 1, false}};
// Prefetches (cached only), tried in this order when merging: d16 2x16x32 and 2x16x16
// (visa_loop_if), 2x16x8 (visa_loop_f16_32x32); one block (issue #10: 16-column prefetch tiles)
// 1x16x32 (visa_loop_f16_pf_32x16_k32), 1x16x16 and 1x16x8 (visa_loop_f16_pf_8x16: B's two 8-row
// messages merged, A's one); 24 rows (issue #10: a 24-row prefetch tile arrives as three 8-row
// pieces) 2x16x24 (visa_loop_f16_pf_24x16_k32) and 1x16x24 (visa_loop_f16_pf_24x16), each after the
// 32-row form of its block count. A merge keeps the block count, so the one-block shapes never take
// a two-block group.
constexpr Shape kPrefetchShapes[] = {{16, 16, 32, 2, false}, {16, 16, 24, 2, false}, {16, 16, 16, 2, false},
                                     {16, 16, 8, 2, false},  {16, 16, 32, 1, false}, {16, 16, 24, 1, false},
                                     {16, 16, 16, 1, false}, {16, 16, 8, 1, false}};

bool proven(const Msg& m) {
  for (const Shape& s : m.prefetch ? std::span<const Shape>(kPrefetchShapes) : std::span<const Shape>(kLoadShapes))
    if (s.bits == m.bits && s.bw == m.bw && s.h == m.h && s.blocks == m.blocks && s.vnni == m.vnni &&
        s.transpose == m.transpose)
      return true;
  return false;
}

struct DpasOp {
  const ir::Operation* op;
  std::vector<Elem> acc, a, b;
  int64_t slot = -1;  // byte of its accumulator in the asm's accumulator variable
  bool consumed = false;
  int lane = -1;  // a lane.fma (one f32 per lane: acc, a, b one element each): a's lane, else -1
};

// The condition of an scf.if in the loop: ((induction variable + off) & mask) == 0 (eq) or != 0. Only
// a remainder by a power of two compared with 0 is matched: `x % 2^n == 0` is `x & (2^n - 1) == 0`
// for signed and unsigned remainders alike (two's complement), so vISA needs one `and`.
struct Cond {
  int64_t off = 0, mask = 0;
  bool eq = true;
};

// An scf.if of the body: its barrier, its prefetches (Msg::cond) and the coordinates it advances
// (loop-carried index arguments stepped only when the condition holds).
struct IfBlock {
  Cond cond;
  bool barrier = false;
};

struct LoadOp {
  const ir::Operation* op;
  Msg shape;  // its own message
  int msg = -1;
  int64_t dx = 0, dy = 0;  // its origin inside message `msg`
};

// An SLM block write (xe.block_write) of 128 bytes (one d64x16t message) whose data are elements of
// the loop's loads: sent straight from the response when the data lie there in the payload's layout
// (`alias`), else gathered into a payload variable by 16-lane movs (`movs`: {message, payload byte,
// response byte} per IR element; RFC 2.4's B rows interleaved into pairs).
struct SlmWrite {
  const ir::Operation* op;
  const ir::Value* mem;
  VisaIndexProgram::Aff idx;
  std::vector<Elem> data;
  int64_t eb = 0, pack = 0;
  int aliasMsg = -1;
  int64_t aliasByte = 0;
  struct Move {
    int msg;
    int64_t dst, src;
  };
  std::vector<Move> movs{};
  VisaIndexProgram::Root addrBase{};
  int64_t addrOff = 0;
};

// The body in program order, for a loop with SLM messages: their order around the barriers is the
// program's synchronisation, so the asm keeps it.
enum class Step : uint8_t { Load, Dpas, Barrier, Write };

class LoopMatcher {
 public:
  explicit LoopMatcher(const ir::Operation& forOp) : for_(forOp), body_(forOp.region(0).block()) {}

  bool match();
  // Why match() failed, for `--remarks` (LLVMEmitter.cpp): the first reason recorded.
  std::string why_;

  const ir::Operation& for_;
  const ir::Block& body_;
  int64_t step_ = 0;
  std::map<const ir::Value*, Sym> syms_;
  std::map<const ir::Value*, std::vector<Elem>> elems_;
  std::set<const ir::Value*> inside_;
  std::vector<LoadOp> loads_;
  std::vector<DpasOp> dpas_;
  std::vector<Msg> msgs_;                     // merged loads first, then prefetches
  std::map<const ir::Value*, int64_t> steps_;  // loop-carried coordinate (or the induction variable) -> step
  std::vector<unsigned> accArgs_;              // block argument numbers of the accumulators
  std::map<unsigned, int64_t> accBase_;        // accumulator argument -> first element in the asm variable
  int64_t accElems_ = 0;
  // The asm's outputs: consecutive runs of accumulator elements, {first element, size}, sizes 1, 2,
  // 4 or 8 (SPIR-V vector sizes); chunkOf_[e] is element e's output.
  std::vector<std::pair<int64_t, int64_t>> chunks_;
  std::vector<size_t> chunkOf_;
  ElemKind accKind_ = ElemKind::F32;
  std::vector<IfBlock> ifs_;
  bool barrier_ = false;  // a gpu.barrier outside any scf.if: every step
  // Loop-carried coordinate -> {IfBlock, step}: advanced only when that block's condition holds.
  std::map<const ir::Value*, std::pair<int, int64_t>> condSteps_;
  // Index math that is not "base + constant" (VisaIndexProgram.h): only in loops with SLM messages.
  std::optional<VisaIndexProgram> prog_;
  std::map<const ir::Value*, VisaIndexProgram::Aff> affs_;
  bool affUsed_ = false;
  std::vector<SlmWrite> writes_;
  std::vector<std::pair<Step, int>> order_;
  // Loop-carried coordinate -> the first argument of the same initial value and step (checkYield):
  // equal in every iteration, so their messages group as one base (split-accumulators' row slices
  // of A carry a column coordinate each, one surface: a 16-row and an 8-row load that one 24-row
  // message covers).
  std::map<const ir::Value*, const ir::Value*> same_;
  const ir::Value* canon(const ir::Value* base) const {
    auto it = base ? same_.find(base) : same_.end();
    return it == same_.end() ? base : it->second;
  }
  bool no(std::string why) {
    if (why_.empty()) why_ = std::move(why);
    return false;
  }
  bool slm() const {
    return !writes_.empty() || std::any_of(loads_.begin(), loads_.end(), [](const LoadOp& l) { return l.shape.slm; });
  }

 private:
  std::optional<Sym> sym(const ir::Value* v) const {
    if (auto it = syms_.find(v); it != syms_.end()) return it->second;
    if (inside_.count(v)) return std::nullopt;
    if (std::optional<int64_t> c = constInt(v)) return Sym{nullptr, *c};
    if (!v->type().isScalar() || !ir::isIntElem(v->type().elem())) return std::nullopt;
    // Through converts and "+/- constant" (canonicalize hoists a split loop's row offsets out of it,
    // one value each: as bases of their own they would keep its loads from merging; as "common base
    // + constant" they merge as in the first loop).
    return outerSym(v);
  }
  const std::vector<Elem>* elems(const ir::Value* v) const {
    auto it = elems_.find(v);
    return it == elems_.end() ? nullptr : &it->second;
  }
  bool walkOp(const ir::Operation& op);
  bool walkIf(const ir::Operation& op);
  bool walkIndex(const ir::Operation& op);
  bool walkSlm(const ir::Operation& op);
  std::optional<VisaIndexProgram::Aff> aff(const ir::Value* v) {
    if (auto it = affs_.find(v); it != affs_.end()) return it->second;
    std::optional<Sym> s = sym(v);
    if (!s || s->div != 1) return std::nullopt;
    if (!s->base) return VisaIndexProgram::constant(s->off);
    VisaIndexProgram::Aff a = VisaIndexProgram::counter();
    if (s->base != body_.argument(0)) {
      if (inside_.count(s->base)) return std::nullopt;  // a loop-carried coordinate
      a = prog_->outer(s->base);
    }
    a.add = s->off;
    return a;
  }
  int curIf_ = -1;  // the IfBlock whose then-region walkOp is in
  std::map<const ir::Value*, std::pair<Sym, int64_t>> rems_;  // x % c: {x, c}
  std::map<const ir::Value*, Cond> conds_;
  // A result of an scf.if: {loop-carried argument it yields in the else region, step in the then
  // region, IfBlock}.
  struct CondResult {
    const ir::Value* arg;
    int64_t step;
    int block;
  };
  std::map<const ir::Value*, CondResult> condResults_;
  std::map<const ir::Value*, std::pair<Elem, int>> bcasts_;  // lane.broadcast: {load element, lane}
  bool checkYield(const ir::Operation& yield);
  bool planMessages();
  bool placeOperands();
  bool planSlm();
};

bool LoopMatcher::walkOp(const ir::Operation& op) {
  for (unsigned i = 0; i < op.numResults(); ++i) inside_.insert(op.result(i));
  if (op.is("scf.if")) return walkIf(op);
  if (op.numRegions() != 0) return false;
  if (op.is("gpu.barrier")) {
    (curIf_ < 0 ? barrier_ : ifs_[static_cast<size_t>(curIf_)].barrier) = true;
    if (curIf_ < 0) order_.push_back({Step::Barrier, 0});
    return true;
  }
  if (op.is("xe.block_read") || op.is("xe.block_write")) return walkSlm(op);
  if (op.is("arith.remsi") || op.is("arith.remui")) {
    // Of the induction variable (the asm's counter) by a power of two: a condition's operand (else
    // index math of an SLM address).
    std::optional<Sym> a = sym(op.operand(0)), d = sym(op.operand(1));
    if (!a || !d || a->base != body_.argument(0) || a->div != 1 || d->base || d->off <= 0 ||
        !std::has_single_bit(static_cast<uint64_t>(d->off)))
      return walkIndex(op);
    rems_[op.result()] = {*a, d->off};
    return true;
  }
  if (op.is("arith.divsi") || op.is("arith.muli")) return walkIndex(op);
  if (op.is("arith.cmpi")) {
    const ir::Attribute* pr = op.attr("predicate");
    auto r = rems_.find(op.operand(0));
    std::optional<Sym> z = sym(op.operand(1));
    if (!pr || !pr->isa(ir::AttrKind::Enum) || (pr->getString() != "eq" && pr->getString() != "ne") ||
        r == rems_.end() || !z || z->base || z->off != 0)
      return false;
    conds_[op.result()] = Cond{r->second.first.off, r->second.second - 1, pr->getString() == "eq"};
    return true;
  }
  if (op.is("arith.constant")) {
    std::optional<int64_t> c = constInt(op.result());
    if (!c) return false;
    syms_[op.result()] = Sym{nullptr, *c};
    return true;
  }
  if (op.is("arith.addi") || op.is("arith.subi")) {
    std::optional<Sym> a = sym(op.operand(0)), b = sym(op.operand(1)), r;
    if (a && b) r = addSyms(*a, *b, op.is("arith.subi"));
    if (!r) return walkIndex(op);
    syms_[op.result()] = *r;
    return true;
  }
  if (op.is("arith.divui")) {
    std::optional<Sym> a = sym(op.operand(0)), d = sym(op.operand(1));
    if (!a || !d || d->base || d->off <= 0 || a->div != 1 || a->off < 0) return walkIndex(op);
    syms_[op.result()] = a->base ? Sym{a->base, a->off, d->off, 0} : Sym{nullptr, a->off / d->off};
    return true;
  }
  if (op.is("arith.convert")) {
    if (!op.result()->type().isScalar() || !ir::isIntElem(op.result()->type().elem())) return false;
    std::optional<Sym> a = sym(op.operand(0));
    if (!a) return walkIndex(op);
    syms_[op.result()] = *a;
    return true;
  }
  if (op.is("vector.extract")) {
    const std::vector<Elem>* v = elems(op.operand(0));
    int64_t i = op.intAttr("index", -1);
    if (!v || i < 0 || i >= static_cast<int64_t>(v->size())) return false;
    elems_[op.result()] = {(*v)[static_cast<size_t>(i)]};
    return true;
  }
  if (op.is("vector.from_elements")) {
    std::vector<Elem> out;
    for (const ir::Value* o : op.operands()) {
      const std::vector<Elem>* v = elems(o);
      if (!v || v->size() != 1) return false;
      out.push_back((*v)[0]);
    }
    elems_[op.result()] = std::move(out);
    return true;
  }
  if (op.is("xe.load_2d") || op.is("xe.prefetch_2d")) {
    if (curIf_ >= 0 && op.is("xe.load_2d")) return false;  // conditional: prefetches only
    for (unsigned i = 0; i < 4; ++i)
      if (inside_.count(op.operand(i))) return false;  // the surface must be loop-invariant
    std::optional<Sym> x = sym(op.operand(4)), y = sym(op.operand(5));
    if (!x || !y || y->div != 1) return false;
    Msg m{&op, *x, *y, op.intAttr("elem_bits", 0), op.intAttr("block_w", 0), op.intAttr("block_h", 0),
          op.intAttr("array_len", 1), op.boolAttr("vnni"), op.is("xe.prefetch_2d"), true, op.boolAttr("transpose")};
    if ((m.transpose && (m.prefetch || m.bits != 32)) || (x->div != 1 && !m.transpose)) return false;
    if (m.bits != 8 && m.bits != 16 && m.bits != 32) return false;
    if (m.prefetch) {
      m.cond = curIf_;
      const ir::Attribute* c = op.attr("cache");
      m.cached = !c || !c->isa(ir::AttrKind::Enum) || c->getString() != "uncached";
      msgs_.push_back(m);
      return true;
    }
    std::vector<Elem> out;
    int64_t n = op.result()->type().shape().at(0);
    for (int64_t e = 0; e < n; ++e) out.push_back({Src::Load, static_cast<int>(loads_.size()), static_cast<int>(e)});
    order_.push_back({Step::Load, static_cast<int>(loads_.size())});
    loads_.push_back({&op, m});
    elems_[op.result()] = std::move(out);
    return true;
  }
  if (op.is("lane.broadcast")) {
    // Only as the A operand of a lane.fma (elems_ has no entry for it): an f32 load element of one lane.
    const std::vector<Elem>* x = elems(op.operand(0));
    std::optional<Sym> lane = sym(op.operand(1));
    if (!x || x->size() != 1 || (*x)[0].kind != Src::Load || !lane || lane->base || lane->off < 0 || lane->off >= 16 ||
        op.result()->type().elem() != ElemKind::F32)
      return false;
    bcasts_[op.result()] = {(*x)[0], static_cast<int>(lane->off)};
    return true;
  }
  if (op.is("lane.fma")) {
    auto a = bcasts_.find(op.operand(0));
    const std::vector<Elem>*b = elems(op.operand(1)), *acc = elems(op.operand(2));
    if (curIf_ >= 0 || a == bcasts_.end() || !b || !acc || b->size() != 1 || acc->size() != 1 ||
        (*b)[0].kind != Src::Load || accKind_ != ElemKind::F32 || op.result()->type().elem() != ElemKind::F32)
      return false;
    elems_[op.result()] = {{Src::Dpas, static_cast<int>(dpas_.size()), 0}};
    order_.push_back({Step::Dpas, static_cast<int>(dpas_.size())});
    dpas_.push_back({&op, *acc, {a->second.first}, *b, -1, false, a->second.second});
    return true;
  }
  if (op.is("xe.dpas")) {
    if (curIf_ >= 0) return false;
    const std::vector<Elem>*acc = elems(op.operand(0)), *a = elems(op.operand(1)), *b = elems(op.operand(2));
    if (!acc || !a || !b || op.intAttr("n", 0) != 16) return false;
    // Only the forms the visa_loop_* probes prove: bf16/f16 -> f32 with K = 16, s8 -> s32 with K = 32,
    // M = 8, 4, 2 or 1 (the short tiles, issue #10: visa_loop_bf16_4x16, visa_loop_f16_2x16,
    // visa_loop_f16_1x32, visa_loop_i8_{4,2,1}x16; others: per op).
    ElemKind in = op.operand(1)->type().elem(), ak = op.operand(0)->type().elem();
    int64_t m = op.intAttr("m", 0), k = op.intAttr("k", 0);
    bool fp = (in == ElemKind::BF16 || in == ElemKind::F16) && ak == ElemKind::F32 && k == 16;
    bool i8 = in == ElemKind::I8 && ak == ElemKind::I32 && k == 32;
    bool rows = m == 8 || m == 4 || m == 2 || m == 1;
    if ((!fp && !i8) || op.operand(2)->type().elem() != in || ak != accKind_ || !rows ||
        static_cast<int64_t>(acc->size()) != m)
      return false;
    for (const std::vector<Elem>* v : {a, b})
      for (const Elem& e : *v)
        if (e.kind != Src::Load) return false;
    std::vector<Elem> out;
    for (int64_t e = 0; e < m; ++e) out.push_back({Src::Dpas, static_cast<int>(dpas_.size()), static_cast<int>(e)});
    order_.push_back({Step::Dpas, static_cast<int>(dpas_.size())});
    dpas_.push_back({&op, *acc, *a, *b});
    elems_[op.result()] = std::move(out);
    return true;
  }
  return false;
}

// An scf.if on a matched condition whose then-region holds only barriers, prefetches and index math,
// whose else-region (if any) only yields, and whose results are loop-carried coordinates: the
// then-region yields "argument + constant", the else-region the argument itself (checkYield then
// requires the loop to yield the result in that argument's place). Not nested.
bool LoopMatcher::walkIf(const ir::Operation& op) {
  auto c = conds_.find(op.operand(0));
  if (curIf_ >= 0 || op.numRegions() != 2 || c == conds_.end() || op.region(0).numBlocks() != 1) return false;
  int id = static_cast<int>(ifs_.size());
  ifs_.push_back({c->second});
  const ir::Operation* thenYield = nullptr;
  curIf_ = id;
  for (const auto& o : op.region(0).block().opList()) {
    if (o->is("scf.yield")) {
      thenYield = o.get();
      break;
    }
    if (!walkOp(*o)) return false;
  }
  curIf_ = -1;
  const ir::Operation* elseYield = nullptr;
  if (op.region(1).numBlocks() > 1) return false;
  if (op.region(1).numBlocks() == 1)
    for (const auto& o : op.region(1).block().opList()) {
      if (!o->is("scf.yield")) return false;
      elseYield = o.get();
    }
  for (unsigned r = 0; r < op.numResults(); ++r) {
    if (!thenYield || !elseYield) return false;
    const ir::Value* arg = elseYield->operand(r);
    std::optional<Sym> t = sym(thenYield->operand(r));
    bool carried = arg->isBlockArgument() && arg->ownerBlock() == &body_ && arg->index() > 0 &&
                   arg->type().isScalar() && arg->type().elem() == ElemKind::Index;
    if (!carried || !t || t->base != arg || t->div != 1) return false;
    condResults_[op.result(r)] = {arg, t->off, id};
  }
  return true;
}

// Index math the Sym form cannot hold (VisaIndexProgram.h); only SLM addresses may use its results
// (aff(); a 2D coordinate or a yield needs a Sym and refuses them).
bool LoopMatcher::walkIndex(const ir::Operation& op) {
  if (curIf_ >= 0 || op.numResults() != 1 || op.numOperands() == 0 || !op.result()->type().isScalar() ||
      !ir::isIntElem(op.result()->type().elem()))
    return false;
  std::optional<VisaIndexProgram::Aff> a = aff(op.operand(0)), r;
  if (!a) return false;
  if (op.is("arith.convert")) {
    // 32-bit registers: only between integers of 32 bits or more (index, i32, i64).
    if (!ir::isIntElem(op.operand(0)->type().elem()) || ir::elemBits(op.operand(0)->type().elem()) < 32 ||
        ir::elemBits(op.result()->type().elem()) < 32)
      return false;
    r = a;
  } else {
    if (op.numOperands() != 2) return false;
    std::optional<VisaIndexProgram::Aff> b = aff(op.operand(1));
    if (!b) return false;
    if (op.is("arith.addi")) r = prog_->add(*a, *b);
    else if (op.is("arith.subi")) r = prog_->sub(*a, *b);
    else if (op.is("arith.muli")) r = prog_->mul(*a, *b);
    else if (op.is("arith.divsi") || op.is("arith.divui")) r = prog_->div(*a, *b);
    else if (op.is("arith.remsi") || op.is("arith.remui")) r = prog_->rem(*a, *b);
  }
  if (!r) return false;
  affs_[op.result()] = *r;
  affUsed_ = true;
  return true;
}

// xe.block_read / xe.block_write on a rank-1 SLM buffer defined outside the loop, at an index the
// program can compute. The proven messages (tests/isa/gemm/rfc_2_4_gemm_slm.pvc.isa): reads of whole
// 256-byte d32x64t blocks, writes of one 128-byte d64x16t block.
bool LoopMatcher::walkSlm(const ir::Operation& op) {
  bool write = op.is("xe.block_write");
  const ir::Value* mem = op.operand(write ? 1 : 0);
  const ir::Type& mt = mem->type();
  if (curIf_ >= 0 || inside_.count(mem) || !mt.isMemRef() || mt.memSpace() != ir::MemSpace::Slm || mt.rank() != 1 ||
      op.numOperands() != (write ? 3u : 2u))
    return false;
  std::optional<VisaIndexProgram::Aff> idx = aff(op.operand(write ? 2 : 1));
  const ir::Type& vt = write ? op.operand(0)->type() : op.result()->type();
  std::optional<int64_t> unit = ir::blockUnit(op);
  if (!idx || !unit || !vt.isVector() || vt.rank() != 1 || vt.elem() != mt.elem()) return false;
  int64_t eb = ir::elemBits(vt.elem()) / 8, bytes = vt.shape()[0] * eb * 16;
  if (eb == 0) return false;
  if (write) {
    const std::vector<Elem>* d = elems(op.operand(0));
    if (!d || bytes != 128) return false;
    for (const Elem& e : *d)
      if (e.kind != Src::Load) return false;
    order_.push_back({Step::Write, static_cast<int>(writes_.size())});
    writes_.push_back({&op, mem, *idx, *d, eb, eb * *unit});
    return true;
  }
  if (bytes % 256 != 0) return false;
  Msg m{&op, Sym{}, Sym{}, eb * *unit * 8, 0, 0, 1, false, false, true};
  m.slm = true;
  m.mem = mem;
  m.idx = *idx;
  m.slmBytes = bytes;
  m.slmEb = eb;
  m.slmPack = eb * *unit;
  std::vector<Elem> out;
  for (int64_t e = 0; e < vt.shape()[0]; ++e) out.push_back({Src::Load, static_cast<int>(loads_.size()), static_cast<int>(e)});
  order_.push_back({Step::Load, static_cast<int>(loads_.size())});
  loads_.push_back({&op, m});
  elems_[op.result()] = std::move(out);
  return true;
}

bool LoopMatcher::match() {
  if (for_.numRegions() != 1 || for_.numOperands() < 3) return no("not a loop with a body");
  // Inside another loop too: vISA labels are kernel-wide, so the statement must not be pasted twice
  // ("label is redefined", measured when IGC unrolled a 4-trip outer loop); LLVMEmitter marks every
  // loop around a whole-loop statement DontUnroll (keepLoopRolled), which LLVM and IGC both keep
  // (tests/isa/builtins/visa_loop_nested.ir).
  std::optional<int64_t> step = constInt(for_.operand(2));
  if (!step || *step <= 0) return no("its step is not a positive constant");
  step_ = *step;
  // The counter's range, for the index program's divisions: [lb, ub) with constant bounds in [0, 2^31).
  std::optional<int64_t> lb = constInt(for_.operand(0)), ub = constInt(for_.operand(1)), counterMax;
  if (lb && ub && *lb >= 0 && *ub < (int64_t{1} << 31)) counterMax = std::max(*lb, *ub - 1);
  prog_.emplace(counterMax);
  // Accumulators: vector arguments; coordinates: index arguments (checked at the yield).
  for (unsigned a = 0; a < body_.numArguments(); ++a) inside_.insert(body_.argument(a));
  syms_[body_.argument(0)] = Sym{body_.argument(0), 0};
  for (unsigned a = 1; a < body_.numArguments(); ++a) {
    const ir::Value* v = body_.argument(a);
    const ir::Type& t = v->type();
    if (t.isScalar() && t.elem() == ElemKind::Index) {
      syms_[v] = Sym{v, 0};
    } else if (t.isVector() && t.rank() == 1 && (t.elem() == ElemKind::F32 || t.elem() == ElemKind::I32)) {
      if (!accArgs_.empty() && t.elem() != accKind_) return no("it carries f32 and i32 accumulators together");
      accKind_ = t.elem();
      accArgs_.push_back(a);
      accBase_[a] = accElems_;
      std::vector<Elem> es;
      for (int64_t e = 0; e < t.shape()[0]; ++e) es.push_back({Src::Acc, static_cast<int>(a), static_cast<int>(e)});
      accElems_ += t.shape()[0];
      elems_[v] = std::move(es);
    } else {
      return no(fmt::format("it carries a {} (only indices and f32/i32 accumulator vectors)", t.str()));
    }
  }
  if (accArgs_.empty()) return no("it carries no accumulator");
  const ir::Operation* yield = nullptr;
  for (const auto& op : body_.opList()) {
    if (op->is("scf.yield")) {
      yield = op.get();
      break;
    }
    if (!walkOp(*op)) {
      const SourceLoc& l = op->loc();
      return no(fmt::format("its op '{}'{} is not one the statement takes (or its operands are not what the statement "
                            "traces: index math as base + constant, DPAS operands from its own 2D loads)",
                            op->name(), l.valid() ? fmt::format(" (line {}:{})", l.line, l.col) : ""));
    }
  }
  if (!yield) return no("its body has no yield");
  if (dpas_.empty()) return no("it has no DPAS");
  if (loads_.empty()) return no("it has no 2D block load");
  if (!checkYield(*yield)) return no("its yield does not carry the accumulators and coordinates the statement needs (each coordinate itself plus a constant)");
  // SLM messages keep program order (Step); the unordered emission of other loops sends prefetches
  // and scf.if blocks first, so a loop with both is not matched, nor index programs without SLM.
  bool prefetches = std::any_of(msgs_.begin(), msgs_.end(), [](const Msg& m) { return m.prefetch; });
  if (slm() ? (!ifs_.empty() || prefetches) : affUsed_)
    return no(slm() ? "it has SLM messages and prefetches or conditional blocks together" : "its index math is not base + constant");
  // The accumulators leave the asm as several outputs of at most 8 elements: SPIR-V vectors have at
  // most 16 components (reference §8), and with one DPAS accumulator per output the C stores after
  // the loop take the outputs as they are (gemm_bf16: 417 -> 280 instructions in the kernel, 16
  // elements per output made IGC copy them). Each DPAS accumulator must lie inside one output.
  // Equal outputs when some size divides the elements and keeps every DPAS accumulator in one output;
  // else (uneven row slices: 3 = 2 + 1, 12 = 8 + 4 accumulator rows) runs of the largest size that
  // fits from each start without cutting an accumulator.
  auto cuts = [&](int64_t first, int64_t size) {
    return std::any_of(dpas_.begin(), dpas_.end(), [&](const DpasOp& d) {
      int64_t lo = d.slot / kGrf, hi = lo + static_cast<int64_t>(d.acc.size());
      return lo < first + size && hi > first && (lo < first || hi > first + size);
    });
  };
  auto runs = [&](int64_t size) {
    std::vector<std::pair<int64_t, int64_t>> out;
    for (int64_t e = 0; e < accElems_; e += size) out.push_back({e, size});
    return out;
  };
  for (int64_t c : {8, 4, 2, 1})
    if (accElems_ % c == 0) {
      chunks_ = runs(c);
      break;
    }
  if (std::any_of(chunks_.begin(), chunks_.end(), [&](const auto& r) { return cuts(r.first, r.second); })) {
    chunks_.clear();
    for (int64_t e = 0; e < accElems_;) {
      int64_t size = 8;
      while (size > 1 && (e + size > accElems_ || cuts(e, size))) size /= 2;
      if (cuts(e, size)) return no("its accumulators do not split into outputs of 1, 2, 4 or 8 registers");
      chunks_.push_back({e, size});
      e += size;
    }
  }
  for (size_t c = 0; c < chunks_.size(); ++c) chunkOf_.insert(chunkOf_.end(), static_cast<size_t>(chunks_[c].second), c);
  if (!planMessages()) return no("its loads do not make legal 2D block messages");
  if (!placeOperands()) return no("a DPAS operand is not a register-aligned range of one message's response");
  if (!planSlm()) return no("its SLM messages do not make the statement's SIMD1 messages");
  return true;
}

bool LoopMatcher::checkYield(const ir::Operation& yield) {
  // The induction variable may address memory (step = the loop's step); nothing else of it is used.
  steps_[body_.argument(0)] = step_;
  for (unsigned a = 1; a < body_.numArguments(); ++a) {
    const ir::Value* v = body_.argument(a);
    const ir::Value* y = yield.operand(a - 1);
    if (auto c = condResults_.find(y); c != condResults_.end()) {
      // Advanced inside an scf.if: its headers are bumped in that block. Its value after the loop
      // would need the number of steps the condition held: not computed, so it must be unused, and
      // the if's result must feed nothing but this yield.
      if (c->second.arg != v || y->uses().size() != 1 || for_.result(a - 1)->hasUses() || condSteps_.count(v)) return false;
      condSteps_[v] = {c->second.block, c->second.step};
      steps_[v] = 0;
      continue;
    }
    if (v->type().isScalar()) {
      std::optional<int64_t> st = carriedStep(v, sym(y));
      if (!st) return false;
      steps_[v] = *st;
    }
  }
  // Coordinates of one initial value (as "base + constant" outside the loop) and one step per
  // iteration, neither stepped in an scf.if: the first of them stands for the others (same_).
  std::map<std::tuple<const ir::Value*, int64_t, int64_t, int64_t, int64_t>, const ir::Value*> firsts;
  for (unsigned a = 1; a < body_.numArguments(); ++a) {
    const ir::Value* v = body_.argument(a);
    if (!v->type().isScalar() || accBase_.count(a) || condSteps_.count(v)) continue;
    Sym init = outerSym(for_.operand(a + 2));
    auto [it, fresh] = firsts.insert({{init.base, init.off, init.div, init.post, steps_.at(v)}, v});
    if (!fresh) same_[v] = it->second;
  }
  // Accumulator chains: head = consecutive elements of one argument, links = a whole previous result.
  std::set<std::pair<int, int>> usedAcc;
  for (DpasOp& d : dpas_) {
    const Elem& e0 = d.acc[0];
    for (size_t i = 0; i < d.acc.size(); ++i) {
      const Elem& e = d.acc[i];
      if (e.kind != e0.kind || e.src != e0.src || e.idx != e0.idx + static_cast<int>(i)) return false;
    }
    if (e0.kind == Src::Acc) {
      for (const Elem& e : d.acc)
        if (!usedAcc.insert({e.src, e.idx}).second) return false;
      d.slot = (accBase_.at(static_cast<unsigned>(e0.src)) + e0.idx) * kGrf;
    } else if (e0.kind == Src::Dpas) {
      DpasOp& p = dpas_[static_cast<size_t>(e0.src)];
      if (e0.idx != 0 || p.consumed || p.acc.size() != d.acc.size()) return false;
      p.consumed = true;
      d.slot = p.slot;
    } else {
      return false;
    }
  }
  // The yield: each accumulator element is its own argument element (untouched) or the last dpas of
  // the chain that lives there; every chain end is yielded in place.
  std::set<int> yieldedEnds;
  for (unsigned a : accArgs_) {
    const std::vector<Elem>* ys = elems(yield.operand(a - 1));
    if (!ys) return false;
    for (size_t i = 0; i < ys->size(); ++i) {
      const Elem& e = (*ys)[i];
      int64_t at = (accBase_.at(a) + static_cast<int64_t>(i)) * kGrf;
      if (e.kind == Src::Acc) {
        if (e.src != static_cast<int>(a) || e.idx != static_cast<int>(i) || usedAcc.count({e.src, e.idx})) return false;
      } else if (e.kind == Src::Dpas) {
        const DpasOp& d = dpas_[static_cast<size_t>(e.src)];
        if (d.consumed || d.slot + e.idx * kGrf != at) return false;
        yieldedEnds.insert(e.src);
      } else {
        return false;
      }
    }
  }
  for (size_t i = 0; i < dpas_.size(); ++i)
    if (!dpas_[i].consumed && !yieldedEnds.count(static_cast<int>(i))) return false;
  // Every coordinate base of a message must step with the loop or stay invariant.
  return true;
}

int64_t stepOf(const std::map<const ir::Value*, int64_t>& steps, const Sym& s, const ir::Block& body) {
  if (!s.base) return 0;
  auto it = steps.find(s.base);
  if (it != steps.end()) return it->second / s.div;  // exact: planMessages checked divisibility
  (void)body;
  return 0;  // defined outside the loop: invariant
}

// The bounding box of a group of messages (x0, y0, x1, y1; x in elements) and whether they tile it
// exactly: no overlap, no hole.
struct Box {
  int64_t x0 = INT64_MAX, y0 = INT64_MAX, x1 = INT64_MIN, y1 = INT64_MIN;
  bool tiled = false;
};
Box boxOf(const std::vector<const Msg*>& group) {
  Box b;
  int64_t area = 0;
  for (const Msg* t : group) {
    b.x0 = std::min(b.x0, t->x.off), b.y0 = std::min(b.y0, t->y.off);
    b.x1 = std::max(b.x1, t->x.off + t->bw * t->blocks), b.y1 = std::max(b.y1, t->y.off + t->h);
    area += t->bw * t->blocks * t->h;
  }
  bool overlap = false;
  for (size_t p = 0; p < group.size(); ++p)
    for (size_t q = p + 1; q < group.size(); ++q) {
      const Msg &a = *group[p], &c = *group[q];
      overlap |= a.x.off < c.x.off + c.bw * c.blocks && c.x.off < a.x.off + a.bw * a.blocks && a.y.off < c.y.off + c.h &&
                 c.y.off < a.y.off + a.h;
    }
  b.tiled = !overlap && area == (b.x1 - b.x0) * (b.y1 - b.y0);
  return b;
}

// Whether a group of messages whose coordinates are equal in every step (`wide`: split-accumulators'
// slices of one tile, each with bases of its own) takes fewer messages as one box than the groups of
// its distinct coordinate bases apart. `wideCost` is the box's count (none: no proven shape covers
// it), `costApart(j)` that of message j's own group (none: no proven shape covers it, so it cannot go
// apart), `bases(j)` its coordinate bases.
template <class CostApart, class Bases>
bool fewerTogether(const std::vector<size_t>& wide, std::optional<int64_t> wideCost, CostApart costApart, Bases bases) {
  if (!wideCost) return false;
  int64_t apart = 0;
  std::set<std::pair<const ir::Value*, const ir::Value*>> seen;
  for (size_t j : wide) {
    if (!seen.insert(bases(j)).second) continue;
    std::optional<int64_t> c = costApart(j);
    if (!c) return true;
    apart += *c;
  }
  return *wideCost < apart;
}

bool LoopMatcher::planMessages() {
  // Group loads by surface, element form and coordinate bases; try to tile each group's bounding box
  // with one proven larger shape of the same block width.
  std::vector<Msg> prefetches = msgs_;
  msgs_.clear();
  std::vector<bool> done(loads_.size(), false);
  for (size_t i = 0; i < loads_.size(); ++i) {
    if (done[i]) continue;
    const Msg& s = loads_[i].shape;
    if (s.slm) {  // its own message(s)
      loads_[i].msg = static_cast<int>(msgs_.size());
      msgs_.push_back(s);
      done[i] = true;
      continue;
    }
    if (s.transpose) {  // its own message, the proven shape itself; x may count dwords (div)
      if (!proven(s) || (s.x.div != 1 && steps_.count(s.x.base) && steps_.at(s.x.base) % s.x.div != 0)) return false;
      if (s.x.div != 1 && condSteps_.count(s.x.base) && condSteps_.at(s.x.base).second % s.x.div != 0) return false;
      loads_[i].msg = static_cast<int>(msgs_.size());
      msgs_.push_back(s);
      done[i] = true;
      continue;
    }
    // The loads of s's surface and form from index `lead` on whose coordinate bases are load
    // `lead`'s, compared as they are or as canon's representatives.
    auto groupOf = [&](size_t lead, bool byCanon) {
      const Msg& u = loads_[lead].shape;
      auto base = [&](const ir::Value* v) { return byCanon ? canon(v) : v; };
      std::vector<size_t> g;
      for (size_t j = i; j < loads_.size(); ++j) {
        const Msg& t = loads_[j].shape;
        bool same = !done[j] && !t.transpose && !t.slm && t.bits == u.bits && t.bw == u.bw && t.vnni == u.vnni &&
                    base(t.x.base) == base(u.x.base) && base(t.y.base) == base(u.y.base);
        for (unsigned k = 0; same && k < 4; ++k) same = t.surface->operand(k) == u.surface->operand(k);
        if (same) g.push_back(j);
      }
      return g;
    };
    // A group's pieces: the first proven shape whose width and height divide the bounding box's and
    // in which every load of the group lies inside one piece (a 2-block load needs a piece at least
    // 2 blocks wide); null when none.
    auto tiling = [&](const std::vector<size_t>& g) -> std::pair<const Shape*, Box> {
      std::vector<const Msg*> members;
      for (size_t j : g) members.push_back(&loads_[j].shape);
      Box box = boxOf(members);
      auto fits = [&](const Shape& sh) {
        int64_t pw = sh.bw * sh.blocks;
        for (const Msg* t : members) {
          int64_t dx = (t->x.off - box.x0) % pw, dy = (t->y.off - box.y0) % sh.h;
          if (dx + t->bw * t->blocks > pw || dy + t->h > sh.h) return false;
        }
        return true;
      };
      if (box.tiled)
        for (const Shape& sh : kLoadShapes)
          if (sh.bits == s.bits && sh.bw == s.bw && sh.vnni == s.vnni && !sh.transpose &&
              (box.x1 - box.x0) % (sh.bw * sh.blocks) == 0 && (box.y1 - box.y0) % sh.h == 0 && fits(sh))
            return {&sh, box};
      return {nullptr, box};
    };
    auto count = [](const Shape* sh, const Box& box) {
      return (box.x1 - box.x0) / (sh->bw * sh->blocks) * ((box.y1 - box.y0) / sh->h);
    };
    std::vector<size_t> group = groupOf(i, false);
    auto [piece, box] = tiling(group);
    // Coordinates equal in every step (canon) group together when that takes fewer messages than
    // each base's group on its own: split-accumulators' 16-row and 8-row A slices become one 24-row
    // message, while the 32- and 16-column B slices of an N = 48 tile stay two messages (together
    // they tile only as three one-block ones).
    std::vector<size_t> wide = groupOf(i, true);
    if (wide.size() > group.size()) {
      auto [widePiece, wideBox] = tiling(wide);
      auto cost = [&](const std::pair<const Shape*, Box>& t) {
        return t.first ? std::optional<int64_t>(count(t.first, t.second)) : std::nullopt;
      };
      auto costApart = [&](size_t j) { return cost(tiling(groupOf(j, false))); };
      auto bases = [&](size_t j) { return std::make_pair(loads_[j].shape.x.base, loads_[j].shape.y.base); };
      if (fewerTogether(wide, cost({widePiece, wideBox}), costApart, bases)) {
        group = std::move(wide);
        piece = widePiece;
        box = wideBox;
      }
    }
    const auto [x0, y0, x1, y1, tiled] = box;
    (void)tiled;
    if (!piece) return false;  // no proven message covers this group (per-op lowering)
    size_t first = msgs_.size();
    for (int64_t py = y0; py < y1; py += piece->h)
      for (int64_t px = x0; px < x1; px += piece->bw * piece->blocks)
        msgs_.push_back({s.surface, Sym{s.x.base, px}, Sym{s.y.base, py}, s.bits, s.bw, piece->h, piece->blocks, s.vnni,
                         false, true});
    for (size_t j : group) {
      done[j] = true;
      LoadOp& l = loads_[j];
      int64_t px = (l.shape.x.off - x0) / (piece->bw * piece->blocks), py = (l.shape.y.off - y0) / piece->h;
      int64_t perRow = (x1 - x0) / (piece->bw * piece->blocks);
      l.msg = static_cast<int>(first + static_cast<size_t>(py * perRow + px));
      l.dx = l.shape.x.off - msgs_[static_cast<size_t>(l.msg)].x.off;
      l.dy = l.shape.y.off - msgs_[static_cast<size_t>(l.msg)].y.off;
      if (l.dx + l.shape.bw * l.shape.blocks > piece->bw * piece->blocks || l.dy + l.shape.h > piece->h) return false;
    }
  }
  // Prefetches: those of one surface, shape, coordinate bases and scf.if block that tile a box are
  // merged into the largest proven shape that divides it (the same bytes; RFC 2.5's 16-row L1 and L2
  // tiles arrive as 8-row messages); the others stay as they are.
  std::vector<bool> pdone(prefetches.size(), false);
  for (size_t i = 0; i < prefetches.size(); ++i) {
    if (pdone[i]) continue;
    const Msg& s = prefetches[i];
    if (!s.cached) return false;
    // The prefetches from index `lead` on like `lead` (its surface, form, scf.if block and coordinate
    // bases, compared as they are or as canon's representatives), and the largest proven shape that
    // divides their bounding box when they tile it (null otherwise).
    auto groupOf = [&](size_t lead, bool byCanon) {
      const Msg& u = prefetches[lead];
      auto base = [&](const ir::Value* v) { return byCanon ? canon(v) : v; };
      std::vector<size_t> g;
      for (size_t j = i; j < prefetches.size(); ++j) {
        const Msg& t = prefetches[j];
        bool same = !pdone[j] && t.bits == u.bits && t.bw == u.bw && t.blocks == u.blocks && t.vnni == u.vnni &&
                    t.cached == u.cached && t.cond == u.cond && base(t.x.base) == base(u.x.base) &&
                    base(t.y.base) == base(u.y.base) && t.x.div == 1 && u.x.div == 1;
        for (unsigned k = 0; same && k < 4; ++k) same = t.surface->operand(k) == u.surface->operand(k);
        if (same) g.push_back(j);
      }
      return g;
    };
    auto tiling = [&](const std::vector<size_t>& g) -> std::pair<const Shape*, Box> {
      std::vector<const Msg*> members;
      for (size_t j : g) members.push_back(&prefetches[j]);
      Box box = boxOf(members);
      if (box.tiled)
        for (const Shape& sh : kPrefetchShapes)
          if (sh.bits == s.bits && sh.bw == s.bw && sh.blocks == s.blocks && !s.vnni && !s.transpose &&
              (box.x1 - box.x0) % (sh.bw * sh.blocks) == 0 && (box.y1 - box.y0) % sh.h == 0)
            return {&sh, box};
      return {nullptr, box};
    };
    // Messages a group takes: its pieces, or each prefetch as it is.
    auto count = [](const Shape* sh, const Box& box, size_t n) {
      return sh ? (box.x1 - box.x0) / (sh->bw * sh->blocks) * ((box.y1 - box.y0) / sh->h) : static_cast<int64_t>(n);
    };
    std::vector<size_t> group = groupOf(i, false);
    auto [piece, box] = tiling(group);
    // Equal coordinates (canon) together only when that takes fewer messages, as for the loads.
    std::vector<size_t> wide = groupOf(i, true);
    if (wide.size() > group.size()) {
      auto [widePiece, wideBox] = tiling(wide);
      std::optional<int64_t> wideCost;
      if (widePiece) wideCost = count(widePiece, wideBox, wide.size());
      auto costApart = [&](size_t j) {
        std::vector<size_t> g = groupOf(j, false);
        auto [p, bx] = tiling(g);
        return std::optional<int64_t>(count(p, bx, g.size()));  // a prefetch no shape covers stays as it is
      };
      auto bases = [&](size_t j) { return std::make_pair(prefetches[j].x.base, prefetches[j].y.base); };
      if (fewerTogether(wide, wideCost, costApart, bases)) {
        group = std::move(wide);
        piece = widePiece;
        box = wideBox;
      }
    }
    const auto [x0, y0, x1, y1, tiled] = box;
    (void)tiled;
    if (!piece) {  // as it is
      if (!proven(s)) return false;
      pdone[i] = true;
      msgs_.push_back(s);
      continue;
    }
    for (size_t j : group) pdone[j] = true;
    for (int64_t py = y0; py < y1; py += piece->h)
      for (int64_t px = x0; px < x1; px += piece->bw * piece->blocks) {
        Msg m = s;
        m.x = Sym{s.x.base, px};
        m.y = Sym{s.y.base, py};
        m.h = piece->h;
        msgs_.push_back(m);
      }
  }
  return true;
}

// Where element e of load l lands: {message, byte of lane `lane` in its response}.
std::pair<int, int64_t> locate(const LoadOp& l, const std::vector<Msg>& msgs, int64_t e, int64_t lane = 0) {
  const Msg& own = l.shape;
  // An SLM block read: element-major, lanes inside, in units of slmPack bytes (as IGC lays out the value).
  if (own.slm) return {l.msg, laneByte(e, own.slmEb, own.slmPack) + own.slmPack * lane};
  // Transposed d32: dword k of lane j at byte 4 (16 k + j) = the IR value's layout (16-bit pairs
  // two to a dword), never merged: element e is where the value has it.
  if (own.transpose) return {l.msg, laneByte(e, ir::elemBits(l.op->result()->type().elem()) / 8, 4) + 4 * lane};
  int64_t pack = own.vnni ? 4 : std::max<int64_t>(2, own.eb());
  auto [r, c] = own.rowColOf(laneByte(e, own.eb(), pack) + pack * lane);
  return {l.msg, msgs[static_cast<size_t>(l.msg)].byteOf(r + l.dy, c + l.dx)};
}

// The byte of a lane.fma's broadcast A element in its message's response (f32: a whole dword).
std::pair<int, int64_t> fmaScalar(const DpasOp& d, const std::vector<LoadOp>& loads, const std::vector<Msg>& msgs) {
  const LoadOp& l = loads[static_cast<size_t>(d.a[0].src)];
  if (l.shape.bits != 32) return {-1, -1};
  return locate(l, msgs, d.a[0].idx, d.lane);
}

// The GRF-aligned start of a DPAS operand inside one message, or {-1, -1}.
std::pair<int, int64_t> operandStart(const std::vector<Elem>& es, const std::vector<LoadOp>& loads,
                                     const std::vector<Msg>& msgs, int64_t eb, int64_t pack) {
  std::pair<int, int64_t> start{-1, -1};
  for (size_t o = 0; o < es.size(); ++o) {
    auto [m, byte] = locate(loads[static_cast<size_t>(es[o].src)], msgs, es[o].idx);
    int64_t s = byte - laneByte(static_cast<int64_t>(o), eb, pack);
    if (o == 0) start = {m, s};
    else if (start != std::pair<int, int64_t>{m, s}) return {-1, -1};
  }
  if (start.second < 0 || start.second % kGrf != 0) return {-1, -1};
  return start;
}

bool LoopMatcher::placeOperands() {
  for (const DpasOp& d : dpas_) {
    if (d.lane >= 0) {  // mad: B one whole f32 register of a message, A one dword of a 32-bit message
      if (loads_[static_cast<size_t>(d.b[0].src)].shape.bits != 32 || operandStart(d.b, loads_, msgs_, 4, 4).first < 0 ||
          fmaScalar(d, loads_, msgs_).first < 0)
        return false;
      continue;
    }
    int64_t eb = ir::elemBits(d.op->operand(1)->type().elem()) / 8;
    if (operandStart(d.a, loads_, msgs_, eb, 2).first < 0 || operandStart(d.b, loads_, msgs_, eb, 4).first < 0) return false;
  }
  return true;
}

// The SLM messages' addresses -- one shared base per scaled index root (VisaIndexProgram::scaled:
// the SLM buffer's address plus root * bytes) and a constant per message -- and each write's
// payload: the response itself where the data lie there in the payload's layout, else one 16-lane
// mov per IR element, each side inside one register.
bool LoopMatcher::planSlm() {
  auto address = [&](const ir::Value* mem, const VisaIndexProgram::Aff& idx, VisaIndexProgram::Root& base, int64_t& off) {
    int64_t memEb = ir::elemBits(mem->type().elem()) / 8;
    base = prog_->scaled(idx, memEb, mem);
    off = idx.add * memEb;
  };
  for (Msg& m : msgs_)
    if (m.slm) address(m.mem, m.idx, m.addrBase, m.addrOff);
  for (SlmWrite& w : writes_) {
    address(w.mem, w.idx, w.addrBase, w.addrOff);
    bool identity = w.eb == w.pack;
    for (size_t o = 0; o < w.data.size(); ++o) {
      const Elem& e = w.data[o];
      const LoadOp& l = loads_[static_cast<size_t>(e.src)];
      auto [msg, src] = locate(l, msgs_, e.idx);
      for (int64_t lane = 1; lane < 16; ++lane)
        if (locate(l, msgs_, e.idx, lane) != std::pair<int, int64_t>{msg, src + w.eb * lane}) return false;
      int64_t dst = laneByte(static_cast<int64_t>(o), w.eb, w.pack);
      if (o > 0 && (msg != w.movs[0].msg || src - dst != w.movs[0].src - w.movs[0].dst)) identity = false;
      if (dst % kGrf + w.pack * 15 + w.eb > kGrf || src % kGrf + w.eb * 16 > kGrf) return false;
      w.movs.push_back({msg, dst, src});
    }
    int64_t delta = w.movs[0].src - w.movs[0].dst;
    if (identity && delta % kGrf == 0) {
      w.aliasMsg = w.movs[0].msg;
      w.aliasByte = delta;
      w.movs.clear();
    } else if (w.eb != 2) {
      return false;  // the payload movs go through word views
    }
  }
  return true;
}

// vISA's precision names (IGC's own vISA for the i8 builtin reads dpas.s8.s8.8.8).
std::string precision(ElemKind k) { return k == ElemKind::BF16 ? "bf" : k == ElemKind::I8 ? "s8" : "hf"; }

}  // namespace

std::optional<std::string> emitVisaLoop(const ir::Operation& op, XeEmitContext& ctx, unsigned loopId, std::string* missed) {
  if (ctx.target.kind != targets::TargetKind::Pvc) return std::nullopt;
  LoopMatcher lm(op);
  if (!lm.match()) {
    if (missed) *missed = lm.why_;
    return std::nullopt;
  }
  llvm::IRBuilder<>& b = *static_cast<llvm::IRBuilder<>*>(ctx.builder);
  const ir::Block& body = lm.body_;

  // Asm inputs, deduplicated; $0 is the accumulator output, $1 the tied initial accumulators.
  // Operands: outputs $0..$n-1 (the accumulator chunks), their tied initial values $n..$2n-1, then
  // the uniform inputs (surfaces, coordinates, bounds), deduplicated.
  const size_t nOut = lm.chunks_.size();
  std::vector<llvm::Value*> inputs(nOut, nullptr);
  std::string constraints;
  for (size_t i = 0; i < nOut; ++i) constraints += (i ? ",=rw" : "=rw");
  for (size_t i = 0; i < nOut; ++i) constraints += fmt::format(",{}", i);
  auto arg = [&](llvm::Value* v) {
    for (size_t i = nOut; i < inputs.size(); ++i)
      if (inputs[i] == v) return fmt::format("${}", nOut + i);
    inputs.push_back(v);
    constraints += ",rw.u";
    return fmt::format("${}", nOut + inputs.size() - 1);
  };
  auto i32 = [&](llvm::Value* v) { return v->getType()->isIntegerTy(32) ? v : b.CreateTrunc(v, b.getInt32Ty()); };
  // The value of a coordinate at loop entry (i32).
  std::map<std::tuple<const ir::Value*, int64_t, int64_t, int64_t>, llvm::Value*> initials;
  auto initial = [&](const Sym& s) -> llvm::Value* {
    llvm::Value*& known = initials[{s.base, s.off, s.div, s.post}];
    if (known) return known;
    llvm::Value* base = nullptr;
    if (!s.base) return known = b.getInt32(static_cast<uint32_t>(s.off));
    if (s.base == body.argument(0)) base = ctx.get(op.operand(0)).at(0);
    for (unsigned a = 1; !base && a < body.numArguments(); ++a)
      if (s.base == body.argument(a)) base = ctx.get(op.operand(a + 2)).at(0);
    if (!base) base = ctx.get(const_cast<ir::Value*>(s.base)).at(0);
    base = i32(base);
    llvm::Value* v = s.off ? b.CreateAdd(base, b.getInt32(static_cast<uint32_t>(s.off))) : base;
    if (s.div != 1) v = b.CreateUDiv(v, b.getInt32(static_cast<uint32_t>(s.div)));
    return known = s.post ? b.CreateAdd(v, b.getInt32(static_cast<uint32_t>(s.post))) : v;
  };

  std::ostringstream t;
  std::string p = fmt::format("xtc_l{}_", loopId);
  bool hasFma = std::any_of(lm.dpas_.begin(), lm.dpas_.end(), [](const DpasOp& d) { return d.lane >= 0; });
  t << "{\n";
  for (size_t i = 0; i < lm.msgs_.size(); ++i) {
    const Msg& m = lm.msgs_[i];
    if (m.slm) continue;
    t << fmt::format(".decl {}h{} v_type=G type=ud num_elts=8 align=GRF\n", p, i);
    t << fmt::format(".decl {}h{}q v_type=G type=uq num_elts=4 align=GRF alias=<{}h{},0>\n", p, i, p, i);
    if (!m.prefetch) t << fmt::format(".decl {}m{} v_type=G type=ud num_elts={} align=GRF\n", p, i, m.respBytes() / 4);
    if (!m.prefetch && m.bits == 32 && hasFma)  // the mad operands read the response as f32
      t << fmt::format(".decl {}f{} v_type=G type=f num_elts={} align=GRF alias=<{}m{},0>\n", p, i, m.respBytes() / 4, p, i);
  }
  // SLM: the address variables (one register each: the messages' one-register header), the
  // payloads, word views for the payload movs, the index program's variables.
  std::set<int> moved;  // messages some payload mov reads
  for (const SlmWrite& w : lm.writes_)
    for (const SlmWrite::Move& mv : w.movs) moved.insert(mv.msg);
  for (size_t i = 0; i < lm.msgs_.size(); ++i) {
    const Msg& m = lm.msgs_[i];
    if (moved.count(static_cast<int>(i)))
      t << fmt::format(".decl {}w{} v_type=G type=uw num_elts={} align=GRF alias=<{}m{},0>\n", p, i, m.respBytes() / 2, p, i);
    if (!m.slm) continue;
    t << fmt::format(".decl {}m{} v_type=G type=ud num_elts={} align=GRF\n", p, i, m.respBytes() / 4);
    for (int64_t c = 0; c < m.respBytes() / 256; ++c) {
      t << fmt::format(".decl {}m{}c{} v_type=G type=ud num_elts=64 align=GRF alias=<{}m{},{}>\n", p, i, c, p, i, c * 256);
      t << fmt::format(".decl {}a{}c{} v_type=G type=ud num_elts=1 align=GRF\n", p, i, c);
    }
  }
  for (size_t j = 0; j < lm.writes_.size(); ++j) {
    const SlmWrite& w = lm.writes_[j];
    if (w.aliasMsg >= 0) {
      t << fmt::format(".decl {}d{} v_type=G type=ud num_elts=32 align=GRF alias=<{}m{},{}>\n", p, j, p, w.aliasMsg, w.aliasByte);
    } else {
      t << fmt::format(".decl {}d{} v_type=G type=ud num_elts=32 align=GRF\n", p, j);
      t << fmt::format(".decl {}dw{} v_type=G type=uw num_elts=64 align=GRF alias=<{}d{},0>\n", p, j, p, j);
    }
    t << fmt::format(".decl {}b{} v_type=G type=ud num_elts=1 align=GRF\n", p, j);
  }
  // Only what the SLM addresses need (VisaIndexProgram::live: a ring stage scaled as a bit field
  // leaves its remainder's own instructions unused).
  // A base the loop computes as the sum of two registers (an invariant part and the ring stage)
  // is not written itself: each message adds the two and its constant in one pvc `add3` (16-bit
  // immediate, as IGC encodes it: 0 .. 32767 here; tests/isa/gemm/rfc_2_4_gemm_slm.pvc.isa proves
  // the form), where `add base` + `add`/`mov` per message took one more. An invariant base is
  // computed before the loop anyway: kept.
  using Root = VisaIndexProgram::Root;
  auto addParts = [&](const Root& base, int64_t off) -> std::optional<std::pair<Root, Root>> {
    if (base.kind != Root::Kind::Inst || off < 0 || off > 32767) return std::nullopt;
    const VisaIndexProgram::Inst& in = lm.prog_->insts()[static_cast<size_t>(base.inst)];
    if (in.invariant || std::string(in.opcode) != "add" || in.b.kind == Root::Kind::None) return std::nullopt;
    return std::pair{in.a, in.b};
  };
  std::vector<Root> used;
  auto use = [&](const Root& base, int64_t off) {
    if (auto parts = addParts(base, off)) {
      used.push_back(parts->first);
      used.push_back(parts->second);
    } else {
      used.push_back(base);
    }
  };
  for (const Msg& m : lm.msgs_)
    if (m.slm)
      for (int64_t c = 0; c < m.respBytes() / 256; ++c) use(m.addrBase, m.addrOff + 256 * c);
  for (const SlmWrite& w : lm.writes_) use(w.addrBase, w.addrOff);
  const std::vector<bool> live = lm.prog_->live(used);
  for (size_t i = 0; i < lm.prog_->insts().size(); ++i)
    if (live[i])
      t << fmt::format(".decl {} v_type=G type=d num_elts=1 align=dword\n", VisaIndexProgram::varName(p, static_cast<int>(i)));
  t << fmt::format(".decl {}k v_type=G type=d num_elts=1 align=dword\n.decl {}p v_type=P num_elts=1\n", p, p);
  if (!lm.ifs_.empty()) t << fmt::format(".decl {}t v_type=G type=d num_elts=1 align=dword\n", p);
  std::map<const ir::Value*, llvm::Value*> minus1s;
  for (size_t i = 0; i < lm.msgs_.size(); ++i) {
    const Msg& m = lm.msgs_[i];
    if (m.slm) continue;
    const ir::Operation& s = *m.surface;
    auto minus1 = [&](unsigned k) {
      llvm::Value*& known = minus1s[s.operand(k)];
      return known ? known : known = b.CreateSub(i32(ctx.get(s.operand(k)).at(0)), b.getInt32(1));
    };
    t << fmt::format("mov (M1,1) {}h{}q(0,0)<1> {}(0,0)<0;1,0>\n", p, i, arg(ctx.get(s.operand(0)).at(0)));
    std::string w = arg(minus1(1)), h = arg(minus1(2)), pitch = arg(minus1(3)), x = arg(initial(m.x)), y = arg(initial(m.y));
    t << fmt::format("mov (M1,1) {}h{}(0,2)<1> {}(0,0)<0;1,0>\n", p, i, w);
    t << fmt::format("mov (M1,1) {}h{}(0,3)<1> {}(0,0)<0;1,0>\n", p, i, h);
    t << fmt::format("mov (M1,1) {}h{}(0,4)<1> {}(0,0)<0;1,0>\n", p, i, pitch);
    t << fmt::format("mov (M1,1) {}h{}(0,5)<1> {}(0,0)<0;1,0>\n", p, i, x);
    t << fmt::format("mov (M1,1) {}h{}(0,6)<1> {}(0,0)<0;1,0>\n", p, i, y);
    t << fmt::format("mov (M1,1) {}h{}(0,7)<1> {:#x}:ud\n", p, i, m.shapeDword());
  }
  // The index program's operands: the counter, values from outside (an SLM buffer: its address).
  std::map<const ir::Value*, llvm::Value*> outerInputs;
  auto rootText = [&](const Root& r) -> std::string {
    if (r.kind == Root::Kind::Inst) return fmt::format("{}(0,0)<0;1,0>", VisaIndexProgram::varName(p, r.inst));
    if (r.kind == Root::Kind::Counter) return fmt::format("{}k(0,0)<0;1,0>", p);
    llvm::Value*& v = outerInputs[r.outer];
    if (!v)
      v = r.outer->type().isMemRef() ? b.CreatePtrToInt(ctx.memrefPointer(const_cast<ir::Value*>(r.outer)), b.getInt32Ty())
                                     : i32(ctx.get(const_cast<ir::Value*>(r.outer)).at(0));
    return fmt::format("{}(0,0)<0;1,0>", arg(v));
  };
  const std::vector<VisaIndexProgram::Inst>& insts = lm.prog_->insts();
  for (size_t i = 0; i < insts.size(); ++i)
    if (live[i] && insts[i].invariant) t << lm.prog_->text(i, p, rootText);
  std::string ub = arg(i32(ctx.get(op.operand(1)).at(0)));
  t << fmt::format("mov (M1,1) {}k(0,0)<1> {}(0,0)<0;1,0>\n", p, arg(i32(ctx.get(op.operand(0)).at(0))));
  t << fmt::format("cmp.lt (M1,1) {}p {}k(0,0)<0;1,0> {}(0,0)<0;1,0>\n", p, p, ub);
  t << fmt::format("(!{}p) jmp (M1,1) {}end\n{}loop:\n", p, p, p);
  auto send = [&](size_t i) {
    const Msg& m = lm.msgs_[i];
    if (m.prefetch)
      t << fmt::format("raw_sends.15.1.0.0 (M1, 1) 0x0:ud {:#x}:ud {}h{}.0 %null.0 %null.0\n", m.descriptor(), p, i);
    else
      t << fmt::format("raw_sends.15.1.0.{} (M1, 1) 0x0:ud {:#x}:ud {}h{}.0 %null.0 {}m{}.0\n", std::min<int64_t>(31, m.respBytes() / kGrf),
                       m.descriptor(), p, i, p, i);
  };
  // Header coordinate bumps: `block` -1 = every step's, else those of that scf.if's coordinates.
  auto bumps = [&](int block) {
    auto delta = [&](const Sym& s) -> int64_t {
      if (block < 0) return stepOf(lm.steps_, s, body);
      auto c = s.base ? lm.condSteps_.find(s.base) : lm.condSteps_.end();
      return c != lm.condSteps_.end() && c->second.first == block ? c->second.second / s.div : 0;
    };
    for (size_t i = 0; i < lm.msgs_.size(); ++i) {
      const Msg& m = lm.msgs_[i];
      if (int64_t dx = delta(m.x)) t << fmt::format("add (M1,1) {}h{}(0,5)<1> {}h{}(0,5)<0;1,0> {}:d\n", p, i, p, i, dx);
      if (int64_t dy = delta(m.y)) t << fmt::format("add (M1,1) {}h{}(0,6)<1> {}h{}(0,6)<0;1,0> {}:d\n", p, i, p, i, dy);
    }
  };
  // The workgroup barrier as IGC's own vISA for barrier(CLK_LOCAL_MEM_FENCE) (an SLM fence, then
  // the barrier; tests/isa/builtins/visa_loop_if.ir).
  const char* barrier = "lsc_fence.slm.none.group\nbarrier\n";
  auto emitDpas = [&](const DpasOp& d) {
    if (d.lane >= 0) {  // C += A(m, k) (scalar region) * B(k, :) (a whole register)
      auto [am, ab] = fmaScalar(d, lm.loads_, lm.msgs_);
      auto [bm, bs] = operandStart(d.b, lm.loads_, lm.msgs_, 4, 4);
      size_t c = lm.chunkOf_[static_cast<size_t>(d.slot / kGrf)];
      int64_t row = d.slot / kGrf - lm.chunks_[c].first;
      t << fmt::format("mad (M1, 16) ${}({},0)<1> {}f{}({},{})<0;1,0> {}f{}({},0)<1;1,0> ${}({},0)<1;1,0>\n", c, row, p, am,
                       ab / kGrf, ab % kGrf / 4, p, bm, bs / kGrf, c, row);
      return;
    }
    ElemKind in = d.op->operand(1)->type().elem();
    int64_t eb = ir::elemBits(in) / 8;
    auto [am, as] = operandStart(d.a, lm.loads_, lm.msgs_, eb, 2);
    auto [bm, bs] = operandStart(d.b, lm.loads_, lm.msgs_, eb, 4);
    size_t c = lm.chunkOf_[static_cast<size_t>(d.slot / kGrf)];
    int64_t off = d.slot - lm.chunks_[c].first * kGrf;  // bytes into output c
    t << fmt::format("dpas.{}.{}.8.{} (M1, 16) ${}.{} ${}.{} {}m{}.{} {}m{}({},0)\n", precision(in), precision(in),
                     d.op->intAttr("m", 0), c, off, c, off, p, bm, bs, p, am, as / kGrf);
  };
  // An SLM address: the shared base plus the message's constant (the base's two parts and the
  // constant in one add3 where addParts allows).
  auto address = [&](const std::string& var, const Root& base, int64_t off) {
    if (auto parts = addParts(base, off)) {
      if (off)
        t << fmt::format("add3 (M1_NM,1) {}(0,0)<1> {} {} {}:d\n", var, rootText(parts->first), rootText(parts->second), off);
      else
        t << fmt::format("add (M1_NM,1) {}(0,0)<1> {} {}\n", var, rootText(parts->first), rootText(parts->second));
    } else if (off) {
      t << fmt::format("add (M1_NM,1) {}(0,0)<1> {} {}:d\n", var, rootText(base), off);
    } else {
      t << fmt::format("mov (M1_NM,1) {}(0,0)<1> {}\n", var, rootText(base));
    }
  };
  if (lm.slm()) {
    // Program order: the index program, then the body's loads, dpas, barriers and SLM writes as
    // written (a 2D message merged from several loads goes at the first of them).
    for (size_t i = 0; i < insts.size(); ++i)
      if (live[i] && !insts[i].invariant) t << lm.prog_->text(i, p, rootText);
    std::vector<bool> sent(lm.msgs_.size(), false);
    for (auto [kind, id] : lm.order_) {
      if (kind == Step::Dpas) {
        emitDpas(lm.dpas_[static_cast<size_t>(id)]);
      } else if (kind == Step::Barrier) {
        t << barrier;
      } else if (kind == Step::Load) {
        size_t i = static_cast<size_t>(lm.loads_[static_cast<size_t>(id)].msg);
        if (sent[i]) continue;
        sent[i] = true;
        const Msg& m = lm.msgs_[i];
        if (!m.slm) {
          send(i);
          continue;
        }
        for (int64_t c = 0; c < m.respBytes() / 256; ++c) {
          address(fmt::format("{}a{}c{}", p, i, c), m.addrBase, m.addrOff + 256 * c);
          t << fmt::format("lsc_load.slm (M1_NM, 1) {}m{}c{}:d32x64t flat[{}a{}c{}]:a32\n", p, i, c, p, i, c);
        }
      } else {
        const SlmWrite& w = lm.writes_[static_cast<size_t>(id)];
        for (const SlmWrite::Move& mv : w.movs)
          t << fmt::format("mov (M1, 16) {}dw{}({},{})<{}> {}w{}({},{})<1;1,0>\n", p, id, mv.dst / kGrf, mv.dst % kGrf / w.eb,
                           w.pack / w.eb, p, mv.msg, mv.src / kGrf, mv.src % kGrf / w.eb);
        address(fmt::format("{}b{}", p, id), w.addrBase, w.addrOff);
        t << fmt::format("lsc_store.slm (M1_NM, 1) flat[{}b{}]:a32 {}d{}:d64x16t\n", p, id, p, id);
      }
    }
  } else {
  for (size_t i = 0; i < lm.msgs_.size(); ++i)
    if (lm.msgs_[i].cond < 0) send(i);
  if (lm.barrier_) t << barrier;
  // Each scf.if: t = (k + off) & mask, a forward jump over its block unless the condition holds.
  for (size_t f = 0; f < lm.ifs_.size(); ++f) {
    const IfBlock& ib = lm.ifs_[f];
    std::string src = fmt::format("{}k(0,0)<0;1,0>", p);
    if (ib.cond.off) {
      t << fmt::format("add (M1,1) {}t(0,0)<1> {} {}:d\n", p, src, ib.cond.off);
      src = fmt::format("{}t(0,0)<0;1,0>", p);
    }
    t << fmt::format("and (M1,1) {}t(0,0)<1> {} {}:d\n", p, src, ib.cond.mask);
    t << fmt::format("cmp.eq (M1,1) {}p {}t(0,0)<0;1,0> 0:d\n", p, p);
    t << fmt::format("({}{}p) jmp (M1,1) {}s{}\n", ib.cond.eq ? "!" : "", p, p, f);
    if (ib.barrier) t << barrier;
    for (size_t i = 0; i < lm.msgs_.size(); ++i)
      if (lm.msgs_[i].cond == static_cast<int>(f)) send(i);
    bumps(static_cast<int>(f));
    t << fmt::format("{}s{}:\n", p, f);
  }
  for (const DpasOp& d : lm.dpas_) emitDpas(d);
  }
  bumps(-1);
  t << fmt::format("add (M1,1) {}k(0,0)<1> {}k(0,0)<0;1,0> {}:d\n", p, p, lm.step_);
  t << fmt::format("cmp.lt (M1,1) {}p {}k(0,0)<0;1,0> {}(0,0)<0;1,0>\n", p, p, ub);
  t << fmt::format("({}p) jmp (M1,1) {}loop\n{}end:\n}}\n", p, p, p);

  // The accumulators, element-major (element i at byte 64 i of lane 0: the slots above), in chunks.
  llvm::Type* et = lm.accKind_ == ElemKind::F32 ? b.getFloatTy() : b.getInt32Ty();
  auto chunkType = [&](int64_t size) {
    return size == 1 ? et : static_cast<llvm::Type*>(llvm::FixedVectorType::get(et, static_cast<unsigned>(size)));
  };
  std::vector<llvm::Value*> flat(static_cast<size_t>(lm.accElems_));
  for (unsigned a : lm.accArgs_) {
    const std::vector<llvm::Value*>& regs = ctx.get(op.operand(a + 2));
    for (size_t i = 0; i < regs.size(); ++i) flat[static_cast<size_t>(lm.accBase_.at(a)) + i] = regs[i];
  }
  for (size_t c = 0; c < nOut; ++c) {
    auto [first, size] = lm.chunks_[c];
    llvm::Value* v = size == 1 ? flat[static_cast<size_t>(first)] : llvm::UndefValue::get(chunkType(size));
    for (int64_t i = 0; size > 1 && i < size; ++i)
      v = b.CreateInsertElement(v, flat[static_cast<size_t>(first + i)], b.getInt32(static_cast<uint32_t>(i)));
    inputs[c] = v;
  }
  std::vector<llvm::Type*> types;
  for (llvm::Value* v : inputs) types.push_back(v->getType());
  std::vector<llvm::Type*> outTypes;
  for (const auto& [first, size] : lm.chunks_) outTypes.push_back(chunkType(size));
  llvm::Type* rt = nOut == 1 ? outTypes[0] : static_cast<llvm::Type*>(llvm::StructType::get(b.getContext(), outTypes));
  auto* fty = llvm::FunctionType::get(rt, types, false);
  llvm::Value* out = b.CreateCall(llvm::InlineAsm::get(fty, t.str(), constraints, /*hasSideEffects=*/true), inputs);
  auto accOut = [&](int64_t e) -> llvm::Value* {
    size_t k = lm.chunkOf_[static_cast<size_t>(e)];
    llvm::Value* c = nOut == 1 ? out : b.CreateExtractValue(out, {static_cast<unsigned>(k)});
    auto [first, size] = lm.chunks_[k];
    return size == 1 ? c : b.CreateExtractElement(c, b.getInt32(static_cast<uint32_t>(e - first)));
  };

  // Results: accumulators from the output, coordinates advanced by the trip count.
  llvm::Value* lb = ctx.get(op.operand(0)).at(0);
  llvm::Value* ubv = ctx.get(op.operand(1)).at(0);
  llvm::Value* stepv = ctx.get(op.operand(2)).at(0);
  llvm::Value* span = b.CreateSub(ubv, lb);
  llvm::Value* trips = b.CreateSDiv(b.CreateAdd(span, b.CreateSub(stepv, llvm::ConstantInt::get(stepv->getType(), 1))), stepv);
  trips = b.CreateSelect(b.CreateICmpSLT(lb, ubv), trips, llvm::ConstantInt::get(stepv->getType(), 0));
  for (unsigned a = 1; a < body.numArguments(); ++a) {
    ir::Value* res = op.result(a - 1);
    if (lm.accBase_.count(a)) {
      std::vector<llvm::Value*> regs;
      int64_t n = body.argument(a)->type().shape()[0];
      for (int64_t i = 0; i < n; ++i)
        regs.push_back(accOut(lm.accBase_.at(a) + i));
      ctx.set(res, std::move(regs));
    } else if (lm.condSteps_.count(body.argument(a))) {
      // Stepped inside an scf.if: unused after the loop (checkYield), so never computed.
      ctx.set(res, {llvm::PoisonValue::get(ctx.get(op.operand(a + 2)).at(0)->getType())});
    } else {
      llvm::Value* init = ctx.get(op.operand(a + 2)).at(0);
      int64_t st = lm.steps_.at(body.argument(a));
      ctx.set(res, {b.CreateAdd(init, b.CreateMul(trips, llvm::ConstantInt::get(init->getType(), static_cast<uint64_t>(st))))});
    }
  }
  return std::string();
}

void keepLoopRolled(llvm::BranchInst& latch) {
  llvm::LLVMContext& c = latch.getContext();
  llvm::MDNode* dis = llvm::MDNode::get(c, {llvm::MDString::get(c, "llvm.loop.unroll.disable")});
  llvm::MDNode* loop = llvm::MDNode::getDistinct(c, {nullptr, dis});
  loop->replaceOperandWith(0, loop);  // a loop ID refers to itself
  latch.setMetadata(llvm::LLVMContext::MD_loop, loop);
}

std::vector<isa::HardwareCall> visaLoopHardwareCalls(const std::string& text) {
  if (!text.starts_with("{\n") || (text.find("raw_sends.15.") == std::string::npos && text.find("lsc_load.slm") == std::string::npos &&
                                    text.find("lsc_load.ugm") == std::string::npos && text.find("svm_gather4scaled") == std::string::npos))
    return {};
  std::map<std::string, std::string> shapes;  // header variable -> "WxHxB"
  std::map<std::string, isa::HardwareCall> calls;
  std::istringstream in(text);
  std::string line;
  std::smatch m;
  static const std::regex hdr(R"(^mov \(M1,1\) (\w+)\(0,7\)<1> 0x([0-9a-f]+):ud$)");
  static const std::regex send(R"(^raw_sends\.15\.1\.0\.(\d+) \(M1, 1\) 0x0:ud 0x([0-9a-f]+):ud (\w+)\.0 )");
  static const std::regex dpas(R"(^dpas\.\w+\.\w+\.8\.(\d) )");
  static const std::regex slm(R"(^lsc_(load|store)\.slm \(M1_NM, 1\) .*:(d\d+x\d+t)\b)");
  // dg2's whole-loop row reads (Dg2VisaLoop.cpp): SIMD1 transposed LSC loads from a 64-bit address.
  static const std::regex ugm(R"(^lsc_load\.ugm \(M1_NM, 1\) \w+:(d32x\d+t) flat\[\w+\]:a64$)");
  static const std::regex lanePrefetch(R"(^(\(\w+\) )?lsc_load\.ugm\.(ca|uc)\.(ca) \(M1, 8\) %null:d32 flat\[\w+\]:a64$)");
  // dg2's block path statement (Dg2VisaBlock.cpp): SIMD1 transposed LSC stores to a 64-bit address.
  static const std::regex ugmStore(R"(^lsc_store\.ugm \(M1_NM, 1\) flat\[\w+\]:a64 \w+:(d32x\d+t)$)");
  // A statement without a loop (Dg2VisaBlock.cpp) runs each line once: each must leave its own instruction.
  bool straight = text.find("jmp (M1,1)") == std::string::npos;
  while (std::getline(in, line)) {
    std::string name, pattern, shape;
    if (std::regex_search(line, m, hdr)) {
      uint32_t v = static_cast<uint32_t>(std::stoul(m[2], nullptr, 16));
      shapes[m[1]] = fmt::format("{}x{}x{}", (v & 255) + 1, ((v >> 8) & 255) + 1, ((v >> 16) & 15) + 1);
      continue;
    }
    if (std::regex_search(line, m, send)) {
      uint32_t desc = static_cast<uint32_t>(std::stoul(m[2], nullptr, 16));
      std::string bits = std::to_string(8 << ((desc >> 9) & 7));
      bool prefetch = m[1] == "0";
      std::string form = "d" + bits + ((desc >> 7) & 1 ? "v" : "") + ((desc >> 15) & 1 ? "t" : "");
      pattern = prefetch ? R"(send\.ugm \(1\|M0\) +null .*load_block2d\.ugm\.)" + form + R"(\.a64)"
                         : R"(send\.ugm \(1\|M0\) +r\d+ .*load_block2d\.ugm\.)" + form + R"(\.a64)";
      name = fmt::format("inline vISA loop: raw_sends {:#x} ({})", desc, prefetch ? "prefetch" : "load");
      shape = shapes.count(m[3]) ? shapes[m[3]] : "";
      name += " " + shape;
    } else if (std::regex_search(line, m, slm)) {
      // The SIMD1 transposed SLM block messages (one address register): IGC's disassembly names them.
      pattern = fmt::format(R"(send\.slm \(1\|M0\) .*{}\.slm\.{}\.a32)", m[1].str(), m[2].str());
      name = fmt::format("inline vISA loop: SLM block {} {}", m[1].str(), m[2].str());
    } else if (std::regex_search(line, m, ugm)) {
      pattern = fmt::format(R"(send\.ugm \(1\|M0\) .*load\.ugm\.{}\.a64)", m[1].str());
      name = fmt::format("inline vISA loop: row read {}", m[1].str());
    } else if (std::regex_search(line, m, ugmStore)) {
      pattern = fmt::format(R"(send\.ugm \(1\|M0\) +null .*store\.ugm\.{}\.a64)", m[1].str());
      name = fmt::format("inline vISA: row write {}", m[1].str());
    } else if (std::regex_search(line, m, lanePrefetch)) {
      // dg2's per-lane prefetches (Dg2VisaLoop.cpp LaneProgram): SIMD8 LSC loads into null; a walked
      // one (Walk) is predicated, and must stay so (its lanes outside the surface send nothing).
      bool predicated = m[1].matched;
      pattern = fmt::format(R"({}send\.ugm \(8\|M0\) +null .*load\.ugm\.d32\.a64\.{}\.{})", predicated ? R"(^\(f\d+\.\d+\) +)" : "",
                            m[2].str(), m[3].str());
      name = fmt::format("inline vISA loop: {}lane prefetch {}.{}", predicated ? "predicated " : "", m[2].str(), m[3].str());
    } else if (line.starts_with("svm_gather4scaled.RGBA (M1, 8) ")) {
      // dg2's B^T lane reads (Dg2VisaLoop.cpp): SIMD8 A64 untyped reads of 4 dwords per lane.
      pattern = R"(send\.dc1 \(8\|M0\) .*a64 untyped surface read with xyzw)";
      name = "inline vISA loop: lane read xyzw";
    } else if (line.starts_with("svm_gather4scaled.RGBA (M1_NM, 16) ")) {
      // dg2's FMA statement lane reads and row gathers (Dg2VisaFmaLoop.cpp): one SIMD16 A64 untyped
      // read of 4 dwords per lane (lanes 8-15 the same rows 16 bytes on).
      pattern = R"(^\(W\) +send\.dc1 \(16\|M0\) .*a64 untyped surface read with xyzw)";
      name = "inline vISA loop: lane read xyzw SIMD16";
    } else if (line.starts_with("svm_gather4scaled.R (M1_NM, 16) ")) {
      // dg2's row gathers (Dg2VisaLoop.cpp, the row-pair slice loops): one SIMD16 A64 untyped read of
      // one dword per lane, NoMask (two rows' halves straight into their operand's registers).
      pattern = R"(^\(W\) +send\.dc1 \(16\|M0\) .*rd:2; a64 untyped surface read with x$)";
      name = "inline vISA loop: row gather x SIMD16";
    } else if (line == "lsc_fence.slm.none.group" || line == "barrier") {
      bool fence = line != "barrier";
      pattern = fence ? R"(\bfence\.slm\.none\.group\b)" : R"(\bsync\.bar\b)";
      name = fence ? "inline vISA loop: SLM fence" : "inline vISA loop: barrier";
    } else if (std::regex_search(line, m, dpas)) {
      pattern = fmt::format(R"(\bdpas\.8x{} )", m[1].str());
      name = fmt::format("inline vISA loop: dpas 8x{}", m[1].str());
    } else if (line.starts_with("mad (M1, 16) ")) {  // pvc's (SIMD16)
      pattern = R"(\bmad \(16\|M0\) )";
      name = "inline vISA loop: mad";
    } else if (line.starts_with("mad (M1_NM, 16) ")) {  // dg2's mad pairs: NoMask (a SIMD8 dispatch)
      pattern = R"(^\(W\) +mad \(16\|M0\) )";
      name = "inline vISA loop: mad (W, 16)";
    } else if (line.starts_with("mad (M1, 8) ")) {  // dg2's f32 FMA loop (Dg2VisaFmaLoop.cpp)
      pattern = R"(\bmad \(8\|M0\) )";
      name = "inline vISA loop: mad (8)";
    } else {
      continue;
    }
    isa::HardwareCall& c = calls[name];
    c.builtin = name;
    c.isaPattern = pattern;
    c.blockShape = shape;
    ++(straight ? c.outsideLoops : c.insideLoops);
  }
  std::vector<isa::HardwareCall> r;
  for (auto& [n, c] : calls) r.push_back(std::move(c));
  return r;
}

}  // namespace xtc::backend
