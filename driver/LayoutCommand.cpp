// `xtc layout SPEC [--shape RxC] [--view=hw|tensor] [--json] [--svg FILE]`: build any layout xtc knows
// (wg_map, DPAS operands, 2D block loads, cooperative matrix, SLM swizzles, literal linear layouts)
// and print who holds which element (hw view), each element's owners (tensor view), JSON, or an SVG.
// Bad specs and shapes are user errors: `xtc: error: ...`, exit 1, no SVG written.
#include "driver/Commands.h"

#include <CLI/CLI.hpp>

#include <fstream>
#include <iostream>
#include <memory>
#include <optional>

#include "ir/layout/LayoutSpec.h"
#include "ir/support/Diagnostics.h"

namespace xtc::driver {

namespace {
struct LayoutOptions {
  std::string layout;
  std::string shape;
  std::string view = "hw";
  bool json = false;
  std::string svg;
  std::string target = "pvc";
};

int runLayout(const LayoutOptions& o, const GlobalOptions& global) {
  SourceManager sm;
  DiagnosticEngine diags(sm, std::cerr);
  configureDiagnostics(diags, global);
  auto fail = [&](const std::string& message) {
    diags.error(SourceLoc{}, message);
    diags.flush();
    return 1;
  };
  std::optional<std::vector<int64_t>> shape;
  if (!o.shape.empty()) {
    auto s = layout::parseShape(o.shape);
    if (!s) return fail(s.error());
    shape = *s;
  }
  // `generic` has no DPAS/block IO; its subgroup-16 layouts are spelled with pvc parameters.
  layout::Target target = o.target == "dg2" ? layout::Target::Dg2 : layout::Target::Pvc;
  auto hw = layout::parseLayoutSpec(o.layout, shape, target);
  if (!hw) return fail(hw.error());
  layout::View view = o.view == "tensor" ? layout::View::Tensor : layout::View::Hardware;
  std::string text = o.json ? layout::renderJson(*hw, view)
                            : (view == layout::View::Tensor ? layout::renderTensorView(*hw) : layout::renderHwView(*hw));
  if (!o.svg.empty()) {
    std::string svg = layout::renderSvg(*hw);
    std::ofstream f(o.svg, std::ios::binary);
    if (!f || !(f << svg) || !f.flush()) return fail("cannot write '" + o.svg + "'");
  }
  std::cout << text;
  return 0;
}
}  // namespace

void registerLayoutCommand(CLI::App& root, const GlobalOptions& global, ExitStatus& status) {
  auto opts = std::make_shared<LayoutOptions>();
  CLI::App* cmd = root.add_subcommand("layout", "Print or draw a layout: who holds which tensor element");
  cmd->footer(layout::layoutSpecHelp());
  cmd->add_option("layout", opts->layout, "Layout SPEC, e.g. 'wg_map<sg_layout=[8,4], sg_data=[32,32]>' (spellings below)")
      ->required();
  cmd->add_option("--shape", opts->shape, "Tensor shape RxC, e.g. 256x32 (required for wg_map and swizzle)");
  cmd->add_option("--view", opts->view, "hw: per subgroup/lane/register, which element; tensor: per element, its owners")
      ->check(CLI::IsMember({"hw", "tensor"}));
  cmd->add_flag("--json", opts->json, "Print the chosen view as JSON");
  cmd->add_option("--svg", opts->svg, "Also draw the tensor, coloured by lane/subgroup, into this SVG file");
  cmd->add_option("--target", opts->target, "Target for specs that omit it: pvc, dg2 or generic")
      ->check(CLI::IsMember({"pvc", "dg2", "generic"}));
  // The callback owns `opts`: CLI11 keeps pointers into it until parsing ends.
  cmd->callback([opts, &global, &status] { status.code = runLayout(*opts, global); });
}

}  // namespace xtc::driver
