// Builder, module/kernel helpers and the op registry.
#include "ir/Builder.h"

#include "ir/Module.h"
#include "ir/OpRegistry.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <stdexcept>

namespace xtc::ir {

Operation* Builder::create(std::string name, const std::vector<Value*>& operands, const std::vector<Type>& resultTypes,
                           AttrMap attrs, unsigned numRegions) {
  return insert(Operation::create(std::move(name), loc_, operands, resultTypes, std::move(attrs), numRegions));
}

Operation* Builder::insert(std::unique_ptr<Operation> op) {
  if (!block_) throw std::logic_error("Builder: no insertion point");
  return block_->insert(before_, std::move(op));
}

Value* Builder::constantIndex(int64_t v) { return constantInt(v, ElemKind::Index); }

Value* Builder::constantInt(int64_t v, ElemKind k) {
  return create("arith.constant", {}, {Type::scalar(k)}, {{"value", Attribute::integer(v, k)}})->result();
}

Value* Builder::constantFloat(double v, ElemKind k) {
  return create("arith.constant", {}, {Type::scalar(k)}, {{"value", Attribute::floating(v, k)}})->result();
}

// ----- module and kernels ----------------------------------------------------------------------

std::unique_ptr<Operation> createModule(SourceLoc loc) {
  auto m = Operation::create("builtin.module", std::move(loc), {}, {}, {}, 1);
  m->region(0).addBlock();
  return m;
}

Block& moduleBody(Operation* module) { return module->region(0).block(); }

std::vector<Operation*> moduleKernels(Operation* module) {
  std::vector<Operation*> r;
  for (Operation* op : moduleBody(module).opsSnapshot())
    if (op->is("xtc.kernel")) r.push_back(op);
  return r;
}

Operation* createKernel(Operation* module, const std::string& name, const std::vector<std::string>& paramNames,
                        const std::vector<Type>& paramTypes, SourceLoc loc) {
  std::vector<Attribute> names;
  for (auto& n : paramNames) names.push_back(Attribute::string(n));
  AttrMap attrs{{"sym_name", Attribute::string(name)}, {"arg_names", Attribute::array(std::move(names))}};
  auto k = Operation::create("xtc.kernel", std::move(loc), {}, {}, std::move(attrs), 2);
  for (unsigned r = 0; r < 2; ++r) {
    Block& b = k->region(r).addBlock();
    for (size_t i = 0; i < paramTypes.size(); ++i) {
      Value* a = b.addArgument(paramTypes[i]);
      if (i < paramNames.size()) a->setNameHint(paramNames[i]);
    }
  }
  return moduleBody(module).push_back(std::move(k));
}

std::string kernelName(const Operation* kernel) {
  const Attribute* a = kernel->attr("sym_name");
  return a && a->kind() == AttrKind::String ? a->getString() : std::string();
}

// ----- op registry -----------------------------------------------------------------------------

namespace {
std::map<std::string, OpInfo, std::less<>>& registry() {
  static std::map<std::string, OpInfo, std::less<>> r;
  return r;
}
std::mutex& registryMutex() {
  static std::mutex m;
  return m;
}
}  // namespace

void registerOp(OpInfo info) {
  std::lock_guard<std::mutex> g(registryMutex());
  std::string n = info.name;
  registry()[n] = std::move(info);
}

const OpInfo* findOp(std::string_view name) {
  std::lock_guard<std::mutex> g(registryMutex());
  auto it = registry().find(name);
  return it == registry().end() ? nullptr : &it->second;
}

std::vector<const OpInfo*> allOps() {
  std::lock_guard<std::mutex> g(registryMutex());
  std::vector<const OpInfo*> r;
  for (auto& [n, i] : registry()) r.push_back(&i);
  return r;
}

}  // namespace xtc::ir
