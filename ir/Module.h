// Module and kernel conventions.
//
// A module is an op `builtin.module` with one region holding one block of `xtc.kernel` ops.
// A kernel op has attributes
//   sym_name   : string           the kernel's name
//   arg_names  : [string...]      the parameter names as written (stubs and `xtc run` use them)
//   sg_size    : int (optional)   required subgroup size, set once a target is chosen
//   wg_size    : [x, y, z] (opt.) required workgroup size in work-items
//   target     : string (opt.)    pvc | dg2 | generic once lowered for a target
// and two regions with the same entry-block arguments (the parameters):
//   region 0, body:   the kernel code, ending in `xtc.return`
//   region 1, launch: computes the grid (number of workgroups per dimension) from the parameters,
//                     ending in `xtc.grid %x, %y, %z` (index values).
#pragma once

#include "ir/Builder.h"

namespace xtc::ir {

std::unique_ptr<Operation> createModule(SourceLoc loc = {});
Block& moduleBody(Operation* module);
std::vector<Operation*> moduleKernels(Operation* module);

// Creates a kernel with parameters of `paramTypes`, appends it to the module, returns it.
// Both regions get an entry block with one argument per parameter.
Operation* createKernel(Operation* module, const std::string& name, const std::vector<std::string>& paramNames,
                        const std::vector<Type>& paramTypes, SourceLoc loc);
inline Block& kernelBody(Operation* kernel) { return kernel->region(0).block(); }
inline Block& kernelLaunch(Operation* kernel) { return kernel->region(1).block(); }
std::string kernelName(const Operation* kernel);

}  // namespace xtc::ir
