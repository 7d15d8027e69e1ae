// Source text -> AST: UTF-8 validation, lexing (generated XtLexer), pre-parse checks on the token
// stream (invalid characters, bracket nesting), parsing (generated XtParser, with a recursion guard),
// and the parse-tree walk that builds the AST with source ranges. The only file that sees ANTLR.
#include "frontend/Parse.h"

#include "XtLexer.h"
#include "XtParser.h"
#include "antlr4-runtime.h"

#include <charconv>
#include <cstdlib>
#include <stdexcept>

namespace xtc::frontend {

namespace {

using xtc_antlr::XtLexer;
using xtc_antlr::XtParser;

// Maps positions of the ANTLR stream (code points) back to byte offsets, which is what SourceLoc
// columns count.
struct OffsetMap {
  std::vector<uint32_t> cpToByte;  // one entry per code point, plus the end
};

// Validates UTF-8 and fills the code point -> byte map. Returns the offset of the first bad byte,
// or npos if the text is valid. Overlong forms, surrogates and code points above U+10FFFF are invalid.
size_t validateUtf8(const std::string& s, OffsetMap& map) {
  map.cpToByte.clear();
  map.cpToByte.reserve(s.size() + 1);
  size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t len;
    uint32_t cp;
    if (c < 0x80) { len = 1; cp = c; }
    else if ((c & 0xE0) == 0xC0) { len = 2; cp = c & 0x1F; }
    else if ((c & 0xF0) == 0xE0) { len = 3; cp = c & 0x0F; }
    else if ((c & 0xF8) == 0xF0) { len = 4; cp = c & 0x07; }
    else return i;
    if (i + len > s.size()) return i;
    for (size_t k = 1; k < len; ++k) {
      auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return i;  // report the sequence where it starts
      cp = (cp << 6) | (cc & 0x3F);
    }
    static const uint32_t minForLen[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < minForLen[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    map.cpToByte.push_back(static_cast<uint32_t>(i));
    i += len;
  }
  map.cpToByte.push_back(static_cast<uint32_t>(s.size()));
  return std::string::npos;
}

// Thrown to abandon parsing (error limit reached, recursion too deep). Not an ANTLR exception, so
// the generated code's error recovery does not catch it.
struct AbortParse {};

class Context {
public:
  Context(const std::string& fileName, const std::string& text, Reporter& rep, const OffsetMap& map)
      : fileName_(fileName), text_(text), rep_(rep), map_(map) {}

  size_t byteOf(size_t cp) const {
    if (cp >= map_.cpToByte.size()) return text_.size();
    return map_.cpToByte[cp];
  }
  SourceLoc locAt(size_t byteOffset) { return rep_.engine().sources().locFromOffset(fileName_, byteOffset); }

  SourceRange range(const antlr4::Token* t) {
    if (!t) return {};
    if (t->getType() == antlr4::Token::EOF) return SourceRange{locAt(text_.size()), 0};
    size_t b = byteOf(t->getStartIndex());
    size_t e = byteOf(t->getStopIndex() + 1);
    return SourceRange{locAt(b), static_cast<uint32_t>(e > b ? e - b : 0)};
  }
  // From the first to the last token of a context when both are on one line, else the first token.
  SourceRange range(antlr4::ParserRuleContext* c) {
    SourceRange r = range(c->getStart());
    const antlr4::Token* stop = c->getStop();
    if (stop && stop->getType() != antlr4::Token::EOF && stop->getStopIndex() + 1 >= c->getStart()->getStartIndex()) {
      SourceRange s = range(stop);
      if (s.begin.line == r.begin.line && s.begin.col >= r.begin.col) r.length = s.begin.col + s.length - r.begin.col;
    }
    return r;
  }
  SourceRange range(antlr4::tree::TerminalNode* n) { return range(n ? n->getSymbol() : nullptr); }

  Reporter& rep() { return rep_; }

private:
  const std::string& fileName_;
  const std::string& text_;
  Reporter& rep_;
  const OffsetMap& map_;
};

// Reports ANTLR syntax errors through the diagnostics engine.
class ErrorListener : public antlr4::BaseErrorListener {
public:
  explicit ErrorListener(Context& cx) : cx_(cx) {}
  void syntaxError(antlr4::Recognizer* recognizer, antlr4::Token* offending, size_t, size_t, const std::string& msg,
                   std::exception_ptr) override {
    std::string text;
    if (msg.rfind("no viable alternative", 0) == 0) {
      text = "syntax error: unexpected " + describe(offending);
    } else {
      text = "syntax error: " + msg;
      // ANTLR spells the end of input `<EOF>`; say it in words.
      for (size_t p; (p = text.find("'<EOF>'")) != std::string::npos;) text.replace(p, 7, "end of file");
      for (size_t p; (p = text.find("<EOF>")) != std::string::npos;) text.replace(p, 5, "end of file");
    }
    // A keyword used as a name (`grid: index`, `step = 3`: followed by ':' or '='): ANTLR only says
    // it did not expect it, which reads as if the parameter list or statement were malformed.
    if (offending && isKeyword(offending->getText())) {
      auto* parser = dynamic_cast<antlr4::Parser*>(recognizer);
      antlr4::TokenStream* ts = parser ? parser->getTokenStream() : nullptr;
      size_t next = offending->getTokenIndex() + 1;
      std::string after = ts && next < ts->size() ? ts->get(next)->getText() : "";
      if (after == ":" || after == "=") text += " ('" + offending->getText() + "' is a keyword, so it cannot be a name)";
    }
    cx_.rep().error(DiagId::syntax_error, cx_.range(offending), text);
    if (cx_.rep().limitReached()) throw AbortParse{};
  }
  static bool isKeyword(const std::string& w) {
    for (const char* k : {"kernel", "grid", "for", "in", "step", "if", "else", "as", "true", "false", "init_tile"})
      if (w == k) return true;
    return false;
  }
  static std::string describe(const antlr4::Token* t) {
    if (!t || t->getType() == antlr4::Token::EOF) return "end of file";
    return "'" + t->getText() + "'";
  }

private:
  Context& cx_;
};

// The generated parser with a guard on its recursion depth: rule invocations nest deeper than
// `limit` only for pathological input (e.g. thousands of unary minus signs), which would otherwise
// overflow the native stack.
class GuardedParser : public XtParser {
public:
  GuardedParser(antlr4::TokenStream* in, size_t limit) : XtParser(in), limit_(limit) {}
  void enterRule(antlr4::ParserRuleContext* localctx, size_t state, size_t ruleIndex) override {
    check();
    XtParser::enterRule(localctx, state, ruleIndex);
  }
  void enterRecursionRule(antlr4::ParserRuleContext* localctx, size_t state, size_t ruleIndex,
                          int precedence) override {
    check();
    XtParser::enterRecursionRule(localctx, state, ruleIndex, precedence);
  }
  antlr4::Token* tooDeepAt = nullptr;

private:
  void check() {
    size_t depth = 0;
    for (antlr4::RuleContext* c = _ctx; c && depth <= limit_; c = dynamic_cast<antlr4::RuleContext*>(c->parent)) ++depth;
    if (depth > limit_) {
      tooDeepAt = getCurrentToken();
      throw AbortParse{};
    }
  }
  size_t limit_;
};

// Deepest path of the parse tree, computed without recursion; returns the first token of a node
// deeper than `limit` (or null).
antlr4::Token* findTooDeep(antlr4::tree::ParseTree* root, size_t limit) {
  std::vector<std::pair<antlr4::tree::ParseTree*, size_t>> stack{{root, 1}};
  while (!stack.empty()) {
    auto [node, depth] = stack.back();
    stack.pop_back();
    if (depth > limit) {
      if (auto* rc = dynamic_cast<antlr4::ParserRuleContext*>(node)) return rc->getStart();
      if (auto* tn = dynamic_cast<antlr4::tree::TerminalNode*>(node)) return tn->getSymbol();
      return nullptr;
    }
    for (auto* child : node->children) stack.emplace_back(child, depth + 1);
  }
  return nullptr;
}

// ---- parse tree -> AST ----

class AstBuilder {
public:
  explicit AstBuilder(Context& cx) : cx_(cx) {}

  std::unique_ptr<File> build(XtParser::File_Context* f, const std::string& fileName) {
    auto file = std::make_unique<File>();
    file->fileName = fileName;
    for (auto* item : f->topItem()) {
      if (auto* a = item->attrDef()) {
        AttrDef d;
        d.name = a->ATTR_ID()->getText();
        d.range = cx_.range(a->ATTR_ID());
        d.value = term(a->term());
        file->order.emplace_back(false, file->attrDefs.size());
        file->attrDefs.push_back(std::move(d));
      } else if (auto* k = item->kernelDef()) {
        file->order.emplace_back(true, file->kernels.size());
        file->kernels.push_back(kernel(k));
      }
    }
    return file;
  }

private:
  Kernel kernel(XtParser::KernelDefContext* k) {
    Kernel out;
    out.name = k->ID()->getText();
    out.range = cx_.range(k->ID());
    for (auto* p : k->param()) {
      Param param;
      param.name = p->ID()->getText();
      param.range = cx_.range(p->ID());
      param.type = term(p->term());
      out.params.push_back(std::move(param));
    }
    if (auto* g = k->gridClause()) {
      out.hasGrid = true;
      out.gridRange = cx_.range(g->getStart());
      for (auto* e : g->expr()) out.grid.push_back(expr(e));
    }
    out.body = block(k->block());
    return out;
  }

  StmtList block(XtParser::BlockContext* b) {
    StmtList out;
    for (auto* s : b->stmt()) out.push_back(stmt(s));
    return out;
  }

  StmtPtr stmt(XtParser::StmtContext* s) {
    if (auto* a = dynamic_cast<XtParser::AssignStmtContext*>(s)) {
      auto st = std::make_unique<Stmt>(Stmt::Kind::Assign, cx_.range(a->ID()));
      st->var = a->ID()->getText();
      st->varRange = cx_.range(a->ID());
      st->value = typedExpr(a->typedExpr());
      return st;
    }
    if (auto* f = dynamic_cast<XtParser::ForStmtContext*>(s)) {
      auto st = std::make_unique<Stmt>(Stmt::Kind::For, cx_.range(f->getStart()));
      st->var = f->ID()->getText();
      st->varRange = cx_.range(f->ID());
      auto es = f->expr();
      st->lb = expr(es[0]);
      st->ub = expr(es[1]);
      if (es.size() > 2) st->step = expr(es[2]);
      st->body = block(f->block());
      st->endRange = cx_.range(f->block()->getStop());
      return st;
    }
    if (auto* i = dynamic_cast<XtParser::IfStmtWrapContext*>(s)) return ifStmt(i->ifStmt());
    auto* e = dynamic_cast<XtParser::ExprStmtContext*>(s);
    auto st = std::make_unique<Stmt>(Stmt::Kind::Expr, cx_.range(e->getStart()));
    st->value = typedExpr(e->typedExpr());
    return st;
  }

  StmtPtr ifStmt(XtParser::IfStmtContext* i) {
    auto st = std::make_unique<Stmt>(Stmt::Kind::If, cx_.range(i->getStart()));
    st->value = expr(i->expr());
    auto blocks = i->block();
    st->body = block(blocks[0]);
    st->endRange = cx_.range(blocks[0]->getStop());
    if (blocks.size() > 1) {
      st->hasElse = true;
      st->elseBody = block(blocks[1]);
    } else if (auto* nested = i->ifStmt()) {
      st->hasElse = true;
      st->elseBody.push_back(ifStmt(nested));
    }
    return st;
  }

  ExprPtr typedExpr(XtParser::TypedExprContext* t) {
    ExprPtr e = expr(t->expr());
    if (!t->term()) return e;
    auto typed = std::make_unique<Expr>(Expr::Kind::Typed, cx_.range(t));
    typed->opRange = cx_.range(t->term());
    typed->annotation = term(t->term());
    typed->args.push_back(std::move(e));
    return typed;
  }

  ExprPtr expr(XtParser::ExprContext* e) {
    if (auto* p = dynamic_cast<XtParser::PrimaryExprContext*>(e)) return primary(p->primary());
    if (auto* u = dynamic_cast<XtParser::UnaryExprContext*>(e)) {
      auto out = std::make_unique<Expr>(Expr::Kind::Unary, cx_.range(u));
      out->name = u->op->getText();
      out->opRange = cx_.range(u->op);
      out->args.push_back(expr(u->expr()));
      return out;
    }
    if (auto* c = dynamic_cast<XtParser::CastExprContext*>(e)) {
      auto out = std::make_unique<Expr>(Expr::Kind::Cast, cx_.range(c));
      out->name = c->ID()->getText();
      out->opRange = cx_.range(c->ID());
      out->args.push_back(expr(c->expr()));
      return out;
    }
    auto* b = dynamic_cast<XtParser::BinaryExprContext*>(e);
    auto out = std::make_unique<Expr>(Expr::Kind::Binary, cx_.range(b));
    out->name = b->op->getText();
    out->opRange = cx_.range(b->op);
    out->args.push_back(expr(b->expr(0)));
    out->args.push_back(expr(b->expr(1)));
    return out;
  }

  ExprPtr primary(XtParser::PrimaryContext* p) {
    SourceRange r = cx_.range(p);
    if (auto* i = dynamic_cast<XtParser::IntLitContext*>(p)) {
      auto out = std::make_unique<Expr>(Expr::Kind::Int, r);
      std::string text = i->getText();
      auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out->intValue);
      if (ec != std::errc() || ptr != text.data() + text.size()) cx_.rep().error(DiagId::int_literal_range, r, text, "64 bits");
      return out;
    }
    if (dynamic_cast<XtParser::FloatLitContext*>(p)) {
      auto out = std::make_unique<Expr>(Expr::Kind::Float, r);
      out->floatValue = std::strtod(p->getText().c_str(), nullptr);
      return out;
    }
    if (dynamic_cast<XtParser::BoolLitContext*>(p)) {
      auto out = std::make_unique<Expr>(Expr::Kind::Bool, r);
      out->boolValue = p->getText() == "true";
      return out;
    }
    if (auto* c = dynamic_cast<XtParser::CallExprContext*>(p)) {
      auto out = std::make_unique<Expr>(Expr::Kind::Call, r);
      out->name = c->ID()->getText();
      out->opRange = cx_.range(c->ID());
      for (auto* a : c->arg()) {
        if (a->ID()) {
          NamedArg n;
          n.name = a->ID()->getText();
          n.nameRange = cx_.range(a->ID());
          n.value = typedExpr(a->typedExpr());
          out->named.push_back(std::move(n));
        } else {
          out->args.push_back(typedExpr(a->typedExpr()));
        }
      }
      return out;
    }
    if (auto* t = dynamic_cast<XtParser::InitTileExprContext*>(p)) return initTile(t, r);
    if (auto* n = dynamic_cast<XtParser::NameExprContext*>(p)) {
      auto out = std::make_unique<Expr>(Expr::Kind::Name, r);
      out->name = n->getText();
      out->opRange = r;
      return out;
    }
    if (dynamic_cast<XtParser::AttrRefExprContext*>(p)) {
      auto out = std::make_unique<Expr>(Expr::Kind::AttrRef, r);
      out->name = p->getText();
      out->opRange = r;
      return out;
    }
    if (auto* l = dynamic_cast<XtParser::ListExprContext*>(p)) {
      auto out = std::make_unique<Expr>(Expr::Kind::List, r);
      for (auto* e : l->expr()) out->args.push_back(expr(e));
      return out;
    }
    auto* paren = dynamic_cast<XtParser::ParenExprContext*>(p);
    return typedExpr(paren->typedExpr());
  }

  // `init_tile A[o0, o1] (, key = [e, ...])*`: the offsets, then keyed lists (shape, strides), read
  // off the children in order because the generated accessors mix all expressions together.
  ExprPtr initTile(XtParser::InitTileExprContext* t, SourceRange r) {
    auto out = std::make_unique<Expr>(Expr::Kind::InitTile, r);
    out->name = t->ID(0)->getText();
    out->opRange = cx_.range(t->ID(0));
    bool inOffsets = true;
    NamedArg* current = nullptr;
    for (auto* child : t->children) {
      if (auto* tn = dynamic_cast<antlr4::tree::TerminalNode*>(child)) {
        if (tn->getSymbol()->getType() == XtParser::RBRACK && inOffsets) inOffsets = false;
        if (tn->getSymbol()->getType() == XtParser::ID && tn != t->ID(0)) {
          out->named.push_back(NamedArg{tn->getText(), cx_.range(tn), nullptr});
          current = &out->named.back();
          current->value = std::make_unique<Expr>(Expr::Kind::List, cx_.range(tn));
        }
        continue;
      }
      auto* e = dynamic_cast<XtParser::ExprContext*>(child);
      if (!e) continue;
      if (inOffsets) out->args.push_back(expr(e));
      else if (current) current->value->args.push_back(expr(e));
    }
    return out;
  }

  TermPtr term(XtParser::TermContext* t) {
    auto out = std::make_unique<Term>();
    out->range = cx_.range(t);
    if (auto* n = dynamic_cast<XtParser::NamedTermContext*>(t)) {
      out->kind = Term::Kind::Named;
      out->text = n->ID()->getText();
      out->range = cx_.range(n->ID());
      out->hasAngle = n->LT() != nullptr;
      for (auto* a : n->termArg()) out->args.push_back(termArg(a));
    } else if (auto* s = dynamic_cast<XtParser::ShapeTermContext*>(t)) {
      out->kind = Term::Kind::Shape;
      out->text = s->getText();
    } else if (auto* i = dynamic_cast<XtParser::IntTermContext*>(t)) {
      out->kind = Term::Kind::Int;
      std::string text = i->INT()->getText();
      auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out->intValue);
      if (ec != std::errc() || ptr != text.data() + text.size()) cx_.rep().error(DiagId::int_literal_range, out->range, text, "64 bits");
      if (i->MINUS()) out->intValue = -out->intValue;
    } else if (auto* f = dynamic_cast<XtParser::FloatTermContext*>(t)) {
      out->kind = Term::Kind::Float;
      out->floatValue = std::strtod(f->FLOAT()->getText().c_str(), nullptr);
      if (f->MINUS()) out->floatValue = -out->floatValue;
    } else if (dynamic_cast<XtParser::DynTermContext*>(t)) {
      out->kind = Term::Kind::Dynamic;
    } else if (dynamic_cast<XtParser::RefTermContext*>(t)) {
      out->kind = Term::Kind::Ref;
      out->text = t->getText();
    } else {
      auto* l = dynamic_cast<XtParser::ListTermContext*>(t);
      out->kind = Term::Kind::List;
      for (auto* e : l->term()) out->args.push_back(Term::Arg{"", {}, term(e)});
    }
    return out;
  }

  Term::Arg termArg(XtParser::TermArgContext* a) {
    Term::Arg out;
    if (a->ID()) {
      out.key = a->ID()->getText();
      out.keyRange = cx_.range(a->ID());
    }
    out.value = term(a->term());
    return out;
  }

  Context& cx_;
};

std::string describeChar(const std::string& text, size_t byte) {
  auto c = static_cast<unsigned char>(text[byte]);
  if (c >= 0x21 && c < 0x7F) return fmt::format("'{}'", static_cast<char>(c));
  if (c < 0x80) return fmt::format("'\\x{:02x}'", c);
  // A multi-byte character (valid UTF-8 here): show it and its code point.
  size_t len = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : 4;
  uint32_t cp = c & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07);
  for (size_t k = 1; k < len && byte + k < text.size(); ++k) cp = (cp << 6) | (static_cast<unsigned char>(text[byte + k]) & 0x3F);
  return fmt::format("'{}' (U+{:04X})", text.substr(byte, len), cp);
}

}  // namespace

std::unique_ptr<File> parseFile(const std::string& fileName, Reporter& rep, const FrontendOptions& opts) {
  const std::string* textPtr = rep.engine().sources().text(fileName);
  if (!textPtr) {
    rep.engine().error(SourceLoc{}, "internal: no source text registered for '" + fileName + "'");
    return nullptr;
  }
  const std::string& text = *textPtr;

  OffsetMap map;
  size_t bad = validateUtf8(text, map);
  if (bad != std::string::npos) {
    rep.error(DiagId::invalid_utf8, SourceRange{rep.engine().sources().locFromOffset(fileName, bad), 1},
              static_cast<unsigned>(static_cast<unsigned char>(text[bad])));
    return nullptr;
  }

  Context cx(fileName, text, rep, map);
  antlr4::ANTLRInputStream input(text);
  XtLexer lexer(&input);
  lexer.removeErrorListeners();  // the lexer cannot fail: unknown characters become ERRCHAR tokens
  antlr4::CommonTokenStream tokens(&lexer);
  tokens.fill();

  // Token-level checks before parsing: report every invalid character, and refuse bracket nesting
  // deeper than the limit (the recursive-descent parser would overflow its stack on 10,000 levels).
  size_t depth = 0;
  for (antlr4::Token* t : tokens.getTokens()) {
    switch (t->getType()) {
      case XtLexer::ERRCHAR:
        rep.error(DiagId::invalid_char, cx.range(t), describeChar(text, cx.byteOf(t->getStartIndex())));
        if (rep.limitReached()) return nullptr;
        break;
      case XtLexer::LPAREN: case XtLexer::LBRACK: case XtLexer::LBRACE:
        if (++depth > opts.maxNesting) {
          rep.error(DiagId::nesting_too_deep, cx.range(t), opts.maxNesting);
          return nullptr;
        }
        break;
      case XtLexer::RPAREN: case XtLexer::RBRACK: case XtLexer::RBRACE:
        if (depth) --depth;
        break;
      default: break;
    }
  }
  if (rep.hasErrors()) return nullptr;

  // Each bracket level costs a handful of parse-tree levels; this bound admits every input within
  // maxNesting brackets and stops runaway unary chains, else-if chains and very long operator chains.
  size_t parseLimit = 8 * static_cast<size_t>(opts.maxNesting) + 64;
  GuardedParser parser(&tokens, parseLimit);
  parser.removeErrorListeners();
  ErrorListener listener(cx);
  parser.addErrorListener(&listener);
  XtParser::File_Context* tree = nullptr;
  try {
    tree = parser.file_();
  } catch (const AbortParse&) {
    if (parser.tooDeepAt) rep.error(DiagId::parse_too_deep, cx.range(parser.tooDeepAt), parseLimit);
    return nullptr;
  }
  if (rep.hasErrors()) return nullptr;
  if (antlr4::Token* deep = findTooDeep(tree, parseLimit)) {
    rep.error(DiagId::parse_too_deep, cx.range(deep), parseLimit);
    return nullptr;
  }
  AstBuilder builder(cx);
  auto file = builder.build(tree, fileName);
  if (rep.hasErrors()) return nullptr;
  return file;
}

}  // namespace xtc::frontend
