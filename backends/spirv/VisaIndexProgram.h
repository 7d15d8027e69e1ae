// Internal to backends/spirv: the per-iteration scalar index math of a whole-loop asm statement
// (VisaLoop.h) that is not "base + constant" -- RFC 2.4's SLM ring-buffer addresses,
// ((k / 32 + c) % 4) * 8192 + .... Each index value is an affine form: a sum of roots times
// constants plus a constant, where a root is the loop counter, a value defined outside the loop, or
// a vISA variable the program computes (a division or remainder by a power of two). Adding forms and
// multiplying them by constants only rewrites the form; instructions are written when a form must
// exist in a register, with the sum of its loop-invariant terms computed once before the loop.
// Dividing and taking remainders need the exact value: only of a form known to be in [0, 2^31) (the
// counter with constant bounds, constants, and what these ops make of them), where signed and
// unsigned division agree and a shift or mask is exact. Everything else is 32-bit two's complement,
// which is what the SLM addresses the values end in are. A remainder of a shift scaled by a power of
// two is written as a bit field of the shifted value (scaledField: RFC 2.4's ring stages in 2
// instructions for the first scale, 1 for each other), and only what the addresses use is written
// (live; VisaLoop adds a base's two parts in each message's add3 and leaves the base unwritten).
#pragma once

#include "ir/Operation.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace xtc::backend {

class VisaIndexProgram {
 public:
  // A root: nothing (the form is a constant), the loop counter, a value defined outside the loop
  // (an asm input), or instruction `inst`'s result.
  struct Root {
    enum class Kind : uint8_t { None, Counter, Outer, Inst };
    Kind kind = Kind::None;
    const ir::Value* outer = nullptr;
    int ordinal = -1;  // an outer value's number in the order the program first saw it
    int inst = -1;
    // By number, never by address: the order of a form's terms is the order of the instructions
    // written, which must not depend on where the heap put the values (byte-identical output).
    bool operator<(const Root& o) const { return std::tie(kind, ordinal, inst) < std::tie(o.kind, o.ordinal, o.inst); }
    bool operator==(const Root& o) const { return kind == o.kind && ordinal == o.ordinal && inst == o.inst; }
  };
  // value = sum of root * coefficient over `terms` (distinct roots, nonzero coefficients, sorted) + add.
  struct Aff {
    std::vector<std::pair<Root, int64_t>> terms;
    int64_t add = 0;
  };

  // `counterMax`: the largest value the counter takes (nullopt: unknown); the counter is >= 0 when
  // this is set.
  explicit VisaIndexProgram(std::optional<int64_t> counterMax) : counterMax_(counterMax) {}

  static Aff constant(int64_t c) { return Aff{{}, c}; }
  static Aff counter() { return Aff{{{Root{Root::Kind::Counter}, 1}}, 0}; }
  Aff outer(const ir::Value* v) { return Aff{{{outerRoot(v), 1}}, 0}; }

  std::optional<Aff> add(const Aff& a, const Aff& b);
  std::optional<Aff> sub(const Aff& a, const Aff& b);
  std::optional<Aff> mul(const Aff& a, const Aff& b);
  std::optional<Aff> div(const Aff& a, const Aff& b);  // signed or unsigned: the same on [0, 2^31)
  std::optional<Aff> rem(const Aff& a, const Aff& b);

  // a's terms times `scale`, plus the outer value `base` (an SLM buffer's address) when given, in a
  // register: the part of a message address that several messages share (each then adds its
  // constant, a.add * scale). The sum of the invariant terms is computed once, before the loop.
  Root scaled(const Aff& a, int64_t scale, const ir::Value* base);

  // One vISA instruction per computed value, in creation order; `operand` writes a root as a source
  // operand (outer values are asm inputs: the caller knows their `$N`). Instructions whose sources
  // never depend on the counter are `invariant`: written once before the loop.
  struct Inst {
    const char* opcode;  // add, mul, shl, shr, and
    Root a;
    Root b;  // Kind::None: the immediate `imm`
    int64_t imm = 0;
    bool invariant = false;
  };
  const std::vector<Inst>& insts() const { return insts_; }
  std::string text(size_t i, const std::string& prefix, const std::function<std::string(const Root&)>& operand) const;
  // Which instructions the roots `used` need (directly or through their sources): a remainder's
  // own instructions are dead once every scale of it is a scaledField.
  std::vector<bool> live(const std::vector<Root>& used) const;
  static std::string varName(const std::string& prefix, int inst) { return prefix + "i" + std::to_string(inst); }

 private:
  // [0, max] when known to be there.
  std::optional<int64_t> maxOf(const Aff& a) const;
  std::optional<int64_t> rootMax(const Root& r) const;
  Root materialize(const Aff& a);  // the whole value in one register
  Root sumTerms(const std::vector<std::pair<Root, int64_t>>& terms);
  Root emit(const char* opcode, const Root& a, const Root& b, int64_t imm, std::optional<int64_t> max);
  bool invariant(const Root& r) const;
  Root outerRoot(const ir::Value* v);
  std::optional<Root> scaledField(const Root& r, int64_t b);

  // A remainder's `and` result that is ((y >> shift) + add) % 2^bits.
  struct Field {
    Root y;
    int64_t shift, add, bits;
  };
  std::map<int, Field> fields_;  // by the `and` instruction
  std::map<int, std::vector<std::pair<int64_t, Root>>> fieldScales_;  // field -> {b, field * 2^b} written

  std::optional<int64_t> counterMax_;
  std::vector<Inst> insts_;
  std::vector<std::optional<int64_t>> instMax_;
  std::map<const ir::Value*, int> outerOrdinals_;  // lookups only: numbers follow first use
  std::map<std::tuple<std::string, Root, Root, int64_t>, int> known_;  // deduplicates instructions
};

}  // namespace xtc::backend
