// The IR text parser (see Parser.h; grammar in docs/ir.md). It reads characters directly rather than a
// token stream because parts of the format are context-sensitive (`256x32xbf16` is one shape, `->`
// appears inside layout texts). Errors are reported once and unwind through a private exception, so
// partially built ops are destroyed by their owners.
#include "ir/Parser.h"

#include "ir/Module.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <limits>
#include <map>
#include <mutex>
#include <unordered_map>

namespace xtc::ir {

// ----- enum registry ---------------------------------------------------------------------------

namespace {
std::map<std::string, std::vector<std::string>, std::less<>>& enumRegistry() {
  static std::map<std::string, std::vector<std::string>, std::less<>> r = {
      {"cmpi", {"eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"}},
      {"cmpf", {"oeq", "one", "olt", "ole", "ogt", "oge", "une", "ord", "uno"}},
      {"reduce", {"add", "mul", "max", "min", "and", "or", "xor"}},
      {"atomic", {"addf", "addi", "maxf", "minf", "maxs", "mins", "and", "or", "xor", "assign"}},
      {"locality", {"0", "1", "2", "3"}},
      {"cache", {"cached", "uncached", "streaming", "write_back", "write_through", "read_invalidate"}},
  };
  return r;
}
std::mutex& enumMutex() {
  static std::mutex m;
  return m;
}
}  // namespace

void registerEnumAttr(const std::string& name, std::vector<std::string> values) {
  std::lock_guard<std::mutex> g(enumMutex());
  enumRegistry()[name] = std::move(values);
}

const std::vector<std::string>* findEnumAttr(std::string_view name) {
  std::lock_guard<std::mutex> g(enumMutex());
  auto it = enumRegistry().find(name);
  return it == enumRegistry().end() ? nullptr : &it->second;
}

// ----- the parser ------------------------------------------------------------------------------

namespace {

struct ParseFailure {};  // thrown after the error was reported

bool isIdentHead(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool isIdentChar(char c) { return isIdentHead(c) || (c >= '0' && c <= '9') || c == '.' || c == '$'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isNameChar(char c) { return isIdentChar(c); }

class Parser {
public:
  Parser(std::string_view text, DiagnosticEngine* diags, std::shared_ptr<const std::string> file, std::string* errOut)
      : t_(text), diags_(diags), file_(std::move(file)), errOut_(errOut) {
    lineStarts_.push_back(0);
    for (size_t i = 0; i < t_.size(); ++i)
      if (t_[i] == '\n') lineStarts_.push_back(i + 1);
  }

  std::unique_ptr<Operation> parseFile() {
    auto holder = createModule(locAt(0));
    Block& top = moduleBody(holder.get());
    scopes_.emplace_back();
    ws();
    while (!eof()) {
      if (peek() == '}') fail(p_, "unexpected '}' (no region is open)");
      size_t start = p_;
      parseOp(top);
      if (top.size() > 1 && (top.front()->is("builtin.module") || top.back()->is("builtin.module")))
        fail(start, "a 'builtin.module' must be the only top-level op");
      ws();
    }
    if (top.size() == 1 && top.front()->is("builtin.module")) return top.front()->remove();
    return holder;
  }

  Type parseWholeType() {
    Type ty = type();
    ws();
    if (!eof()) fail(p_, "unexpected text after the type");
    return ty;
  }
  Attribute parseWholeAttr() {
    Attribute a = attr();
    ws();
    if (!eof()) fail(p_, "unexpected text after the attribute");
    return a;
  }

private:
  struct Binding {
    Value* value;
    size_t pos;
  };
  using Scope = std::unordered_map<std::string_view, Binding>;

  std::string_view t_;
  size_t p_ = 0;
  DiagnosticEngine* diags_;
  std::shared_ptr<const std::string> file_;
  std::string* errOut_;
  std::vector<size_t> lineStarts_;
  std::vector<Scope> scopes_;
  std::unordered_map<std::string_view, Type> typeCache_;
  int depth_ = 0;

  struct DepthGuard {
    Parser& p;
    explicit DepthGuard(Parser& parser) : p(parser) {
      if (++p.depth_ > kMaxParseDepth) p.fail(p.p_, "nesting is too deep (more than " + std::to_string(kMaxParseDepth) + " levels)");
    }
    ~DepthGuard() { --p.depth_; }
  };

  // ----- positions and errors -----

  SourceLoc locAt(size_t pos) const {
    auto it = std::upper_bound(lineStarts_.begin(), lineStarts_.end(), pos);
    size_t line = static_cast<size_t>(it - lineStarts_.begin());
    SourceLoc l;
    l.file = file_;
    l.line = static_cast<uint32_t>(line);
    l.col = static_cast<uint32_t>(pos - lineStarts_[line - 1] + 1);
    return l;
  }

  [[noreturn]] void fail(size_t pos, const std::string& msg) {
    if (diags_) diags_->error(locAt(std::min(pos, t_.size())), msg);
    if (errOut_) *errOut_ = msg;
    throw ParseFailure{};
  }
  [[noreturn]] void failNote(size_t pos, const std::string& msg, size_t notePos, const std::string& note) {
    if (diags_) diags_->error(locAt(pos), msg).note(locAt(notePos), note);
    if (errOut_) *errOut_ = msg;
    throw ParseFailure{};
  }

  // ----- characters -----

  bool eof() const { return p_ >= t_.size(); }
  char peek(size_t ahead = 0) const { return p_ + ahead < t_.size() ? t_[p_ + ahead] : '\0'; }

  // Skips whitespace and `//` comments.
  void ws() {
    while (p_ < t_.size()) {
      char c = t_[p_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') ++p_;
      else if (c == '/' && peek(1) == '/') {
        while (p_ < t_.size() && t_[p_] != '\n') ++p_;
      } else break;
    }
  }

  // A short description of what is at `p_`, for "expected X, got Y".
  std::string describeHere() {
    if (eof()) return "end of input";
    if (isIdentHead(peek())) {
      size_t e = p_;
      while (e < t_.size() && isIdentChar(t_[e])) ++e;
      return "'" + std::string(t_.substr(p_, e - p_)) + "'";
    }
    unsigned char c = static_cast<unsigned char>(peek());
    if (c < 0x20 || c >= 0x7f) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "byte 0x%02X", c);
      return buf;
    }
    return "'" + std::string(1, peek()) + "'";
  }

  [[noreturn]] void failExpected(const std::string& what) {
    if (eof()) fail(p_, "unexpected end of input, expected " + what);
    fail(p_, "expected " + what + ", got " + describeHere());
  }

  bool accept(char c) {
    ws();
    if (peek() == c) {
      ++p_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!accept(c)) failExpected(std::string("'") + c + "'");
  }
  bool acceptStr(std::string_view s) {
    ws();
    if (t_.substr(p_, s.size()) == s) {
      p_ += s.size();
      return true;
    }
    return false;
  }
  // Accepts the identifier `kw` when it is a whole word.
  bool acceptKeyword(std::string_view kw) {
    ws();
    if (t_.substr(p_, kw.size()) == kw && !isIdentChar(peek(kw.size()))) {
      p_ += kw.size();
      return true;
    }
    return false;
  }
  void expectKeyword(std::string_view kw) {
    if (!acceptKeyword(kw)) failExpected("'" + std::string(kw) + "'");
  }
  // The identifier at p_ (after whitespace), or empty if none; not consumed.
  std::string_view peekIdent() {
    ws();
    if (!isIdentHead(peek())) return {};
    size_t e = p_;
    while (e < t_.size() && isIdentChar(t_[e])) ++e;
    return t_.substr(p_, e - p_);
  }
  std::string_view ident(const char* what) {
    std::string_view id = peekIdent();
    if (id.empty()) failExpected(what);
    p_ += id.size();
    return id;
  }

  // ----- literals -----

  std::string stringLit() {
    ws();
    size_t start = p_;
    if (peek() != '"') failExpected("a string");
    ++p_;
    std::string r;
    for (;;) {
      if (eof() || peek() == '\n') fail(start, "unterminated string");
      char c = t_[p_++];
      if (c == '"') return r;
      if (c != '\\') {
        r += c;
        continue;
      }
      if (eof()) fail(start, "unterminated string");
      char e = t_[p_++];
      if (e == '"' || e == '\\') r += e;
      else if (e == 'n') r += '\n';
      else if (e == 't') r += '\t';
      else {
        auto hex = [](char h) -> int {
          if (h >= '0' && h <= '9') return h - '0';
          if (h >= 'A' && h <= 'F') return h - 'A' + 10;
          if (h >= 'a' && h <= 'f') return h - 'a' + 10;
          return -1;
        };
        int hi = hex(e), lo = hex(peek());
        if (hi < 0 || lo < 0) fail(p_ - 2, "invalid escape sequence in string");
        ++p_;
        r += static_cast<char>(hi * 16 + lo);
      }
    }
  }

  struct Number {
    bool isFloat = false;
    int64_t i = 0;
    double f = 0;
  };

  // -?digits[.digits][e[+-]digits] | -?inf | nan
  Number number() {
    ws();
    size_t start = p_;
    Number n;
    size_t q = p_;
    if (peek() == '-') ++q;
    std::string_view rest = t_.substr(q);
    if (rest.substr(0, 3) == "inf" && !(q + 3 < t_.size() && isIdentChar(t_[q + 3]))) {
      p_ = q + 3;
      n.isFloat = true;
      n.f = q == start ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
      return n;
    }
    if (q == start && rest.substr(0, 3) == "nan" && !(q + 3 < t_.size() && isIdentChar(t_[q + 3]))) {
      p_ = q + 3;
      n.isFloat = true;
      n.f = std::numeric_limits<double>::quiet_NaN();
      return n;
    }
    if (q >= t_.size() || !isDigit(t_[q])) failExpected("a number");
    while (q < t_.size() && isDigit(t_[q])) ++q;
    if (q < t_.size() && t_[q] == '.') {
      n.isFloat = true;
      ++q;
      if (q >= t_.size() || !isDigit(t_[q])) fail(q, "expected digits after '.' in a number");
      while (q < t_.size() && isDigit(t_[q])) ++q;
    }
    if (q < t_.size() && (t_[q] == 'e' || t_[q] == 'E')) {
      n.isFloat = true;
      ++q;
      if (q < t_.size() && (t_[q] == '+' || t_[q] == '-')) ++q;
      if (q >= t_.size() || !isDigit(t_[q])) fail(q, "expected an exponent in a number");
      while (q < t_.size() && isDigit(t_[q])) ++q;
    }
    const char* b = t_.data() + start;
    const char* e = t_.data() + q;
    std::from_chars_result res;
    if (n.isFloat) res = std::from_chars(b, e, n.f);
    else res = std::from_chars(b, e, n.i);
    if (res.ec == std::errc::result_out_of_range) fail(start, "number out of range");
    // The text is digits with an optional fraction and exponent (checked above): from_chars takes it whole.
    if (res.ec != std::errc() || res.ptr != e) fail(start, "internal error: std::from_chars refused the number");
    p_ = q;
    return n;
  }

  int64_t integer(const char* what) {
    ws();
    size_t start = p_;
    if (!(isDigit(peek()) || (peek() == '-' && isDigit(peek(1))))) failExpected(what);
    Number n = number();
    if (n.isFloat) fail(start, std::string("expected ") + what + ", got a floating-point number");
    return n.i;
  }

  // [1, ?, 3]
  std::vector<int64_t> intList() {
    DepthGuard g(*this);
    expect('[');
    std::vector<int64_t> r;
    if (accept(']')) return r;
    do {
      if (accept('?')) r.push_back(kDynamic);
      else r.push_back(integer("an integer or '?'"));
    } while (accept(','));
    expect(']');
    return r;
  }

  // ----- types -----

  ElemKind elemKind() {
    size_t start = (ws(), p_);
    std::string_view id = ident("an element type");
    auto k = parseElemKind(id);
    if (!k) fail(start, "unknown element type '" + std::string(id) + "'");
    return *k;
  }

  // `256x?x` dims then the element type, as printed by shapeStr + "x" + elem.
  void shapeAndElem(std::vector<int64_t>& shape, ElemKind& elem) {
    ws();
    for (;;) {
      size_t start = p_;
      if (peek() == '?') {
        ++p_;
        shape.push_back(kDynamic);
      } else if (isDigit(peek())) {
        size_t q = p_;
        while (q < t_.size() && isDigit(t_[q])) ++q;
        int64_t d = 0;
        auto res = std::from_chars(t_.data() + p_, t_.data() + q, d);
        if (res.ec != std::errc()) fail(start, "dimension out of range");
        p_ = q;
        shape.push_back(d);
      } else {
        elem = elemKind();
        return;
      }
      if (peek() != 'x') failExpected("'x' after a dimension");
      ++p_;
    }
  }

  // Where the type text starting at `start` ends (its keyword and balanced `<...>`), or npos.
  size_t typeTextEnd(size_t start) const {
    size_t q = start;
    while (q < t_.size() && isIdentChar(t_[q])) ++q;
    if (q == start) return std::string_view::npos;
    if (q >= t_.size() || t_[q] != '<') return q;
    int depth = 0;
    while (q < t_.size()) {
      char c = t_[q];
      if (c == '"') return std::string_view::npos;  // strings inside types: parse without the cache
      if (c == '-' && q + 1 < t_.size() && t_[q + 1] == '>') {
        q += 2;
        continue;
      }
      ++q;
      if (c == '<') ++depth;
      else if (c == '>' && --depth == 0) return q;
    }
    return std::string_view::npos;
  }

  // Types repeat on almost every line (op signatures); the same text always denotes the same type,
  // so each distinct text is parsed once. Sharing the storage also makes type comparison cheap.
  Type type() {
    ws();
    size_t start = p_;
    size_t end = typeTextEnd(start);
    if (end != std::string_view::npos) {
      auto it = typeCache_.find(t_.substr(start, end - start));
      if (it != typeCache_.end()) {
        p_ = end;
        return it->second;
      }
    }
    Type ty = typeUncached();
    if (end != std::string_view::npos && p_ == end) typeCache_.emplace(t_.substr(start, end - start), ty);
    return ty;
  }

  Type typeUncached() {
    DepthGuard g(*this);
    ws();
    size_t start = p_;
    std::string_view id = peekIdent();
    if (id.empty()) failExpected("a type");
    if (auto k = parseElemKind(id)) {
      p_ += id.size();
      return Type::scalar(*k);
    }
    if (id != "memref" && id != "tile" && id != "vector") fail(start, "unknown type '" + std::string(id) + "'");
    p_ += id.size();
    if (peek() != '<') failExpected("'<' after '" + std::string(id) + "'");
    ++p_;
    std::vector<int64_t> shape;
    ElemKind elem = ElemKind::I32;
    shapeAndElem(shape, elem);
    if (id == "memref") {
      std::vector<int64_t> strides;
      MemSpace space = MemSpace::Global;
      while (accept(',')) {
        if (acceptKeyword("strides")) {
          expect('=');
          strides = intList();
        } else if (acceptKeyword("slm")) {
          space = MemSpace::Slm;
        } else {
          failExpected("'strides = [...]' or 'slm'");
        }
      }
      expect('>');
      return Type::memref(std::move(shape), elem, space, std::move(strides));
    }
    if (id == "tile") {
      TileInfo info;
      while (accept(',')) {
        size_t itemPos = (ws(), p_);
        if (acceptKeyword("order")) {
          expect('=');
          info.order = intList();
        } else if (acceptKeyword("layout")) {
          expect('=');
          info.layout = std::make_shared<const Attribute>(attr());
        } else if (acceptKeyword("inner_blocks")) {
          expect('=');
          info.innerBlocks = intList();
        } else if (acceptKeyword("slm")) {
          info.space = MemSpace::Slm;
        } else if (acceptKeyword("scattered")) {
          info.scattered = true;
        } else {
          if (info.wgMap) fail(itemPos, "a tile type has at most one distribution attribute (wg_map)");
          info.wgMap = std::make_shared<const Attribute>(attr());
        }
      }
      expect('>');
      return Type::tile(std::move(shape), elem, std::move(info));
    }
    std::shared_ptr<const Attribute> layout;
    if (accept(',')) layout = std::make_shared<const Attribute>(attr());
    expect('>');
    return Type::vector(std::move(shape), elem, std::move(layout));
  }

  // ----- attributes -----

  // `: elemtype` after a number, only when an element type really follows (so `{a = 1} : (...)`
  // in an op signature is never mistaken for a typed number).
  std::optional<ElemKind> optNumberType() {
    size_t save = p_;
    if (!accept(':')) return std::nullopt;
    std::string_view id = peekIdent();
    auto k = parseElemKind(id);
    if (!k) {
      p_ = save;
      return std::nullopt;
    }
    p_ += id.size();
    return k;
  }

  Attribute attr() {
    DepthGuard g(*this);
    ws();
    size_t start = p_;
    char c = peek();
    if (c == '"') return Attribute::string(stringLit());
    if (c == '[') {
      ++p_;
      std::vector<Attribute> elems;
      if (!accept(']')) {
        do elems.push_back(attr());
        while (accept(','));
        expect(']');
      }
      return Attribute::array(std::move(elems));
    }
    if (c == '-' || isDigit(c)) {
      Number n = number();
      auto ty = optNumberType();
      if (n.isFloat) return Attribute::floating(n.f, ty.value_or(ElemKind::F32));
      return Attribute::integer(n.i, ty.value_or(ElemKind::I64));
    }
    std::string_view id = peekIdent();
    if (id.empty()) failExpected("an attribute value");
    if (id == "nan" || id == "inf") {
      Number n = number();
      return Attribute::floating(n.f, optNumberType().value_or(ElemKind::F32));
    }
    p_ += id.size();
    if (id == "unit") return Attribute::unit();
    if (id == "true") return Attribute::boolean(true);
    if (id == "false") return Attribute::boolean(false);
    if (id == "type") {
      if (peek() != '<') failExpected("'<' after 'type'");
      ++p_;
      Type ty = type();
      expect('>');
      return Attribute::type(std::move(ty));
    }
    if (id == "dense") return dense(start);
    if (id == "wg_map") {
      if (peek() != '<') failExpected("'<' after 'wg_map'");
      ++p_;
      WgMap m;
      expectKeyword("sg_layout");
      expect('=');
      m.sgLayout = intList();
      expect(',');
      expectKeyword("sg_data");
      expect('=');
      m.sgData = intList();
      expect('>');
      return Attribute::wgMap(std::move(m));
    }
    if (peek() == '<') {
      if (const LayoutParserFn* lp = findLayoutParser(id)) return layoutAttr(start, id, *lp);
      if (const std::vector<std::string>* values = findEnumAttr(id)) {
        ++p_;
        ws();
        size_t vpos = p_;
        while (!eof() && isNameChar(peek())) ++p_;
        std::string v(t_.substr(vpos, p_ - vpos));
        if (v.empty()) failExpected("a value for enum '" + std::string(id) + "'");
        if (!values->empty() && std::find(values->begin(), values->end(), v) == values->end()) {
          std::string all;
          for (auto& a : *values) all += (all.empty() ? "" : ", ") + a;
          fail(vpos, "unknown value '" + v + "' for enum '" + std::string(id) + "' (expected one of: " + all + ")");
        }
        expect('>');
        return Attribute::enumValue(std::string(id), std::move(v));
      }
      fail(start, "unknown attribute '" + std::string(id) + "<...>' (not a known attribute, enum or layout)");
    }
    fail(start, "expected an attribute value, got '" + std::string(id) + "'");
  }

  Attribute dense(size_t start) {
    if (peek() != '<') failExpected("'<' after 'dense'");
    ++p_;
    std::vector<Number> values;
    std::vector<size_t> positions;
    auto one = [&] {
      positions.push_back((ws(), p_));
      values.push_back(number());
    };
    if (accept('[')) {
      if (!accept(']')) {
        do one();
        while (accept(','));
        expect(']');
      }
    } else {
      one();
    }
    expect('>');
    expect(':');
    Type ty = type();
    bool isFloat = values.empty() ? isFloatElem(ty.elem()) : values[0].isFloat;
    std::vector<double> fs;
    std::vector<int64_t> is;
    for (size_t i = 0; i < values.size(); ++i) {
      if (values[i].isFloat != isFloat) fail(positions[i], "a dense constant mixes integer and floating-point values");
      if (isFloat) fs.push_back(values[i].f);
      else is.push_back(values[i].i);
    }
    int64_t n = ty.numElements();
    if (values.size() != 1 && (n == kDynamic || static_cast<int64_t>(values.size()) != n))
      fail(start, "dense constant has " + std::to_string(values.size()) + " values but its type '" + ty.str() +
                      "' has " + (n == kDynamic ? std::string("a dynamic number of") : std::to_string(n)) +
                      " elements (give 1 value for a splat or one per element)");
    return isFloat ? Attribute::denseFloat(std::move(ty), std::move(fs)) : Attribute::denseInt(std::move(ty), std::move(is));
  }

  // `kw<...>` up to the matching '>', skipping `->` and strings, handed whole to the layout parser.
  Attribute layoutAttr(size_t start, std::string_view kw, const LayoutParserFn& fn) {
    int depth = 0;
    for (;;) {
      if (eof()) fail(start, "unterminated '" + std::string(kw) + "<...>' layout");
      char c = t_[p_];
      if (c == '-' && peek(1) == '>') {
        p_ += 2;
        continue;
      }
      if (c == '"') {
        stringLit();
        continue;
      }
      ++p_;
      if (c == '<') ++depth;
      else if (c == '>' && --depth == 0) break;
    }
    std::string err;
    std::shared_ptr<const LayoutValue> l = fn(t_.substr(start, p_ - start), &err);
    if (!l && err.empty()) fail(start, "internal error: the '" + std::string(kw) + "' layout parser refused this text without saying why");
    if (!l) fail(start, "invalid '" + std::string(kw) + "' layout: " + err);
    return Attribute::layout(std::move(l));
  }

  void attrDict(AttrMap& attrs) {
    DepthGuard g(*this);
    expect('{');
    if (accept('}')) return;
    do {
      ws();
      size_t npos = p_;
      std::string name = peek() == '"' ? stringLit() : std::string(ident("an attribute name"));
      if (attrs.count(name)) fail(npos, "duplicate attribute '" + name + "'");
      expect('=');
      attrs.emplace(std::move(name), attr());
    } while (accept(','));
    expect('}');
  }

  // ----- values -----

  // `%name`; returns the name without '%'.
  std::string_view valueName() {
    ws();
    if (peek() != '%') failExpected("a value name ('%name')");
    size_t s = ++p_;
    while (!eof() && isNameChar(peek())) ++p_;
    if (p_ == s) fail(s - 1, "expected a value name after '%'");
    return t_.substr(s, p_ - s);
  }

  static std::string hintOf(std::string_view name) {
    bool digits = std::all_of(name.begin(), name.end(), isDigit);
    return digits ? std::string() : std::string(name);
  }

  void bind(std::string_view name, size_t pos, Value* v) {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = it->find(name);
      if (f != it->end())
        failNote(pos, "redefinition of value '%" + std::string(name) + "'", f->second.pos, "previous definition is here");
    }
    scopes_.back().emplace(name, Binding{v, pos});
    v->setNameHint(hintOf(name));
  }

  Value* lookup(std::string_view name, size_t pos) {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = it->find(name);
      if (f != it->end()) return f->second.value;
    }
    fail(pos, "use of undefined value '%" + std::string(name) + "'");
  }

  std::vector<Type> typeList() {
    expect('(');
    std::vector<Type> r;
    if (accept(')')) return r;
    do r.push_back(type());
    while (accept(','));
    expect(')');
    return r;
  }

  void optLoc(Operation& op) {
    if (!acceptKeyword("loc")) return;
    expect('(');
    std::string f = stringLit();
    expect(':');
    int64_t line = integer("a line number");
    expect(':');
    int64_t col = integer("a column number");
    expect(')');
    SourceLoc l;
    l.file = diags_ ? diags_->sources().intern(f) : std::make_shared<const std::string>(f);
    l.line = static_cast<uint32_t>(std::clamp<int64_t>(line, 0, UINT32_MAX));
    l.col = static_cast<uint32_t>(std::clamp<int64_t>(col, 0, UINT32_MAX));
    op.setLoc(std::move(l));
  }

  // ----- ops, regions, blocks -----

  struct ArgDecl {
    std::string_view name;
    size_t pos;
    Type type;
  };

  std::vector<ArgDecl> argDecls() {
    expect('(');
    std::vector<ArgDecl> r;
    if (accept(')')) return r;
    do {
      ws();
      size_t pos = p_;
      std::string_view n = valueName();
      expect(':');
      r.push_back(ArgDecl{n, pos, type()});
    } while (accept(','));
    expect(')');
    return r;
  }

  void addArgs(Block& b, const std::vector<ArgDecl>& decls) {
    for (const ArgDecl& d : decls) bind(d.name, d.pos, b.addArgument(d.type));
  }

  // `{ [^bb(args):] ops ... }`. With `entryArgs`, the entry block exists with those arguments (kernel
  // parameters) and has no header.
  void region(Region& r, const std::vector<ArgDecl>* entryArgs) {
    DepthGuard g(*this);
    expect('{');
    scopes_.emplace_back();
    Block* cur = nullptr;
    if (entryArgs) {
      cur = &r.addBlock();
      addArgs(*cur, *entryArgs);
    }
    for (;;) {
      ws();
      if (eof()) failExpected("'}' to close the region");
      if (peek() == '}') {
        ++p_;
        break;
      }
      if (peek() == '^') {
        ++p_;
        size_t s = p_;
        while (!eof() && isNameChar(peek())) ++p_;
        if (p_ == s) fail(s, "expected a block label after '^'");
        cur = &r.addBlock();
        ws();
        if (peek() == '(') addArgs(*cur, argDecls());
        expect(':');
        continue;
      }
      if (!cur) cur = &r.addBlock();
      parseOp(*cur);
    }
    scopes_.pop_back();
  }

  void parseOp(Block& into) {
    DepthGuard g(*this);
    ws();
    size_t opStart = p_;
    std::vector<std::pair<std::string_view, size_t>> resNames;
    if (peek() == '%') {
      do {
        ws();
        size_t pos = p_;
        resNames.emplace_back(valueName(), pos);
      } while (accept(','));
      expect('=');
    }
    ws();
    size_t namePos = p_;
    if (!isIdentHead(peek())) failExpected("an op");
    std::string_view name = ident("an op name");
    if (name.find('.') == std::string_view::npos)
      fail(namePos, "expected an op name of the form 'dialect.op', got '" + std::string(name) + "'");

    std::unique_ptr<Operation> op;
    if (name == "xtc.kernel" && (ws(), peek() == '@')) {
      if (!resNames.empty()) fail(opStart, "'xtc.kernel' has no results");
      op = kernel(opStart);
    } else if (name == "builtin.module" && isModuleCustomForm()) {
      if (!resNames.empty()) fail(opStart, "'builtin.module' has no results");
      op = Operation::create("builtin.module", locAt(opStart), {}, {}, {}, 0);
      if (acceptKeyword("attributes")) {
        AttrMap attrs;
        attrDict(attrs);
        for (auto& [k, v] : attrs) op->setAttr(k, v);
      }
      region(op->addRegion(), nullptr);
      if (op->region(0).empty()) op->region(0).addBlock();
      optLoc(*op);
    } else {
      op = generic(opStart, name, resNames.size());
    }
    for (size_t i = 0; i < resNames.size(); ++i) bind(resNames[i].first, resNames[i].second, op->result(static_cast<unsigned>(i)));
    into.push_back(std::move(op));
  }

  // After `builtin.module`: the custom form is `attributes {...} {` or `{` opening a region; a `{`
  // that opens an attribute dictionary (`{name = ...` or `{} :`) belongs to the generic form.
  bool isModuleCustomForm() {
    size_t save = p_;
    ws();
    bool custom = false;
    if (acceptKeyword("attributes")) custom = true;
    else if (accept('{')) {
      ws();
      if (peek() == '}') {
        ++p_;
        custom = !accept(':');
      } else if (peek() == '"') {
        custom = false;
      } else if (isIdentHead(peek())) {
        std::string_view id = peekIdent();
        p_ += id.size();
        custom = !accept('=');
      } else {
        custom = true;
      }
    }
    p_ = save;
    return custom;
  }

  std::unique_ptr<Operation> kernel(size_t opStart) {
    expect('@');
    ws();
    std::string sym = peek() == '"' ? stringLit() : std::string(ident("a kernel name"));
    std::vector<ArgDecl> params = argDecls();
    AttrMap attrs;
    ws();
    if (peek() == '{') {
      size_t apos = p_;
      attrDict(attrs);
      if (attrs.count("sym_name")) fail(apos, "'sym_name' is given by '@name' and cannot be repeated as an attribute");
    }
    attrs.emplace("sym_name", Attribute::string(sym));
    auto op = Operation::create("xtc.kernel", locAt(opStart), {}, {}, std::move(attrs), 0);
    Region& body = op->addRegion();
    Region& launch = op->addRegion();
    expectKeyword("launch");
    region(launch, &params);
    expectKeyword("body");
    region(body, &params);
    optLoc(*op);
    return op;
  }

  std::unique_ptr<Operation> generic(size_t opStart, std::string_view name, size_t numResultNames) {
    std::vector<Value*> operands;
    std::vector<std::pair<std::string_view, size_t>> operandNames;
    ws();
    if (peek() == '%') {
      do {
        ws();
        size_t pos = p_;
        std::string_view n = valueName();
        operands.push_back(lookup(n, pos));
        operandNames.emplace_back(n, pos);
      } while (accept(','));
    }
    AttrMap attrs;
    ws();
    if (peek() == '{') attrDict(attrs);
    expect(':');
    size_t sigPos = (ws(), p_);
    std::vector<Type> operandTypes = typeList();
    if (!acceptStr("->")) failExpected("'->'");
    std::vector<Type> resultTypes = typeList();
    if (operandTypes.size() != operands.size())
      fail(sigPos, "'" + std::string(name) + "' has " + std::to_string(operands.size()) + " operands but its signature lists " +
                       std::to_string(operandTypes.size()) + " operand types");
    for (size_t i = 0; i < operands.size(); ++i)
      if (operands[i]->type() != operandTypes[i])
        fail(operandNames[i].second, "'%" + std::string(operandNames[i].first) + "' has type '" + operands[i]->type().str() +
                                         "' but the signature uses it as '" + operandTypes[i].str() + "'");
    if (resultTypes.size() != numResultNames)
      fail(opStart, "'" + std::string(name) + "' defines " + std::to_string(numResultNames) + " result names but its signature lists " +
                        std::to_string(resultTypes.size()) + " result types");
    auto op = Operation::create(std::string(name), locAt(opStart), operands, resultTypes, std::move(attrs), 0);
    ws();
    if (peek() == '(') {
      ++p_;
      do region(op->addRegion(), nullptr);
      while (accept(','));
      expect(')');
    }
    optLoc(*op);
    return op;
  }
};

}  // namespace

std::unique_ptr<Operation> parseModule(const std::string& fileName, std::string_view text, DiagnosticEngine& diags) {
  SourceManager& sm = diags.sources();
  if (!sm.text(fileName)) sm.addBuffer(fileName, std::string(text));
  Parser p(text, &diags, sm.intern(fileName), nullptr);
  try {
    return p.parseFile();
  } catch (const ParseFailure&) {
    return nullptr;
  }
}

std::optional<Type> parseType(std::string_view text, std::string* error) {
  std::string err;
  Parser p(text, nullptr, std::make_shared<const std::string>("<type>"), &err);
  try {
    return p.parseWholeType();
  } catch (const ParseFailure&) {
    if (error) *error = err;
    return std::nullopt;
  }
}

std::optional<Attribute> parseAttribute(std::string_view text, std::string* error) {
  std::string err;
  Parser p(text, nullptr, std::make_shared<const std::string>("<attribute>"), &err);
  try {
    return p.parseWholeAttr();
  } catch (const ParseFailure&) {
    if (error) *error = err;
    return std::nullopt;
  }
}

}  // namespace xtc::ir
