// `xtc layout 'LAYOUT'`: print a layout's hardware and tensor views, optionally as SVG.
// Not built yet: the command exists (so --help documents it) and exits 2 saying so.
#include "driver/Commands.h"

#include <CLI/CLI.hpp>

#include <memory>

namespace xtc::driver {

namespace {
struct LayoutOptions {
  std::string layout;
  std::string shape;
  std::string svg;
  std::string target = "pvc";
};
}  // namespace

void registerLayoutCommand(CLI::App& root, const GlobalOptions& /*global*/, ExitStatus& status) {
  auto opts = std::make_shared<LayoutOptions>();
  CLI::App* cmd = root.add_subcommand("layout", "Print or draw a layout (not implemented yet)");
  cmd->add_option("layout", opts->layout, "Layout, e.g. 'wg_map<sg_layout=[8,4], sg_data=[32,32]>'")->required();
  cmd->add_option("--shape", opts->shape, "Tensor shape, e.g. 256x32");
  cmd->add_option("--svg", opts->svg, "Also draw the layout into this SVG file");
  cmd->add_option("--target", opts->target, "Target: pvc, dg2 or generic")
      ->check(CLI::IsMember({"pvc", "dg2", "generic"}));
  // The callback owns `opts`: CLI11 keeps pointers into it until parsing ends.
  cmd->callback([opts, &status] { status.code = notImplemented("layout"); });
}

}  // namespace xtc::driver
