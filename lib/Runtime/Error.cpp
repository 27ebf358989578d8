//===- Error.cpp - The runtime's last error of each thread ---------------===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#include "Error.h"

#include <utility>

namespace {
thread_local std::string lastErrorText;
} // namespace

int sinter::rt::fail(int code, std::string message) {
  lastErrorText = std::move(message);
  return code;
}

const std::string &sinter::rt::lastError() { return lastErrorText; }
