// The OpenCL implementation of runtime::Runtime (see Runtime.h): clCreateProgramWithIL, one
// in-order profiling queue, buffers per ABI, profiling events for kernel times.
#pragma once

#include "driver/runtime/Runtime.h"
