//===- FakeRuntime.h - The fake driver and cuBLASLt, for runtime tests ---===//
//
// Part of the Sinter project.
//
// The control functions of unittests/fake/'s stand-in driver (first on
// LD_LIBRARY_PATH) and cuBLASLt (named by SINTER_CUBLASLT), and the test
// fixture that loads an artifact through them; shared by
// RuntimeFakeTest.cpp (library calls) and RuntimeFakeDriverTest.cpp
// (tensor maps, persistent grids, graphs, corrupt artifacts).
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_UNITTESTS_FAKERUNTIME_H
#define SINTER_UNITTESTS_FAKERUNTIME_H

#include "sinter-c/Runtime.h"

#include "ArtifactText.h"
#include "fake/FakeCuda.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <string>
#include <type_traits>
#include <unistd.h>

namespace sinter::test::fake {

/// The fakes' control functions.
struct Fakes {
  const char *(*launches)() = nullptr;
  int (*allocations)(size_t) = nullptr;
  int (*frees)() = nullptr;
  void (*reset)() = nullptr;
  void (*setParamSizes)(const char *, const unsigned *, int) = nullptr;
  int (*paramCount)() = nullptr;
  const void *(*paramAddress)(int) = nullptr;
  const unsigned char *(*paramBytes)(int) = nullptr;
  int (*encodes)() = nullptr;
  const FakeTensorMapEncode *(*encode)(int) = nullptr;
  void (*setEncodeStatus)(int) = nullptr;
  void (*setSmCount)(int) = nullptr;
  unsigned (*lastGrid)() = nullptr;
  int (*moduleLoads)() = nullptr;
  int (*graphLaunches)() = nullptr;
  bool hasEncoder = false; // the fake driver has cuTensorMapEncodeTiled
  void (*resetLt)() = nullptr;
  void (*setMode)(int) = nullptr;
  int (*matmuls)() = nullptr;
  int (*heuristics)() = nullptr;
  uint32_t (*alignment)(int) = nullptr;
  uint64_t (*workspace)() = nullptr;
  void (*setAlgorithms)(int, const float *) = nullptr;
  uint64_t (*lastAlgo)() = nullptr;
  bool disabled = false; // SINTER_CUBLASLT=off

  bool load() {
    void *cuda = dlopen("libcuda.so.1", RTLD_NOW);
    const char *env = std::getenv("SINTER_CUBLASLT");
    disabled = env && std::strcmp(env, "off") == 0;
    if (!cuda)
      return false;
    launches =
        reinterpret_cast<decltype(launches)>(dlsym(cuda, "fake_cuda_launches"));
    allocations = reinterpret_cast<decltype(allocations)>(
        dlsym(cuda, "fake_cuda_allocations"));
    frees = reinterpret_cast<decltype(frees)>(dlsym(cuda, "fake_cuda_frees"));
    reset = reinterpret_cast<decltype(reset)>(dlsym(cuda, "fake_cuda_reset"));
    auto control = [&](auto &fn, const char *name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
          dlsym(cuda, name));
      return fn != nullptr;
    };
    if (!launches || !allocations || !frees || !reset ||
        !control(setParamSizes, "fake_cuda_set_param_sizes") ||
        !control(paramCount, "fake_cuda_param_count") ||
        !control(paramAddress, "fake_cuda_param_address") ||
        !control(paramBytes, "fake_cuda_param_bytes") ||
        !control(encodes, "fake_cuda_encodes") ||
        !control(encode, "fake_cuda_encode") ||
        !control(setEncodeStatus, "fake_cuda_set_encode_status") ||
        !control(setSmCount, "fake_cuda_set_sm_count") ||
        !control(lastGrid, "fake_cuda_last_grid") ||
        !control(moduleLoads, "fake_cuda_module_loads") ||
        !control(graphLaunches, "fake_cuda_graph_launches"))
      return false;
    hasEncoder = dlsym(cuda, "cuTensorMapEncodeTiled") != nullptr;
    if (disabled)
      return true;
    void *lt = env ? dlopen(env, RTLD_NOW) : nullptr;
    if (!lt)
      return false;
    resetLt = reinterpret_cast<decltype(resetLt)>(dlsym(lt, "fake_lt_reset"));
    setMode =
        reinterpret_cast<decltype(setMode)>(dlsym(lt, "fake_lt_set_mode"));
    matmuls = reinterpret_cast<decltype(matmuls)>(dlsym(lt, "fake_lt_matmuls"));
    heuristics =
        reinterpret_cast<decltype(heuristics)>(dlsym(lt, "fake_lt_heuristics"));
    alignment =
        reinterpret_cast<decltype(alignment)>(dlsym(lt, "fake_lt_alignment"));
    workspace =
        reinterpret_cast<decltype(workspace)>(dlsym(lt, "fake_lt_workspace"));
    setAlgorithms = reinterpret_cast<decltype(setAlgorithms)>(
        dlsym(lt, "fake_lt_set_algorithms"));
    lastAlgo =
        reinterpret_cast<decltype(lastAlgo)>(dlsym(lt, "fake_lt_last_algo"));
    return resetLt && setMode && matmuls && heuristics && alignment &&
           workspace && setAlgorithms && lastAlgo;
  }
};

inline Fakes &fakes() {
  static Fakes f;
  static bool ok = f.load();
  if (!ok)
    f.launches = nullptr;
  return f;
}

/// An artifact directory (a fake cubin and `manifest`) loaded through the
/// fake driver.
class FakeDriver : public ::testing::Test {
protected:
  void SetUp() override {
    if (!fakes().launches)
      GTEST_SKIP() << "needs the fake driver and cuBLASLt "
                      "(test/Unit/runtime-library-calls.test)";
    fakes().reset();
    if (!fakes().disabled)
      fakes().resetLt();
    char tmpl[] = "/tmp/sinter-rt-fake-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir = tmpl;
  }
  void TearDown() override {
    if (program)
      sinter_rt_unload(program);
    for (const char *file : {"manifest.json", "kernels.cubin", "SHA256SUMS"})
      std::remove((dir + "/" + file).c_str());
    rmdir(dir.c_str());
  }

  /// Loads `manifest` (beside a fake cubin, with their checksums) unless a
  /// program is loaded.
  int load(const std::string &manifest) {
    if (program)
      return SINTER_RT_OK;
    sinter::test::writeArtifact(dir, manifest, "fake");
    return sinter_rt_load(dir.c_str(), 0, &program);
  }

  std::string dir;
  sinter_rt_program *program = nullptr;
};

} // namespace sinter::test::fake

#endif // SINTER_UNITTESTS_FAKERUNTIME_H
