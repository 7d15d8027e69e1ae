// Attributes: compile-time constants attached to ops and types. Immutable values with structural
// equality. Text forms (printed by str(), parsed by ir/Parser):
//   unit   true   42   42 : i32   1.5 : f32   "text"   [1, 2, 3]   type<tile<8x16xf32>>
//   dense<0.0> : vector<8x16xf32>        (splat)
//   dense<[1, 2, 3, 4]> : vector<2x2xi32>
//   wg_map<sg_layout = [8, 4], sg_data = [32, 32]>
//   reduce<add>   atomic<addf>   locality<3>   cache<uncached>    (enums: name<value>)
//   linear<...>, ...                                            (layout values, see LayoutValue)
#pragma once

#include "ir/Type.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace xtc::ir {

// The open interface through which layout values (ir/layout) become attributes: a layout prints
// itself, compares itself, and registers a parser for its keyword (e.g. "linear").
class LayoutValue {
public:
  virtual ~LayoutValue() = default;
  virtual std::string print() const = 0;                  // full text, starting with its keyword
  virtual bool equals(const LayoutValue& other) const = 0;
};
using LayoutParserFn = std::function<std::shared_ptr<const LayoutValue>(std::string_view text, std::string* error)>;
// Registers a parser for layout texts that start with `keyword<`. The IR parser hands it the whole
// balanced text `keyword<...>`.
void registerLayoutParser(const std::string& keyword, LayoutParserFn fn);
const LayoutParserFn* findLayoutParser(std::string_view keyword);

enum class AttrKind : uint8_t { Unit, Bool, Int, Float, String, Array, TypeAttr, Dense, WgMap, Enum, Layout };

struct WgMap {
  std::vector<int64_t> sgLayout;
  std::vector<int64_t> sgData;
  int64_t numSubgroups() const;
  bool operator==(const WgMap& o) const { return sgLayout == o.sgLayout && sgData == o.sgData; }
};

class Attribute {
public:
  Attribute();  // unit

  static Attribute unit();
  static Attribute boolean(bool b);
  static Attribute integer(int64_t v, ElemKind type = ElemKind::I64);
  static Attribute floating(double v, ElemKind type = ElemKind::F32);
  static Attribute string(std::string s);
  static Attribute array(std::vector<Attribute> elems);
  static Attribute intArray(const std::vector<int64_t>& v);
  static Attribute type(Type t);
  // Dense constants: `values` has 1 entry (splat) or one per element of `type` (a vector type).
  static Attribute denseFloat(Type type, std::vector<double> values);
  static Attribute denseInt(Type type, std::vector<int64_t> values);
  static Attribute wgMap(WgMap m);
  static Attribute enumValue(std::string enumName, std::string value);
  static Attribute layout(std::shared_ptr<const LayoutValue> l);

  AttrKind kind() const;
  bool isa(AttrKind k) const { return kind() == k; }

  bool getBool() const;
  int64_t getInt() const;
  double getFloat() const;
  ElemKind numberType() const;                 // Int / Float: the element type
  const std::string& getString() const;        // String; Enum: the value
  const std::string& enumName() const;         // Enum
  const std::vector<Attribute>& getArray() const;
  std::vector<int64_t> getIntArray() const;    // Array of Int
  const Type& getType() const;                 // TypeAttr; Dense: the vector type
  bool isSplat() const;                        // Dense
  const std::vector<double>& denseFloats() const;
  const std::vector<int64_t>& denseInts() const;
  bool denseIsFloat() const;
  const WgMap& getWgMap() const;
  const std::shared_ptr<const LayoutValue>& getLayout() const;

  std::string str() const;
  bool operator==(const Attribute& o) const;
  bool operator!=(const Attribute& o) const { return !(*this == o); }

  struct Storage;
private:
  explicit Attribute(std::shared_ptr<const Storage> s) : s_(std::move(s)) {}
  std::shared_ptr<const Storage> s_;
};

// The wg_map of a workgroup-level tile or vector type (a tile's wg_map, a vector's layout when it is
// one), or nullopt for subgroup-level types and scalars. A copy: passes retype values while they use it.
std::optional<WgMap> wgMapOf(const Type& t);

// An op's attributes, sorted by name so printing is deterministic.
using AttrMap = std::map<std::string, Attribute>;

// Formats a double so that parsing it back gives the same bits (shortest round-trip form).
std::string formatDouble(double v);

}  // namespace xtc::ir
