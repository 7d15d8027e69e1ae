// Attribute storage, factories, structural equality, printing, and the layout-parser registry.
#include "ir/Attribute.h"

#include <charconv>
#include <cstring>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <stdexcept>

namespace xtc::ir {

struct Attribute::Storage {
  AttrKind kind = AttrKind::Unit;
  bool b = false;
  int64_t i = 0;
  double f = 0;
  ElemKind num = ElemKind::I64;
  std::string s;      // String; Enum value
  std::string ename;  // Enum name
  std::vector<Attribute> arr;
  Type type;          // TypeAttr; Dense
  bool denseFloat = false;
  std::vector<double> dfloats;
  std::vector<int64_t> dints;
  WgMap wg;
  std::shared_ptr<const LayoutValue> layout;
};

int64_t WgMap::numSubgroups() const {
  int64_t n = 1;
  for (int64_t d : sgLayout) n *= d;
  return n;
}

namespace {
std::map<std::string, LayoutParserFn, std::less<>>& layoutParsers() {
  static std::map<std::string, LayoutParserFn, std::less<>> m;
  return m;
}
std::mutex& layoutParsersMutex() {
  static std::mutex m;
  return m;
}
void check(bool ok, const char* what) {
  if (!ok) throw std::logic_error(std::string("attribute accessor misuse: ") + what);
}
}  // namespace

void registerLayoutParser(const std::string& keyword, LayoutParserFn fn) {
  std::lock_guard<std::mutex> g(layoutParsersMutex());
  layoutParsers()[keyword] = std::move(fn);
}

const LayoutParserFn* findLayoutParser(std::string_view keyword) {
  std::lock_guard<std::mutex> g(layoutParsersMutex());
  auto it = layoutParsers().find(keyword);
  return it == layoutParsers().end() ? nullptr : &it->second;
}

Attribute::Attribute() : s_(std::make_shared<Storage>()) {}

Attribute Attribute::unit() { return Attribute(); }
Attribute Attribute::boolean(bool b) {
  auto s = std::make_shared<Storage>();
  s->kind = AttrKind::Bool;
  s->b = b;
  return Attribute(std::move(s));
}
Attribute Attribute::integer(int64_t v, ElemKind type) {
  auto s = std::make_shared<Storage>();
  s->kind = AttrKind::Int;
  s->i = v;
  s->num = type;
  return Attribute(std::move(s));
}
Attribute Attribute::floating(double v, ElemKind type) {
  auto s = std::make_shared<Storage>();
  s->kind = AttrKind::Float;
  s->f = v;
  s->num = type;
  return Attribute(std::move(s));
}
Attribute Attribute::string(std::string str) {
  auto s = std::make_shared<Storage>();
  s->kind = AttrKind::String;
  s->s = std::move(str);
  return Attribute(std::move(s));
}
Attribute Attribute::array(std::vector<Attribute> elems) {
  auto s = std::make_shared<Storage>();
  s->kind = AttrKind::Array;
  s->arr = std::move(elems);
  return Attribute(std::move(s));
}
Attribute Attribute::intArray(const std::vector<int64_t>& v) {
  std::vector<Attribute> a;
  a.reserve(v.size());
  for (int64_t x : v) a.push_back(integer(x));
  return array(std::move(a));
}
Attribute Attribute::type(Type t) {
  auto s = std::make_shared<Storage>();
  s->kind = AttrKind::TypeAttr;
  s->type = std::move(t);
  return Attribute(std::move(s));
}
Attribute Attribute::denseFloat(Type type, std::vector<double> values) {
  auto s = std::make_shared<Storage>();
  s->kind = AttrKind::Dense;
  s->type = std::move(type);
  s->denseFloat = true;
  s->dfloats = std::move(values);
  return Attribute(std::move(s));
}
Attribute Attribute::denseInt(Type type, std::vector<int64_t> values) {
  auto s = std::make_shared<Storage>();
  s->kind = AttrKind::Dense;
  s->type = std::move(type);
  s->dints = std::move(values);
  return Attribute(std::move(s));
}
Attribute Attribute::wgMap(WgMap m) {
  auto s = std::make_shared<Storage>();
  s->kind = AttrKind::WgMap;
  s->wg = std::move(m);
  return Attribute(std::move(s));
}
Attribute Attribute::enumValue(std::string enumName, std::string value) {
  auto s = std::make_shared<Storage>();
  s->kind = AttrKind::Enum;
  s->ename = std::move(enumName);
  s->s = std::move(value);
  return Attribute(std::move(s));
}
Attribute Attribute::layout(std::shared_ptr<const LayoutValue> l) {
  auto s = std::make_shared<Storage>();
  s->kind = AttrKind::Layout;
  s->layout = std::move(l);
  return Attribute(std::move(s));
}

AttrKind Attribute::kind() const { return s_->kind; }
bool Attribute::getBool() const { check(kind() == AttrKind::Bool, "getBool"); return s_->b; }
int64_t Attribute::getInt() const { check(kind() == AttrKind::Int, "getInt"); return s_->i; }
double Attribute::getFloat() const {
  check(kind() == AttrKind::Float || kind() == AttrKind::Int, "getFloat");
  return kind() == AttrKind::Int ? static_cast<double>(s_->i) : s_->f;
}
ElemKind Attribute::numberType() const { return s_->num; }
const std::string& Attribute::getString() const {
  check(kind() == AttrKind::String || kind() == AttrKind::Enum, "getString");
  return s_->s;
}
const std::string& Attribute::enumName() const { check(kind() == AttrKind::Enum, "enumName"); return s_->ename; }
const std::vector<Attribute>& Attribute::getArray() const { check(kind() == AttrKind::Array, "getArray"); return s_->arr; }
std::vector<int64_t> Attribute::getIntArray() const {
  std::vector<int64_t> r;
  for (const Attribute& a : getArray()) r.push_back(a.getInt());
  return r;
}
const Type& Attribute::getType() const {
  check(kind() == AttrKind::TypeAttr || kind() == AttrKind::Dense, "getType");
  return s_->type;
}
bool Attribute::isSplat() const {
  check(kind() == AttrKind::Dense, "isSplat");
  return (s_->denseFloat ? s_->dfloats.size() : s_->dints.size()) == 1;
}
const std::vector<double>& Attribute::denseFloats() const { check(kind() == AttrKind::Dense, "denseFloats"); return s_->dfloats; }
const std::vector<int64_t>& Attribute::denseInts() const { check(kind() == AttrKind::Dense, "denseInts"); return s_->dints; }
bool Attribute::denseIsFloat() const { check(kind() == AttrKind::Dense, "denseIsFloat"); return s_->denseFloat; }
const WgMap& Attribute::getWgMap() const { check(kind() == AttrKind::WgMap, "getWgMap"); return s_->wg; }

std::optional<WgMap> wgMapOf(const Type& t) {
  const std::shared_ptr<const Attribute>* a = nullptr;
  if (t.isTile()) a = &t.tileInfo().wgMap;
  else if (t.isVector()) a = &t.vectorLayout();
  if (a && *a && (*a)->isa(AttrKind::WgMap)) return (*a)->getWgMap();
  return std::nullopt;
}
const std::shared_ptr<const LayoutValue>& Attribute::getLayout() const {
  check(kind() == AttrKind::Layout, "getLayout");
  return s_->layout;
}

bool Attribute::operator==(const Attribute& o) const {
  if (s_ == o.s_) return true;
  const Storage& a = *s_;
  const Storage& b = *o.s_;
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case AttrKind::Unit: return true;
    case AttrKind::Bool: return a.b == b.b;
    case AttrKind::Int: return a.i == b.i && a.num == b.num;
    case AttrKind::Float:
      // Bitwise: -0.0 != 0.0 and NaN == NaN, so CSE never merges distinct constants.
      return a.num == b.num && std::memcmp(&a.f, &b.f, sizeof(double)) == 0;
    case AttrKind::String: return a.s == b.s;
    case AttrKind::Array: return a.arr == b.arr;
    case AttrKind::TypeAttr: return a.type == b.type;
    case AttrKind::Dense:
      return a.type == b.type && a.denseFloat == b.denseFloat && a.dints == b.dints &&
             a.dfloats.size() == b.dfloats.size() &&
             (a.dfloats.empty() || std::memcmp(a.dfloats.data(), b.dfloats.data(), a.dfloats.size() * sizeof(double)) == 0);
    case AttrKind::WgMap: return a.wg == b.wg;
    case AttrKind::Enum: return a.ename == b.ename && a.s == b.s;
    case AttrKind::Layout:
      if (!a.layout || !b.layout) return !a.layout && !b.layout;
      return a.layout->equals(*b.layout);
  }
  return false;
}

std::string formatDouble(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  std::string s(buf, res.ptr);
  // Keep a float recognisable as one: "1" -> "1.0" (but not "1e+20").
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

namespace {
std::string quote(const std::string& s) {
  std::string r = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') { r += '\\'; r += static_cast<char>(c); }
    else if (c == '\n') r += "\\n";
    else if (c == '\t') r += "\\t";
    else if (c < 0x20 || c >= 0x7f) {
      char b[8];
      std::snprintf(b, sizeof b, "\\%02X", c);
      r += b;
    } else r += static_cast<char>(c);
  }
  return r + "\"";
}
std::string ints(const std::vector<int64_t>& v) {
  std::string r = "[";
  for (size_t i = 0; i < v.size(); ++i) r += (i ? ", " : "") + std::to_string(v[i]);
  return r + "]";
}
}  // namespace

std::string Attribute::str() const {
  const Storage& s = *s_;
  switch (s.kind) {
    case AttrKind::Unit: return "unit";
    case AttrKind::Bool: return s.b ? "true" : "false";
    case AttrKind::Int:
      return s.num == ElemKind::I64 ? std::to_string(s.i) : std::to_string(s.i) + " : " + std::string(elemName(s.num));
    case AttrKind::Float: return formatDouble(s.f) + " : " + std::string(elemName(s.num));
    case AttrKind::String: return quote(s.s);
    case AttrKind::Array: {
      std::string r = "[";
      for (size_t i = 0; i < s.arr.size(); ++i) r += (i ? ", " : "") + s.arr[i].str();
      return r + "]";
    }
    case AttrKind::TypeAttr: return "type<" + s.type.str() + ">";
    case AttrKind::Dense: {
      std::string body;
      size_t n = s.denseFloat ? s.dfloats.size() : s.dints.size();
      auto one = [&](size_t i) { return s.denseFloat ? formatDouble(s.dfloats[i]) : std::to_string(s.dints[i]); };
      if (n == 1) body = one(0);
      else {
        body = "[";
        for (size_t i = 0; i < n; ++i) body += (i ? ", " : "") + one(i);
        body += "]";
      }
      return "dense<" + body + "> : " + s.type.str();
    }
    case AttrKind::WgMap: return "wg_map<sg_layout = " + ints(s.wg.sgLayout) + ", sg_data = " + ints(s.wg.sgData) + ">";
    case AttrKind::Enum: return s.ename + "<" + s.s + ">";
    case AttrKind::Layout: return s.layout ? s.layout->print() : "layout<null>";
  }
  return "?";
}

}  // namespace xtc::ir
