// IR generation from the checked AST (see IRGen.h). Sema has already decided every op name,
// attribute and result type (Expr::res, Expr::type); this file only builds values in order and turns
// the variable bindings into SSA form.
#include "frontend/IRGen.h"

#include "ir/Module.h"

#include <unordered_map>

namespace xtc::frontend {

using ir::Attribute;
using ir::ElemKind;
using ir::Type;
using ir::Value;

namespace {

class Generator {
public:
  std::unique_ptr<ir::Operation> run(const File& file) {
    auto module = ir::createModule(loc(SourceRange{}));
    for (const Kernel& k : file.kernels) kernel(module.get(), k);
    return module;
  }

private:
  static SourceLoc loc(const SourceRange& r) { return r.begin; }

  void kernel(ir::Operation* module, const Kernel& k) {
    std::vector<std::string> names;
    std::vector<Type> types;
    for (const Param& p : k.params) {
      names.push_back(p.name);
      types.push_back(*p.resolved);
    }
    ir::Operation* op = ir::createKernel(module, k.name, names, types, loc(k.range));
    op->setAttr("num_subgroups", Attribute::integer(k.numSubgroups));
    for (unsigned r = 0; r < 2; ++r)
      for (unsigned i = 0; i < names.size(); ++i) op->region(r).block().argument(i)->setNameHint(names[i]);

    // Launch region: the grid, missing dimensions are 1.
    b_.setInsertionPointToEnd(&ir::kernelLaunch(op));
    scopes_.assign(1, {});
    for (unsigned i = 0; i < names.size(); ++i) scopes_[0][names[i]] = ir::kernelLaunch(op).argument(i);
    std::vector<Value*> grid;
    for (const auto& g : k.grid) grid.push_back(expr(*g));
    b_.setLoc(loc(k.gridRange));
    while (grid.size() < 3) grid.push_back(b_.constantIndex(1));
    b_.create("xtc.grid", grid, {});

    // Body.
    b_.setInsertionPointToEnd(&ir::kernelBody(op));
    scopes_.assign(1, {});
    for (unsigned i = 0; i < names.size(); ++i) scopes_[0][names[i]] = ir::kernelBody(op).argument(i);
    scopes_.emplace_back();
    stmts(k.body);
    b_.setLoc(loc(k.range));
    b_.create("xtc.return", {}, {});
  }

  Value* lookup(const std::string& name) {
    for (size_t i = scopes_.size(); i-- > 0;) {
      auto it = scopes_[i].find(name);
      if (it != scopes_[i].end()) return it->second;
    }
    return nullptr;  // unreachable after Sema
  }
  // Rebinds the innermost binding of `name` (carried variables are bound in the construct's scope,
  // so updates inside a body stay in it), or defines it in the current scope.
  void bind(const std::string& name, Value* v) {
    for (size_t i = scopes_.size(); i-- > 0;) {
      auto it = scopes_[i].find(name);
      if (it != scopes_[i].end()) {
        it->second = v;
        return;
      }
    }
    scopes_.back()[name] = v;
  }

  void stmts(const StmtList& list) {
    for (const auto& s : list) stmt(*s);
  }

  void stmt(const Stmt& s) {
    switch (s.kind) {
      case Stmt::Kind::Assign: {
        Value* v = expr(*s.value);
        if (v->nameHint().empty()) v->setNameHint(s.var);
        bind(s.var, v);
        return;
      }
      case Stmt::Kind::Expr:
        expr(*s.value);
        return;
      case Stmt::Kind::For: forStmt(s); return;
      case Stmt::Kind::If: ifStmt(s); return;
    }
  }

  void forStmt(const Stmt& s) {
    Value* lb = expr(*s.lb);
    Value* ub = expr(*s.ub);
    b_.setLoc(loc(s.range));
    Value* step = s.step ? expr(*s.step) : b_.constantIndex(1);
    std::vector<Value*> operands = {lb, ub, step};
    std::vector<Type> types;
    for (const auto& name : s.carried) {
      Value* v = lookup(name);
      operands.push_back(v);
      types.push_back(v->type());
    }
    b_.setLoc(loc(s.range));
    ir::Operation* loop = b_.create("scf.for", operands, types, {}, 1);
    ir::Block& body = loop->region(0).addBlock();
    Value* iv = body.addArgument(Type::index());
    iv->setNameHint(s.var);
    scopes_.emplace_back();
    scopes_.back()[s.var] = iv;
    for (const auto& name : s.carried) {
      Value* arg = body.addArgument(lookup(name)->type());
      arg->setNameHint(name);
      scopes_.back()[name] = arg;
    }
    ir::Block* outer = b_.block();
    ir::Operation* outerBefore = b_.insertionPoint();
    b_.setInsertionPointToEnd(&body);
    scopes_.emplace_back();  // the body's own definitions
    stmts(s.body);
    scopes_.pop_back();
    std::vector<Value*> yielded;
    for (const auto& name : s.carried) yielded.push_back(lookup(name));
    b_.setLoc(loc(s.endRange));
    b_.create("scf.yield", yielded, {});
    scopes_.pop_back();
    restore(outer, outerBefore);
    for (size_t i = 0; i < s.carried.size(); ++i) {
      loop->result(static_cast<unsigned>(i))->setNameHint(s.carried[i]);
      bind(s.carried[i], loop->result(static_cast<unsigned>(i)));
    }
  }

  void ifStmt(const Stmt& s) {
    Value* cond = expr(*s.value);
    std::vector<Type> types;
    for (const auto& name : s.carried) types.push_back(lookup(name)->type());
    b_.setLoc(loc(s.range));
    ir::Operation* op = b_.create("scf.if", {cond}, types, {}, 2);
    ir::Block* outer = b_.block();
    ir::Operation* outerBefore = b_.insertionPoint();
    auto branch = [&](unsigned region, const StmtList& body) {
      ir::Block& block = op->region(region).addBlock();
      b_.setInsertionPointToEnd(&block);
      scopes_.emplace_back();
      // Carried variables start from their current values; updates stay in this branch's scope.
      for (const auto& name : s.carried) scopes_.back()[name] = lookup(name);
      scopes_.emplace_back();
      stmts(body);
      scopes_.pop_back();
      std::vector<Value*> yielded;
      for (const auto& name : s.carried) yielded.push_back(lookup(name));
      b_.setLoc(loc(region == 0 ? s.endRange : s.range));
      b_.create("scf.yield", yielded, {});
      scopes_.pop_back();
    };
    branch(0, s.body);
    // Without results and without `else`, the else region stays empty (docs/ir.md).
    if (s.hasElse || !s.carried.empty()) branch(1, s.elseBody);
    restore(outer, outerBefore);
    for (size_t i = 0; i < s.carried.size(); ++i) {
      op->result(static_cast<unsigned>(i))->setNameHint(s.carried[i]);
      bind(s.carried[i], op->result(static_cast<unsigned>(i)));
    }
  }

  void restore(ir::Block* block, ir::Operation* before) {
    if (before) b_.setInsertionPoint(before);
    else b_.setInsertionPointToEnd(block);
  }

  Value* constant(const Type& t, const Attribute& value, const SourceRange& at) {
    b_.setLoc(loc(at));
    return b_.create("arith.constant", {}, {t}, {{"value", value}})->result();
  }
  Value* splatConstant(const Type& t, double fv, int64_t iv, const SourceRange& at) {
    if (t.isScalar())
      return constant(t, ir::isFloatElem(t.elem()) ? Attribute::floating(fv, t.elem()) : Attribute::integer(iv, t.elem()), at);
    Type dense = t.withVectorLayout(nullptr);
    return constant(t, ir::isFloatElem(t.elem()) ? Attribute::denseFloat(dense, {fv}) : Attribute::denseInt(dense, {iv}), at);
  }
  Value* splat(Value* v, const Type& vecType, const SourceRange& at) {
    b_.setLoc(loc(at));
    return b_.create("vector.splat", {v}, {vecType})->result();
  }

  Value* expr(const Expr& e) {
    if (e.res.isConstant) return constant(*e.type, e.res.attrs.at("value"), e.range);
    switch (e.kind) {
      case Expr::Kind::Name: return lookup(e.name);
      case Expr::Kind::Typed: return expr(*e.args[0]);
      case Expr::Kind::Unary: {
        Value* x = expr(*e.args[0]);
        const Type& t = *e.type;
        b_.setLoc(loc(e.opRange));
        if (e.name == "-" && ir::isFloatElem(t.elem())) return b_.create("arith.negf", {x}, {t})->result();
        if (e.name == "-") {
          Value* zero = splatConstant(t, 0, 0, e.opRange);
          b_.setLoc(loc(e.opRange));
          return b_.create("arith.subi", {zero, x}, {t})->result();
        }
        Value* ones = splatConstant(t, 1, 1, e.opRange);
        b_.setLoc(loc(e.opRange));
        return b_.create("arith.xori", {x, ones}, {t})->result();
      }
      case Expr::Kind::Cast: {
        Value* x = expr(*e.args[0]);
        if (e.res.opName.empty()) return x;
        b_.setLoc(loc(e.opRange));
        return b_.create(e.res.opName, {x}, {*e.type})->result();
      }
      case Expr::Kind::Binary: {
        std::vector<Value*> ops = {expr(*e.args[0]), expr(*e.args[1])};
        return finish(e, ops);
      }
      case Expr::Kind::Call: {
        std::vector<Value*> ops;
        for (size_t i : e.res.operandArgs) ops.push_back(expr(*e.args[i]));
        if (e.res.opName.empty()) return ops.at(0);  // full(x) : scalar
        return finish(e, ops);
      }
      case Expr::Kind::InitTile: return initTile(e);
      default: break;
    }
    return nullptr;  // unreachable after Sema
  }

  // Splats scalar operands where Sema said so, then creates the op.
  Value* finish(const Expr& e, std::vector<Value*> ops) {
    for (size_t i = 0; i < ops.size() && i < e.res.splat.size(); ++i) {
      if (!e.res.splat[i]) continue;
      // The vector shape is that of the first vector operand (which is the result shape for all
      // element-wise ops except comparisons, whose operands keep their element type).
      const Type* vec = nullptr;
      for (Value* o : ops)
        if (o->type().isVector()) { vec = &o->type(); break; }
      ops[i] = splat(ops[i], vec->withElem(ops[i]->type().elem()), e.range);
    }
    b_.setLoc(loc(e.opRange));
    std::vector<Type> results;
    if (e.type) results.push_back(*e.type);
    ir::Operation* op = b_.create(e.res.opName, ops, results, e.res.attrs);
    return e.type ? op->result() : nullptr;
  }

  Value* initTile(const Expr& e) {
    Value* src = lookup(e.name);
    std::vector<Value*> ops = {src};
    for (const auto& o : e.args) ops.push_back(expr(*o));
    const NamedArg* shape = nullptr;
    const NamedArg* strides = nullptr;
    for (const auto& na : e.named) (na.name == "shape" ? shape : strides) = &na;
    if (shape) {
      for (const auto& x : shape->value->args) ops.push_back(expr(*x));
      for (const auto& x : strides->value->args) ops.push_back(expr(*x));
    } else if (e.res.implicitShape) {
      // Dynamic memref: shape and strides of the innermost two dimensions, read at run time.
      const Type& m = src->type();
      int64_t r = m.rank();
      b_.setLoc(loc(e.opRange));
      auto dimOf = [&](int64_t d) -> Value* {
        if (m.shape()[d] != ir::kDynamic) return b_.constantIndex(m.shape()[d]);
        return b_.create("memref.dim", {src}, {Type::index()}, {{"index", Attribute::integer(d)}})->result();
      };
      Value* rows = dimOf(r - 2);
      Value* cols = dimOf(r - 1);
      ops.push_back(rows);
      ops.push_back(cols);
      const auto& st = m.strides();
      bool colMajor = !st.empty() && st.back() != 1;
      auto strideOf = [&](int64_t d, Value* dflt) -> Value* {
        if (!st.empty() && st[d] != ir::kDynamic) return b_.constantIndex(st[d]);
        return dflt;
      };
      if (colMajor) {
        ops.push_back(strideOf(r - 2, b_.constantIndex(1)));
        ops.push_back(strideOf(r - 1, rows));
      } else {
        ops.push_back(strideOf(r - 2, cols));
        ops.push_back(strideOf(r - 1, b_.constantIndex(1)));
      }
    }
    b_.setLoc(loc(e.opRange));
    return b_.create("tile.init_tile", ops, {*e.type}, e.res.attrs)->result();
  }

  ir::Builder b_;
  std::vector<std::unordered_map<std::string, Value*>> scopes_;
};

}  // namespace

std::unique_ptr<ir::Operation> generateIR(const File& file) { return Generator().run(file); }

}  // namespace xtc::frontend
