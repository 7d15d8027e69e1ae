// The result codes a generated stub can return, with the text its NAME_error_string gives them:
// OpenCL's error codes (negative), Level Zero's ze_result_t values (positive, 0x70000000 + ...),
// and the stub's own codes (StubError). Values come from the Khronos cl.h and oneAPI ze_api.h
// headers the stub compiles against; they are written out as numbers so the table compiles even
// when one runtime's header is left out.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace xtc::backend::stub {

struct ErrorName {
  int64_t code;        // as an `int` in C (ze_result_t values fit in 31 bits)
  std::string name;    // e.g. "CL_INVALID_COMMAND_QUEUE"
  std::string text;    // a short explanation (stub codes; may be empty for runtime codes)
};

// Every code, sorted by value, no duplicates.
const std::vector<ErrorName>& allErrorNames();
// Only the stub's own codes, in StubError order (the header #defines them).
std::vector<ErrorName> stubErrorNames();

}  // namespace xtc::backend::stub
