// registerAllPasses: the one place that registers every pass of ir/passes. Add your pass's
// register function here (see PassManager.h for why registration is explicit).
#include "ir/passes/LowerGeneric.h"
#include "ir/passes/OrderTranspose.h"
#include "ir/passes/PassManager.h"
#include "ir/passes/WgDistribute.h"

#include <mutex>

namespace xtc::passes {

void registerCanonicalizePass();  // ir/passes/Canonicalize.cpp
void registerBlockingPass();          // ir/passes/Blocking.cpp
void registerLayoutAssignmentPass();  // ir/passes/LayoutAssignment.cpp
void registerResolveLayoutsPass();    // ir/passes/ResolveLayouts.cpp
void registerLowerXePass();           // ir/passes/LowerXe.cpp
void registerEmulateXePass();         // ir/passes/EmulateXe.cpp
void registerSelectLoweringPass();    // ir/passes/SelectLowering.cpp
void registerSplitAccumulatorsPass();  // ir/passes/SplitAccumulators.cpp
void registerSplitUnevenTilesPass();   // ir/passes/SplitUnevenTiles.cpp
void registerSinkReductionsPass();     // ir/passes/SinkReductions.cpp
void registerPadColumnsPass();          // ir/passes/PadColumns.cpp
void registerReduceBeforeExchangePass();  // ir/passes/ReduceBeforeExchange.cpp
void registerBatchSlicePass();            // ir/passes/BatchSlice.cpp
void registerLowerTf32Pass();             // ir/passes/LowerTf32.cpp

void registerAllPasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerCanonicalizePass();
    registerOrderTransposePass();
    registerWgDistributePass();
    registerBlockingPass();
    registerLayoutAssignmentPass();
    registerResolveLayoutsPass();
    registerLowerXePass();
    registerEmulateXePass();
    registerLowerGenericPass();
    registerSelectLoweringPass();
    registerSplitAccumulatorsPass();
    registerSplitUnevenTilesPass();
    registerSinkReductionsPass();
    registerPadColumnsPass();
    registerReduceBeforeExchangePass();
    registerBatchSlicePass();
    registerLowerTf32Pass();
  });
}

}  // namespace xtc::passes
