// The IR text printer (see Printer.h and docs/ir.md "Text format"). Output is built in a string and
// written once, which keeps printing a 100k-op module well under the benchmark budget.
#include "ir/Printer.h"

#include <ostream>
#include <unordered_map>
#include <unordered_set>

namespace xtc::ir {

bool isBareIdentifier(std::string_view s) {
  if (s.empty()) return false;
  auto head = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!head(s[0])) return false;
  for (char c : s)
    if (!head(c) && !(c >= '0' && c <= '9') && c != '.' && c != '$') return false;
  return true;
}

std::string quoteString(const std::string& s) { return Attribute::string(s).str(); }

namespace {

// Names of values within one naming scope (a kernel, or the module outside kernels).
struct NameScope {
  std::unordered_map<const Value*, std::string> names;
  std::unordered_set<std::string> used;  // hint-derived names only; numbers never collide with them
  std::unordered_map<std::string, unsigned> nextSuffix;  // base -> last k tried for `base_k`
  unsigned next = 0;
};

// A hint made printable: [A-Za-z0-9_] only and never starting with a digit, so it cannot collide
// with the numbered names.
std::string sanitize(const std::string& hint) {
  std::string r;
  r.reserve(hint.size() + 1);
  for (char c : hint) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    r += ok ? c : '_';
  }
  if (r[0] >= '0' && r[0] <= '9') r = "v" + r;
  return r;
}

bool isConventionalKernel(const Operation& op) {
  if (!op.is("xtc.kernel") || op.numRegions() != 2 || op.numOperands() != 0 || op.numResults() != 0) return false;
  const Attribute* sym = op.attr("sym_name");
  if (!sym || sym->kind() != AttrKind::String) return false;
  for (unsigned r = 0; r < 2; ++r)
    if (op.region(r).numBlocks() != 1) return false;
  const Block& body = op.region(0).block();
  const Block& launch = op.region(1).block();
  if (body.numArguments() != launch.numArguments()) return false;
  for (unsigned i = 0; i < body.numArguments(); ++i)
    if (body.argument(i)->type() != launch.argument(i)->type()) return false;
  return true;
}

bool isConventionalModule(const Operation& op) {
  return op.is("builtin.module") && op.numRegions() == 1 && op.numOperands() == 0 && op.numResults() == 0 &&
         op.region(0).numBlocks() == 1 && op.region(0).block().numArguments() == 0;
}

class Printer {
public:
  explicit Printer(const PrintOptions& opts) : opts_(opts) { scopes_.emplace_back(); }

  std::string out;

  void op(const Operation& o, int indent) {
    pad(indent);
    if (isConventionalModule(o)) return moduleForm(o, indent);
    if (isConventionalKernel(o)) return kernelForm(o, indent);
    bool ownScope = o.is("xtc.kernel");
    if (ownScope) scopes_.emplace_back();
    // Results are named before regions are printed; nested ops cannot use them anyway.
    if (o.numResults()) {
      for (unsigned i = 0; i < o.numResults(); ++i) {
        if (i) out += ", ";
        define(o.result(i));
      }
      out += " = ";
    }
    out += o.name();
    for (unsigned i = 0; i < o.numOperands(); ++i) {
      out += i ? ", " : " ";
      use(o.operand(i));
    }
    attrDict(o.attrs(), {});
    out += " : (";
    for (unsigned i = 0; i < o.numOperands(); ++i) {
      if (i) out += ", ";
      out += o.operand(i) ? o.operand(i)->type().str() : std::string("none");
    }
    out += ") -> (";
    for (unsigned i = 0; i < o.numResults(); ++i) {
      if (i) out += ", ";
      out += o.result(i)->type().str();
    }
    out += ")";
    if (o.numRegions()) {
      out += " (";
      for (unsigned r = 0; r < o.numRegions(); ++r) {
        if (r) out += ", ";
        region(o.region(r), indent, nullptr);
      }
      out += ")";
    }
    if (ownScope) scopes_.pop_back();
    loc(o);
    out += '\n';
  }

private:
  const PrintOptions& opts_;
  std::vector<NameScope> scopes_;

  void pad(int indent) { out.append(static_cast<size_t>(indent) * 2, ' '); }

  void loc(const Operation& o) {
    if (!opts_.locations || !o.loc().valid()) return;
    out += " loc(" + quoteString(*o.loc().file) + ":" + std::to_string(o.loc().line) + ":" +
           std::to_string(o.loc().col) + ")";
  }

  // Assigns and prints the name of a newly defined value.
  void define(const Value* v) {
    NameScope& s = scopes_.back();
    std::string name;
    if (v->nameHint().empty()) {
      name = std::to_string(s.next++);
    } else {
      std::string base = sanitize(v->nameHint());
      name = base;
      if (s.used.count(name)) {
        // The first free `base_k`. Every `base_j` below the remembered counter is taken already
        // (names are only ever added), so starting there keeps this linear instead of quadratic.
        unsigned& k = s.nextSuffix[base];
        do name = base + "_" + std::to_string(++k);
        while (s.used.count(name));
      }
      s.used.insert(name);
    }
    out += '%';
    out += name;
    s.names.emplace(v, std::move(name));
  }
  void defineAs(const Value* v, const std::string& name) { scopes_.back().names.emplace(v, name); }

  void use(const Value* v) {
    if (!v) {
      out += "%<null>";
      return;
    }
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = it->names.find(v);
      if (f != it->names.end()) {
        out += '%';
        out += f->second;
        return;
      }
    }
    // Not defined before its use (invalid IR, or printing a fragment): give it a name anyway so the
    // text stays readable; the parser will then report the use as undefined.
    define(v);
  }

  void attrDict(const AttrMap& attrs, std::string_view skip) {
    bool first = true;
    for (const auto& [name, value] : attrs) {
      if (name == skip) continue;
      out += first ? " {" : ", ";
      first = false;
      out += isBareIdentifier(name) ? name : quoteString(name);
      out += " = ";
      out += value.str();
    }
    if (!first) out += '}';
  }

  void blockArgs(const Block& b) {
    out += '(';
    for (unsigned i = 0; i < b.numArguments(); ++i) {
      if (i) out += ", ";
      define(b.argument(i));
      out += ": ";
      out += b.argument(i)->type().str();
    }
    out += ')';
  }

  // Prints `{ blocks }`. `entryArgsDeclared`: the entry block's arguments were named by the op's own
  // header (kernel parameters), so its block header is omitted.
  void region(const Region& r, int indent, const Block* entryArgsDeclared) {
    if (r.empty()) {
      out += "{}";
      return;
    }
    out += "{\n";
    for (unsigned bi = 0; bi < r.numBlocks(); ++bi) {
      const Block& b = r.block(bi);
      bool header = bi > 0 || (&b != entryArgsDeclared && (b.numArguments() > 0 || (r.numBlocks() == 1 && b.empty())));
      if (header) {
        pad(indent);
        out += "^bb" + std::to_string(bi);
        if (b.numArguments()) blockArgs(b);
        out += ":\n";
      }
      for (const auto& o : b.opList()) op(*o, indent + 1);
    }
    pad(indent);
    out += '}';
  }

  void moduleForm(const Operation& o, int indent) {
    out += o.name();
    if (!o.attrs().empty()) {
      out += " attributes";
      attrDict(o.attrs(), {});
    }
    out += ' ';
    // The module's block has no arguments; like a kernel's, its header is never printed.
    region(o.region(0), indent, &o.region(0).block());
    loc(o);
    out += '\n';
  }

  void kernelForm(const Operation& o, int indent) {
    scopes_.emplace_back();
    const std::string& sym = o.attr("sym_name")->getString();
    out += "xtc.kernel @";
    out += isBareIdentifier(sym) ? sym : quoteString(sym);
    const Block& body = o.region(0).block();
    const Block& launch = o.region(1).block();
    blockArgs(body);
    for (unsigned i = 0; i < launch.numArguments(); ++i) defineAs(launch.argument(i), scopes_.back().names[body.argument(i)]);
    attrDict(o.attrs(), "sym_name");
    out += " launch ";
    region(o.region(1), indent, &launch);
    out += " body ";
    region(o.region(0), indent, &body);
    scopes_.pop_back();
    loc(o);
    out += '\n';
  }
};

}  // namespace

void printOp(std::ostream& os, const Operation& op, const PrintOptions& opts) {
  std::string s = printToString(op, opts);
  os.write(s.data(), static_cast<std::streamsize>(s.size()));
}

std::string printToString(const Operation& op, const PrintOptions& opts) {
  Printer p(opts);
  p.op(op, 0);
  return std::move(p.out);
}

}  // namespace xtc::ir
