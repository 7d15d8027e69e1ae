// Printer/parser tests: every type, attribute and registered op survives print -> parse -> print
// byte for byte; hand-written expected text for a few constructs; parse errors carry file:line:col.
#include "IrTestUtil.h"

#include "ir/Builder.h"
#include "ir/Module.h"
#include "ir/OpRegistry.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace xtc::ir {
namespace {

using testing::parse;

// A layout value for testing the layout-attribute path; its text contains "->" on purpose.
class TestLayout : public LayoutValue {
public:
  explicit TestLayout(std::string t) : text_(std::move(t)) {}
  std::string print() const override { return text_; }
  bool equals(const LayoutValue& o) const override {
    auto* t = dynamic_cast<const TestLayout*>(&o);
    return t && t->text_ == text_;
  }

private:
  std::string text_;
};

void registerTestLayout() {
  registerLayoutParser("testlayout", [](std::string_view text, std::string* err) -> std::shared_ptr<const LayoutValue> {
    if (text.find("bad") != std::string_view::npos) {
      *err = "the test layout rejects 'bad'";
      return nullptr;
    }
    return std::make_shared<TestLayout>(std::string(text));
  });
}

std::shared_ptr<const Attribute> attrPtr(Attribute a) { return std::make_shared<const Attribute>(std::move(a)); }

std::vector<Type> allTypes() {
  registerTestLayout();
  std::vector<Type> r;
  for (int k = 0; k <= static_cast<int>(ElemKind::Index); ++k) r.push_back(Type::scalar(static_cast<ElemKind>(k)));
  auto wg = attrPtr(Attribute::wgMap({{8, 4}, {32, 32}}));
  auto lay = attrPtr(Attribute::layout(std::make_shared<TestLayout>("testlayout<{lane=[[0,1]]} -> {dim0=2}>")));
  r.push_back(Type::memref({kDynamic, 128}, ElemKind::BF16));
  r.push_back(Type::memref({64, 64}, ElemKind::F32, MemSpace::Slm));
  r.push_back(Type::memref({kDynamic, kDynamic}, ElemKind::F16, MemSpace::Global, {kDynamic, 1}));
  r.push_back(Type::memref({2, 3, 4, 5}, ElemKind::I8, MemSpace::Slm, {60, 20, 5, 1}));
  r.push_back(Type::memref({}, ElemKind::F32));
  r.push_back(Type::tile({256, 32}, ElemKind::BF16));
  TileInfo full;
  full.order = {0, 1};
  full.wgMap = wg;
  full.layout = lay;
  full.space = MemSpace::Slm;
  full.scattered = true;
  full.innerBlocks = {8, 16};
  r.push_back(Type::tile({256, 32}, ElemKind::BF16, full));
  TileInfo onlyOrder;
  onlyOrder.order = {0, 1};
  r.push_back(Type::tile({16}, ElemKind::I32, onlyOrder));
  r.push_back(Type::vector({32, 64}, ElemKind::F32));
  r.push_back(Type::vector({8, 16}, ElemKind::F32, lay));
  r.push_back(Type::vector({256, 256}, ElemKind::F32, wg));
  r.push_back(Type::vector({16}, ElemKind::I1));
  r.push_back(Type::vector({}, ElemKind::F64));
  return r;
}

std::vector<Attribute> allAttributes() {
  registerTestLayout();
  Type v4 = Type::vector({2, 2}, ElemKind::I32);
  Type vf = Type::vector({2, 2}, ElemKind::F32);
  return {
      Attribute::unit(),
      Attribute::boolean(true),
      Attribute::boolean(false),
      Attribute::integer(42),
      Attribute::integer(-7, ElemKind::I32),
      Attribute::integer(std::numeric_limits<int64_t>::min()),
      Attribute::integer(std::numeric_limits<int64_t>::max(), ElemKind::Index),
      Attribute::integer(1, ElemKind::I1),
      Attribute::floating(1.5, ElemKind::F32),
      Attribute::floating(0.1, ElemKind::F64),
      Attribute::floating(-0.0, ElemKind::F16),
      Attribute::floating(1e300, ElemKind::F64),
      Attribute::floating(5e-324, ElemKind::F64),
      Attribute::floating(3.0, ElemKind::BF16),
      Attribute::floating(std::numeric_limits<double>::infinity(), ElemKind::F32),
      Attribute::floating(-std::numeric_limits<double>::infinity(), ElemKind::F32),
      Attribute::floating(std::numeric_limits<double>::quiet_NaN(), ElemKind::F32),
      Attribute::integer(3, ElemKind::F32),  // an integer payload with a float type tag
      Attribute::string("plain"),
      Attribute::string("quote\" back\\ nl\n tab\t bell\x07 high\xC3\xA9"),
      Attribute::string(""),
      Attribute::array({}),
      Attribute::intArray({1, 2, 3}),
      Attribute::array({Attribute::array({Attribute::integer(1), Attribute::string("x")}), Attribute::array({})}),
      Attribute::type(Type::tile({8, 16}, ElemKind::F16)),
      Attribute::denseFloat(vf, {0.0}),
      Attribute::denseFloat(vf, {1.0, -2.5, 1e-10, 7.0}),
      Attribute::denseInt(v4, {1, 2, 3, 4}),
      Attribute::denseInt(v4, {-9}),
      Attribute::wgMap({{8, 4}, {32, 64}}),
      Attribute::enumValue("reduce", "add"),
      Attribute::enumValue("cmpi", "ult"),
      Attribute::enumValue("atomic", "assign"),
      Attribute::enumValue("locality", "3"),
      Attribute::enumValue("cache", "uncached"),
      Attribute::layout(std::make_shared<TestLayout>("testlayout<{reg=[[1,0]], lane=[[0,1],[0,2]]} -> {dim0=2, dim1=4}>")),
  };
}

TEST(PrinterParser, EveryTypeRoundTrips) {
  for (const Type& t : allTypes()) {
    std::string err;
    auto back = parseType(t.str(), &err);
    ASSERT_TRUE(back) << t.str() << ": " << err;
    EXPECT_EQ(*back, t) << t.str();
    EXPECT_EQ(back->str(), t.str());
  }
}

TEST(PrinterParser, EveryAttributeRoundTrips) {
  for (const Attribute& a : allAttributes()) {
    std::string err;
    auto back = parseAttribute(a.str(), &err);
    ASSERT_TRUE(back) << a.str() << ": " << err;
    EXPECT_EQ(back->str(), a.str());
    if (a.kind() != AttrKind::Float || !std::isnan(a.getFloat())) {
      EXPECT_EQ(*back, a) << a.str();
    }
  }
}

TEST(PrinterParser, HandWrittenTypeAndAttributeTexts) {
  EXPECT_EQ(Type::memref({kDynamic, kDynamic}, ElemKind::F16, MemSpace::Slm, {kDynamic, 1}).str(),
            "memref<?x?xf16, strides = [?, 1], slm>");
  auto t = parseType("tile< 256x32xbf16 , wg_map<sg_layout=[8,4],sg_data=[32,32]>, order=[0,1] >", nullptr);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->str(), "tile<256x32xbf16, wg_map<sg_layout = [8, 4], sg_data = [32, 32]>, order = [0, 1]>");
  EXPECT_EQ(t->tileInfo().order, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(t->tileInfo().wgMap->getWgMap().sgData, (std::vector<int64_t>{32, 32}));
  auto d = parseAttribute("dense<[1, 2, 3, 4]> : vector<2x2xi32>", nullptr);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->denseInts(), (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_FALSE(d->denseIsFloat());
  auto f = parseAttribute("1e+20 : f64", nullptr);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->getFloat(), 1e20);
  EXPECT_EQ(f->numberType(), ElemKind::F64);
  auto i = parseAttribute("42 : i64", nullptr);
  ASSERT_TRUE(i);
  EXPECT_EQ(i->str(), "42");  // i64 is the default and not printed
}

TEST(PrinterParser, TypeAndAttributeErrors) {
  std::string err;
  EXPECT_FALSE(parseType("tile<8x16xf17>", &err));
  EXPECT_EQ(err, "unknown element type 'f17'");
  EXPECT_FALSE(parseType("vector<8x16>", &err));
  EXPECT_FALSE(parseType("tensor<8xf32>", &err));
  EXPECT_EQ(err, "unknown type 'tensor'");
  EXPECT_FALSE(parseType("vector<8x16xf32", &err));
  EXPECT_NE(err.find("end of input"), std::string::npos) << err;
  // Trailing text after a whole type or attribute.
  EXPECT_FALSE(parseType("vector<8xf32> f32", &err));
  EXPECT_EQ(err, "unexpected text after the type");
  EXPECT_FALSE(parseAttribute("42 : i64 junk", &err));
  EXPECT_EQ(err, "unexpected text after the attribute");
  EXPECT_FALSE(parseAttribute("reduse<add>", &err));
  EXPECT_NE(err.find("unknown attribute 'reduse<...>'"), std::string::npos) << err;
  EXPECT_FALSE(parseAttribute("reduce<plus>", &err));
  EXPECT_NE(err.find("unknown value 'plus' for enum 'reduce'"), std::string::npos) << err;
  EXPECT_FALSE(parseAttribute("dense<[1, 2, 3]> : vector<2x2xi32>", &err));
  EXPECT_NE(err.find("3 values"), std::string::npos) << err;
  EXPECT_FALSE(parseAttribute("dense<[1, 2.0]> : vector<2xf32>", &err));
  EXPECT_FALSE(parseAttribute("99999999999999999999", &err));
  EXPECT_EQ(err, "number out of range");
  EXPECT_FALSE(parseAttribute("\"unterminated", &err));
  EXPECT_EQ(err, "unterminated string");
  registerTestLayout();
  EXPECT_FALSE(parseAttribute("testlayout<bad>", &err));
  EXPECT_EQ(err, "invalid 'testlayout' layout: the test layout rejects 'bad'");
  EXPECT_FALSE(parseAttribute("testlayout<{a} -> {b}", &err));
  EXPECT_NE(err.find("unterminated"), std::string::npos) << err;
}

TEST(PrinterParser, RegisteredEnumsCanBeExtended) {
  std::string err;
  EXPECT_FALSE(parseAttribute("xe_cache<l1>", &err));
  registerEnumAttr("xe_cache", {"l1", "l3"});
  auto a = parseAttribute("xe_cache<l1>", &err);
  ASSERT_TRUE(a) << err;
  EXPECT_EQ(a->enumName(), "xe_cache");
  EXPECT_EQ(a->getString(), "l1");
  ASSERT_NE(findEnumAttr("xe_cache"), nullptr);
  EXPECT_EQ(findEnumAttr("xe_cache")->size(), 2u);
}

// Builds one op of every registered kind (not necessarily valid: the printer and parser do not
// care) with operands of several types, attributes of every kind and nested regions.
TEST(PrinterParser, EveryRegisteredOpRoundTrips) {
  registerAllOps();
  auto m = createModule();
  std::vector<Type> types = allTypes();
  std::vector<Attribute> attrs = allAttributes();
  Operation* k = createKernel(m.get(), "every_op", {"p0", "p1"}, {types[0], types[12]}, {});
  Builder lb(&kernelLaunch(k));
  Value* one = lb.constantIndex(1);
  lb.create("xtc.grid", {one, one, one}, {});
  Builder b(&kernelBody(k));
  std::vector<Value*> pool = {kernelBody(k).argument(0), kernelBody(k).argument(1)};
  size_t i = 0;
  for (const OpInfo* info : allOps()) {
    if (info->name == "builtin.module" || info->name == "xtc.kernel") continue;
    AttrMap am{{"a", attrs[i % attrs.size()]}, {"b", attrs[(i * 7 + 3) % attrs.size()]}};
    std::vector<Value*> operands = {pool[i % pool.size()], pool[(i * 5 + 1) % pool.size()]};
    Operation* op = b.create(info->name, operands, {types[i % types.size()], types[(i + 3) % types.size()]}, am,
                             static_cast<unsigned>(info->traits.numRegions));
    if (i % 3 == 0) op->result(0)->setNameHint("v");
    for (unsigned r = 0; r < op->numRegions(); ++r) {
      Block& blk = op->region(r).addBlock();
      Value* arg = blk.addArgument(types[(i + r) % types.size()]);
      if (r == 0) arg->setNameHint("iv");
      Builder ib(&blk);
      ib.create("arith.addi", {arg, pool.back()}, {Type::index()});
    }
    pool.push_back(op->result(0));
    pool.push_back(op->result(1));
    ++i;
  }
  b.create("xtc.return", {}, {});
  std::string first = printToString(*m);
  auto p = parse(first);
  ASSERT_TRUE(p->module) << p->messages() << "\n" << first;
  std::string second = printToString(*p->module);
  EXPECT_EQ(first, second);
  // Every registered op name appears in the text.
  for (const OpInfo* info : allOps()) EXPECT_NE(first.find(info->name), std::string::npos) << info->name;
}

TEST(PrinterParser, HandWrittenExpectedText) {
  auto m = createModule();
  Operation* k = createKernel(m.get(), "axpy", {"X", "n"}, {Type::memref({kDynamic}, ElemKind::F32), Type::index()}, {});
  Builder lb(&kernelLaunch(k));
  Value* one = lb.constantIndex(1);
  lb.create("xtc.grid", {kernelLaunch(k).argument(1), one, one}, {});
  Builder b(&kernelBody(k));
  Value* c = b.constantIndex(4);
  c->setNameHint("c");
  Value* c2 = b.constantIndex(8);
  c2->setNameHint("c");
  Operation* add = b.create("arith.addi", {c, c2}, {Type::index()});
  Operation* add2 = b.create("arith.addi", {add->result(), add->result()}, {Type::index()});
  add2->result()->setNameHint("9lives!");
  b.create("xtc.return", {}, {});
  const char* expected =
      "builtin.module {\n"
      "  xtc.kernel @axpy(%X: memref<?xf32>, %n: index) {arg_names = [\"X\", \"n\"]} launch {\n"
      "    %0 = arith.constant {value = 1 : index} : () -> (index)\n"
      "    xtc.grid %n, %0, %0 : (index, index, index) -> ()\n"
      "  } body {\n"
      "    %c = arith.constant {value = 4 : index} : () -> (index)\n"
      "    %c_1 = arith.constant {value = 8 : index} : () -> (index)\n"
      "    %1 = arith.addi %c, %c_1 : (index, index) -> (index)\n"
      "    %v9lives_ = arith.addi %1, %1 : (index, index) -> (index)\n"
      "    xtc.return : () -> ()\n"
      "  }\n"
      "}\n";
  EXPECT_EQ(printToString(*m), expected);
  auto p = parse(expected);
  ASSERT_TRUE(p->module) << p->messages();
  EXPECT_EQ(printToString(*p->module), expected);
}

TEST(PrinterParser, RegionsBlocksAndLocations) {
  const char* text =
      "builtin.module attributes {note = \"m\"} {\n"
      "  xtc.kernel @k(%c: i1) {arg_names = [\"c\"]} launch {\n"
      "    %0 = arith.constant {value = 1 : index} : () -> (index)\n"
      "    xtc.grid %0, %0, %0 : (index, index, index) -> ()\n"
      "  } body {\n"
      "    %1 = scf.if %c : (i1) -> (f32) ({\n"
      "      %2 = arith.constant {value = 1.0 : f32} : () -> (f32)\n"
      "      scf.yield %2 : (f32) -> ()\n"
      "    }, {\n"
      "      %3 = arith.constant {value = 2.0 : f32} : () -> (f32)\n"
      "      scf.yield %3 : (f32) -> ()\n"
      "    })\n"
      "    scf.if %c : (i1) -> () ({\n"
      "    ^bb0:\n"
      "    }, {})\n"
      "    xtc.return : () -> ()\n"
      "  }\n"
      "}\n";
  auto p = parse(text);
  ASSERT_TRUE(p->module) << p->messages();
  EXPECT_EQ(printToString(*p->module), text);
  Operation* k = moduleKernels(p->module.get())[0];
  Operation* secondIf = kernelBody(k).front()->nextInBlock();
  EXPECT_EQ(secondIf->region(0).numBlocks(), 1u);
  EXPECT_EQ(secondIf->region(1).numBlocks(), 0u);
  EXPECT_EQ(p->module->attr("note")->getString(), "m");
  // Locations: the parser records where each op starts; printing them and parsing back keeps them.
  EXPECT_EQ(secondIf->loc().line, 13u);
  EXPECT_EQ(secondIf->loc().col, 5u);
  PrintOptions locs{true};
  std::string withLocs = printToString(*p->module, locs);
  EXPECT_NE(withLocs.find("scf.if %c : (i1) -> () ({\n    ^bb0:\n    }, {}) loc(\"test.ir\":13:5)"), std::string::npos) << withLocs;
  auto q = parse(withLocs, "other.ir");
  ASSERT_TRUE(q->module) << q->messages();
  EXPECT_EQ(printToString(*q->module, locs), withLocs);
}

TEST(PrinterParser, NonConventionalKernelUsesGenericForm) {
  auto m = createModule();
  auto k = Operation::create("xtc.kernel", {}, {}, {}, {{"sym_name", Attribute::string("odd")}}, 1);
  k->region(0).addBlock().addArgument(Type::index());
  moduleBody(m.get()).push_back(std::move(k));
  std::string text = printToString(*m);
  EXPECT_EQ(text,
            "builtin.module {\n"
            "  xtc.kernel {sym_name = \"odd\"} : () -> () ({\n"
            "  ^bb0(%0: index):\n"
            "  })\n"
            "}\n");
  auto p = parse(text);
  ASSERT_TRUE(p->module) << p->messages();
  EXPECT_EQ(printToString(*p->module), text);
}

TEST(PrinterParser, TopLevelOpsWithoutModuleWrapper) {
  auto p = parse("xtc.kernel @a() {arg_names = []} launch {\n} body {\n}\n");
  ASSERT_TRUE(p->module) << p->messages();
  EXPECT_TRUE(p->module->is("builtin.module"));
  EXPECT_EQ(moduleKernels(p->module.get()).size(), 1u);
}

struct ErrorCase {
  const char* name;
  const char* text;
  const char* expected;  // the first line of the diagnostics output
};

class ParseErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ParseErrors, ReportsFileLineColumn) {
  auto p = parse(GetParam().text);
  EXPECT_FALSE(p->module);
  std::string msg = p->messages();
  EXPECT_EQ(msg.substr(0, msg.find('\n')), GetParam().expected) << msg;
  // The source line and a caret follow.
  EXPECT_NE(msg.find("^"), std::string::npos) << msg;
}

INSTANTIATE_TEST_SUITE_P(
    All, ParseErrors,
    ::testing::Values(
        ErrorCase{"undefined", "%0 = arith.addi %x, %x : (index, index) -> (index)\n",
                  "test.ir:1:17: error: use of undefined value '%x'"},
        ErrorCase{"redefinition",
                  "%0 = arith.constant {value = 1 : index} : () -> (index)\n%0 = arith.constant {value = 2 : index} : () -> (index)\n",
                  "test.ir:2:1: error: redefinition of value '%0'"},
        ErrorCase{"type mismatch",
                  "%0 = arith.constant {value = 1 : index} : () -> (index)\n%1 = arith.addi %0, %0 : (i32, index) -> (index)\n",
                  "test.ir:2:17: error: '%0' has type 'index' but the signature uses it as 'i32'"},
        ErrorCase{"operand count", "%0 = arith.constant : (index) -> (index)\n",
                  "test.ir:1:23: error: 'arith.constant' has 0 operands but its signature lists 1 operand types"},
        ErrorCase{"result count", "arith.constant : () -> (index)\n",
                  "test.ir:1:1: error: 'arith.constant' defines 0 result names but its signature lists 1 result types"},
        ErrorCase{"no dialect", "hello world\n", "test.ir:1:1: error: expected an op name of the form 'dialect.op', got 'hello'"},
        ErrorCase{"garbage", "\x01\x02", "test.ir:1:1: error: expected an op, got byte 0x01"},
        ErrorCase{"unbalanced open", "builtin.module {\n", "test.ir:2:1: error: unexpected end of input, expected '}' to close the region"},
        ErrorCase{"unbalanced close", "}\n", "test.ir:1:1: error: unexpected '}' (no region is open)"},
        ErrorCase{"truncated", "%0 = arith.constant {value = 1 : in", "test.ir:1:32: error: expected '}', got ':'"},
        ErrorCase{"truncated signature", "%0 = arith.constant {value = 1} : () ->", "test.ir:1:40: error: unexpected end of input, expected '('"},
        ErrorCase{"bad attr", "%0 = arith.constant {value = frob} : () -> (index)\n",
                  "test.ir:1:30: error: expected an attribute value, got 'frob'"},
        ErrorCase{"duplicate attr", "%0 = arith.constant {value = 1, value = 2} : () -> (index)\n",
                  "test.ir:1:33: error: duplicate attribute 'value'"},
        ErrorCase{"unknown type", "%0 = arith.constant {value = 1} : () -> (tensor<4xf32>)\n",
                  "test.ir:1:42: error: unknown type 'tensor'"},
        ErrorCase{"two modules", "builtin.module {\n}\nbuiltin.module {\n}\n",
                  "test.ir:3:1: error: a 'builtin.module' must be the only top-level op"},
        ErrorCase{"kernel results", "%0 = xtc.kernel @k() launch {\n} body {\n}\n", "test.ir:1:1: error: 'xtc.kernel' has no results"},
        ErrorCase{"kernel sym twice", "xtc.kernel @k() {sym_name = \"j\"} launch {\n} body {\n}\n",
                  "test.ir:1:17: error: 'sym_name' is given by '@name' and cannot be repeated as an attribute"},
        ErrorCase{"kernel scopes", "xtc.kernel @k() launch {\n %x = arith.constant {value = 1 : index} : () -> (index)\n} body {\n "
                                   "%y = arith.addi %x, %x : (index, index) -> (index)\n}\n",
                  "test.ir:4:18: error: use of undefined value '%x'"},
        ErrorCase{"bad loc", "xtc.return : () -> () loc(\"f\":x:1)\n", "test.ir:1:31: error: expected a line number, got 'x'"}),
    [](const ::testing::TestParamInfo<ErrorCase>& i) {
      std::string n = i.param.name;
      for (char& c : n)
        if (!isalnum(static_cast<unsigned char>(c))) c = '_';
      return n;
    });

TEST(PrinterParser, DeepNestingIsAnErrorNotACrash) {
  std::string text;
  for (int i = 0; i < 5000; ++i) text += "scf.if %c : (i1) -> () ({\n";
  auto p = parse(text);
  EXPECT_FALSE(p->module);
  std::string msg = p->messages();
  EXPECT_NE(msg.find("error: "), std::string::npos);
  std::string deepAttr = "%0 = arith.constant {value = " + std::string(100000, '[') + "} : () -> ()";
  auto q = parse(deepAttr);
  EXPECT_FALSE(q->module);
  EXPECT_NE(q->messages().find("nesting is too deep"), std::string::npos);
}

TEST(PrinterParser, RandomGarbageNeverCrashes) {
  // Mutations of a valid module with a fixed seed: every result either parses or reports an error.
  std::string base = testing::kernelWith("%a: index", "  %x = arith.addi %a, %a : (index, index) -> (index)", "\"a\"");
  uint64_t state = 0x9E3779B97F4A7C15ull;
  auto next = [&] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  const char alphabet[] = "%{}()<>[],:=\"x0.-^@ \n\\";
  for (int i = 0; i < 2000; ++i) {
    std::string t = base;
    int edits = 1 + static_cast<int>(next() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t pos = next() % t.size();
      switch (next() % 3) {
        case 0: t.erase(pos, 1 + next() % 8); break;
        case 1: t.insert(pos, 1, alphabet[next() % (sizeof(alphabet) - 1)]); break;
        default: t = t.substr(0, pos); break;
      }
      if (t.empty()) t = "x";
    }
    auto p = parse(t);
    if (!p->module) EXPECT_GT(p->diags->errorCount(), 0u) << t;
    else verify(*p->module, *p->diags);  // must not crash either
  }
}

}  // namespace
}  // namespace xtc::ir
