// The Level Zero implementation of runtime::Runtime (see Runtime.h), through the ze_loader.
// On a machine without an Intel GPU driver, zeInit fails and the runtime reports it cleanly.
#pragma once

#include "driver/runtime/Runtime.h"
