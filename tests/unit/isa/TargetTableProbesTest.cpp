// The target tables (ir/targets/Targets.cpp) against the ISA probes (tests/isa/builtins/*.ir), in
// both directions: every 2D block shape and DPAS form a table offers must have a probe kernel that
// uses exactly that form (the isa label compiles each probe through xtc and checks the disassembly),
// and every form a probe proves must be in its target's table. Removing a table entry, or offering a
// shape nobody probed, fails here. 2D stores and prefetches (inline vISA, backends/spirv/VisaEmitter)
// are checked in the first direction only: their probes (visa_*.ir) belong to the vISA emitter,
// whose table block decides which probed shapes the blocking pass may use.
#include "ir/Module.h"
#include "ir/Parser.h"
#include "ir/ops/LaneOps.h"
#include "ir/ops/Ops.h"
#include "ir/targets/Target.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace xtc {
namespace {

namespace fs = std::filesystem;

// "pvc load d16 16x8x2 vnni=0 transpose=0", "dg2 dpas bf16xbf16->f32 8x8x16".
std::string blockKey(const std::string& target, const char* kind, const targets::BlockShape& s) {
  return fmt::format("{} {} d{} {}x{}x{} vnni={} transpose={}", target, kind, s.elemBits, s.width, s.height,
                     s.arrayLength, int(s.vnni), int(s.transpose));
}
std::string dpasKey(const std::string& target, const targets::DpasShape& d) {
  return fmt::format("{} dpas {}x{}->{} {}x{}x{}", target, d.aType, d.bType, d.accType, d.m, d.n, d.k);
}

std::set<std::string> tableForms() {
  std::set<std::string> keys;
  for (const char* name : {"pvc", "dg2"}) {
    const targets::Target* t = targets::findTarget(name);
    for (const auto& s : t->blockLoads) keys.insert(blockKey(name, "load", s));
    for (const auto& s : t->blockStores) keys.insert(blockKey(name, "store", s));
    for (const auto& s : t->blockPrefetches) keys.insert(blockKey(name, "prefetch", s));
    for (const auto& d : t->dpas) keys.insert(dpasKey(name, d));
  }
  return keys;
}

// The forms the probes use, each with the probe file that proves it.
std::map<std::string, std::string> probeForms() {
  ir::registerAllOps();
  ir::registerLaneOps();
  std::map<std::string, std::string> forms;
  for (const auto& e : fs::directory_iterator(fs::path(XTC_SOURCE_DIR) / "tests/isa/builtins")) {
    if (e.path().extension() != ".ir") continue;
    std::ifstream in(e.path());
    std::stringstream text;
    text << in.rdbuf();
    SourceManager sm;
    std::ostringstream msgs;
    DiagnosticEngine diags(sm, msgs);
    std::unique_ptr<ir::Operation> module = ir::parseModule(e.path().string(), text.str(), diags);
    diags.flush();
    EXPECT_TRUE(module) << e.path() << ": " << msgs.str();
    if (!module) continue;
    for (ir::Operation* k : ir::moduleKernels(module.get())) {
      const ir::Attribute* ta = k->attr("target");
      std::string target = ta && ta->isa(ir::AttrKind::String) ? ta->getString() : "";
      k->walk([&](ir::Operation* op) {
        const std::string& n = op->name();
        auto flag = [&](const char* a) { return op->attr(a) && op->attr(a)->getBool(); };
        if (n == "xe.load_2d" || n == "xe.store_2d" || n == "xe.prefetch_2d") {
          targets::BlockShape s{unsigned(op->intAttr("elem_bits", 0)), unsigned(op->intAttr("block_w", 0)),
                                unsigned(op->intAttr("block_h", 0)), unsigned(op->intAttr("array_len", 0)),
                                flag("vnni"), flag("transpose")};
          const char* kind = n == "xe.load_2d" ? "load" : n == "xe.store_2d" ? "store" : "prefetch";
          forms[blockKey(target, kind, s)] = e.path().filename().string();
        } else if (n == "xe.dpas") {
          targets::DpasShape d{op->attr("a_type")->getString(), op->attr("b_type")->getString(),
                               op->attr("acc_type")->getString(), unsigned(op->intAttr("m", 0)),
                               unsigned(op->intAttr("n", 0)), unsigned(op->intAttr("k", 0))};
          forms[dpasKey(target, d)] = e.path().filename().string();
        }
      });
    }
  }
  return forms;
}

TEST(TargetTableProbes, EveryTableEntryHasAProbe) {
  std::map<std::string, std::string> probes = probeForms();
  for (const std::string& key : tableForms())
    EXPECT_TRUE(probes.count(key)) << "the target table offers '" << key
                                   << "' but no tests/isa/builtins probe proves it";
}

TEST(TargetTableProbes, EveryProbedFormIsInTheTable) {
  std::set<std::string> table = tableForms();
  std::map<std::string, std::string> probes = probeForms();
  EXPECT_GE(probes.size(), 20u) << "the probes were not found";
  for (const auto& [key, file] : probes)
    if (key.find(" store ") == std::string::npos && key.find(" prefetch ") == std::string::npos) {
      EXPECT_TRUE(table.count(key)) << file << " proves '" << key << "', which its target's table does not list";
    }
}

}  // namespace
}  // namespace xtc
