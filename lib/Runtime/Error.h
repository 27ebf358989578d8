//===- Error.h - The runtime's last error of each thread -------*- C++ -*-===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_RUNTIME_ERROR_H
#define SINTER_LIB_RUNTIME_ERROR_H

#include <string>

namespace sinter::rt {

/// Records `message` as the calling thread's last error
/// (sinter_rt_last_error) and returns `code`.
int fail(int code, std::string message);

/// The calling thread's last error ("" when none).
const std::string &lastError();

} // namespace sinter::rt

#endif // SINTER_LIB_RUNTIME_ERROR_H
