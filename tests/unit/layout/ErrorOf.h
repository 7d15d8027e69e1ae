// The error text of a layout-library result, for tests that compare whole messages: "(no error)"
// when the call succeeded, so a missing refusal shows up in the comparison.
#pragma once

#include "ir/layout/LinearLayout.h"

#include <string>

namespace xtc::layout::testing {

template <class T>
std::string errorOf(const Expected<T>& e) {
  return e ? std::string("(no error)") : e.error();
}

}  // namespace xtc::layout::testing
