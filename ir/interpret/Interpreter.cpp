// runKernel / evaluateLaunchGrid: binds kernel arguments, evaluates the launch region, picks the
// execution level (workgroup or subgroup) and runs every workgroup.
#include "ir/interpret/Interpreter.h"

#include "ir/Module.h"
#include "ir/interpret/Exec.h"
#include "ir/interpret/Numeric.h"

#include <algorithm>
#include <mutex>

namespace xtc::interp {

namespace {

void registerAllHandlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerCoreHandlers();
    registerArithHandlers();
    registerTileHandlers();
    registerLaneHandlers();
    registerXeHandlers();
  });
}

std::string paramName(const ir::Operation& kernel, size_t i) {
  const ir::Attribute* names = kernel.attr("arg_names");
  if (names && names->kind() == ir::AttrKind::Array && i < names->getArray().size() &&
      names->getArray()[i].kind() == ir::AttrKind::String)
    return names->getArray()[i].getString();
  return "#" + std::to_string(i);
}

// Strides of a memref parameter: the type's static strides, or dense ones (the dim with a static
// stride of 1 fastest, the others row-major) when some are dynamic or none are given.
std::vector<int64_t> memrefStrides(const ir::Type& t, const std::vector<int64_t>& shape) {
  const std::vector<int64_t>& ts = t.strides();
  size_t r = shape.size();
  bool allStatic = !ts.empty();
  for (int64_t s : ts) allStatic = allStatic && s != ir::kDynamic;
  if (allStatic) return ts;
  std::vector<size_t> order;  // fastest first
  for (size_t d = 0; d < ts.size(); ++d)
    if (ts[d] == 1) order.push_back(d);
  for (size_t d = r; d-- > 0;)
    if (order.empty() || d != order[0]) order.push_back(d);
  std::vector<int64_t> st(r, 1);
  int64_t acc = 1;
  for (size_t d : order) {
    st[d] = acc;
    acc *= shape[d];
  }
  return st;
}

std::vector<RtValue> bindParams(const ir::Operation& kernel, KernelArgs& args) {
  const ir::Block& body = kernel.region(0).block();
  std::vector<RtValue> vals;
  for (unsigned i = 0; i < body.numArguments(); ++i) {
    const ir::Type& t = body.argument(i)->type();
    KernelArg& a = args.args.at(i);
    if (t.isMemRef()) {
      auto m = std::make_shared<MemRefVal>();
      m->buf = &a.buffer;
      m->shape = a.buffer.shape;
      m->strides = memrefStrides(t, m->shape);
      vals.push_back(RtValue{{}, std::move(m), {}});
    } else {
      Tensor s(t.elem(), {});
      if (s.isFloat()) s.f[0] = roundToElem(isFloatElem(a.scalar.elem) ? a.scalar.f : static_cast<double>(a.scalar.i), s.elem);
      else s.i[0] = wrapToElem(isFloatElem(a.scalar.elem) ? floatToIntSat(a.scalar.f, s.elem) : a.scalar.i, s.elem);
      vals.push_back(RtValue{std::make_shared<const Tensor>(std::move(s)), {}, {}});
    }
  }
  return vals;
}

// Visits every op nested in `op` (not `op` itself).
template <class F>
void visitNested(const ir::Operation& op, F&& f) {
  for (unsigned r = 0; r < op.numRegions(); ++r)
    for (unsigned b = 0; b < op.region(r).numBlocks(); ++b) {
      const ir::Block& blk = op.region(r).block(b);
      for (unsigned a = 0; a < blk.numArguments(); ++a) f(nullptr, blk.argument(a));
      for (const auto& o : blk.opList()) {
        f(o.get(), nullptr);
        visitNested(*o, f);
      }
    }
}

struct KernelShape {
  bool workgroupLevel = false;
  int64_t wgLevelSubgroups = 1;
  bool hasBarrier = false;
  bool laneLevel = false;
};

KernelShape analyze(const ir::Operation& kernel) {
  KernelShape ks;
  visitNested(kernel, [&](const ir::Operation* op, const ir::Value* arg) {
    auto look = [&](const ir::Type& t) {
      if (auto m = ir::wgMapOf(t); m && !ks.workgroupLevel) {
        ks.workgroupLevel = true;
        ks.wgLevelSubgroups = m->numSubgroups();
      }
    };
    if (arg) look(arg->type());
    if (op) {
      if (op->is("gpu.barrier")) ks.hasBarrier = true;
      if (op->dialect() == "lane" || op->dialect() == "xe" || op->is("vector.extract") || op->is("vector.insert") || op->is("vector.from_elements"))
        ks.laneLevel = true;
      for (unsigned k = 0; k < op->numResults(); ++k) look(op->result(k)->type());
    }
  });
  return ks;
}

std::optional<std::array<int64_t, 3>> wgSizeAttr(const ir::Operation& kernel) {
  const ir::Attribute* a = kernel.attr("wg_size");
  if (!a || a->kind() != ir::AttrKind::Array || a->getArray().size() != 3) return std::nullopt;
  std::vector<int64_t> v = a->getIntArray();
  return std::array<int64_t, 3>{v[0], v[1], v[2]};
}

int64_t intAttrOr(const ir::Operation& kernel, const std::string& name, int64_t dflt) {
  const ir::Attribute* a = kernel.attr(name);
  return a && a->kind() == ir::AttrKind::Int ? a->getInt() : dflt;
}

}  // namespace

// The count and kinds of the arguments come from the kernel's own parameters wherever xtc builds them
// (driver/RunArgs.cpp), and the parser and verifier guarantee a launch region ending in xtc.grid of
// index values: those checks are internal errors.
bool checkKernelArgs(const ir::Operation& kernel, const KernelArgs& args, DiagnosticEngine& diags) {
  if (!kernel.is("xtc.kernel") || kernel.numRegions() != 2 || kernel.region(0).empty()) {
    diags.error(kernel.loc(), "internal error: interpreter: not a kernel op");
    return false;
  }
  const ir::Block& body = kernel.region(0).block();
  if (args.args.size() != body.numArguments()) {
    diags.error(kernel.loc(), "internal error: interpreter: kernel '" + ir::kernelName(&kernel) + "' takes " + std::to_string(body.numArguments()) +
                                  " arguments, got " + std::to_string(args.args.size()));
    return false;
  }
  bool ok = true;
  for (unsigned i = 0; i < body.numArguments(); ++i) {
    const ir::Type& t = body.argument(i)->type();
    const KernelArg& a = args.args[i];
    std::string what = "argument '" + paramName(kernel, i) + "'";
    if (t.isMemRef() != a.isBuffer) {
      diags.error(kernel.loc(), "internal error: interpreter: " + what + (t.isMemRef() ? " must be a buffer" : " must be a scalar"));
      ok = false;
      continue;
    }
    if (!t.isMemRef()) continue;
    if (a.buffer.elem != t.elem()) {
      diags.error(kernel.loc(), what + " has element type " + std::string(ir::elemName(a.buffer.elem)) + ", the kernel expects " +
                                    std::string(ir::elemName(t.elem())));
      ok = false;
    }
    if (a.buffer.shape.size() != t.shape().size()) {
      diags.error(kernel.loc(), what + " has rank " + std::to_string(a.buffer.shape.size()) + ", the kernel expects " + t.str());
      ok = false;
      continue;
    }
    for (size_t d = 0; d < t.shape().size(); ++d)
      if (t.shape()[d] != ir::kDynamic && t.shape()[d] != a.buffer.shape[d]) {
        diags.error(kernel.loc(), what + " has shape " + ir::shapeStr(a.buffer.shape) + ", the kernel expects " + t.str());
        ok = false;
        break;
      }
  }
  return ok;
}

std::array<int64_t, 3> evaluateLaunchGrid(const ir::Operation& kernel, const KernelArgs& args) {
  registerAllHandlers();
  if (kernel.numRegions() < 2 || kernel.region(1).empty())
    throw InterpError(kernel.loc(), "internal error: interpreter: kernel '" + ir::kernelName(&kernel) + "' has no launch region");
  // The launch region only reads shapes; binding needs non-const buffers for the common code.
  std::vector<RtValue> params = bindParams(kernel, const_cast<KernelArgs&>(args));
  Executor ex(nullptr, 0);
  std::vector<RtValue> g = ex.runBlock(kernel.region(1).block(), params);
  const ir::Operation* term = kernel.region(1).block().terminator();
  SourceLoc loc = term ? term->loc() : kernel.loc();
  if (g.size() != 3) throw InterpError(loc, "internal error: interpreter: the launch region must end in xtc.grid with 3 values");
  std::array<int64_t, 3> r{};
  for (size_t k = 0; k < 3; ++k) {
    if (!g[k].t || !g[k].t->shape.empty() || g[k].t->isFloat()) throw InterpError(loc, "internal error: interpreter: xtc.grid operands must be index scalars");
    r[k] = g[k].t->i[0];
    if (r[k] < 0) throw InterpError(loc, "the launch grid is negative in dimension " + std::to_string(k) + " (" + std::to_string(r[k]) + ")");
  }
  return r;
}

bool runKernel(const ir::Operation& kernel, KernelArgs& args, DiagnosticEngine& diags, const RunOptions& options, RunStats* stats) {
  registerAllHandlers();
  if (!checkKernelArgs(kernel, args, diags)) return false;
  RunStats local;
  RunStats& st = stats ? *stats : local;
  st = RunStats{};
  std::array<int64_t, 3> grid{};
  try {
    grid = options.grid ? *options.grid : evaluateLaunchGrid(kernel, args);
  } catch (const InterpError& e) {
    diags.error(e.loc.valid() ? e.loc : kernel.loc(), e.what());
    return false;
  }
  KernelShape ks = analyze(kernel);
  if (const ir::Attribute* t = kernel.attr("target"); t && t->kind() == ir::AttrKind::String && t->getString() == "generic")
    ks.laneLevel = true;
  std::optional<std::array<int64_t, 3>> wgSize = wgSizeAttr(kernel);
  int64_t sgSize = options.subgroupSize > 0 ? options.subgroupSize : intAttrOr(kernel, "sg_size", 0);
  int64_t nsg = 1;
  if (ks.workgroupLevel) {
    nsg = ks.wgLevelSubgroups;
  } else if (options.numSubgroups > 0) {
    nsg = options.numSubgroups;
  } else if (wgSize && sgSize > 0) {
    nsg = ((*wgSize)[0] * (*wgSize)[1] * (*wgSize)[2]) / sgSize;
  } else {
    nsg = intAttrOr(kernel, "num_subgroups", 1);
  }
  if (nsg < 1) nsg = 1;
  if (ks.laneLevel && sgSize <= 0) {
    diags.error(kernel.loc(), "lane-level IR needs the kernel's sg_size attribute");
    return false;
  }
  st.workgroupLevel = ks.workgroupLevel;
  st.laneLevel = ks.laneLevel;
  st.subgroupsPerWorkgroup = nsg;
  std::vector<RtValue> params = bindParams(kernel, args);
  if (ks.laneLevel)
    for (RtValue& p : params)
      if (p.t) {
        Tensor t(p.t->elem, {sgSize});
        for (int64_t l = 0; l < sgSize; ++l) {
          if (t.isFloat()) t.f[l] = p.t->f[0];
          else t.i[l] = p.t->i[0];
        }
        p.t = std::make_shared<const Tensor>(std::move(t));
      }
  const ir::Block& body = kernel.region(0).block();
  std::vector<Buffer*> globalBuffers;
  for (KernelArg& a : args.args)
    if (a.isBuffer) globalBuffers.push_back(&a.buffer);
  std::array<int64_t, 3> gid{};
  int64_t failingSg = -1;
  std::vector<std::array<int64_t, 3>> order = options.onlyWorkgroups;
  if (order.empty())
    for (gid[2] = 0; gid[2] < grid[2]; ++gid[2])
      for (gid[1] = 0; gid[1] < grid[1]; ++gid[1])
        for (gid[0] = 0; gid[0] < grid[0]; ++gid[0]) order.push_back(gid);
  for (const auto& g : order)
    for (int d = 0; d < 3; ++d)
      if (g[static_cast<size_t>(d)] < 0 || g[static_cast<size_t>(d)] >= grid[static_cast<size_t>(d)]) {
        diags.error(kernel.loc(), "internal error: a chosen workgroup is outside the launch grid");
        return false;
      }
  try {
    for (size_t n = 0; n < order.size(); ++n) {
      gid = order[n];
      // Buffers that log their writers learn which workgroup writes now (its number in `order`,
      // from 1; logs are meant for samples of at most 65535 workgroups).
      for (Buffer* b : globalBuffers)
        if (b->writes) b->writes->current = static_cast<uint16_t>(std::min<size_t>(n + 1, 65535));
      WorkgroupCtx wg;
      wg.groupId = gid;
      wg.numGroups = grid;
      wg.wgSize = wgSize;
      wg.numSubgroups = nsg;
      wg.subgroupSize = sgSize;
      wg.workgroupLevel = ks.workgroupLevel;
      wg.detectRaces = options.detectSlmRaces;
      wg.countOnly = options.countOnly;
      wg.lanes = ks.laneLevel ? sgSize : 0;
      wg.globalBuffers = &globalBuffers;
      wg.stats = &st;
      ++st.workgroups;
      if (ks.workgroupLevel) {
        Executor ex(&wg, 0);
        ex.runBlock(body, params);
      } else if (!ks.hasBarrier || nsg == 1) {
        // Without barriers the subgroups cannot observe each other's order: run them in turn.
        for (int64_t sg = 0; sg < nsg; ++sg) {
          failingSg = sg;
          Executor ex(&wg, sg);
          ex.runBlock(body, params);
        }
      } else {
        SubgroupScheduler sched(nsg);
        wg.scheduler = &sched;
        failingSg = -1;
        if (auto err = sched.run([&](int64_t sg) {
              Executor ex(&wg, sg);
              ex.runBlock(body, params);
            }))
          throw *err;
      }
    }
  } catch (const InterpError& e) {
    std::string where = "in workgroup (" + std::to_string(gid[0]) + ", " + std::to_string(gid[1]) + ", " + std::to_string(gid[2]) + ")";
    if (failingSg >= 0 && !ks.workgroupLevel) where += ", subgroup " + std::to_string(failingSg);
    diags.error(e.loc.valid() ? e.loc : kernel.loc(), std::string(e.what()) + " (" + where + ")");
    return false;
  }
  return true;
}

}  // namespace xtc::interp
