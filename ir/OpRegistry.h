// The registry of op kinds: each op name has traits and a verifier. Dialect files (ir/ops/*.cpp)
// register their ops; the verifier (ir/Verifier.h) and generic passes (CSE, DCE) read it.
#pragma once

#include "ir/Operation.h"

#include <functional>
#include <string>

namespace xtc::ir {

struct OpTraits {
  bool terminator = false;   // must be the last op of its block
  bool pure = false;         // no side effects: CSE and DCE may remove or merge it
  int numRegions = 0;        // exact number of regions
};

// A verifier returns an empty string when the op is valid, else the error message.
using OpVerifier = std::function<std::string(const Operation&)>;

struct OpInfo {
  std::string name;
  OpTraits traits;
  OpVerifier verify;
  std::string summary;   // one line for docs and `xtc opt --list-ops`
};

// Registers an op kind (idempotent for the same name).
void registerOp(OpInfo info);
const OpInfo* findOp(std::string_view name);
std::vector<const OpInfo*> allOps();  // sorted by name

}  // namespace xtc::ir
