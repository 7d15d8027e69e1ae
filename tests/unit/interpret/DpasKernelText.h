// IR text of a one-subgroup kernel around xe.dpas, shared by the interpreter's per-lane DPAS tests
// (InterpDpasTest.cpp) and the emulated-DPAS device tests (tests/e2e/XeEmulatedDpasTest.cpp).
// Operands travel in their register layout: lane l's register r of A, B and the accumulator is flat
// element l * R + r of the 1-D memrefs A, B, C (R = that operand's registers per lane); the result
// goes back to C the same way. With `chained`, the kernel runs D = dpas(dpas(C, A, B), A, B), so the
// second DPAS accumulates into a result of the first.
#pragma once

#include <cstdint>
#include <string>

namespace xtc::test {

struct DpasForm {
  const char* target;  // "pvc" (16 lanes) or "dg2" (8 lanes)
  int64_t lanes, m, k;
  const char* in;   // element type of A and B
  const char* acc;  // element type of the accumulator and result
  int64_t aRegs() const { return m * k / lanes; }
  int64_t bRegs() const { return k; }  // n = lanes: k * n / lanes
  int64_t cRegs() const { return m; }
};

inline std::string dpasKernelText(const DpasForm& f, bool chained) {
  auto vec = [](int64_t n, const char* t) { return "vector<" + std::to_string(n) + "x" + t + ">"; };
  auto mem = [](const char* t) { return std::string("memref<?x") + t + ">"; };
  std::string s = "builtin.module {\n  xtc.kernel @dpas(%A: " + mem(f.in) + ", %B: " + mem(f.in) + ", %C: " + mem(f.acc) +
                  ") {arg_names = [\"A\", \"B\", \"C\"], sg_size = " + std::to_string(f.lanes) + ", target = \"" + f.target +
                  "\", wg_size = [" + std::to_string(f.lanes) + ", 1, 1]} launch {\n"
                  "    %g = arith.constant {value = 1 : index} : () -> (index)\n"
                  "    xtc.grid %g, %g, %g : (index, index, index) -> ()\n  } body {\n"
                  "    %lane = gpu.lane_id : () -> (index)\n";
  int id = 0;
  auto fresh = [&] { return "%v" + std::to_string(id++); };
  auto constant = [&](int64_t v) {
    std::string r = fresh();
    s += "    " + r + " = arith.constant {value = " + std::to_string(v) + " : index} : () -> (index)\n";
    return r;
  };
  // Flat index lane * R + r.
  auto at = [&](int64_t R, int64_t r) {
    std::string rr = constant(R), base = fresh(), off = constant(r), idx = fresh();
    s += "    " + base + " = arith.muli %lane, " + rr + " : (index, index) -> (index)\n";
    s += "    " + idx + " = arith.addi " + base + ", " + off + " : (index, index) -> (index)\n";
    return idx;
  };
  auto loadRegs = [&](const char* memName, const char* t, int64_t R) {
    std::string elems, types;
    for (int64_t r = 0; r < R; ++r) {
      std::string idx = at(R, r), e = fresh();
      s += "    " + e + " = lane.load %" + memName + ", " + idx + " : (" + mem(t) + ", index) -> (" + t + ")\n";
      elems += (r ? ", " : "") + e;
      types += std::string(r ? ", " : "") + t;
    }
    std::string v = fresh();
    s += "    " + v + " = vector.from_elements " + elems + " : (" + types + ") -> (" + vec(R, t) + ")\n";
    return v;
  };
  std::string a = loadRegs("A", f.in, f.aRegs()), b = loadRegs("B", f.in, f.bRegs()), c = loadRegs("C", f.acc, f.cRegs());
  std::string attrs = std::string("{a_type = \"") + f.in + "\", acc_type = \"" + f.acc + "\", b_type = \"" + f.in +
                      "\", k = " + std::to_string(f.k) + ", m = " + std::to_string(f.m) + ", n = " + std::to_string(f.lanes) + "}";
  std::string sig = "(" + vec(f.cRegs(), f.acc) + ", " + vec(f.aRegs(), f.in) + ", " + vec(f.bRegs(), f.in) + ") -> (" +
                    vec(f.cRegs(), f.acc) + ")";
  for (int i = 0; i < (chained ? 2 : 1); ++i) {
    std::string d = fresh();
    s += "    " + d + " = xe.dpas " + c + ", " + a + ", " + b + " " + attrs + " : " + sig + "\n";
    c = d;
  }
  for (int64_t r = 0; r < f.cRegs(); ++r) {
    std::string e = fresh();
    s += "    " + e + " = vector.extract " + c + " {index = " + std::to_string(r) + "} : (" + vec(f.cRegs(), f.acc) + ") -> (" + f.acc + ")\n";
    std::string idx = at(f.cRegs(), r);
    s += "    lane.store " + e + ", %C, " + idx + " : (" + f.acc + ", " + mem(f.acc) + ", index) -> ()\n";
  }
  s += "    xtc.return : () -> ()\n  }\n}\n";
  return s;
}

}  // namespace xtc::test
