// The compilation pipeline (see Pipeline.h): the target's pass pipeline (passes::defaultPipeline:
// generic lowers with lower-generic to portable subgroup code; pvc and dg2 go through blocking,
// layout-assignment, resolve-layouts and lower-xe to xe.* ops), then the SPIR-V backend.
#include "driver/Pipeline.h"

#include "backends/spirv/SpirvBackend.h"
#include "frontend/Frontend.h"
#include "ir/Module.h"
#include "ir/Parser.h"
#include "ir/Verifier.h"
#include "ir/ops/LaneOps.h"
#include "ir/ops/Ops.h"
#include "ir/targets/Target.h"

#include <fmt/format.h>

namespace xtc::driver {

namespace {

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void registerEverything() {
  ir::registerAllOps();
  ir::registerLaneOps();
  passes::registerAllPasses();
}

}  // namespace

std::vector<std::string> targetPipeline(const std::string& target) {
  registerEverything();
  const targets::Target* t = targets::findTarget(target);
  return t ? passes::defaultPipeline(*t) : std::vector<std::string>{};
}

bool compileModule(std::unique_ptr<ir::Operation> module, const CompileOptions& options, DiagnosticEngine& diags,
                   CompileResult& result) {
  registerEverything();
  result = CompileResult{};
  const targets::Target* target = targets::findTarget(options.target);
  if (!target) {
    diags.error(SourceLoc{}, fmt::format("unknown target '{}' (expected one of: {})", options.target,
                                         targets::targetNames()));
    return false;
  }
  if (!ir::verify(*module, diags)) return false;
  passes::PassContext ctx{diags, target};
  passes::PassManager pm(ctx, options.passOptions);
  std::vector<std::string> pipeline = targetPipeline(options.target);
  // --emulate-xe: the xe.* ops become portable lane-level ops (ir/passes/EmulateXe.cpp), so pvc/dg2
  // kernels run on any OpenCL device with subgroups.
  if (options.emulateXe && target->kind != targets::TargetKind::Generic) pipeline.push_back("emulate-xe");
  if (!pm.addPipeline(pipeline)) return false;
  if (!pm.run(module.get())) return false;

  for (ir::Operation* k : ir::moduleKernels(module.get())) {
    KernelInfo info;
    info.name = ir::kernelName(k);
    if (const ir::Attribute* a = k->attr("arg_names"))
      for (const ir::Attribute& n : a->getArray()) info.argNames.push_back(n.isa(ir::AttrKind::String) ? n.getString() : "");
    if (const ir::Attribute* a = k->attr("wg_size")) info.wgSize = a->getIntArray();
    info.sgSize = k->intAttr("sg_size", 0);
    result.kernels.push_back(std::move(info));
  }

  if (options.runBackend || options.wantLLVM) {
    backend::BackendOptions bo;
    bo.target = target;
    bo.optLevel = options.optLevel;
    if (options.wantLLVM && !backend::emitLLVMText(*module, bo, diags, result.llvmText)) return false;
    if (options.runBackend && !backend::emitSpirv(*module, bo, diags, result.spirv)) return false;
  }
  result.module = std::move(module);
  return !diags.hasErrors();
}

bool compileFile(const std::string& path, const CompileOptions& options, DiagnosticEngine& diags,
                 CompileResult& result) {
  registerEverything();
  SourceManager& sm = diags.sources();
  if (!sm.text(path)) {
    std::string error;
    if (!sm.addFile(path, &error)) {
      diags.error(SourceLoc{}, error);
      return false;
    }
  }
  std::unique_ptr<ir::Operation> module;
  if (endsWith(path, ".ir"))
    module = ir::parseModule(path, *sm.text(path), diags);
  else
    module = frontend::compileToTileIR(path, diags);
  if (!module) return false;
  return compileModule(std::move(module), options, diags, result);
}

}  // namespace xtc::driver
