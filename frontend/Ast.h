// The AST of a .xt file: what the parse-tree visitor (AstBuilder.cpp) builds, what semantic analysis
// (Sema) annotates with types and resolved ops, and what IR generation (IRGen) walks. Every node keeps
// the source range it came from, so diagnostics and IR locations point at the user's text.
#pragma once

#include "ir/Attribute.h"
#include "ir/Type.h"
#include "ir/support/Diagnostics.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace xtc::frontend {

// A type or attribute value in its generic written form (`memref<?x?xf16, slm>`, `[8, 4]`,
// `wg_map<sg_layout = [8, 4], sg_data = [32, 32]>`, `#a`). Sema gives terms their meaning.
struct Term {
  enum class Kind { Named, Shape, Int, Float, Dynamic, Ref, List };
  Kind kind = Kind::Named;
  SourceRange range;
  std::string text;       // Named: the name; Shape: the token ("256x32xbf16"); Ref: "#a"
  int64_t intValue = 0;   // Int
  double floatValue = 0;  // Float
  struct Arg {
    std::string key;      // empty for positional arguments
    SourceRange keyRange;
    std::unique_ptr<Term> value;
  };
  std::vector<Arg> args;  // Named: `<...>` arguments; List: elements (no keys)
  bool hasAngle = false;  // Named: written with `<...>`
};
using TermPtr = std::unique_ptr<Term>;

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct NamedArg {
  std::string name;
  SourceRange nameRange;
  ExprPtr value;
};

// What an expression resolved to (set by Sema, read by IRGen).
struct Resolved {
  std::string opName;        // the IR op to create ("tile.load_tile"); empty for names/literals
  ir::AttrMap attrs;         // attributes of that op
  // Binary/unary/call operands that must be splat to a vector type before the op (parallel to the
  // operands); set for scalar operands of element-wise vector ops.
  std::vector<bool> splat;
  // init_tile: generate shape/strides from the memref (dynamic memrefs written without them).
  bool implicitShape = false;
  // Constants (literals, negated literals, zeros(), full(c)): `attrs["value"]` holds the value.
  bool isConstant = false;
  // Calls: which positional arguments become operands, in order (the others are constants read
  // into attributes, e.g. the dimension of group_id(0)).
  std::vector<size_t> operandArgs;
  // The op read its type annotation itself (so the annotation is not compared again).
  bool usedAnnotation = false;
};

struct Expr {
  enum class Kind { Int, Float, Bool, Name, AttrRef, List, Unary, Binary, Cast, Call, InitTile, Typed };
  Kind kind;
  SourceRange range;     // the whole expression
  SourceRange opRange;   // operator / callee name / cast keyword
  std::string name;      // Name, AttrRef, callee, operator text, Cast target, InitTile source
  int64_t intValue = 0;
  double floatValue = 0;
  bool boolValue = false;
  std::vector<ExprPtr> args;       // operands, positional call args, list elements, init_tile offsets
  std::vector<NamedArg> named;     // call named args; init_tile `shape = [...]`, `strides = [...]`
  TermPtr annotation;              // Typed: the `: type`

  // Set by Sema.
  std::optional<ir::Type> type;    // the value's type; unset for statements without a value
  Resolved res;

  Expr(Kind k, SourceRange r) : kind(k), range(std::move(r)) {}
};

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;
using StmtList = std::vector<StmtPtr>;

struct Stmt {
  enum class Kind { Assign, Expr, For, If };
  Kind kind;
  SourceRange range;     // the first token (`x`, `for`, `if`, or the expression)
  std::string var;       // Assign: target; For: induction variable
  SourceRange varRange;
  ExprPtr value;         // Assign / Expr: the value; If: the condition
  ExprPtr lb, ub, step;  // For (step may be null: 1)
  StmtList body;         // For body / If then-branch
  StmtList elseBody;     // If
  bool hasElse = false;
  SourceRange endRange;  // the closing `}` of the body (for diagnostics about carried values)
  // Set by Sema: variables defined before this for/if and assigned inside it, in order of first
  // assignment. IRGen turns them into scf.for iter args / scf.if results.
  std::vector<std::string> carried;

  Stmt(Kind k, SourceRange r) : kind(k), range(std::move(r)) {}
};

struct Param {
  std::string name;
  SourceRange range;
  TermPtr type;
  std::optional<ir::Type> resolved;  // Sema
};

struct Kernel {
  std::string name;
  SourceRange range;      // the name
  std::vector<Param> params;
  bool hasGrid = false;
  SourceRange gridRange;
  std::vector<ExprPtr> grid;
  StmtList body;
  int64_t numSubgroups = 1;  // Sema: product of the kernel's sg_layout (1 without wg_maps)
};

struct AttrDef {
  std::string name;       // with the leading '#'
  SourceRange range;
  TermPtr value;
};

struct File {
  std::string fileName;
  // Top-level items in source order.
  std::vector<AttrDef> attrDefs;
  std::vector<Kernel> kernels;
  std::vector<std::pair<bool, size_t>> order;  // (isKernel, index) in source order
};

// The AST as indented text (`xtc compile --emit=ast`), with `@line:col` positions.
std::string dumpAstText(const File& file);

}  // namespace xtc::frontend
