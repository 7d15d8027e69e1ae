// `--emit=ast`: the AST as indented text, one node per line with its `@line:col`; after semantic
// analysis, expressions also show their type (`: vector<8x16xf32>`) and loops/ifs their carried
// variables. Meant for humans and golden tests, not for parsing back.
#include "frontend/Ast.h"

#include "ir/Attribute.h"

#include <fmt/format.h>

namespace xtc::frontend {

namespace {

std::string pos(const SourceRange& r) { return fmt::format("@{}:{}", r.begin.line, r.begin.col); }

std::string termText(const Term& t) {
  switch (t.kind) {
    case Term::Kind::Named: {
      std::string s = t.text;
      if (!t.hasAngle) return s;
      s += "<";
      for (size_t i = 0; i < t.args.size(); ++i) {
        if (i) s += ", ";
        if (!t.args[i].key.empty()) s += t.args[i].key + " = ";
        s += termText(*t.args[i].value);
      }
      return s + ">";
    }
    case Term::Kind::Shape: case Term::Kind::Ref: return t.text;
    case Term::Kind::Int: return std::to_string(t.intValue);
    case Term::Kind::Float: return ir::formatDouble(t.floatValue);
    case Term::Kind::Dynamic: return "?";
    case Term::Kind::List: {
      std::string s = "[";
      for (size_t i = 0; i < t.args.size(); ++i) s += (i ? ", " : "") + termText(*t.args[i].value);
      return s + "]";
    }
  }
  return "";
}

class Dumper {
public:
  std::string out;

  void line(int depth, const std::string& text) {
    out.append(static_cast<size_t>(depth) * 2, ' ');
    out += text;
    out += '\n';
  }

  std::string typeSuffix(const Expr& e) { return e.type ? " : " + e.type->str() : ""; }

  void expr(int d, const Expr& e) {
    std::string head;
    switch (e.kind) {
      case Expr::Kind::Int: head = fmt::format("int {}", e.intValue); break;
      case Expr::Kind::Float: head = "float " + ir::formatDouble(e.floatValue); break;
      case Expr::Kind::Bool: head = e.boolValue ? "bool true" : "bool false"; break;
      case Expr::Kind::Name: head = "name " + e.name; break;
      case Expr::Kind::AttrRef: head = "attr " + e.name; break;
      case Expr::Kind::List: head = "list"; break;
      case Expr::Kind::Unary: head = "unary " + e.name; break;
      case Expr::Kind::Binary: head = "binary " + e.name; break;
      case Expr::Kind::Cast: head = "cast as " + e.name; break;
      case Expr::Kind::Call: head = "call " + e.name; break;
      case Expr::Kind::InitTile: head = "init_tile " + e.name; break;
      case Expr::Kind::Typed: head = "typed " + termText(*e.annotation); break;
    }
    line(d, head + typeSuffix(e) + " " + pos(e.range));
    for (const auto& a : e.args) expr(d + 1, *a);
    for (const auto& n : e.named) {
      line(d + 1, n.name + " = " + pos(n.nameRange));
      expr(d + 2, *n.value);
    }
  }

  void stmts(int d, const StmtList& list) {
    for (const auto& s : list) stmt(d, *s);
  }

  void carried(int d, const Stmt& s) {
    if (s.carried.empty()) return;
    std::string names;
    for (const auto& c : s.carried) names += (names.empty() ? "" : ", ") + c;
    line(d, "carried " + names);
  }

  void stmt(int d, const Stmt& s) {
    switch (s.kind) {
      case Stmt::Kind::Assign:
        line(d, "assign " + s.var + " " + pos(s.varRange));
        expr(d + 1, *s.value);
        return;
      case Stmt::Kind::Expr:
        line(d, "expr " + pos(s.range));
        expr(d + 1, *s.value);
        return;
      case Stmt::Kind::For:
        line(d, "for " + s.var + " " + pos(s.range));
        carried(d + 1, s);
        line(d + 1, "from");
        expr(d + 2, *s.lb);
        line(d + 1, "to");
        expr(d + 2, *s.ub);
        if (s.step) {
          line(d + 1, "step");
          expr(d + 2, *s.step);
        }
        line(d + 1, "body");
        stmts(d + 2, s.body);
        return;
      case Stmt::Kind::If:
        line(d, "if " + pos(s.range));
        carried(d + 1, s);
        line(d + 1, "cond");
        expr(d + 2, *s.value);
        line(d + 1, "then");
        stmts(d + 2, s.body);
        if (s.hasElse) {
          line(d + 1, "else");
          stmts(d + 2, s.elseBody);
        }
        return;
    }
  }

  void kernel(const Kernel& k) {
    line(0, "kernel " + k.name + " " + pos(k.range) + (k.numSubgroups != 1 ? fmt::format(" num_subgroups={}", k.numSubgroups) : ""));
    for (const auto& p : k.params)
      line(1, "param " + p.name + " : " + termText(*p.type) + " " + pos(p.range));
    if (k.hasGrid) {
      line(1, "grid " + pos(k.gridRange));
      for (const auto& g : k.grid) expr(2, *g);
    }
    line(1, "body");
    stmts(2, k.body);
  }
};

}  // namespace

std::string dumpAstText(const File& file) {
  Dumper d;
  for (auto [isKernel, idx] : file.order) {
    if (isKernel) d.kernel(file.kernels[idx]);
    else {
      const AttrDef& a = file.attrDefs[idx];
      d.line(0, "attr " + a.name + " = " + termText(*a.value) + " " + pos(a.range));
    }
  }
  return d.out;
}

}  // namespace xtc::frontend
