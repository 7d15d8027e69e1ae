// Helpers shared by the subcommands of driver/ (declared in Commands.h).
#include "driver/Commands.h"

#include "ir/support/Diagnostics.h"

#include <iostream>

namespace xtc::driver {

void configureDiagnostics(DiagnosticEngine& diags, const GlobalOptions& global) {
  ColorMode mode = ColorMode::Auto;
  parseColorMode(global.color, &mode);  // validated by CLI11 already
  diags.setColor(mode);
  diags.setErrorLimit(global.errorLimit);
  diags.setWarningsAsErrors(global.warningsAsErrors);
  diags.setRemarks(global.remarks);
}

int notImplemented(const std::string& subcommand) {
  std::cerr << "xtc: error: 'xtc " << subcommand << "' is not implemented yet\n";
  return 2;
}

}  // namespace xtc::driver
