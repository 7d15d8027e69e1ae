// Pass manager tests: registry, pipelines, unknown names, verify-each catching a broken pass, the
// print-before/after headers and the timing table.
#include "IrTestUtil.h"

#include "ir/Module.h"
#include "ir/passes/PassManager.h"
#include "ir/targets/Target.h"

#include <gtest/gtest.h>

namespace xtc::passes {
namespace {

// A pass that breaks the IR on purpose (adds an op the registry does not know).
class BreakerPass : public Pass {
public:
  std::string name() const override { return "test-breaker"; }
  std::string description() const override { return "adds an unknown op (test only)"; }
  bool run(ir::Operation* module, PassContext&) override {
    ir::Block& b = ir::moduleBody(module);
    b.push_back(ir::Operation::create("test.unknown", {}, {}, {}));
    return true;
  }
};

class FailingPass : public Pass {
public:
  std::string name() const override { return "test-fail"; }
  std::string description() const override { return "fails (test only)"; }
  bool run(ir::Operation*, PassContext&) override { return false; }
};

const char* kModule =
    "builtin.module {\n"
    "  xtc.kernel @k() {arg_names = []} launch {\n"
    "    %0 = arith.constant {value = 1 : index} : () -> (index)\n"
    "    %1 = arith.constant {value = 1 : index} : () -> (index)\n"
    "    xtc.grid %0, %1, %1 : (index, index, index) -> ()\n"
    "  } body {\n"
    "    xtc.return : () -> ()\n"
    "  }\n"
    "}\n";

TEST(PassManager, RegistryAndSplit) {
  registerAllPasses();
  EXPECT_TRUE(isPassRegistered("canonicalize"));
  EXPECT_FALSE(isPassRegistered("no-such-pass"));
  auto names = registeredPasses();
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_EQ(splitPipeline(" a, b ,,c "), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(splitPipeline("").empty());
  auto pipeline = defaultPipeline(*targets::findTarget("pvc"));
  ASSERT_FALSE(pipeline.empty());
  EXPECT_EQ(pipeline.front(), "lower-tf32");
  for (size_t i = 1; i < pipeline.size(); ++i) EXPECT_NE(pipeline[i], pipeline[i - 1]);
  for (auto& n : pipeline) EXPECT_TRUE(isPassRegistered(n)) << n;
}

TEST(PassManager, UnknownPassIsAnError) {
  registerAllPasses();
  auto p = ir::testing::parse(kModule);
  PassContext ctx{*p->diags, nullptr};
  PassManager pm(ctx);
  EXPECT_FALSE(pm.addPipeline({"canonicalize", "bogus"}));
  EXPECT_EQ(pm.size(), 0u);
  EXPECT_NE(p->messages().find("xtc: error: unknown pass 'bogus' (known passes: "), std::string::npos) << p->messages();
}

TEST(PassManager, PrintsBeforeAndAfterAndTimes) {
  registerAllPasses();
  auto p = ir::testing::parse(kModule);
  std::ostringstream ir, timing;
  PassManagerOptions o;
  o.printBefore = {"canonicalize"};
  o.printAfterAll = true;
  o.timePasses = true;
  o.irStream = &ir;
  o.timingStream = &timing;
  PassContext ctx{*p->diags, nullptr};
  PassManager pm(ctx, o);
  ASSERT_TRUE(pm.addPipeline({"canonicalize"}));
  ASSERT_TRUE(pm.run(p->module.get())) << p->messages();
  std::string s = ir.str();
  size_t before = s.find("// -----// IR before canonicalize //----- //\n");
  size_t after = s.find("// -----// IR after canonicalize //----- //\n");
  ASSERT_NE(before, std::string::npos) << s;
  ASSERT_NE(after, std::string::npos) << s;
  EXPECT_LT(before, after);
  // Before: two equal constants; after: CSE merged them.
  EXPECT_NE(s.substr(before, after - before).find("%1 = arith.constant"), std::string::npos);
  EXPECT_EQ(s.substr(after).find("%1 = arith.constant"), std::string::npos) << s.substr(after);
  EXPECT_NE(timing.str().find("Pass execution timing report"), std::string::npos);
  EXPECT_NE(timing.str().find("canonicalize"), std::string::npos);
  EXPECT_NE(timing.str().find("(verifier)"), std::string::npos);
}

TEST(PassManager, VerifyEachCatchesABrokenPass) {
  auto p = ir::testing::parse(kModule);
  PassContext ctx{*p->diags, nullptr};
  PassManager pm(ctx);
  pm.addPass(std::make_unique<BreakerPass>());
  EXPECT_FALSE(pm.run(p->module.get()));
  std::string msg = p->messages();
  EXPECT_NE(msg.find("'test.unknown' op unknown op"), std::string::npos) << msg;
  EXPECT_NE(msg.find("internal error: the IR is invalid after pass 'test-breaker'"), std::string::npos) << msg;

  auto q = ir::testing::parse(kModule);
  PassContext ctx2{*q->diags, nullptr};
  PassManagerOptions noVerify;
  noVerify.verifyEach = false;
  PassManager pm2(ctx2, noVerify);
  pm2.addPass(std::make_unique<BreakerPass>());
  EXPECT_TRUE(pm2.run(q->module.get()));
}

TEST(PassManager, FailingPassStopsThePipeline) {
  registerAllPasses();
  auto p = ir::testing::parse(kModule);
  std::ostringstream ir;
  PassManagerOptions o;
  o.printAfterAll = true;
  o.irStream = &ir;
  PassContext ctx{*p->diags, nullptr};
  PassManager pm(ctx, o);
  pm.addPass(std::make_unique<FailingPass>());
  pm.addPass(createPass("canonicalize"));
  EXPECT_FALSE(pm.run(p->module.get()));
  EXPECT_NE(p->messages().find("pass 'test-fail' failed"), std::string::npos);
  EXPECT_EQ(ir.str(), "");  // nothing ran after it
}

}  // namespace
}  // namespace xtc::passes
