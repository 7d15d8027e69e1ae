// Semantic analysis of .xt (see Sema.h). Structure: type/attribute resolution from written terms,
// then a checker per statement and per expression kind, then one handler per built-in function.
// Conventions: a checker returns false after reporting (or after an operand failed, without a second
// report); on success it sets Expr::type (when the expression has a value) and Expr::res.
#include "frontend/Sema.h"

#include <algorithm>
#include <charconv>
#include <functional>
#include <map>
#include <numeric>
#include <set>
#include <unordered_map>

namespace xtc::frontend {

using ir::Attribute;
using ir::ElemKind;
using ir::Type;
using ir::WgMap;
using ir::shapeStr;

namespace {

std::string typeStr(const Type& t) { return t.str(); }
std::string wgStr(const WgMap& w) { return Attribute::wgMap(w).str(); }
std::string listStr(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + (v[i] == ir::kDynamic ? std::string("?") : std::to_string(v[i]));
  return s + "]";
}

// The wg_map of a tile or vector type, if any.
std::optional<WgMap> wgOf(const Type& t) {
  std::shared_ptr<const Attribute> a;
  if (t.isTile()) a = t.tileInfo().wgMap;
  else if (t.isVector()) a = t.vectorLayout();
  if (a && a->kind() == ir::AttrKind::WgMap) return a->getWgMap();
  return std::nullopt;
}
std::shared_ptr<const Attribute> wgAttr(const WgMap& w) { return std::make_shared<const Attribute>(Attribute::wgMap(w)); }

bool isIntLike(const Type& t) { return ir::isIntElem(t.elem()) && t.elem() != ElemKind::I1; }

struct VarInfo {
  Type type;
  SourceRange def;
};

// An enclosing for/if while its body is checked: assignments to variables of outer scopes are
// recorded as carried.
struct Construct {
  Stmt* stmt;
  size_t scopeDepth;  // index of the construct's first body scope
  const char* what;   // "loop" / "if"
};

class Checker {
public:
  explicit Checker(Reporter& rep) : rep_(rep) {}

  void run(File& file) {
    for (auto [isKernel, idx] : file.order) {
      if (!isKernel) defineAttr(file.attrDefs[idx]);
      else kernel(file.kernels[idx], file);
    }
    if (file.kernels.empty() && !rep_.hasErrors())
      rep_.error(DiagId::no_kernel, SourceRange{rep_.engine().sources().locFromOffset(file.fileName, 0), 0});
  }

private:
  // ---------------------------------------------------------------- attributes and types

  void defineAttr(AttrDef& d) {
    auto it = attrs_.find(d.name);
    if (it != attrs_.end()) {
      rep_.error(DiagId::redefinition, d.range, d.name).note(it->second->range, "previous definition is here");
      return;
    }
    attrs_[d.name] = &d;
    // Validate eagerly so mistakes point at the definition even if it is never used.
    if (d.value->kind == Term::Kind::Named && d.value->text == "wg_map") resolveWgMap(*d.value);
  }

  // Follows `#name` references to the defined term (nullptr after reporting).
  const Term* deref(const Term& t) {
    if (t.kind != Term::Kind::Ref) return &t;
    auto it = attrs_.find(t.text);
    if (it == attrs_.end()) {
      rep_.error(DiagId::undefined_attr, t.range, t.text);
      return nullptr;
    }
    return it->second->value.get();
  }

  std::optional<std::vector<int64_t>> intList(const Term& t, const char* what, bool allowDynamic = false) {
    if (t.kind != Term::Kind::List) {
      rep_.error(DiagId::bad_attr, t.range, fmt::format("{} must be a list of integers like [8, 4]", what));
      return std::nullopt;
    }
    std::vector<int64_t> out;
    for (auto& a : t.args) {
      if (a.value->kind == Term::Kind::Int) out.push_back(a.value->intValue);
      else if (allowDynamic && a.value->kind == Term::Kind::Dynamic) out.push_back(ir::kDynamic);
      else {
        rep_.error(DiagId::bad_attr, a.value->range, fmt::format("{} must be a list of integers", what));
        return std::nullopt;
      }
    }
    return out;
  }

  std::optional<WgMap> resolveWgMap(const Term& written) {
    const Term* t = deref(written);
    if (!t) return std::nullopt;
    if (t->kind != Term::Kind::Named || t->text != "wg_map" || !t->hasAngle) {
      rep_.error(DiagId::wg_map_form, written.range, "expected wg_map<sg_layout = [...], sg_data = [...]>");
      return std::nullopt;
    }
    WgMap m;
    bool haveLayout = false, haveData = false;
    for (auto& a : t->args) {
      if (a.key != "sg_layout" && a.key != "sg_data") {
        rep_.error(DiagId::wg_map_form, a.key.empty() ? a.value->range : a.keyRange,
                   "expected sg_layout = [...] or sg_data = [...]" + (a.key.empty() ? std::string() : ", got '" + a.key + "'"));
        return std::nullopt;
      }
      auto v = intList(*a.value, a.key.c_str());
      if (!v) return std::nullopt;
      for (int64_t x : *v)
        if (x <= 0) {
          rep_.error(DiagId::wg_map_form, a.value->range, fmt::format("{} entries must be positive, got {}", a.key, listStr(*v)));
          return std::nullopt;
        }
      (a.key == "sg_layout" ? m.sgLayout : m.sgData) = *v;
      (a.key == "sg_layout" ? haveLayout : haveData) = true;
    }
    if (!haveLayout || !haveData) {
      rep_.error(DiagId::wg_map_form, t->range, haveLayout ? "sg_data is missing" : "sg_layout is missing");
      return std::nullopt;
    }
    if (m.sgLayout.size() != m.sgData.size()) {
      rep_.error(DiagId::wg_map_form, t->range,
                 fmt::format("sg_layout {} and sg_data {} have different ranks", listStr(m.sgLayout), listStr(m.sgData)));
      return std::nullopt;
    }
    return m;
  }

  // The RFC's distribution rules for a wg_map on a shape: per dimension, sg_data divides the size
  // (each subgroup owns whole, contiguous blocks) and sg_layout*sg_data either divides the size
  // (round-robin: further rounds start again at the first subgroup) or is a multiple of it
  // (wrap-around: the remaining subgroups share data from the start).
  bool checkWgFit(const WgMap& m, const Type& t, const SourceRange& at) {
    const char* what = t.isTile() ? "tile" : "vector";
    auto& shape = t.shape();
    if (m.sgLayout.size() != shape.size()) {
      rep_.error(DiagId::wg_map_divisibility, at, what, shapeStr(shape),
                 fmt::format("wg_map has rank {} but the shape has rank {}", m.sgLayout.size(), shape.size()));
      return false;
    }
    for (size_t i = 0; i < shape.size(); ++i) {
      int64_t n = shape[i], d = m.sgData[i], span = m.sgLayout[i] * m.sgData[i];
      if (n % d != 0) {
        rep_.error(DiagId::wg_map_divisibility, at, what, shapeStr(shape),
                   fmt::format("sg_data[{}] = {} does not divide dimension {} (size {})", i, d, i, n));
        return false;
      }
      if (n % span != 0 && span % n != 0) {
        rep_.error(DiagId::wg_map_divisibility, at, what, shapeStr(shape),
                   fmt::format("sg_layout[{}] x sg_data[{}] = {} x {} = {} neither divides dimension {} (size {}) "
                               "for a round-robin distribution nor is a multiple of it for wrap-around",
                               i, i, m.sgLayout[i], d, span, i, n));
        return false;
      }
    }
    return true;
  }

  // One subgroup count per kernel: the first wg_map fixes it.
  void noteSubgroups(const WgMap& m, const SourceRange& at) {
    int64_t n = m.numSubgroups();
    if (!kernelSg_) {
      kernelSg_ = n;
      kernelSgAt_ = at;
      kernelSgMap_ = m;
      return;
    }
    if (*kernelSg_ != n)
      rep_.error(DiagId::subgroup_count, at, wgStr(m), n, *kernelSg_)
          .note(kernelSgAt_, fmt::format("{} subgroups fixed by {} here", *kernelSg_, wgStr(kernelSgMap_)));
  }

  std::optional<ElemKind> elemKind(const std::string& name, const SourceRange& at) {
    auto k = ir::parseElemKind(name);
    if (!k) rep_.error(DiagId::unknown_elem, at, name);
    return k;
  }

  // "256x32xbf16" -> shape and element type.
  bool parseShape(const Term& t, std::vector<int64_t>& shape, ElemKind& elem, bool allowDynamic) {
    std::string s = t.text;
    size_t pos = 0;
    shape.clear();
    while (true) {
      size_t x = s.find('x', pos);
      std::string part = s.substr(pos, x == std::string::npos ? std::string::npos : x - pos);
      bool isDim = x != std::string::npos && !part.empty() &&
                   (part == "?" || std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; }));
      if (!isDim) {
        auto k = elemKind(s.substr(pos), t.range);
        if (!k) return false;
        elem = *k;
        break;
      }
      if (part == "?") {
        if (!allowDynamic) {
          rep_.error(DiagId::bad_type, t.range, "only memrefs may have dynamic (?) dimensions");
          return false;
        }
        shape.push_back(ir::kDynamic);
      } else {
        int64_t v = 0;
        auto [p, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
        if (ec != std::errc() || v <= 0 || v > (int64_t(1) << 40)) {
          rep_.error(DiagId::bad_type, t.range, fmt::format("dimension {} must be between 1 and 2^40", part));
          return false;
        }
        (void)p;
        shape.push_back(v);
      }
      pos = x + 1;
    }
    return true;
  }

  std::optional<Type> resolveType(const Term& t) {
    if (t.kind != Term::Kind::Named) {
      rep_.error(DiagId::bad_type, t.range, "expected a type such as f32, memref<?x?xf16>, tile<8x16xf16> or vector<8x16xf32>");
      return std::nullopt;
    }
    if (!t.hasAngle) {
      if (auto k = ir::parseElemKind(t.text)) return Type::scalar(*k);
      rep_.error(DiagId::unknown_type, t.range, t.text);
      return std::nullopt;
    }
    bool isMem = t.text == "memref", isTile = t.text == "tile", isVec = t.text == "vector";
    if (!isMem && !isTile && !isVec) {
      rep_.error(DiagId::unknown_type, t.range, t.text);
      return std::nullopt;
    }
    if (t.args.empty() || t.args[0].value->kind != Term::Kind::Shape || !t.args[0].key.empty()) {
      rep_.error(DiagId::bad_type, t.args.empty() ? t.range : t.args[0].value->range,
                 fmt::format("{}<...> starts with a shape and element type, e.g. {}<64x32xf16>", t.text, t.text));
      return std::nullopt;
    }
    std::vector<int64_t> shape;
    ElemKind elem;
    if (!parseShape(*t.args[0].value, shape, elem, isMem)) return std::nullopt;

    ir::MemSpace space = ir::MemSpace::Global;
    std::vector<int64_t> strides;
    SourceRange stridesAt;
    ir::TileInfo info;
    std::optional<WgMap> wg;
    SourceRange wgAt;
    for (size_t i = 1; i < t.args.size(); ++i) {
      auto& a = t.args[i];
      const Term& v = *a.value;
      if (isMem && a.key.empty() && v.kind == Term::Kind::Named && v.text == "slm" && !v.hasAngle) {
        space = ir::MemSpace::Slm;
      } else if (isMem && a.key == "strides") {
        auto s = intList(v, "strides", true);
        if (!s) return std::nullopt;
        if (s->size() != shape.size()) {
          rep_.error(DiagId::bad_type, v.range, fmt::format("memref of rank {} needs {} strides", shape.size(), shape.size()));
          return std::nullopt;
        }
        strides = *s;
        stridesAt = v.range;
      } else if (isTile && a.key == "order") {
        auto o = intList(v, "order");
        if (!o) return std::nullopt;
        if (*o != std::vector<int64_t>{1, 0} && *o != std::vector<int64_t>{0, 1}) {
          rep_.error(DiagId::order_invalid, v.range, listStr(*o));
          return std::nullopt;
        }
        if (shape.size() != 2) {
          rep_.error(DiagId::order_invalid, v.range, "an order on a tile that is not 2-D");
          return std::nullopt;
        }
        // [1, 0] is the default; keep the type canonical so equal tiles compare equal.
        if (*o == std::vector<int64_t>{0, 1}) info.order = *o;
      } else if (isTile && a.key.empty() && v.kind == Term::Kind::Named && (v.text == "scatter" || v.text == "scattered") &&
                 !v.hasAngle) {  // the RFC's `scatter`; the IR prints `scattered`
        info.scattered = true;
      } else if ((isTile || isVec) && a.key.empty() &&
                 (v.kind == Term::Kind::Ref || (v.kind == Term::Kind::Named && v.text == "wg_map"))) {
        if (wg) {
          rep_.error(DiagId::bad_type, v.range, "more than one wg_map");
          return std::nullopt;
        }
        wg = resolveWgMap(v);
        if (!wg) return std::nullopt;
        wgAt = v.range;
      } else {
        std::string allowed = isMem ? "slm, strides = [...]" : isTile ? "a wg_map, order = [...], scatter" : "a wg_map";
        rep_.error(DiagId::bad_type, a.key.empty() ? v.range : a.keyRange,
                   fmt::format("unexpected parameter in {}<...> (allowed after the shape: {})", t.text, allowed));
        return std::nullopt;
      }
    }
    Type out;
    if (isMem) {
      out = Type::memref(shape, elem, space, strides);
      // Strides only choose between the dense layouts (ir::denseMemRefOrder): the kernel ABI passes
      // no strides, and the compiler views a column-major memref as the transposed row-major one.
      if (!strides.empty() && (space == ir::MemSpace::Slm || !ir::denseMemRefOrder(out))) {
        std::string why = space == ir::MemSpace::Slm ? "an slm memref is always dense row-major: drop the strides"
                                                     : fmt::format("strides {} are not a dense layout of {} ", listStr(strides), ir::shapeStr(shape));
        if (space != ir::MemSpace::Slm) {
          std::vector<int64_t> rowOrder, colOrder;
          for (size_t d = 0; d < shape.size(); ++d) rowOrder.push_back(static_cast<int64_t>(d));
          colOrder = rowOrder;
          if (shape.size() >= 2) std::swap(colOrder[shape.size() - 2], colOrder[shape.size() - 1]);
          auto str = [&](const std::vector<int64_t>& o) { return listStr(ir::denseStrides(shape, o)); };
          why += shape.size() >= 2 ? fmt::format("(row-major {}, column-major {}; `?` is the dense stride)", str(rowOrder), str(colOrder))
                                   : fmt::format("(dense: {})", str(rowOrder));
          why += "; other strides (e.g. a padded leading dimension) are not implemented yet";
        }
        rep_.error(DiagId::bad_type, stridesAt, why);
        return std::nullopt;
      }
    } else if (isTile) {
      if (wg) info.wgMap = wgAttr(*wg);
      out = Type::tile(shape, elem, info);
    } else {
      out = Type::vector(shape, elem, wg ? wgAttr(*wg) : nullptr);
    }
    if (wg) {
      if (!checkWgFit(*wg, out, wgAt)) return std::nullopt;
      noteSubgroups(*wg, wgAt);
    }
    return out;
  }

  // ---------------------------------------------------------------- scopes

  VarInfo* lookup(const std::string& name, size_t* depth = nullptr) {
    for (size_t i = scopes_.size(); i-- > 0;) {
      auto it = scopes_[i].find(name);
      if (it != scopes_[i].end()) {
        if (depth) *depth = i;
        return &it->second;
      }
    }
    return nullptr;
  }

  void assign(const std::string& name, const SourceRange& at, const Type& type) {
    size_t depth = 0;
    VarInfo* v = lookup(name, &depth);
    if (!v) {
      scopes_.back()[name] = VarInfo{type, at};
      return;
    }
    // Assigned inside a for/if but defined outside of it: carried out of each construct in between.
    bool carriedAny = false;
    for (auto& c : constructs_) {
      if (c.scopeDepth <= depth) continue;
      carriedAny = true;
      auto& list = c.stmt->carried;
      if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
    }
    if (carriedAny && v->type != type) {
      const char* what = "loop";
      for (auto& c : constructs_)
        if (c.scopeDepth > depth) { what = c.what; break; }
      rep_.error(DiagId::carried_type_change, at, name, what, typeStr(v->type), typeStr(type))
          .note(v->def, fmt::format("'{}' has type {} here", name, typeStr(v->type)));
      return;
    }
    if (!carriedAny) {
      // Straight-line reassignment may change the type: it is a new value under the same name.
      v->type = type;
      v->def = at;
    }
  }

  // ---------------------------------------------------------------- kernels and statements

  void kernel(Kernel& k, File& file) {
    for (auto& other : file.kernels) {
      if (&other == &k) break;
      if (other.name == k.name) {
        rep_.error(DiagId::redefinition, k.range, k.name).note(other.range, "previous definition is here");
        break;
      }
    }
    kernelSg_.reset();
    scopes_.clear();
    scopes_.emplace_back();
    constructs_.clear();
    for (auto& p : k.params) {
      if (scopes_.back().count(p.name)) {
        rep_.error(DiagId::redefinition, p.range, p.name).note(scopes_.back()[p.name].def, "previous definition is here");
        continue;
      }
      auto t = resolveType(*p.type);
      if (t && !t->isScalar() && !t->isMemRef()) {
        rep_.error(DiagId::bad_type, p.type->range,
                   fmt::format("kernel parameters are scalars or memrefs, not {}", t->isTile() ? "tiles" : "vectors"));
        t.reset();
      }
      if (!t) continue;
      p.resolved = *t;
      scopes_.back()[p.name] = VarInfo{*t, p.range};
    }
    if (!k.hasGrid) {
      rep_.error(DiagId::missing_grid, k.range, k.name);
    } else if (k.grid.empty() || k.grid.size() > 3) {
      rep_.error(DiagId::grid_dims, k.gridRange, k.grid.size());
    } else {
      inLaunch_ = true;
      Type idx = Type::index();
      for (auto& g : k.grid) {
        if (!expr(*g, &idx)) continue;
        if (!g->type->isIndex()) rep_.error(DiagId::operand_type, g->range, "grid dimension", "index", typeStr(*g->type));
      }
      inLaunch_ = false;
    }
    scopes_.emplace_back();
    stmts(k.body);
    k.numSubgroups = kernelSg_.value_or(1);
  }

  void stmts(StmtList& list) {
    for (auto& s : list) {
      if (rep_.limitReached()) return;
      stmt(*s);
    }
  }

  void stmt(Stmt& s) {
    switch (s.kind) {
      case Stmt::Kind::Assign: {
        if (!expr(*s.value, nullptr)) {
          // Still define the name (with no type) so later uses do not report it as undefined.
          if (!lookup(s.var)) poisoned_.insert(s.var);
          return;
        }
        poisoned_.erase(s.var);
        assign(s.var, s.varRange, *s.value->type);
        return;
      }
      case Stmt::Kind::Expr:
        exprOrStatement(*s.value, nullptr);
        return;
      case Stmt::Kind::For: {
        Type idx = Type::index();
        for (Expr* b : {s.lb.get(), s.ub.get(), s.step.get()}) {
          if (!b || !expr(*b, &idx)) continue;
          if (!b->type->isIndex()) rep_.error(DiagId::operand_type, b->range, "loop bound", "index", typeStr(*b->type));
        }
        if (std::optional<int64_t> v = s.step ? literalInt(*s.step) : std::nullopt; v && *v <= 0)
          rep_.error(DiagId::operand_type, s.step->range, "loop step", "a positive step", std::to_string(*v));
        constructs_.push_back(Construct{&s, scopes_.size(), "loop"});
        scopes_.emplace_back();
        scopes_.back()[s.var] = VarInfo{Type::index(), s.varRange};
        stmts(s.body);
        scopes_.pop_back();
        constructs_.pop_back();
        return;
      }
      case Stmt::Kind::If: {
        if (expr(*s.value, nullptr) && *s.value->type != Type::scalar(ElemKind::I1))
          rep_.error(DiagId::condition_type, s.value->range, typeStr(*s.value->type));
        constructs_.push_back(Construct{&s, scopes_.size(), "if"});
        scopes_.emplace_back();
        stmts(s.body);
        scopes_.pop_back();
        scopes_.emplace_back();
        stmts(s.elseBody);
        scopes_.pop_back();
        constructs_.pop_back();
        return;
      }
    }
  }

  // ---------------------------------------------------------------- expressions

  static bool isLiteral(const Expr& e) {
    if (e.kind == Expr::Kind::Int || e.kind == Expr::Kind::Float) return true;
    return e.kind == Expr::Kind::Unary && e.name == "-" && isLiteral(*e.args[0]);
  }

  // Integer literals must fit their type: signed or unsigned range for i8/i16/i32 (so 0xFF-style
  // bit patterns are accepted), any 64-bit value for i64 and index.
  bool literalFits(int64_t v, ElemKind k, const SourceRange& at) {
    if (!ir::isIntElem(k) || k == ElemKind::I64 || k == ElemKind::Index) return true;
    unsigned bits = k == ElemKind::I1 ? 1 : ir::elemBits(k);
    int64_t lo = -(int64_t(1) << (bits - 1)), hi = (int64_t(1) << bits) - 1;
    if (v >= lo && v <= hi) return true;
    rep_.error(DiagId::int_literal_range, at, v, ir::elemName(k));
    return false;
  }

  // Checks `e` used as a value: a call without a result (barrier(), store_tile(...)) is an error here,
  // so callers may rely on `e.type` being set when this returns true (found by fuzzing: `! barrier()`).
  bool expr(Expr& e, const Type* expected) {
    if (!exprOrStatement(e, expected)) return false;
    if (!e.type) {
      rep_.error(DiagId::not_a_value, e.opRange, e.name);
      return false;
    }
    return true;
  }

  // Checks `e`; `expected` is the type the context wants (from an annotation or the other operand),
  // used by literals and by ops whose result type is written by the user. A statement-level call may
  // leave `e.type` unset.
  bool exprOrStatement(Expr& e, const Type* expected) {
    switch (e.kind) {
      case Expr::Kind::Int: {
        Type t = Type::index();
        if (expected && expected->isScalar() && expected->elem() != ElemKind::I1) t = *expected;
        if (!literalFits(e.intValue, t.elem(), e.range)) return false;
        e.type = t;
        e.res.isConstant = true;
        e.res.attrs["value"] = ir::isFloatElem(t.elem()) ? Attribute::floating(static_cast<double>(e.intValue), t.elem())
                                                         : Attribute::integer(e.intValue, t.elem());
        return true;
      }
      case Expr::Kind::Float: {
        Type t = Type::scalar(ElemKind::F32);
        if (expected && expected->isScalar() && ir::isFloatElem(expected->elem())) t = *expected;
        else if (expected && expected->isScalar() && !ir::isFloatElem(expected->elem())) {
          rep_.error(DiagId::operand_type, e.range, "literal", typeStr(*expected), "a floating-point literal");
          return false;
        }
        e.type = t;
        e.res.isConstant = true;
        e.res.attrs["value"] = Attribute::floating(e.floatValue, t.elem());
        return true;
      }
      case Expr::Kind::Bool:
        e.type = Type::scalar(ElemKind::I1);
        e.res.isConstant = true;
        e.res.attrs["value"] = Attribute::integer(e.boolValue ? 1 : 0, ElemKind::I1);
        return true;
      case Expr::Kind::Name: {
        if (VarInfo* v = lookup(e.name)) {
          e.type = v->type;
          return true;
        }
        if (poisoned_.count(e.name)) return false;
        if (inLaunch_ && isBuiltin(e.name)) {
          rep_.error(DiagId::launch_rule_value, e.range, e.name);
          return false;
        }
        rep_.error(DiagId::undefined_name, e.range, e.name);
        return false;
      }
      case Expr::Kind::AttrRef:
        rep_.error(DiagId::operand_type, e.range, "expression", "a value", "an attribute (attributes are only "
                   "allowed in types and named arguments)");
        return false;
      case Expr::Kind::List:
        rep_.error(DiagId::operand_type, e.range, "expression", "a value", "a list (lists are only allowed as named "
                   "arguments such as dims = [1])");
        return false;
      case Expr::Kind::Unary: return unary(e, expected);
      case Expr::Kind::Binary: return binary(e, expected);
      case Expr::Kind::Cast: return cast(e);
      case Expr::Kind::Call: return call(e, expected);
      case Expr::Kind::InitTile: return initTile(e, expected);
      case Expr::Kind::Typed: {
        auto t = resolveType(*e.annotation);
        if (!t) return false;
        Expr& inner = *e.args[0];
        if (!expr(inner, &*t)) return false;
        if (!inner.type) {
          rep_.error(DiagId::not_a_value, inner.opRange, inner.name);
          return false;
        }
        if (!inner.res.usedAnnotation && *inner.type != *t) {
          rep_.error(DiagId::annotation_mismatch, e.opRange, typeStr(*t), typeStr(*inner.type));
          return false;
        }
        e.type = inner.type;
        return true;
      }
    }
    return false;
  }

  bool unary(Expr& e, const Type* expected) {
    Expr& x = *e.args[0];
    if (e.name == "-" && isLiteral(x)) {
      if (!expr(x, expected)) return false;
      e.type = x.type;
      e.res.isConstant = true;
      const Attribute& v = x.res.attrs["value"];
      if (v.kind() == ir::AttrKind::Int && !literalFits(-v.getInt(), v.numberType(), e.range)) return false;
      e.res.attrs["value"] = v.kind() == ir::AttrKind::Float ? Attribute::floating(-v.getFloat(), v.numberType())
                                                               : Attribute::integer(-v.getInt(), v.numberType());
      return true;
    }
    if (!expr(x, expected)) return false;
    const Type& t = *x.type;
    if (t.isMemRef() || t.isTile()) {
      rep_.error(DiagId::operand_type, e.opRange, fmt::format("operator '{}'", e.name), "a scalar or vector", typeStr(t));
      return false;
    }
    if (e.name == "!" && t.elem() != ElemKind::I1) {
      rep_.error(DiagId::operand_type, e.opRange, "operator '!'", "i1", typeStr(t));
      return false;
    }
    if (e.name == "-" && t.elem() == ElemKind::I1) {
      rep_.error(DiagId::operand_type, e.opRange, "operator '-'", "a number", typeStr(t));
      return false;
    }
    e.type = t;
    return true;
  }

  // Checks the operands of an element-wise op with two or more operands: equal types, where a
  // scalar next to vectors is splat (it must have their element type). Fills e.res.splat and
  // returns the common (vector or scalar) type.
  std::optional<Type> elementwise(Expr& e, const std::vector<Expr*>& ops, const std::string& what) {
    // Non-literals first, so literals take their type from them.
    const Type* anchor = nullptr;
    bool ok = true;
    for (Expr* o : ops)
      if (!isLiteral(*o)) {
        ok = expr(*o, nullptr) && ok;
        if (ok && o->type && !anchor) anchor = &*o->type;
      }
    if (!ok) return std::nullopt;
    std::optional<Type> scalarAnchor;
    if (anchor) scalarAnchor = Type::scalar(anchor->elem());
    for (Expr* o : ops)
      if (isLiteral(*o) && !expr(*o, scalarAnchor ? &*scalarAnchor : nullptr)) return std::nullopt;
    const Expr* vec = nullptr;
    for (Expr* o : ops) {
      if (!o->type) {
        rep_.error(DiagId::not_a_value, o->opRange, o->name);
        return std::nullopt;
      }
      if (o->type->isMemRef() || o->type->isTile()) {
        rep_.error(DiagId::operand_type, o->range, what, "a scalar or vector", typeStr(*o->type));
        return std::nullopt;
      }
      if (o->type->isVector() && !vec) vec = o;
    }
    const Type& first = vec ? *vec->type : *ops[0]->type;
    e.res.splat.assign(ops.size(), false);
    for (size_t i = 0; i < ops.size(); ++i) {
      const Type& t = *ops[i]->type;
      if (t.elem() != first.elem()) {
        if (ops.size() == 2 && e.kind == Expr::Kind::Binary)
          rep_.error(DiagId::operator_types, e.opRange, e.name, typeStr(*ops[0]->type), typeStr(*ops[1]->type));
        else
          rep_.error(DiagId::elem_mismatch, ops[i]->range, what, ir::elemName(first.elem()), ir::elemName(t.elem()));
        return std::nullopt;
      }
      if (t.isScalar() && first.isVector()) {
        e.res.splat[i] = true;
        continue;
      }
      if (t.shape() != first.shape()) {
        rep_.error(DiagId::shape_mismatch, ops[i]->range, what, shapeStr(first.shape()), shapeStr(t.shape()))
            .note(vec->range, fmt::format("the other operand ({}) is here", typeStr(first)));
        return std::nullopt;
      }
      auto w1 = wgOf(first), w2 = wgOf(t);
      if (w1.has_value() != w2.has_value()) {
        rep_.error(DiagId::wg_map_level, ops[i]->range, what);
        return std::nullopt;
      }
      if (w1 && *w1 != *w2) {
        rep_.error(DiagId::wg_map_mismatch, ops[i]->range, what, wgStr(*w2), wgStr(*w1)).note(vec->range, "the other operand is here");
        return std::nullopt;
      }
    }
    return first;
  }

  bool binary(Expr& e, const Type*) {
    auto t = elementwise(e, {e.args[0].get(), e.args[1].get()}, fmt::format("operator '{}'", e.name));
    if (!t) return false;
    const std::string& op = e.name;
    ElemKind k = t->elem();
    bool isF = ir::isFloatElem(k), isI1 = k == ElemKind::I1;
    auto bad = [&] {
      rep_.error(DiagId::operator_types, e.opRange, op, typeStr(*e.args[0]->type), typeStr(*e.args[1]->type));
      return false;
    };
    static const std::map<std::string, std::pair<const char*, const char*>> arith = {
        {"+", {"arith.addi", "arith.addf"}}, {"-", {"arith.subi", "arith.subf"}},
        {"*", {"arith.muli", "arith.mulf"}}, {"/", {"arith.divsi", "arith.divf"}}, {"%", {"arith.remsi", nullptr}}};
    static const std::map<std::string, std::pair<const char*, const char*>> cmp = {
        {"<", {"slt", "olt"}}, {"<=", {"sle", "ole"}}, {">", {"sgt", "ogt"}},
        {">=", {"sge", "oge"}}, {"==", {"eq", "oeq"}}, {"!=", {"ne", "une"}}};
    if (auto it = arith.find(op); it != arith.end()) {
      if (isI1) return bad();
      const char* name = isF ? it->second.second : it->second.first;
      if (!name) return bad();
      e.res.opName = name;
      e.type = *t;
      return true;
    }
    if (auto it = cmp.find(op); it != cmp.end()) {
      if (isI1 && op != "==" && op != "!=") return bad();
      e.res.opName = isF ? "arith.cmpf" : "arith.cmpi";
      e.res.attrs["predicate"] = Attribute::enumValue(isF ? "cmpf" : "cmpi", isF ? it->second.second : it->second.first);
      e.type = t->withElem(ElemKind::I1);
      return true;
    }
    // && and ||
    if (!isI1) return bad();
    e.res.opName = op == "&&" ? "arith.andi" : "arith.ori";
    e.type = *t;
    return true;
  }

  bool cast(Expr& e) {
    if (!expr(*e.args[0], nullptr)) return false;
    auto k = elemKind(e.name, e.opRange);
    if (!k) return false;
    const Type& t = *e.args[0]->type;
    if (!t.isScalar() && !t.isVector()) {
      rep_.error(DiagId::bad_cast, e.opRange, typeStr(t), e.name);
      return false;
    }
    e.type = t.withElem(*k);
    if (*e.type != t) e.res.opName = "arith.convert";
    return true;
  }

  // ---------------------------------------------------------------- calls

  struct Sig {
    size_t minArgs, maxArgs;
    std::vector<std::string> named;
    bool isLoad = false;  // accepts padding
  };

  static bool isBuiltin(const std::string& n);

  // Checks the positional count and the named arguments of a call.
  bool signature(Expr& e, const Sig& sig) {
    size_t n = e.args.size();
    if (n < sig.minArgs || n > sig.maxArgs) {
      std::string count = sig.minArgs == sig.maxArgs ? std::to_string(sig.minArgs)
                                                     : fmt::format("{} to {}", sig.minArgs, sig.maxArgs);
      rep_.error(DiagId::arg_count, e.opRange, e.name, count, n);
      return false;
    }
    std::set<std::string> seen;
    for (auto& na : e.named) {
      if (!seen.insert(na.name).second) {
        rep_.error(DiagId::duplicate_named_arg, na.nameRange, na.name);
        return false;
      }
      if (std::find(sig.named.begin(), sig.named.end(), na.name) != sig.named.end()) continue;
      if (na.name == "padding" && !sig.isLoad) {
        rep_.error(DiagId::padding_not_allowed, na.nameRange, e.name);
        return false;
      }
      rep_.error(DiagId::unknown_named_arg, na.nameRange, e.name, na.name);
      return false;
    }
    return true;
  }

  NamedArg* named(Expr& e, const std::string& name) {
    for (auto& na : e.named)
      if (na.name == name) return &na;
    return nullptr;
  }

  // An integer literal, possibly negated (`-2` parses as a unary minus).
  static std::optional<int64_t> literalInt(const Expr& e) {
    if (e.kind == Expr::Kind::Int) return e.intValue;
    if (e.kind == Expr::Kind::Unary && e.name == "-" && e.args[0]->kind == Expr::Kind::Int) return -e.args[0]->intValue;
    return std::nullopt;
  }
  std::optional<int64_t> constInt(Expr& e, const std::string& what) {
    if (std::optional<int64_t> v = literalInt(e)) return v;
    rep_.error(DiagId::not_constant, e.range, what);
    return std::nullopt;
  }
  std::optional<std::vector<int64_t>> constIntList(Expr& e, const std::string& what) {
    if (e.kind != Expr::Kind::List) {
      // A single integer is accepted for a one-element list (dims = 1).
      if (auto v = constInt(e, what)) return std::vector<int64_t>{*v};
      return std::nullopt;
    }
    std::vector<int64_t> out;
    for (auto& x : e.args) {
      auto v = constInt(*x, what);
      if (!v) return std::nullopt;
      out.push_back(*v);
    }
    return out;
  }
  // A number literal, possibly negated; `isFloat` tells which kind was written.
  std::optional<double> constNumber(Expr& e, const std::string& what, bool* isFloat) {
    const Expr* x = &e;
    double sign = 1;
    if (x->kind == Expr::Kind::Unary && x->name == "-") {
      sign = -1;
      x = x->args[0].get();
    }
    if (x->kind == Expr::Kind::Int) { *isFloat = false; return sign * static_cast<double>(x->intValue); }
    if (x->kind == Expr::Kind::Float) { *isFloat = true; return sign * x->floatValue; }
    rep_.error(DiagId::not_constant, e.range, what);
    return std::nullopt;
  }
  std::optional<std::string> kindArg(Expr& call, const char* what, const std::vector<std::string>& allowed, bool required) {
    NamedArg* na = named(call, "kind");
    if (!na) {
      if (required)
        rep_.error(DiagId::kind_invalid, call.opRange, what, "(none)", fmt::format("{}", fmt::join(allowed, ", ")));
      return std::nullopt;
    }
    if (na->value->kind != Expr::Kind::Name ||
        std::find(allowed.begin(), allowed.end(), na->value->name) == allowed.end()) {
      rep_.error(DiagId::kind_invalid, na->value->range, what, na->value->kind == Expr::Kind::Name ? na->value->name : "?",
                 fmt::format("{}", fmt::join(allowed, ", ")));
      return std::nullopt;
    }
    return na->value->name;
  }

  // Checks positional argument i with an optional expected type; it must have a value.
  bool arg(Expr& e, size_t i, const Type* expected = nullptr) {
    Expr& a = *e.args[i];
    if (!expr(a, expected)) return false;
    if (!a.type) {
      rep_.error(DiagId::not_a_value, a.opRange, a.name);
      return false;
    }
    return true;
  }
  bool argIndex(Expr& e, size_t i, const char* what) {
    Type idx = Type::index();
    if (!arg(e, i, &idx)) return false;
    if (!e.args[i]->type->isIndex()) {
      rep_.error(DiagId::operand_type, e.args[i]->range, what, "index", typeStr(*e.args[i]->type));
      return false;
    }
    return true;
  }
  bool argKind(Expr& e, size_t i, const char* what, bool (*pred)(const Type&), const char* expectedText) {
    if (!arg(e, i)) return false;
    if (!pred(*e.args[i]->type)) {
      rep_.error(DiagId::operand_type, e.args[i]->range, what, expectedText, typeStr(*e.args[i]->type));
      return false;
    }
    return true;
  }
  static bool isVec(const Type& t) { return t.isVector(); }
  static bool isTileT(const Type& t) { return t.isTile(); }
  static bool isMemRefT(const Type& t) { return t.isMemRef(); }

  void operandsAll(Expr& e) {
    e.res.operandArgs.resize(e.args.size());
    std::iota(e.res.operandArgs.begin(), e.res.operandArgs.end(), 0);
  }

  // A note pointing at where an operand's value was defined, when it is a variable.
  void noteDef(DiagnosticEngine::Builder& b, const Expr& operand, const std::string& what) {
    const Expr* x = &operand;
    while (x->kind == Expr::Kind::Typed) x = x->args[0].get();
    if (x->kind == Expr::Kind::Name)
      if (VarInfo* v = lookup(x->name)) b.note(v->def, fmt::format("{} '{}' is defined here", what, x->name));
  }

  bool need2d(const Expr& at, const Type& t, const std::string& what) {
    if (t.rank() == 2) return true;
    rep_.error(DiagId::tile_rank, at.range, what, typeStr(t));
    return false;
  }

  std::optional<Type> annotationOrReport(Expr& e, const Type* expected, const char* example) {
    if (!expected) {
      rep_.error(DiagId::needs_annotation, e.opRange, e.name, example);
      return std::nullopt;
    }
    e.res.usedAnnotation = true;
    return *expected;
  }

  bool call(Expr& e, const Type* expected);
  bool initTile(Expr& e, const Type* expected);
  bool loadStore(Expr& e, const Type* expected);
  bool tileMma(Expr& e, const Type* expected);
  bool reduction(Expr& e, const Type* expected);
  bool broadcast(Expr& e, const Type* expected);
  bool transpose(Expr& e, const Type* expected);
  bool convertLayout(Expr& e, const Type* expected);

  // The result wg_map an op takes from its annotation, if the annotation is a vector with a wg_map.
  static std::optional<WgMap> annotatedWg(const Type* expected) {
    if (expected && expected->isVector()) return wgOf(*expected);
    return std::nullopt;
  }

  Reporter& rep_;
  std::map<std::string, AttrDef*> attrs_;
  std::vector<std::unordered_map<std::string, VarInfo>> scopes_;
  std::vector<Construct> constructs_;
  std::set<std::string> poisoned_;  // names whose definition failed (no cascade of "undefined")
  std::optional<int64_t> kernelSg_;
  SourceRange kernelSgAt_;
  WgMap kernelSgMap_;
  bool inLaunch_ = false;
};

const std::set<std::string>& builtinNames() {
  static const std::set<std::string> names = {
      "group_id", "num_groups", "local_id", "local_size", "subgroup_id", "num_subgroups", "lane_id", "subgroup_size",
      "dim", "ceildiv", "min", "max", "exp", "exp2", "log", "log2", "sqrt", "rsqrt", "tanh", "abs", "sin", "cos",
      "floor", "ceil", "select", "zeros", "full", "barrier", "slm_alloc", "bitcast", "load_tile", "store_tile",
      "prefetch_tile", "update_tile_offset", "tile_mma", "atomic_rmw", "transpose", "reduction", "broadcast",
      "convert_layout", "load_gather", "store_scatter"};
  return names;
}
bool Checker::isBuiltin(const std::string& n) { return builtinNames().count(n) != 0; }

bool Checker::call(Expr& e, const Type* expected) {
  const std::string& n = e.name;
  if (!isBuiltin(n)) {
    rep_.error(DiagId::unknown_function, e.opRange, n);
    return false;
  }
  static const std::set<std::string> launchOk = {"dim", "ceildiv", "min", "max"};
  if (inLaunch_ && !launchOk.count(n)) {
    rep_.error(DiagId::launch_rule_value, e.opRange, n);
    return false;
  }

  // Ids.
  static const std::set<std::string> dimIds = {"group_id", "num_groups", "local_id", "local_size"};
  static const std::set<std::string> plainIds = {"subgroup_id", "num_subgroups", "lane_id", "subgroup_size"};
  if (dimIds.count(n)) {
    if (!signature(e, {1, 1, {}})) return false;
    auto d = constInt(*e.args[0], fmt::format("the dimension of {}", n));
    if (!d) return false;
    if (*d < 0 || *d > 2) {
      rep_.error(DiagId::dim_out_of_range, e.args[0]->range, *d, 3);
      return false;
    }
    e.res.opName = "gpu." + n;
    e.res.attrs["dim"] = Attribute::integer(*d);
    e.type = Type::index();
    return true;
  }
  if (plainIds.count(n)) {
    if (!signature(e, {0, 0, {}})) return false;
    e.res.opName = "gpu." + n;
    e.type = Type::index();
    return true;
  }
  if (n == "dim") {
    if (!signature(e, {2, 2, {}}) || !argKind(e, 0, "dim", isMemRefT, "a memref")) return false;
    auto d = constInt(*e.args[1], "the dimension of dim");
    if (!d) return false;
    if (*d < 0 || *d >= e.args[0]->type->rank()) {
      rep_.error(DiagId::dim_out_of_range, e.args[1]->range, *d, e.args[0]->type->rank());
      return false;
    }
    e.res.opName = "memref.dim";
    e.res.attrs["index"] = Attribute::integer(*d);
    e.res.operandArgs = {0};
    e.type = Type::index();
    return true;
  }
  if (n == "ceildiv" || n == "min" || n == "max") {
    if (!signature(e, {2, 2, {}})) return false;
    auto t = elementwise(e, {e.args[0].get(), e.args[1].get()}, n);
    if (!t) return false;
    bool isF = ir::isFloatElem(t->elem());
    if (t->elem() == ElemKind::I1 || (n == "ceildiv" && (isF || t->isVector()))) {
      rep_.error(DiagId::operand_type, e.opRange, n, n == "ceildiv" ? "index or integer scalars" : "numbers", typeStr(*t));
      return false;
    }
    e.res.opName = n == "ceildiv" ? "arith.ceildivsi" : n == "min" ? (isF ? "arith.minf" : "arith.minsi")
                                                                   : (isF ? "arith.maxf" : "arith.maxsi");
    operandsAll(e);
    e.type = *t;
    return true;
  }
  static const std::set<std::string> mathFns = {"exp", "exp2", "log", "log2", "sqrt", "rsqrt", "tanh", "abs",
                                                "sin", "cos", "floor", "ceil"};
  if (mathFns.count(n)) {
    if (!signature(e, {1, 1, {}}) || !arg(e, 0)) return false;
    const Type& t = *e.args[0]->type;
    if ((!t.isScalar() && !t.isVector()) || !ir::isFloatElem(t.elem())) {
      rep_.error(DiagId::operand_type, e.args[0]->range, n, "a floating-point scalar or vector", typeStr(t));
      return false;
    }
    e.res.opName = "math." + n;
    operandsAll(e);
    e.type = t;
    return true;
  }
  if (n == "select") {
    if (!signature(e, {3, 3, {}}) || !arg(e, 0)) return false;
    auto t = elementwise(e, {e.args[1].get(), e.args[2].get()}, "select");
    if (!t) return false;
    const Type& c = *e.args[0]->type;
    bool condOk = c.elem() == ElemKind::I1 && (c.isScalar() || (c.isVector() && t->isVector() && c.shape() == t->shape()));
    if (!condOk) {
      rep_.error(DiagId::operand_type, e.args[0]->range, "select condition",
                 t->isVector() ? fmt::format("i1 or vector<{}xi1>", shapeStr(t->shape())) : std::string("i1"), typeStr(c));
      return false;
    }
    // elementwise() filled splat flags for the two values; the condition comes first.
    e.res.splat.insert(e.res.splat.begin(), false);
    e.res.opName = "arith.select";
    operandsAll(e);
    e.type = *t;
    return true;
  }
  if (n == "zeros" || n == "full") {
    if (!signature(e, {n == "zeros" ? 0u : 1u, n == "zeros" ? 0u : 1u, {}})) return false;
    auto t = annotationOrReport(e, expected, (n + "()").c_str());
    if (!t) return false;
    if (!t->isVector() && !t->isScalar()) {
      rep_.error(DiagId::operand_type, e.opRange, n, "a vector or scalar type", typeStr(*t));
      return false;
    }
    e.type = *t;
    Type scalar = Type::scalar(t->elem());
    bool isF = ir::isFloatElem(t->elem());
    auto constant = [&](double v) {
      e.res.isConstant = true;
      if (t->isScalar())
        e.res.attrs["value"] = isF ? Attribute::floating(v, t->elem()) : Attribute::integer(static_cast<int64_t>(v), t->elem());
      else {
        Type dense = t->withVectorLayout(nullptr);
        e.res.attrs["value"] = isF ? Attribute::denseFloat(dense, {v}) : Attribute::denseInt(dense, {static_cast<int64_t>(v)});
      }
    };
    if (n == "zeros") {
      constant(0);
      return true;
    }
    if (isLiteral(*e.args[0])) {
      if (!expr(*e.args[0], &scalar)) return false;
      bool isFloat = false;
      double v = *constNumber(*e.args[0], "value", &isFloat);
      constant(v);
      return true;
    }
    if (!arg(e, 0, &scalar)) return false;
    if (*e.args[0]->type != scalar) {
      rep_.error(DiagId::operand_type, e.args[0]->range, "full", typeStr(scalar), typeStr(*e.args[0]->type));
      return false;
    }
    if (t->isScalar()) {  // full(x) : f32 is just x
      e.res.operandArgs = {0};
      return true;
    }
    e.res.opName = "vector.splat";
    e.res.operandArgs = {0};
    return true;
  }
  if (n == "bitcast") {
    if (!signature(e, {1, 1, {}}) || !arg(e, 0)) return false;
    auto t = annotationOrReport(e, expected, "bitcast(x)");
    if (!t) return false;
    const Type& s = *e.args[0]->type;
    bool ok = (s.isScalar() && t->isScalar()) || (s.isVector() && t->isVector() && s.shape() == t->shape());
    if (!ok || ir::elemBits(s.elem()) != ir::elemBits(t->elem())) {
      rep_.error(DiagId::bad_cast, e.opRange, typeStr(s), typeStr(*t));
      return false;
    }
    e.res.opName = "arith.bitcast";
    operandsAll(e);
    e.type = *t;
    return true;
  }
  if (n == "barrier") {
    if (!signature(e, {0, 0, {}})) return false;
    e.res.opName = "gpu.barrier";
    return true;
  }
  if (n == "slm_alloc") {
    if (!signature(e, {0, 0, {}})) return false;
    auto t = annotationOrReport(e, expected, "slm_alloc()");
    if (!t) return false;
    if (!t->isMemRef() || t->memSpace() != ir::MemSpace::Slm || !t->hasStaticShape()) {
      rep_.error(DiagId::slm_alloc_type, e.opRange, typeStr(*t));
      return false;
    }
    e.res.opName = "gpu.slm_alloc";
    e.type = *t;
    return true;
  }
  if (n == "tile_mma") return tileMma(e, expected);
  if (n == "reduction") return reduction(e, expected);
  if (n == "broadcast") return broadcast(e, expected);
  if (n == "transpose") return transpose(e, expected);
  if (n == "convert_layout") return convertLayout(e, expected);
  return loadStore(e, expected);
}

// ---- tiles

bool Checker::initTile(Expr& e, const Type* expected) {
  VarInfo* src = lookup(e.name);
  if (!src) {
    if (!poisoned_.count(e.name)) rep_.error(DiagId::undefined_name, e.opRange, e.name);
    return false;
  }
  Type srcT = src->type;
  bool isAddr = srcT.isScalar() && srcT.elem() == ElemKind::I64;
  if (!srcT.isMemRef() && !isAddr) {
    rep_.error(DiagId::init_tile_source, e.opRange, typeStr(srcT)).note(src->def, fmt::format("'{}' is defined here", e.name));
    return false;
  }
  auto t = annotationOrReport(e, expected, "init_tile A[m, n]");
  if (!t) return false;
  if (!t->isTile()) {
    rep_.error(DiagId::operand_type, e.opRange, "init_tile result", "a tile type", typeStr(*t));
    return false;
  }
  ir::TileInfo info = t->tileInfo();
  if (srcT.isMemRef()) info.space = srcT.memSpace();
  Type result = t->withTileInfo(info);
  if (srcT.isMemRef() && srcT.elem() != t->elem()) {
    rep_.error(DiagId::elem_mismatch, e.range, "init_tile", ir::elemName(srcT.elem()), ir::elemName(t->elem()))
        .note(src->def, fmt::format("'{}' is defined here", e.name));
    return false;
  }
  NamedArg* shapeArg = nullptr;
  NamedArg* strideArg = nullptr;
  for (auto& na : e.named) {
    NamedArg** slot = na.name == "shape" ? &shapeArg : na.name == "strides" ? &strideArg : nullptr;
    if (!slot) {
      rep_.error(DiagId::unknown_named_arg, na.nameRange, "init_tile", na.name);
      return false;
    }
    if (*slot) {
      rep_.error(DiagId::duplicate_named_arg, na.nameRange, na.name);
      return false;
    }
    *slot = &na;
  }

  // Scattered tiles: one vector of per-element offsets into a 1-D memref.
  if (info.scattered) {
    if (!srcT.isMemRef() || srcT.rank() != 1) {
      rep_.error(DiagId::scatter_tile, e.opRange,
                 fmt::format("a scattered tile is created from a 1-D memref, got {}", typeStr(srcT)));
      return false;
    }
    if (e.args.size() != 1 || shapeArg || strideArg) {
      rep_.error(DiagId::scatter_tile, e.range, "a scattered tile takes exactly one offsets vector and no shape/strides");
      return false;
    }
    if (!arg(e, 0)) return false;
    const Type& o = *e.args[0]->type;
    if (!o.isVector() || o.elem() != ElemKind::Index || o.shape() != t->shape()) {
      rep_.error(DiagId::scatter_tile, e.args[0]->range,
                 fmt::format("offsets must be vector<{}xindex> (one per tile element), got {}", shapeStr(t->shape()), typeStr(o)));
      return false;
    }
    operandsAll(e);
    e.res.attrs["segments"] = Attribute::intArray({1, 0, 0});
    e.res.opName = "tile.init_tile";
    e.type = result;
    return true;
  }
  if (t->rank() != 2) {
    rep_.error(DiagId::tile_rank, e.opRange, "a tile", typeStr(*t));
    return false;
  }
  size_t wantOffsets = srcT.isMemRef() ? static_cast<size_t>(srcT.rank()) : 2;
  if (srcT.isMemRef() && srcT.rank() < 2) {
    rep_.error(DiagId::init_tile_source, e.opRange, typeStr(srcT) + " (a regular tile needs a memref of rank 2 or more)");
    return false;
  }
  if (e.args.size() != wantOffsets) {
    rep_.error(DiagId::init_tile_offsets, e.range, typeStr(srcT), wantOffsets, e.args.size());
    return false;
  }
  bool ok = true;
  for (size_t i = 0; i < e.args.size(); ++i) ok = argIndex(e, i, "tile offset") && ok;
  if (!ok) return false;
  if ((shapeArg != nullptr) != (strideArg != nullptr)) {
    rep_.error(DiagId::init_tile_shape_strides, (shapeArg ? shapeArg : strideArg)->nameRange,
               "shape = [...] and strides = [...] must be given together");
    return false;
  }
  bool dynamic = srcT.isMemRef() && !srcT.hasStaticShape();
  if (isAddr && !shapeArg) {
    rep_.error(DiagId::init_tile_shape_strides, e.opRange,
               "a tile from an i64 address needs shape = [rows, cols] and strides = [row stride, 1]");
    return false;
  }
  if (srcT.isMemRef() && !dynamic && shapeArg) {
    rep_.error(DiagId::init_tile_shape_strides, shapeArg->nameRange,
               fmt::format("{} has a static shape: shape and strides come from its type", typeStr(srcT)));
    return false;
  }
  // The memory layout the source describes: row-major unless its strides say column-major.
  std::optional<bool> colMajor;
  std::string layoutWhy;
  std::vector<int64_t> constStrides;
  if (shapeArg) {
    for (NamedArg* na : {shapeArg, strideArg}) {
      Expr& list = *na->value;
      // One value per dimension of the source (an i64 address is a matrix): the IR's init_tile
      // describes every memref dimension.
      if (list.args.size() != wantOffsets) {
        rep_.error(DiagId::init_tile_shape_strides, na->nameRange,
                   fmt::format("{} needs {} values, got {}", na->name, wantOffsets, list.args.size()));
        return false;
      }
      for (size_t i = 0; i < list.args.size(); ++i) {
        Type idx = Type::index();
        if (!expr(*list.args[i], &idx)) return false;
        if (!list.args[i]->type->isIndex()) {
          rep_.error(DiagId::operand_type, list.args[i]->range, na->name, "index", typeStr(*list.args[i]->type));
          return false;
        }
      }
    }
    Expr& st = *strideArg->value;
    auto lit = [](const Expr& x) -> std::optional<int64_t> {
      if (x.kind == Expr::Kind::Int) return x.intValue;
      return std::nullopt;
    };
    auto s0 = lit(*st.args[wantOffsets - 2]), s1 = lit(*st.args[wantOffsets - 1]);
    if (s1 && *s1 == 1) colMajor = false;
    else if (s0 && *s0 == 1) colMajor = true;
    if (s0 && s1) layoutWhy = fmt::format("strides [{}, {}]", *s0, *s1);
    else layoutWhy = colMajor ? "strides [1, ?]" : "strides [?, 1]";
    int64_t n = static_cast<int64_t>(wantOffsets);
    e.res.attrs["segments"] = Attribute::intArray({n, n, n});
  } else {
    const auto& s = srcT.strides();
    if (s.empty() || s.back() == 1) {
      colMajor = false;
      layoutWhy = "a row-major memref";
    } else if (s[s.size() - 2] == 1) {
      colMajor = true;
      layoutWhy = "a column-major memref (strides " + listStr(s) + ")";
    } else {
      rep_.error(DiagId::init_tile_shape_strides, e.opRange,
                 fmt::format("{} is neither row- nor column-major in its innermost two dimensions", typeStr(srcT)));
      return false;
    }
    if (dynamic) {
      // Shape and strides of the innermost two dimensions are computed from the memref at run time
      // (a `?` stride is the dense one: the type is checked dense where it is written).
      if (srcT.rank() == 2) {
        e.res.implicitShape = true;
        e.res.attrs["segments"] = Attribute::intArray({2, 2, 2});
      } else {
        // A batch of matrices (rank > 2): the memref's own dense row-major view, its sizes read
        // at run time by the lowering (an implicit shape of the inner two dimensions alone is not
        // an init_tile the IR accepts: kernel-sweep, #11).
        e.res.attrs["segments"] = Attribute::intArray({static_cast<int64_t>(wantOffsets), 0, 0});
      }
    } else {
      e.res.attrs["segments"] = Attribute::intArray({static_cast<int64_t>(wantOffsets), 0, 0});
    }
  }
  bool tileCol = info.order == std::vector<int64_t>{0, 1};
  if (colMajor && *colMajor != tileCol) {
    auto b = rep_.error(DiagId::order_mismatch, e.range, tileCol ? "[0, 1]" : "[1, 0] (the default)", layoutWhy);
    b.note(src->def, fmt::format("'{}' is defined here", e.name));
  }
  if (rep_.hasErrors() && colMajor && *colMajor != tileCol) return false;
  operandsAll(e);
  e.res.opName = "tile.init_tile";
  e.type = result;
  return true;
}

bool Checker::loadStore(Expr& e, const Type* expected) {
  const std::string& n = e.name;
  auto tileAt = [&](size_t i, bool scattered) -> const Type* {
    if (!argKind(e, i, n.c_str(), isTileT, "a tile")) return nullptr;
    const Type& t = *e.args[i]->type;
    if (t.tileInfo().scattered != scattered) {
      rep_.error(DiagId::scatter_tile, e.args[i]->range,
                 scattered ? fmt::format("{} needs a scattered tile (init_tile with a vector of offsets and `scatter`)", n)
                           : fmt::format("{} needs a regular tile; use load_gather/store_scatter for scattered tiles", n));
      return nullptr;
    }
    return &t;
  };
  auto padding = [&](const Type& tile) -> bool {
    NamedArg* p = named(e, "padding");
    if (!p) return true;
    bool isFloat = false;
    auto v = constNumber(*p->value, "padding", &isFloat);
    if (!v) return false;
    if (ir::isFloatElem(tile.elem())) e.res.attrs["padding"] = Attribute::floating(*v, ElemKind::F32);
    else if (isFloat) {
      rep_.error(DiagId::operand_type, p->value->range, "padding", fmt::format("an integer (the tile holds {})", ir::elemName(tile.elem())), "a floating-point value");
      return false;
    } else e.res.attrs["padding"] = Attribute::integer(static_cast<int64_t>(*v), tile.elem());
    return true;
  };
  // Value against tile: same shape and element type, and the same wg_map (RFC: a differing wg_map
  // needs an explicit convert_layout).
  auto valueMatchesTile = [&](size_t vi, size_t ti) -> bool {
    const Type& v = *e.args[vi]->type;
    const Type& t = *e.args[ti]->type;
    if (v.shape() != t.shape()) {
      rep_.error(DiagId::shape_mismatch, e.args[vi]->range, n, shapeStr(v.shape()), shapeStr(t.shape()));
      return false;
    }
    if (v.elem() != t.elem()) {
      rep_.error(DiagId::elem_mismatch, e.args[vi]->range, n, ir::elemName(v.elem()), ir::elemName(t.elem()));
      return false;
    }
    auto wv = wgOf(v), wt = wgOf(t);
    if (wv.has_value() != wt.has_value()) {
      rep_.error(DiagId::wg_map_level, e.opRange, n);
      return false;
    }
    if (wv && *wv != *wt) {
      auto b = rep_.error(DiagId::wg_map_store, e.args[vi]->range, n, wgStr(*wv), wgStr(*wt));
      noteDef(b, *e.args[ti], "the tile");
      return false;
    }
    return true;
  };
  auto maskMatches = [&](size_t mi, const Type& tile) -> bool {
    if (!arg(e, mi)) return false;
    const Type& m = *e.args[mi]->type;
    if (!m.isVector() || m.elem() != ElemKind::I1 || m.shape() != tile.shape()) {
      auto b = rep_.error(DiagId::mask_mismatch, e.args[mi]->range, typeStr(m), typeStr(tile));
      noteDef(b, *e.args[mi + (n == "load_gather" ? -1 : 1)], "the tile");
      return false;
    }
    return true;
  };

  if (n == "load_tile") {
    if (!signature(e, {1, 1, {"padding"}, true})) return false;
    const Type* t = tileAt(0, false);
    if (!t || !padding(*t)) return false;
    e.res.opName = "tile.load_tile";
    operandsAll(e);
    e.type = Type::vector(t->shape(), t->elem(), t->tileInfo().wgMap);
    return true;
  }
  if (n == "load_gather") {
    if (!signature(e, {2, 2, {"padding"}, true})) return false;
    const Type* t = tileAt(0, true);
    if (!t || !maskMatches(1, *t) || !padding(*t)) return false;
    e.res.opName = "tile.load_gather";
    operandsAll(e);
    e.type = Type::vector(t->shape(), t->elem(), t->tileInfo().wgMap);
    return true;
  }
  if (n == "store_tile") {
    if (!signature(e, {2, 2, {}})) return false;
    if (!argKind(e, 0, "store_tile value", isVec, "a vector")) return false;
    if (!tileAt(1, false) || !valueMatchesTile(0, 1)) return false;
    e.res.opName = "tile.store_tile";
    operandsAll(e);
    return true;
  }
  if (n == "store_scatter") {
    if (!signature(e, {3, 3, {}})) return false;
    if (!argKind(e, 0, "store_scatter value", isVec, "a vector")) return false;
    const Type* t = tileAt(2, true);
    if (!t || !maskMatches(1, *t) || !valueMatchesTile(0, 2)) return false;
    e.res.opName = "tile.store_scatter";
    operandsAll(e);
    return true;
  }
  if (n == "atomic_rmw") {
    if (!signature(e, {2, 2, {"kind"}})) return false;
    static const std::vector<std::string> kinds = {"addf", "addi", "maxf", "minf", "maxs", "mins", "and", "or", "xor", "assign"};
    auto kind = kindArg(e, "atomic", kinds, true);
    if (!kind) return false;
    if (!argKind(e, 0, "atomic_rmw value", isVec, "a vector")) return false;
    if (!tileAt(1, false) || !valueMatchesTile(0, 1)) return false;
    ElemKind el = e.args[0]->type->elem();
    bool wantFloat = *kind == "addf" || *kind == "maxf" || *kind == "minf";
    bool ok = *kind == "assign" || (wantFloat ? ir::isFloatElem(el) : isIntLike(*e.args[0]->type));
    if (!ok) {
      rep_.error(DiagId::kind_type, named(e, "kind")->value->range, "atomic", *kind, ir::elemName(el));
      return false;
    }
    e.res.opName = "tile.atomic_rmw";
    e.res.attrs["kind"] = Attribute::enumValue("atomic", *kind);
    operandsAll(e);
    e.type = *e.args[0]->type;
    return true;
  }
  if (n == "prefetch_tile") {
    if (!signature(e, {1, 1, {"locality"}})) return false;
    if (!tileAt(0, false)) return false;
    if (NamedArg* l = named(e, "locality")) {
      auto v = constInt(*l->value, "locality");
      if (!v) return false;
      if (*v < 0 || *v > 3) {
        rep_.error(DiagId::locality_range, l->value->range, *v);
        return false;
      }
      e.res.attrs["locality"] = Attribute::integer(*v);
    }
    e.res.opName = "tile.prefetch_tile";
    operandsAll(e);
    return true;
  }
  if (n == "update_tile_offset") {
    if (e.args.empty()) {
      rep_.error(DiagId::arg_count, e.opRange, n, "2 or 3", 0);
      return false;
    }
    if (!argKind(e, 0, n.c_str(), isTileT, "a tile")) return false;
    const Type& t = *e.args[0]->type;
    if (t.tileInfo().scattered) {
      if (!signature(e, {2, 2, {}}) || !arg(e, 1)) return false;
      const Type& o = *e.args[1]->type;
      if (!o.isVector() || o.elem() != ElemKind::Index || o.shape() != t.shape()) {
        rep_.error(DiagId::scatter_tile, e.args[1]->range,
                   fmt::format("offsets of a scattered tile must be vector<{}xindex>, got {}", shapeStr(t.shape()), typeStr(o)));
        return false;
      }
    } else {
      if (!signature(e, {3, 3, {}})) return false;
      if (!argIndex(e, 1, "tile offset") || !argIndex(e, 2, "tile offset")) return false;
    }
    e.res.opName = "tile.update_tile_offset";
    operandsAll(e);
    e.type = t;
    return true;
  }
  (void)expected;
  rep_.error(DiagId::unknown_function, e.opRange, n);
  return false;
}

// ---- vector ops with wg_map rules

bool Checker::tileMma(Expr& e, const Type* expected) {
  if (!signature(e, {2, 3, {}})) return false;
  bool ok = true;
  for (size_t i = 0; i < e.args.size(); ++i) ok = argKind(e, i, i == 0 ? "tile_mma A" : i == 1 ? "tile_mma B" : "tile_mma C", isVec, "a vector") && ok;
  if (!ok) return false;
  const Type& a = *e.args[0]->type;
  const Type& b = *e.args[1]->type;
  const Type* c = e.args.size() > 2 ? &*e.args[2]->type : nullptr;
  if (!need2d(*e.args[0], a, "tile_mma A") || !need2d(*e.args[1], b, "tile_mma B") || (c && !need2d(*e.args[2], *c, "tile_mma C")))
    return false;
  int64_t m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
  if (b.shape()[0] != k) {
    auto bld = rep_.error(DiagId::mma_shape, e.args[1]->range,
                          fmt::format("A is {} (M x K) but B is {} (expected {}x{}: K x N)", shapeStr(a.shape()),
                                      shapeStr(b.shape()), k, n));
    noteDef(bld, *e.args[0], "A");
    return false;
  }
  if (c && (c->shape()[0] != m || c->shape()[1] != n)) {
    auto bld = rep_.error(DiagId::mma_shape, e.args[2]->range,
                          fmt::format("C is {} but A x B is {}x{}", shapeStr(c->shape()), m, n));
    noteDef(bld, *e.args[2], "C");
    return false;
  }
  if (a.elem() != b.elem()) {
    auto bld = rep_.error(DiagId::mma_types, e.args[1]->range,
                          fmt::format("A is {} but B is {} (they must agree)", ir::elemName(a.elem()), ir::elemName(b.elem())));
    noteDef(bld, *e.args[0], "A");
    return false;
  }
  ElemKind in = a.elem(), acc;
  switch (in) {
    case ElemKind::BF16: case ElemKind::F16: case ElemKind::TF32: case ElemKind::F32: acc = ElemKind::F32; break;
    case ElemKind::I8: acc = ElemKind::I32; break;
    default:
      rep_.error(DiagId::mma_types, e.args[0]->range,
                 fmt::format("inputs must be bf16, f16, tf32, f32 or i8, got {}", ir::elemName(in)));
      return false;
  }
  if (c && c->elem() != acc) {
    rep_.error(DiagId::mma_types, e.args[2]->range,
               fmt::format("the accumulator of {} inputs is {}, got {}", ir::elemName(in), ir::elemName(acc), ir::elemName(c->elem())));
    return false;
  }
  // wg_maps: the result's comes from the annotation, else C, else is derived from A and B.
  auto wa = wgOf(a), wb = wgOf(b);
  std::optional<WgMap> wc = c ? wgOf(*c) : std::nullopt;
  std::optional<WgMap> wr = annotatedWg(expected);
  bool anyWg = wa || wb || wc || wr;
  if (anyWg && (!wa || !wb || (c && !wc))) {
    rep_.error(DiagId::wg_map_level, e.opRange, "tile_mma");
    return false;
  }
  if (anyWg) {
    WgMap r = wr ? *wr : wc ? *wc : WgMap{wa->sgLayout, {wa->sgData[0], wb->sgData[1]}};
    auto derived = [&](size_t i, const WgMap& have, const WgMap& want) {
      auto bld = rep_.error(DiagId::wg_map_derived, e.args[i]->range, "tile_mma", i == 0 ? "A" : i == 1 ? "B" : "C",
                            wgStr(have), fmt::format("the result wg_map {}", wgStr(r)), wgStr(want));
      noteDef(bld, *e.args[i], i == 0 ? "A" : i == 1 ? "B" : "C");
      return false;
    };
    WgMap wantA{r.sgLayout, {r.sgData[0], wa->sgData[1]}};
    WgMap wantB{r.sgLayout, {wb->sgData[0], r.sgData[1]}};
    if (*wa != wantA) return derived(0, *wa, wantA);
    if (*wb != wantB) return derived(1, *wb, wantB);
    if (wa->sgData[1] != wb->sgData[0]) {
      auto bld = rep_.error(DiagId::wg_map_derived, e.args[1]->range, "tile_mma", "B", wgStr(*wb),
                            fmt::format("A's sg_data K = {}", wa->sgData[1]),
                            fmt::format("sg_data = [{}, {}]", wa->sgData[1], wb->sgData[1]));
      noteDef(bld, *e.args[0], "A");
      return false;
    }
    if (wc && *wc != r) return derived(2, *wc, r);
    Type res = Type::vector({m, n}, acc, wgAttr(r));
    if (!wr && !checkWgFit(r, res, e.opRange)) return false;
    e.type = res;
  } else {
    e.type = Type::vector({m, n}, acc);
  }
  e.res.opName = "tile.tile_mma";
  operandsAll(e);
  return true;
}

bool Checker::reduction(Expr& e, const Type* expected) {
  if (!signature(e, {1, 1, {"kind", "dims", "reduction_size"}}) || !argKind(e, 0, "reduction", isVec, "a vector")) return false;
  const Type& in = *e.args[0]->type;
  if (!need2d(*e.args[0], in, "reduction input")) return false;
  bool isF = ir::isFloatElem(in.elem());
  std::vector<std::string> kinds = isF ? std::vector<std::string>{"add", "mul", "max", "min"}
                                       : std::vector<std::string>{"add", "mul", "max", "min", "and", "or", "xor"};
  auto kind = kindArg(e, "reduction", kinds, true);
  if (!kind) return false;
  NamedArg* dimsArg = named(e, "dims");
  if (!dimsArg) {
    rep_.error(DiagId::not_constant, e.opRange, "reduction dims (dims = [d])");
    return false;
  }
  auto dims = constIntList(*dimsArg->value, "dims");
  if (!dims) return false;
  if (dims->size() != 1 || (*dims)[0] < 0 || (*dims)[0] > 1) {
    rep_.error(DiagId::dim_out_of_range, dimsArg->value->range, listStr(*dims), 2);
    return false;
  }
  size_t d = static_cast<size_t>((*dims)[0]);
  int64_t size = in.shape()[d];
  std::optional<int64_t> rs;
  if (NamedArg* r = named(e, "reduction_size")) {
    rs = constInt(*r->value, "reduction_size");
    if (!rs) return false;
    if (*rs <= 0 || size % *rs != 0) {
      rep_.error(DiagId::reduction_size, r->value->range, *rs, d, size);
      return false;
    }
  }
  int64_t group = rs.value_or(size);
  std::vector<int64_t> outShape = in.shape();
  outShape[d] = size / group;
  // wg_map: annotation, else derived from the input (sg_data along d divided by the group).
  auto wi = wgOf(in);
  auto wr = annotatedWg(expected);
  if (wr && !wi) {
    rep_.error(DiagId::wg_map_level, e.opRange, "reduction");
    return false;
  }
  std::optional<WgMap> r;
  if (wi) {
    if (wr) r = wr;
    else if (wi->sgData[d] % group == 0) {
      r = *wi;
      r->sgData[d] = wi->sgData[d] / group;
    } else {
      rep_.error(DiagId::wg_map_missing, e.opRange, "this workgroup-level reduction");
      return false;
    }
    // The input's derived wg_map: same sg_layout and sg_data except along d, where each subgroup
    // holds whole reduction groups (result sg_data[d] x group elements).
    WgMap want = *r;
    want.sgData[d] = r->sgData[d] * group;
    if (*wi != want) {
      auto b = rep_.error(DiagId::wg_map_derived, e.args[0]->range, "reduction", "the input", wgStr(*wi),
                          fmt::format("the result wg_map {}", wgStr(*r)), wgStr(want));
      noteDef(b, *e.args[0], "the input");
      return false;
    }
  }
  Type out = Type::vector(outShape, in.elem(), r ? wgAttr(*r) : nullptr);
  if (r && !wr && !checkWgFit(*r, out, e.opRange)) return false;
  e.res.opName = "tile.reduction";
  e.res.attrs["kind"] = Attribute::enumValue("reduce", *kind);
  e.res.attrs["dims"] = Attribute::intArray(*dims);
  if (rs) e.res.attrs["reduction_size"] = Attribute::integer(*rs);
  operandsAll(e);
  e.type = out;
  return true;
}

bool Checker::broadcast(Expr& e, const Type* expected) {
  if (!signature(e, {1, 1, {"dims", "broadcast_size"}}) || !argKind(e, 0, "broadcast", isVec, "a vector")) return false;
  const Type& in = *e.args[0]->type;
  if (!need2d(*e.args[0], in, "broadcast input")) return false;
  NamedArg* dimsArg = named(e, "dims");
  if (!dimsArg) {
    rep_.error(DiagId::not_constant, e.opRange, "broadcast dims (dims = [d])");
    return false;
  }
  auto dims = constIntList(*dimsArg->value, "dims");
  if (!dims) return false;
  if (dims->size() != 1 || (*dims)[0] < 0 || (*dims)[0] > 1) {
    rep_.error(DiagId::dim_out_of_range, dimsArg->value->range, listStr(*dims), 2);
    return false;
  }
  size_t d = static_cast<size_t>((*dims)[0]);
  std::optional<int64_t> bs;
  if (NamedArg* b = named(e, "broadcast_size")) {
    bs = constInt(*b->value, "broadcast_size");
    if (!bs) return false;
    if (*bs <= 0) {
      rep_.error(DiagId::broadcast_shape, b->value->range, fmt::format("broadcast_size must be positive, got {}", *bs));
      return false;
    }
  } else if (in.shape()[d] != 1) {
    rep_.error(DiagId::broadcast_shape, e.args[0]->range,
               fmt::format("the input's dimension {} must be 1 without broadcast_size, got {}", d, shapeStr(in.shape())));
    return false;
  }
  std::vector<int64_t> outShape = in.shape();
  if (bs) outShape[d] = in.shape()[d] * *bs;
  else if (!expected) {
    rep_.error(DiagId::needs_annotation, e.opRange, "broadcast", "broadcast(v, dims = [d])");
    return false;
  } else if (!expected->isVector() || expected->rank() != 2) {
    rep_.error(DiagId::operand_type, e.opRange, "broadcast result", "a 2-D vector type", typeStr(*expected));
    return false;
  } else {
    outShape[d] = expected->shape()[d];
  }
  if (expected && expected->isVector() && expected->shape() != outShape) {
    rep_.error(DiagId::broadcast_shape, e.opRange,
               fmt::format("broadcasting {} along dimension {} gives {}, but the annotation says {}", shapeStr(in.shape()), d,
                           shapeStr(outShape), shapeStr(expected->shape())));
    return false;
  }
  auto wi = wgOf(in);
  auto wr = annotatedWg(expected);
  if (wi.has_value() != wr.has_value()) {
    if (wi) rep_.error(DiagId::wg_map_missing, e.opRange, "a workgroup-level broadcast");
    else rep_.error(DiagId::wg_map_level, e.opRange, "broadcast");
    return false;
  }
  if (wi) {
    // The input's derived wg_map: same sg_layout; along d, sg_data 1 (or the result's sg_data
    // divided by broadcast_size); the other dimension as the result.
    WgMap want = *wr;
    want.sgData[d] = bs ? std::max<int64_t>(1, wr->sgData[d] / *bs) : 1;
    if (*wi != want) {
      auto b = rep_.error(DiagId::wg_map_derived, e.args[0]->range, "broadcast", "the input", wgStr(*wi),
                          fmt::format("the result wg_map {}", wgStr(*wr)), wgStr(want));
      noteDef(b, *e.args[0], "the input");
      return false;
    }
  }
  e.res.opName = "tile.broadcast";
  e.res.attrs["dims"] = Attribute::intArray(*dims);
  if (bs) e.res.attrs["broadcast_size"] = Attribute::integer(*bs);
  operandsAll(e);
  e.type = Type::vector(outShape, in.elem(), wr ? wgAttr(*wr) : nullptr);
  return true;
}

bool Checker::transpose(Expr& e, const Type* expected) {
  if (!signature(e, {1, 1, {"permutation"}}) || !argKind(e, 0, "transpose", isVec, "a vector")) return false;
  const Type& in = *e.args[0]->type;
  if (!need2d(*e.args[0], in, "transpose input")) return false;
  if (NamedArg* p = named(e, "permutation")) {
    auto perm = constIntList(*p->value, "permutation");
    if (!perm) return false;
    if (*perm != std::vector<int64_t>{1, 0}) {
      rep_.error(DiagId::operand_type, p->value->range, "transpose permutation", "[1, 0]", listStr(*perm));
      return false;
    }
  }
  std::vector<int64_t> outShape = {in.shape()[1], in.shape()[0]};
  auto wi = wgOf(in);
  auto wr = annotatedWg(expected);
  if (wr && !wi) {
    rep_.error(DiagId::wg_map_level, e.opRange, "transpose");
    return false;
  }
  std::optional<WgMap> r;
  if (wi) {
    WgMap swapped{{wi->sgLayout[1], wi->sgLayout[0]}, {wi->sgData[1], wi->sgData[0]}};
    r = wr ? *wr : swapped;
    // Each subgroup transposes its own block: sg_data must be swapped. The RFC's derived input
    // sg_layout is the swap of the result's; appendix 2.3 also allows another arrangement of the
    // same blocks (an in-register transpose), so only the subgroup count must then agree.
    WgMap want{{r->sgLayout[1], r->sgLayout[0]}, {r->sgData[1], r->sgData[0]}};
    if (wi->sgData != want.sgData || wi->numSubgroups() != r->numSubgroups()) {
      auto b = rep_.error(DiagId::wg_map_derived, e.args[0]->range, "transpose", "the input", wgStr(*wi),
                          fmt::format("the result wg_map {}", wgStr(*r)), wgStr(want));
      noteDef(b, *e.args[0], "the input");
      return false;
    }
  }
  Type out = Type::vector(outShape, in.elem(), r ? wgAttr(*r) : nullptr);
  if (r && !wr && !checkWgFit(*r, out, e.opRange)) return false;
  e.res.opName = "tile.transpose";
  e.res.attrs["permutation"] = Attribute::intArray({1, 0});
  operandsAll(e);
  e.type = out;
  return true;
}

bool Checker::convertLayout(Expr& e, const Type* expected) {
  if (!signature(e, {1, 1, {"from"}}) || !argKind(e, 0, "convert_layout", isVec, "a vector")) return false;
  const Type& in = *e.args[0]->type;
  auto wr = annotatedWg(expected);
  if (!wr) {
    rep_.error(DiagId::wg_map_missing, e.opRange, "convert_layout");
    return false;
  }
  auto wi = wgOf(in);
  if (!wi) {
    rep_.error(DiagId::wg_map_level, e.opRange, "convert_layout");
    return false;
  }
  if (expected->shape() != in.shape() || expected->elem() != in.elem()) {
    rep_.error(DiagId::annotation_mismatch, e.opRange, typeStr(*expected), typeStr(in) + " (convert_layout keeps shape and element type)");
    return false;
  }
  if (NamedArg* f = named(e, "from")) {
    if (f->value->kind != Expr::Kind::AttrRef) {
      rep_.error(DiagId::wg_map_form, f->value->range, "from = expects a wg_map attribute such as #b");
      return false;
    }
    Term ref;
    ref.kind = Term::Kind::Ref;
    ref.text = f->value->name;
    ref.range = f->value->range;
    auto wf = resolveWgMap(ref);
    if (!wf) return false;
    if (*wf != *wi) {
      auto b = rep_.error(DiagId::wg_map_mismatch, f->value->range, "convert_layout from", wgStr(*wf), wgStr(*wi) + " (the input's)");
      noteDef(b, *e.args[0], "the input");
      return false;
    }
  }
  e.res.opName = "tile.convert_layout";
  e.res.usedAnnotation = true;
  operandsAll(e);
  e.type = *expected;
  return true;
}

}  // namespace

bool checkFile(File& file, Reporter& rep) {
  unsigned before = rep.engine().errorCount();
  Checker(rep).run(file);
  return rep.engine().errorCount() == before;
}

}  // namespace xtc::frontend
