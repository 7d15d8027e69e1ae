// Unit tests of the .xt frontend's public API on hostile inputs (generated here, not committed):
// empty file, binary garbage, CRLF line ends, tabs, a 1 MB file, 10,000-deep nesting, long operator
// chains, invalid UTF-8; plus SSA construction checks on the IR structure.
#include "frontend/Frontend.h"
#include "ir/Module.h"
#include "ir/support/Diagnostics.h"

#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <sstream>

namespace {

struct Result {
  std::unique_ptr<xtc::ir::Operation> module;
  std::string output;
  std::vector<std::string> ids;
};

Result compile(const std::string& text, const std::string& name = "t.xt") {
  Result r;
  xtc::SourceManager sm;
  std::ostringstream out;
  {
    xtc::DiagnosticEngine diags(sm, out);
    sm.addBuffer(name, text);
    xtc::frontend::FrontendOptions opts;
    opts.emittedDiagIds = &r.ids;
    r.module = xtc::frontend::compileToTileIR(name, diags, opts);
  }
  r.output = out.str();
  return r;
}

const char* kSmall =
    "kernel k(A: memref<?x?xf32>) grid(1) {\n"
    "  t = init_tile A[0, 0] : tile<8x16xf32>\n"
    "  v = load_tile(t)\n"
    "  store_tile(v * 2.0, t)\n"
    "}\n";

TEST(Frontend, SmallKernelCompiles) {
  Result r = compile(kSmall);
  ASSERT_NE(r.module, nullptr) << r.output;
  EXPECT_EQ(r.output, "");
  auto kernels = xtc::ir::moduleKernels(r.module.get());
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(xtc::ir::kernelName(kernels[0]), "k");
  // No wg_map: one subgroup per workgroup.
  EXPECT_EQ(kernels[0]->intAttr("num_subgroups", -1), 1);
}

TEST(Frontend, EmptyFileIsAnError) {
  Result r = compile("");
  EXPECT_EQ(r.module, nullptr);
  EXPECT_NE(r.output.find("t.xt:1:1: error: file contains no kernel"), std::string::npos) << r.output;
}

TEST(Frontend, CommentsOnlyIsAnError) {
  Result r = compile("// nothing here\n// at all\n");
  EXPECT_EQ(r.module, nullptr);
  EXPECT_EQ(r.ids, std::vector<std::string>{"no_kernel"});
}

TEST(Frontend, BinaryGarbageIsRejectedWithoutCrashing) {
  std::mt19937 rng(12345);
  for (int round = 0; round < 20; ++round) {
    std::string text(4096, '\0');
    for (char& c : text) c = static_cast<char>(rng() & 0xFF);
    Result r = compile(text);
    EXPECT_EQ(r.module, nullptr);
    ASSERT_FALSE(r.ids.empty());
    EXPECT_TRUE(r.ids[0] == "invalid_utf8" || r.ids[0] == "invalid_char" || r.ids[0] == "syntax_error") << r.ids[0];
  }
}

TEST(Frontend, AsciiGarbageIsRejectedWithoutCrashing) {
  // Random printable tokens: exercises the parser's error recovery rather than the UTF-8 check.
  std::mt19937 rng(777);
  const std::string alphabet = "abcxyz019 \n\t(){}[]<>=+-*/%!?:;,.#&|_";
  for (int round = 0; round < 50; ++round) {
    std::string text;
    for (int i = 0; i < 2000; ++i) text += alphabet[rng() % alphabet.size()];
    Result r = compile(text);
    EXPECT_EQ(r.module, nullptr);
    EXPECT_FALSE(r.ids.empty());
  }
}

TEST(Frontend, CrlfLineEndsCompileAndKeepColumns) {
  std::string text = kSmall;
  std::string crlf;
  for (char c : text) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  Result ok = compile(crlf);
  EXPECT_NE(ok.module, nullptr) << ok.output;
  // An error on line 3 of a CRLF file: the column is not shifted by the '\r's before it.
  Result bad = compile("kernel k(A: memref<?x?xf32>) grid(1) {\r\n  x = 1\r\n  y = zz + 1\r\n}\r\n");
  EXPECT_NE(bad.output.find("t.xt:3:7: error: use of undefined name 'zz'"), std::string::npos) << bad.output;
}

TEST(Frontend, TabsCountAsOneColumn) {
  Result r = compile("kernel k(A: memref<?x?xf32>) grid(1) {\n\t\tq = nope\n}\n");
  // Two tabs are two bytes: `nope` starts at byte column 7.
  EXPECT_NE(r.output.find("t.xt:2:7: error: use of undefined name 'nope'"), std::string::npos) << r.output;
}

TEST(Frontend, OneMegabyteFileCompilesQuickly) {
  std::string text = "kernel big(A: memref<?x?xf32>, n: index) grid(1) {\n  x = n\n";
  while (text.size() < (1u << 20)) text += "  x = x * 3 + (x / 2) - 1 // a comment to make the line longer\n";
  text += "  store_tile(zeros() : vector<8x16xf32>, init_tile A[x, 0] : tile<8x16xf32>)\n}\n";
  ASSERT_GE(text.size(), 1u << 20);
  auto start = std::chrono::steady_clock::now();
  Result r = compile(text);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_NE(r.module, nullptr) << r.output.substr(0, 2000);
  EXPECT_LT(seconds, 60.0);  // generous: sanitizer builds on a shared 2-core machine
}

TEST(Frontend, TenThousandNestedParensAreRejected) {
  std::string text = "kernel k(A: memref<?x?xf32>) grid(1) {\n  x = " + std::string(10000, '(') + "1" +
                     std::string(10000, ')') + "\n}\n";
  Result r = compile(text);
  EXPECT_EQ(r.module, nullptr);
  ASSERT_EQ(r.ids, std::vector<std::string>{"nesting_too_deep"});
  // The 257th bracket overall: the kernel's `(` and `{` are closed/open... count: `(` of the
  // parameter list is closed, `grid(` is closed, `{` is open (1), so the 256th `(` of the
  // expression is the 257th level: column 7 + 255 = 262.
  EXPECT_NE(r.output.find("t.xt:2:262: error: nesting too deep (more than 256 levels of brackets)"), std::string::npos)
      << r.output.substr(0, 500);
}

TEST(Frontend, TenThousandNestedBlocksAreRejected) {
  std::string text = "kernel k(A: memref<?x?xf32>) grid(1) {\n";
  for (int i = 0; i < 10000; ++i) text += "if true {\n";
  for (int i = 0; i < 10000; ++i) text += "}\n";
  text += "}\n";
  Result r = compile(text);
  EXPECT_EQ(r.module, nullptr);
  EXPECT_EQ(r.ids, std::vector<std::string>{"nesting_too_deep"});
}

TEST(Frontend, LongUnaryChainIsRejected) {
  std::string text = "kernel k(A: memref<?x?xf32>) grid(1) {\n  x = " + std::string(100000, '-') + "1\n}\n";
  Result r = compile(text);
  EXPECT_EQ(r.module, nullptr);
  EXPECT_EQ(r.ids, std::vector<std::string>{"parse_too_deep"});
}

TEST(Frontend, LongElseIfChainIsRejected) {
  std::string text = "kernel k(A: memref<?x?xf32>) grid(1) {\n  if true { }";
  for (int i = 0; i < 20000; ++i) text += " else if true { }";
  text += "\n}\n";
  Result r = compile(text);
  EXPECT_EQ(r.module, nullptr);
  EXPECT_EQ(r.ids, std::vector<std::string>{"parse_too_deep"});
}

TEST(Frontend, LongBinaryChainIsRejectedNotOverflowed) {
  std::string text = "kernel k(A: memref<?x?xf32>) grid(1) {\n  x = 1";
  for (int i = 0; i < 100000; ++i) text += " + 1";
  text += "\n}\n";
  Result r = compile(text);
  EXPECT_EQ(r.module, nullptr);
  EXPECT_EQ(r.ids, std::vector<std::string>{"parse_too_deep"});
}

TEST(Frontend, ModerateNestingIsAccepted) {
  // 200 levels of parentheses are within the default limit of 256.
  std::string text = "kernel k(A: memref<?x?xf32>) grid(1) {\n  x = " + std::string(200, '(') + "1" +
                     std::string(200, ')') + "\n  store_tile(zeros() : vector<8x16xf32>, init_tile A[x, 0] : tile<8x16xf32>)\n}\n";
  Result r = compile(text);
  EXPECT_NE(r.module, nullptr) << r.output.substr(0, 500);
}

TEST(Frontend, InvalidUtf8IsReportedAtItsByte) {
  // 0xC3 followed by '(' is a truncated two-byte sequence; inside a comment it is still invalid.
  std::string text = "kernel k(A: memref<?x?xf32>) grid(1) {\n  // caf\xC3(\n}\n";
  Result r = compile(text);
  EXPECT_EQ(r.module, nullptr);
  EXPECT_NE(r.output.find("t.xt:2:9: error: invalid UTF-8 byte 0xc3 in source file"), std::string::npos) << r.output;
  // An overlong encoding of '/' (0xC0 0xAF) is invalid too.
  Result r2 = compile(std::string("\xC0\xAF") + kSmall);
  EXPECT_EQ(r2.ids, std::vector<std::string>{"invalid_utf8"});
}

TEST(Frontend, ValidUtf8InCommentsIsFineAndColumnsAreBytes) {
  // 'é' is two bytes: the second one on the line starts at byte column 10 (code point column 9).
  std::string text = "kernel k(A: memref<?x?xf32>) grid(1) {\n  x = 1 // é\n  y = \xC3\xA9 \xC3\xA9\n}\n";
  Result r = compile(text);
  EXPECT_EQ(r.module, nullptr);
  EXPECT_NE(r.output.find("t.xt:3:7: error: invalid character 'é' (U+00E9) in source"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("t.xt:3:10: error: invalid character 'é' (U+00E9) in source"), std::string::npos) << r.output;
}

TEST(Frontend, SeveralErrorsPerRun) {
  Result r = compile(
      "kernel k(A: memref<?x?xf32>) grid(1) {\n"
      "  a = u1\n"
      "  b = u2 + 1\n"
      "  c = exp(3)\n"
      "}\n");
  EXPECT_EQ(r.module, nullptr);
  EXPECT_EQ(r.ids, (std::vector<std::string>{"undefined_name", "undefined_name", "operand_type"})) << r.output;
}

TEST(Frontend, LoopCarriedValuesBecomeIterArgs) {
  Result r = compile(
      "kernel k(A: memref<?x?xf32>, n: index) grid(1) {\n"
      "  s = 0\n"
      "  t = 1\n"
      "  u = 5\n"
      "  for i in 0 .. n {\n"
      "    s = s + i\n"
      "    local = s * 2\n"
      "    t = local\n"
      "  }\n"
      "  store_tile(zeros() : vector<8x16xf32>, init_tile A[s + t + u, 0] : tile<8x16xf32>)\n"
      "}\n");
  ASSERT_NE(r.module, nullptr) << r.output;
  xtc::ir::Operation* loop = nullptr;
  r.module->walk([&](xtc::ir::Operation* op) {
    if (op->is("scf.for")) loop = op;
  });
  ASSERT_NE(loop, nullptr);
  // s and t are carried (u is only read): 3 bounds + 2 inits, 2 results, block args (i, s, t).
  EXPECT_EQ(loop->numOperands(), 5u);
  EXPECT_EQ(loop->numResults(), 2u);
  ASSERT_EQ(loop->region(0).block().numArguments(), 3u);
  EXPECT_EQ(loop->region(0).block().argument(1)->nameHint(), "s");
  EXPECT_EQ(loop->region(0).block().argument(2)->nameHint(), "t");
  xtc::ir::Operation* yield = loop->region(0).block().terminator();
  ASSERT_TRUE(yield->is("scf.yield"));
  ASSERT_EQ(yield->numOperands(), 2u);
  // t's yielded value is `local` (s * 2), an arith.muli.
  EXPECT_TRUE(yield->operand(1)->definingOp()->is("arith.muli"));
}

TEST(Frontend, IfAssignmentsBecomeResults) {
  Result r = compile(
      "kernel k(A: memref<?x?xf32>, n: index) grid(1) {\n"
      "  x = 1\n"
      "  if n > 3 {\n"
      "    x = 2\n"
      "  }\n"
      "  store_tile(zeros() : vector<8x16xf32>, init_tile A[x, 0] : tile<8x16xf32>)\n"
      "}\n");
  ASSERT_NE(r.module, nullptr) << r.output;
  xtc::ir::Operation* ifOp = nullptr;
  r.module->walk([&](xtc::ir::Operation* op) {
    if (op->is("scf.if")) ifOp = op;
  });
  ASSERT_NE(ifOp, nullptr);
  EXPECT_EQ(ifOp->numResults(), 1u);
  // No `else` was written, but the result needs one: it yields the old value.
  ASSERT_EQ(ifOp->region(1).numBlocks(), 1u);
  xtc::ir::Operation* elseYield = ifOp->region(1).block().terminator();
  ASSERT_EQ(elseYield->numOperands(), 1u);
  EXPECT_TRUE(elseYield->operand(0)->definingOp()->is("arith.constant"));
  EXPECT_EQ(elseYield->operand(0)->definingOp()->attr("value")->getInt(), 1);
}

TEST(Frontend, DiagnosticIdsAreListed) {
  auto ids = xtc::frontend::allDiagnosticIds();
  EXPECT_NE(std::find(ids.begin(), ids.end(), "undefined_name"), ids.end());
  EXPECT_NE(std::find(ids.begin(), ids.end(), "wg_map_store"), ids.end());
}

}  // namespace
