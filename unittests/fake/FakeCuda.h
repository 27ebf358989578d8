//===- FakeCuda.h - What the stand-in CUDA driver records -------*- C++ -*-===//
//
// Part of the Sinter project.
//
// Shared by the stand-in driver (FakeCuda.cpp) and the tests that read what
// it recorded (RuntimeFakeTest.cpp, through dlsym on the fake libcuda).
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_UNITTESTS_FAKE_FAKECUDA_H
#define SINTER_UNITTESTS_FAKE_FAKECUDA_H

#include <cstdint>

/// The arguments of one cuTensorMapEncodeTiled call, as the driver got them
/// (innermost dimension first).
struct FakeTensorMapEncode {
  void *tensorMap;
  int dataType;
  uint32_t rank;
  void *globalAddress;
  uint64_t globalDim[5];
  uint64_t globalStrides[4];
  uint32_t boxDim[5];
  uint32_t elementStrides[5];
  int interleave, swizzle, l2Promotion, oobFill;
};

/// The first 8 bytes of every map the fake encodes; the next 8 are the
/// global address and the next 8 the encode's number (from 1); every other
/// byte b is (b ^ 0x5a).
constexpr uint64_t kFakeTensorMapMagic = 0x50414d524f534e54ull; // "TNSORMAP"

#endif // SINTER_UNITTESTS_FAKE_FAKECUDA_H
