// Internal: the frontend's diagnostic kinds (from Diagnostics.def) and the helper that reports them
// through the DiagnosticEngine while recording which kinds were emitted (for the registry test).
#pragma once

#include "ir/support/Diagnostics.h"

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <vector>

namespace xtc::frontend {

enum class DiagId {
#define XT_DIAG(id, text) id,
#include "frontend/Diagnostics.def"
#undef XT_DIAG
};

std::string_view diagIdName(DiagId id);
std::string_view diagFormat(DiagId id);

class Reporter {
public:
  Reporter(DiagnosticEngine& diags, std::vector<std::string>* emitted) : diags_(diags), emitted_(emitted) {}

  template <class... Args>
  DiagnosticEngine::Builder error(DiagId id, const SourceRange& range, Args&&... args) {
    if (emitted_) emitted_->emplace_back(diagIdName(id));
    return diags_.error(range, fmt::format(fmt::runtime(diagFormat(id)), std::forward<Args>(args)...));
  }
  DiagnosticEngine& engine() { return diags_; }
  bool hasErrors() const { return diags_.hasErrors(); }
  bool limitReached() const { return diags_.limitReached(); }

private:
  DiagnosticEngine& diags_;
  std::vector<std::string>* emitted_;
};

}  // namespace xtc::frontend
