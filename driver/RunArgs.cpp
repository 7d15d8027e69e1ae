// Argument binding for `xtc run` (see RunArgs.h).
#include "driver/RunArgs.h"

#include "ir/Module.h"
#include "ir/interpret/Npy.h"
#include "ir/interpret/Numeric.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <new>
#include <random>
#include <set>

#include <unistd.h>

namespace xtc::driver {

namespace {

std::vector<std::string> paramNames(const ir::Operation& kernel) {
  std::vector<std::string> r;
  const ir::Block& body = kernel.region(0).block();
  const ir::Attribute* a = kernel.attr("arg_names");
  for (unsigned i = 0; i < body.numArguments(); ++i) {
    std::string n;
    if (a && a->kind() == ir::AttrKind::Array && i < a->getArray().size() && a->getArray()[i].kind() == ir::AttrKind::String)
      n = a->getArray()[i].getString();
    if (n.empty()) n = body.argument(i)->nameHint();
    if (n.empty()) n = "arg" + std::to_string(i);
    r.push_back(n);
  }
  return r;
}

// The kernel parameter a tile or vector value is read from / written to (through init_tile,
// update_tile_offset, loop-carried values, load_tile and layout/type conversions), or -1.
// An init_tile with an explicit shape other than its memref's (`dim(X, 0), dim(X, 1)`, in any order
// of strides: a column-major memref's `strides = [1, dim(X, 0)]` too): a view (`shape = [M, K],
// strides = [lda, 1]`), whose memref may have any shape (a buffer of rows of lda). pad-columns'
// clamp of the columns (`min(dim(X, 1), n + 24)` with the row stride `dim(X, 1)`) is not one.
bool isView(const ir::Operation& init) {
  const ir::Attribute* seg = init.attr("segments");
  if (!seg || seg->getIntArray().at(1) == 0 || init.numOperands() < 6) return false;
  auto isDim = [&](unsigned operand, int64_t d) {
    const ir::Operation* o = init.operand(operand)->definingOp();
    return o && o->is("memref.dim") && o->operand(0) == init.operand(0) && o->intAttr("index", -1) == d;
  };
  return !(isDim(3, 0) && (isDim(4, 1) || isDim(5, 1)));
}

// Through an `scf.if` result too (the parameter every branch's yield comes from: tri.xt's B scaled
// by 2 in some K steps), and element-wise arithmetic of the value's shape (`b * 2.0`: the one
// parameter its operands of that shape come from; two different ones, none). `memo` keeps shared
// operands from being traced again (a chain of `x = x * x` would double the work at each op).
int paramOf(const ir::Value* v, const ir::Block& body, std::map<const ir::Value*, int>& memo, int depth = 0);

int paramOfUncached(const ir::Value* v, const ir::Block& body, std::map<const ir::Value*, int>& memo, int depth) {
  if (!v || depth > 64) return -1;
  if (v->isBlockArgument()) {
    const ir::Block* blk = v->ownerBlock();
    if (blk == &body) return static_cast<int>(v->index());
    ir::Operation* parent = blk->parentOp();
    if (parent && parent->is("scf.for") && v->index() >= 1 && 3 + v->index() - 1 < parent->numOperands())
      return paramOf(parent->operand(3 + v->index() - 1), body, memo, depth + 1);
    return -1;
  }
  ir::Operation* d = v->definingOp();
  if (d->is("tile.init_tile") && isView(*d)) return -1;  // the memref's shape is not the operand's
  if (d->is("tile.init_tile") || d->is("tile.update_tile_offset") || d->is("tile.load_tile") ||
      d->is("tile.convert_layout") || d->is("arith.convert"))
    return paramOf(d->operand(0), body, memo, depth + 1);
  if (d->is("scf.for") && 3 + v->index() < d->numOperands()) return paramOf(d->operand(3 + v->index()), body, memo, depth + 1);
  if (d->is("scf.if")) {
    int p = -1;
    for (unsigned r = 0; r < d->numRegions(); ++r) {
      if (d->region(r).empty()) return -1;
      const ir::Operation* y = d->region(r).block().terminator();
      if (!y || v->index() >= y->numOperands()) return -1;
      int q = paramOf(y->operand(v->index()), body, memo, depth + 1);
      if (q < 0 || (p >= 0 && q != p)) return -1;
      p = q;
    }
    return p;
  }
  if ((d->name().starts_with("arith.") || d->name().starts_with("math.")) && v->type().isVector()) {
    int p = -1;
    for (unsigned i = 0; i < d->numOperands(); ++i) {
      const ir::Type& t = d->operand(i)->type();
      if (!t.isVector() || t.shape() != v->type().shape()) continue;
      int q = paramOf(d->operand(i), body, memo, depth + 1);
      if (q >= 0 && p >= 0 && q != p) return -1;
      if (q >= 0) p = q;
    }
    return p;
  }
  return -1;
}

int paramOf(const ir::Value* v, const ir::Block& body, std::map<const ir::Value*, int>& memo, int depth) {
  if (auto it = memo.find(v); it != memo.end()) return it->second;
  int p = paramOfUncached(v, body, memo, depth);
  memo[v] = p;
  return p;
}

// True when v is a tile_mma result, or computed from one by conversions, loops and element-wise
// arithmetic of its shape (an MLP's `max(acc + bias, 0) as f16` is still C = A x B's M x N).
bool fromMma(const ir::Value* v, std::set<const ir::Value*>& seen, int depth = 0) {
  if (!v || depth > 64 || v->isBlockArgument() || !seen.insert(v).second) return false;
  ir::Operation* d = v->definingOp();
  if (d->is("tile.tile_mma")) return true;
  if (d->is("tile.convert_layout") || d->is("arith.convert")) return fromMma(d->operand(0), seen, depth + 1);
  if (d->is("scf.for")) {
    const ir::Block& b = d->region(0).block();
    const ir::Operation* y = b.terminator();
    return y && v->index() < y->numOperands() && fromMma(y->operand(v->index()), seen, depth + 1);
  }
  if ((d->name().starts_with("arith.") || d->name().starts_with("math.")) && v->type().isVector())
    for (unsigned i = 0; i < d->numOperands(); ++i)
      if (d->operand(i)->type().isVector() && d->operand(i)->type().shape() == v->type().shape() &&
          fromMma(d->operand(i), seen, depth + 1))
        return true;
  return false;
}

// A shape to show in an error: the memref's static dims, 64 for the dynamic ones (1x64, not 64x64,
// for a memref<1x?xf32>).
std::string exampleShape(const ir::Type& t) {
  std::vector<int64_t> s = t.shape();
  for (int64_t& d : s)
    if (d == ir::kDynamic) d = 64;
  return ir::shapeStr(s);
}

bool parseInt(const std::string& s, int64_t& v) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  long long x = std::strtoll(s.c_str(), &end, 0);
  if (errno || *end) return false;
  v = x;
  return true;
}

bool parseShape(const std::string& s, std::vector<int64_t>& shape) {
  shape.clear();
  size_t p = 0;
  while (true) {
    size_t x = s.find('x', p);
    int64_t v;
    if (!parseInt(s.substr(p, x == std::string::npos ? std::string::npos : x - p), v) || v < 0) return false;
    shape.push_back(v);
    if (x == std::string::npos) return true;
    p = x + 1;
  }
}

void fillRandom(interp::Buffer& b, std::mt19937_64& rng) {
  int64_t n = b.numElements();
  if (ir::isFloatElem(b.elem)) {
    std::uniform_real_distribution<double> d(-1.0, 1.0);
    for (int64_t i = 0; i < n; ++i) b.setFloat(i, d(rng));
  } else {
    int64_t lo = -64, hi = 63;
    if (b.elem == ir::ElemKind::I1) lo = 0, hi = 1;
    if (b.elem == ir::ElemKind::I8) lo = -8, hi = 7;
    std::uniform_int_distribution<int64_t> d(lo, hi);
    for (int64_t i = 0; i < n; ++i) b.setInt(i, d(rng));
  }
  // Never all zeros (tiny buffers could be).
  bool allZero = true;
  for (uint8_t x : b.bytes) allZero = allZero && x == 0;
  if (allZero && n > 0) b.setInt(0, 1);
}

}  // namespace

std::map<unsigned, std::vector<std::string>> symbolicDimNames(const ir::Operation& kernel) {
  const ir::Block& body = kernel.region(0).block();
  std::map<unsigned, std::set<std::vector<std::string>>> roles;
  std::set<std::array<int, 3>> gemms;  // the (A, B, C) parameters of each tile_mma (-1: none)
  std::map<const ir::Value*, int> memo;
  auto paramOf = [&](const ir::Value* v, const ir::Block& b) { return driver::paramOf(v, b, memo); };
  std::function<void(const ir::Block&)> walk = [&](const ir::Block& blk) {
    for (const auto& o : blk.opList()) {
      const ir::Operation& op = *o;
      if (op.is("tile.tile_mma") && op.numOperands() >= 2) {
        int a = paramOf(op.operand(0), body), b = paramOf(op.operand(1), body);
        gemms.insert({a, b, op.numOperands() > 2 ? paramOf(op.operand(2), body) : -1});
        if (a >= 0) roles[static_cast<unsigned>(a)].insert({"M", "K"});
        if (b >= 0) roles[static_cast<unsigned>(b)].insert({"K", "N"});
        if (op.numOperands() > 2) {
          int c = paramOf(op.operand(2), body);
          if (c >= 0) roles[static_cast<unsigned>(c)].insert({"M", "N"});
        }
      }
      std::set<const ir::Value*> seen;
      if (op.is("tile.store_tile") && op.numOperands() == 2 && fromMma(op.operand(0), seen)) {
        int c = paramOf(op.operand(1), body);
        if (c >= 0) roles[static_cast<unsigned>(c)].insert({"M", "N"});
      }
      for (unsigned r = 0; r < op.numRegions(); ++r)
        for (unsigned b = 0; b < op.region(r).numBlocks(); ++b) walk(op.region(r).block(b));
    }
  };
  walk(body);
  std::map<unsigned, std::vector<std::string>> out;
  // GEMMs over different operands (attention's Q K^T and P V) have different M, N and K: no names,
  // each memref is sized by its own --arg (one shared K made V's static 32 rows "not 16").
  if (gemms.size() > 1) return out;
  for (auto& [p, set] : roles)
    if (set.size() == 1 && body.argument(p)->type().isMemRef() && body.argument(p)->type().rank() == 2) out[p] = *set.begin();
  return out;
}

bool buildKernelArgs(const ir::Operation& kernel, const RunArgRequest& req, DiagnosticEngine& diags,
                     interp::KernelArgs& out, std::map<std::string, int64_t>& boundSizes) {
  const ir::Block& body = kernel.region(0).block();
  std::vector<std::string> names = paramNames(kernel);
  std::map<unsigned, std::vector<std::string>> sym = symbolicDimNames(kernel);
  std::map<std::string, std::string> argVals;
  for (const std::string& a : req.args) {
    size_t eq = a.find('=');
    if (eq == std::string::npos || eq == 0) {
      diags.error(SourceLoc{}, "--arg '" + a + "' is not NAME=VALUE");
      return false;
    }
    argVals[a.substr(0, eq)] = a.substr(eq + 1);
  }
  std::map<std::string, interp::Buffer> files;
  for (const std::string& a : req.inputs) {
    size_t eq = a.find('=');
    if (eq == std::string::npos || eq == 0) {
      diags.error(SourceLoc{}, "--input '" + a + "' is not NAME=file.npy");
      return false;
    }
    std::string name = a.substr(0, eq), err;
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      diags.error(SourceLoc{}, "--input names '" + name + "', which is not a parameter of kernel '" + ir::kernelName(&kernel) + "'");
      return false;
    }
    interp::Buffer b;
    if (!interp::readNpy(a.substr(eq + 1), b, &err)) {
      diags.error(SourceLoc{}, err);
      return false;
    }
    files[name] = std::move(b);
  }
  // Every name an --arg may use.
  std::set<std::string> known;
  for (unsigned i = 0; i < body.numArguments(); ++i) {
    known.insert(names[i]);
    for (int64_t d = 0; d < body.argument(i)->type().rank(); ++d) known.insert(names[i] + "_dim" + std::to_string(d));
  }
  for (auto& [p, dims] : sym) known.insert(dims.begin(), dims.end());
  for (auto& [k, v] : argVals)
    if (!known.count(k)) {
      std::string list;
      for (const std::string& n : known) list += (list.empty() ? "" : ", ") + n;
      diags.error(SourceLoc{}, "--arg " + k + ": kernel '" + ir::kernelName(&kernel) + "' has no parameter or size of that name (known: " + list + ")");
      return false;
    }
  // Size names (P_dimD, and M/N/K which several operands share) are checked here, once each: a bad
  // M would otherwise be reported for every operand that has an M dimension.
  std::set<std::string> sizeNames;
  for (unsigned i = 0; i < body.numArguments(); ++i)
    for (int64_t d = 0; d < body.argument(i)->type().rank(); ++d) sizeNames.insert(names[i] + "_dim" + std::to_string(d));
  for (auto& [p, dims] : sym) sizeNames.insert(dims.begin(), dims.end());
  bool sizesOk = true;
  for (auto& [k, v] : argVals) {
    int64_t x;
    if (sizeNames.count(k) && (!parseInt(v, x) || x < 0)) {
      diags.error(SourceLoc{}, "--arg " + k + "=" + v + ": not a size (expected a non-negative integer, e.g. " + k + "=64)");
      sizesOk = false;
    }
  }
  if (!sizesOk) return false;
  // Sizes a GEMM name takes from another operand (A=37x29 gives M and K to B and C too).
  std::map<std::string, int64_t> symKnown;
  for (auto& [p, dims] : sym) {
    const std::string& pn = names[p];
    std::vector<int64_t> s;
    auto full = argVals.find(pn);
    bool haveFull = full != argVals.end() && parseShape(full->second, s) && s.size() == dims.size();
    auto file = files.find(pn);
    for (size_t d = 0; d < dims.size(); ++d) {
      int64_t x;
      int64_t st = body.argument(p)->type().shape()[d];
      if (haveFull) symKnown.emplace(dims[d], s[d]);
      else if (auto it = argVals.find(pn + "_dim" + std::to_string(d)); it != argVals.end() && parseInt(it->second, x)) symKnown.emplace(dims[d], x);
      else if (st != ir::kDynamic) symKnown.emplace(dims[d], st);
      else if (file != files.end() && file->second.shape.size() == dims.size()) symKnown.emplace(dims[d], file->second.shape[d]);
    }
  }
  bool ok = true;
  out.args.clear();
  for (unsigned i = 0; i < body.numArguments(); ++i) {
    const ir::Type& t = body.argument(i)->type();
    const std::string& pn = names[i];
    if (!t.isMemRef()) {
      auto it = argVals.find(pn);
      if (it == argVals.end()) {
        diags.error(SourceLoc{}, "scalar parameter '" + pn + "' needs a value: --arg " + pn + "=VALUE");
        ok = false;
        out.args.push_back(interp::KernelArg::fromScalar({}));
        continue;
      }
      interp::ScalarArg s;
      s.elem = t.elem();
      int64_t iv;
      char* end = nullptr;
      if (ir::isFloatElem(t.elem())) {
        s.f = std::strtod(it->second.c_str(), &end);
        if (it->second.empty() || *end) {
          diags.error(SourceLoc{}, "--arg " + pn + "=" + it->second + ": not a number");
          ok = false;
        }
      } else if (parseInt(it->second, iv)) {
        // A value outside the type was silently wrapped to its low bits (i8 300 ran as 44, i1 2 as
        // false): refused instead. i64 and index take any value parseInt accepts.
        int bits = ir::elemBits(t.elem());
        int64_t lo = bits == 1 ? 0 : bits < 64 ? -(int64_t(1) << (bits - 1)) : INT64_MIN;
        int64_t hi = bits == 1 ? 1 : bits < 64 ? (int64_t(1) << (bits - 1)) - 1 : INT64_MAX;
        if (iv < lo || iv > hi) {
          diags.error(SourceLoc{}, "--arg " + pn + "=" + it->second + ": out of range for " + std::string(ir::elemName(t.elem())) + " (" +
                                       std::to_string(lo) + " to " + std::to_string(hi) + ")");
          ok = false;
        }
        s.i = iv;
      } else {
        diags.error(SourceLoc{}, "--arg " + pn + "=" + it->second + ": not an integer");
        ok = false;
      }
      out.args.push_back(interp::KernelArg::fromScalar(s));
      continue;
    }
    std::vector<int64_t> shape = t.shape();
    std::optional<std::vector<int64_t>> full;
    if (auto it = argVals.find(pn); it != argVals.end()) {
      std::vector<int64_t> s;
      if (!parseShape(it->second, s) || s.size() != shape.size()) {
        diags.error(SourceLoc{}, "--arg " + pn + "=" + it->second + ": expected a shape like " + exampleShape(t) +
                                     " for " + t.str());
        ok = false;
        continue;
      }
      full = s;
    }
    auto fileIt = files.find(pn);
    for (size_t d = 0; d < shape.size(); ++d) {
      std::optional<int64_t> v;
      std::string dimName = pn + "_dim" + std::to_string(d), symName;
      if (full) v = (*full)[d];
      else if (auto it = argVals.find(dimName); it != argVals.end()) {
        int64_t x = 0;
        parseInt(it->second, x);  // checked above
        v = x;
      } else if (auto s = sym.find(i); s != sym.end()) {
        symName = s->second[d];
        if (auto it = argVals.find(symName); it != argVals.end()) {
          int64_t x = 0;
          parseInt(it->second, x);  // checked above
          v = x;
        } else if (auto k = symKnown.find(symName); k != symKnown.end()) {
          v = k->second;
        }
      }
      if (!v && fileIt != files.end() && fileIt->second.shape.size() == shape.size()) v = fileIt->second.shape[d];
      if (shape[d] != ir::kDynamic) {
        if (v && *v != shape[d]) {
          diags.error(SourceLoc{}, "dimension " + std::to_string(d) + " of '" + pn + "' is " + std::to_string(shape[d]) + " (" + t.str() +
                                       "), not " + std::to_string(*v));
          ok = false;
        }
        continue;
      }
      if (!v) {
        std::string how = "--arg " + pn + "=" + exampleShape(t) + ", --arg " + dimName + "=N";
        if (auto s = sym.find(i); s != sym.end()) how += " or --arg " + s->second[d] + "=N";
        diags.error(SourceLoc{}, "the size of dimension " + std::to_string(d) + " of '" + pn + "' (" + t.str() + ") is not known: pass " + how);
        ok = false;
        continue;
      }
      shape[d] = *v;
      boundSizes[dimName] = *v;
      if (auto s = sym.find(i); s != sym.end()) {
        const std::string& sn = s->second[d];
        if (auto b = boundSizes.find(sn); b != boundSizes.end() && b->second != *v && !argVals.count(sn)) {
          diags.error(SourceLoc{}, "size " + sn + " is " + std::to_string(b->second) + " for one operand and " + std::to_string(*v) + " for '" + pn + "'");
          ok = false;
        }
        boundSizes.emplace(sn, *v);
      }
    }
    if (!ok) {
      out.args.push_back(interp::KernelArg::fromBuffer({}));
      continue;
    }
    interp::Buffer b;
    if (fileIt != files.end()) {
      if (fileIt->second.shape != shape) {
        diags.error(SourceLoc{}, "--input " + pn + ": the file has shape " + ir::shapeStr(fileIt->second.shape) + ", the kernel needs " + ir::shapeStr(shape));
        ok = false;
        continue;
      }
      b = toMemoryOrder(fileIt->second.elem == t.elem() ? fileIt->second : interp::convertBuffer(fileIt->second, t.elem()), t);
    } else {
      // Sizes whose byte count overflows 64 bits wrapped to a small buffer that the kernel's grid
      // then overran (a segmentation fault); one the host cannot allocate was "internal error:
      // std::bad_alloc".
      uint64_t bytes = ir::elemBits(t.elem()) / 8;
      bool overflow = false;
      for (int64_t d : shape) overflow = overflow || __builtin_mul_overflow(bytes, static_cast<uint64_t>(d), &bytes);
      if (overflow || bytes > static_cast<uint64_t>(INT64_MAX)) {
        diags.error(SourceLoc{}, "memref '" + pn + "' of " + ir::shapeStr(shape) + " " + std::string(ir::elemName(t.elem())) +
                                     " elements is too large: its size in bytes does not fit in 64 bits");
        ok = false;
        continue;
      }
      // More bytes than the host's physical memory is refused before allocating: under ASan (and
      // with overcommit) such an allocation aborts or succeeds lazily instead of throwing.
      long pages = sysconf(_SC_PHYS_PAGES), pageBytes = sysconf(_SC_PAGESIZE);
      bool pastMemory = pages > 0 && pageBytes > 0 && bytes / static_cast<uint64_t>(pageBytes) >= static_cast<uint64_t>(pages);
      try {
        if (pastMemory) throw std::bad_alloc();
        b = interp::Buffer(t.elem(), shape);
      } catch (const std::bad_alloc&) {
        diags.error(SourceLoc{}, "cannot allocate memref '" + pn + "' of " + ir::shapeStr(shape) + " " + std::string(ir::elemName(t.elem())) +
                                     " elements (" + std::to_string(bytes) + " bytes) on this host");
        ok = false;
        continue;
      }
      std::mt19937_64 rng(req.seed * 1000003u + i);
      fillRandom(b, rng);
    }
    out.args.push_back(interp::KernelArg::fromBuffer(std::move(b)));
  }
  return ok;
}

namespace {

// Copies element (i0, .., in) of `from` to `to`: at its row-major index on the logical side, at
// sum(i_d * stride_d) of the memref's dense strides on the memory side.
interp::Buffer permuteBuffer(const interp::Buffer& from, const ir::Type& memref, bool toMemory) {
  std::optional<std::vector<int64_t>> order = ir::denseMemRefOrder(memref);
  bool identity = true;
  for (size_t i = 0; order && i < order->size(); ++i) identity = identity && (*order)[i] == static_cast<int64_t>(i);
  if (!order || identity) return from;
  std::vector<int64_t> strides = ir::denseStrides(from.shape, *order);
  interp::Buffer to = from;
  std::vector<int64_t> idx(from.shape.size(), 0);
  unsigned es = from.elemSize();
  for (int64_t lin = 0; lin < from.numElements(); ++lin) {
    int64_t mem = 0;
    for (size_t d = 0; d < idx.size(); ++d) mem += idx[d] * strides[d];
    int64_t src = toMemory ? lin : mem, dst = toMemory ? mem : lin;
    std::memcpy(to.at(dst), from.at(src), es);
    for (size_t d = idx.size(); d-- > 0;) {  // next row-major index
      if (++idx[d] < from.shape[d]) break;
      idx[d] = 0;
    }
  }
  return to;
}

}  // namespace

interp::Buffer toMemoryOrder(const interp::Buffer& logical, const ir::Type& memref) { return permuteBuffer(logical, memref, true); }
interp::Buffer fromMemoryOrder(const interp::Buffer& memory, const ir::Type& memref) { return permuteBuffer(memory, memref, false); }

std::vector<runtime::LaunchArg> abiArgs(const ir::Operation& kernel, interp::KernelArgs& args) {
  const ir::Block& body = kernel.region(0).block();
  std::vector<runtime::LaunchArg> r;
  for (unsigned i = 0; i < body.numArguments(); ++i) {
    const ir::Type& t = body.argument(i)->type();
    interp::KernelArg& a = args.args[i];
    if (t.isMemRef()) {
      r.push_back(runtime::LaunchArg::buf(a.buffer.bytes));
      for (size_t d = 0; d < t.shape().size(); ++d)
        if (t.shape()[d] == ir::kDynamic) r.push_back(runtime::LaunchArg::value<int64_t>(a.buffer.shape[d]));
      continue;
    }
    // A scalar in its memory representation (bf16/f16 as 16 bits, i1 as a byte, index as i64).
    interp::Buffer one(t.elem(), {});
    if (ir::isFloatElem(a.scalar.elem)) one.setFloat(0, a.scalar.f);
    else one.setInt(0, a.scalar.i);
    runtime::LaunchArg s;
    s.scalar = one.bytes;
    r.push_back(std::move(s));
  }
  return r;
}

}  // namespace xtc::driver
