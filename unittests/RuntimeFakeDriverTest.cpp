//===- RuntimeFakeDriverTest.cpp - Launches end to end, without a GPU -----===//
//
// Part of the Sinter project.
//
// Runs with the stand-in driver of unittests/fake/ (see
// test/Unit/runtime-library-calls.test), as RuntimeFakeTest.cpp. Kernel
// parameters that are tensor maps (TensorMaps.*): what the runtime asks
// cuTensorMapEncodeTiled for, and that the kernel gets the encoded bytes.
// Run with the fake driver that lacks cuTensorMapEncodeTiled
// (unittests/fakecuda-notma), only manifests without tensor maps load.
// Also persistent grids sized for the device, CUDA graph replays, and
// artifacts that must never reach the driver.
//
//===----------------------------------------------------------------------===//

#include "FakeRuntime.h"

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace {
using namespace sinter::test::fake;

/// attn(q: 2x16x4096x128 bf16, o) with one temp (32x64 f32): its kernel
/// attn_0 takes a tensor map of q, o, a tensor map of the temp and an i32.
std::string tensorMapManifest(bool withTensorMaps = true) {
  using sinter::test::argument;
  std::string args =
      withTensorMaps
          ? R"({"tensor_map": {"arg": 0}, "dtype": "bfloat16",
               "shape": [2, 16, 4096, 128], "box": [1, 1, 128, 64],
               "swizzle": "128B", "l2_promotion": "256B", "oob_fill": "zero",
               "interleave": "none"},
              {"arg": 1},
              {"tensor_map": {"temp": 0}, "dtype": "float32",
               "shape": [32, 64], "box": [8, 32], "swizzle": "none",
               "l2_promotion": "none", "oob_fill": "nan",
               "interleave": "none"},
              {"type": "i32", "value": 7})"
          : R"({"arg": 0}, {"arg": 1}, {"temp": 0}, {"type": "i32", "value": 7})";
  std::string launch = R"({"kind": "kernel", "kernel": "attn_0",
      "grid": [1, 1, 1], "block": [128, 1, 1], "shared_memory": 0,
      "args": [)" + args +
                       "]}";
  return sinter::test::cudaManifest(
      {sinter::test::function(
          "attn",
          {argument(0, "q", "input", "bfloat16", {2, 16, 4096, 128}),
           argument(1, "o", "output", "float32", {1024})},
          {sinter::test::temp("t0", "float32", {32, 64})}, {launch})},
      {"attn_0"});
}

/// Device pointers (never dereferenced: the fake driver runs nothing).
void *const kQ = reinterpret_cast<void *>(0x7f0000100000);
void *const kO = reinterpret_cast<void *>(0x7f0000200000);

class TensorMaps : public FakeDriver {
protected:
  void SetUp() override {
    FakeDriver::SetUp();
    if (IsSkipped())
      return;
    static const unsigned sizes[] = {128, 8, 128, 4};
    fakes().setParamSizes("attn_0", sizes, 4);
  }

  /// Loads the manifest (the fake driver must have the encoder) and runs
  /// attn(q, o).
  int run(void *q, void *o = kO) {
    if (!fakes().hasEncoder)
      return -1;
    if (int rc = load(tensorMapManifest())) {
      ADD_FAILURE() << sinter_rt_last_error();
      return rc;
    }
    void *args[] = {q, o};
    return sinter_rt_run(program, "attn", args, 2, nullptr);
  }

  uint64_t paramWord(int param, int word) {
    uint64_t v;
    std::memcpy(&v, fakes().paramBytes(param) + 8 * word, sizeof(v));
    return v;
  }

  /// Kernel parameter `param` is the map of encode `index`, which encoded
  /// it for `base`.
  void expectEncodedMap(int param, int index, void *base) {
    const FakeTensorMapEncode *e = fakes().encode(index);
    EXPECT_EQ(fakes().paramAddress(param), e->tensorMap);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(e->tensorMap) % 64, 0u);
    EXPECT_EQ(paramWord(param, 0), kFakeTensorMapMagic);
    EXPECT_EQ(paramWord(param, 1), reinterpret_cast<uintptr_t>(base));
    EXPECT_EQ(paramWord(param, 2), static_cast<uint64_t>(index + 1));
    for (int b = 24; b < 128; ++b)
      ASSERT_EQ(fakes().paramBytes(param)[b], b ^ 0x5a) << b;
  }
};

// A persistent kernel's grid is sized at load for the device's SMs: as many
// blocks as `ctas_per_sm` per SM hold, each taking the same number of the
// `work` items; other launches keep the manifest's grid.
TEST_F(FakeDriver, PersistentGridsFollowTheDeviceSMCount) {
  std::string plain = tensorMapManifest(false);
  std::string persistent = plain;
  const std::string at = R"("shared_memory": 0,)";
  persistent.replace(persistent.find(at), at.size(),
                     at +
                         R"( "persistent": {"work": 1000, "ctas_per_sm": 4},)");
  void *args[] = {kQ, kO};
  // sms -> grid: 10 SMs x 4 = 40 slots, 25 items each; 132 x 4 = 528
  // slots, 2 items each on 500 blocks; 300 x 4 slots: one item each.
  for (auto [sms, grid] : {std::pair{10, 40u}, {132, 500u}, {300, 1000u}}) {
    fakes().setSmCount(sms);
    ASSERT_EQ(load(persistent), SINTER_RT_OK) << sinter_rt_last_error();
    ASSERT_EQ(sinter_rt_run(program, "attn", args, 2, nullptr), SINTER_RT_OK)
        << sinter_rt_last_error();
    EXPECT_EQ(fakes().lastGrid(), grid) << sms << " SMs";
    sinter_rt_unload(program);
    program = nullptr;
  }
  ASSERT_EQ(load(plain), SINTER_RT_OK) << sinter_rt_last_error();
  ASSERT_EQ(sinter_rt_run(program, "attn", args, 2, nullptr), SINTER_RT_OK);
  EXPECT_EQ(fakes().lastGrid(), 1u);
}

// SINTER_CUDA_GRAPH=1 (Graph.cpp): the first call with some arguments runs
// directly, the second captures the launches and replays them, the third
// replays; new arguments start over, with a graph of their own, and the
// first arguments' graph is kept. Every call runs every kernel once.
TEST_F(FakeDriver, GraphsReplayTheLaunchesOfTheSameArguments) {
  ASSERT_EQ(setenv("SINTER_CUDA_GRAPH", "1", 1), 0);
  ASSERT_EQ(load(tensorMapManifest(false)), SINTER_RT_OK)
      << sinter_rt_last_error();
  void *args[] = {kQ, kO};
  for (int i = 0; i < 3; ++i)
    ASSERT_EQ(sinter_rt_run(program, "attn", args, 2, nullptr), SINTER_RT_OK)
        << sinter_rt_last_error();
  EXPECT_STREQ(fakes().launches(), "attn_0,attn_0,attn_0");
  EXPECT_EQ(fakes().graphLaunches(), 2);
  void *moved[] = {kQ, reinterpret_cast<void *>(0x7f0000300000)};
  ASSERT_EQ(sinter_rt_run(program, "attn", moved, 2, nullptr), SINTER_RT_OK);
  EXPECT_EQ(fakes().graphLaunches(), 2); // new arguments: run directly
  // Alternating between the two argument sets (a loop over two batches):
  // the second set gets a graph of its own, the first keeps its graph.
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(sinter_rt_run(program, "attn", args, 2, nullptr), SINTER_RT_OK);
    ASSERT_EQ(sinter_rt_run(program, "attn", moved, 2, nullptr), SINTER_RT_OK);
  }
  EXPECT_EQ(fakes().graphLaunches(), 6);
  unsetenv("SINTER_CUDA_GRAPH");
  ASSERT_EQ(sinter_rt_run(program, "attn", args, 2, nullptr), SINTER_RT_OK);
  EXPECT_STREQ(fakes().launches(),
               "attn_0,attn_0,attn_0,attn_0,attn_0,attn_0,attn_0,attn_0,"
               "attn_0");
  EXPECT_EQ(fakes().graphLaunches(), 6);
}

// A corrupt, truncated or modified artifact is refused before anything
// reaches the driver (issue #17, items 8 and 11): no module is loaded, no
// buffer allocated, nothing launched.
TEST_F(FakeDriver, ACorruptArtifactNeverReachesTheDriver) {
  std::string manifest = tensorMapManifest(false);
  sinter::test::writeArtifact(dir, manifest, "fake cubin");
  sinter::test::writeFile(dir + "/kernels.cubin", "fake cu"); // truncated
  EXPECT_EQ(sinter_rt_load(dir.c_str(), 0, &program), SINTER_RT_ERROR_ARTIFACT);
  EXPECT_NE(std::string(sinter_rt_last_error())
                .find("kernels.cubin does not match its SHA-256"),
            std::string::npos)
      << sinter_rt_last_error();
  // The output made smaller than what the kernel writes.
  sinter::test::writeArtifact(dir, manifest, "fake cubin");
  sinter::test::writeFile(
      dir + "/manifest.json",
      sinter::test::edit(manifest, R"("shape": [1024], "bytes": 4096)",
                         R"("shape": [16], "bytes": 64)"));
  EXPECT_EQ(sinter_rt_load(dir.c_str(), 0, &program), SINTER_RT_ERROR_ARTIFACT);
  EXPECT_NE(std::string(sinter_rt_last_error())
                .find("manifest.json does not match its SHA-256"),
            std::string::npos)
      << sinter_rt_last_error();
  EXPECT_EQ(program, nullptr);
  EXPECT_EQ(fakes().moduleLoads(), 0);
  EXPECT_EQ(fakes().allocations(8192), 0);
  EXPECT_STREQ(fakes().launches(), "");
  // The artifact as written loads and runs.
  ASSERT_EQ(load(manifest), SINTER_RT_OK) << sinter_rt_last_error();
  EXPECT_EQ(fakes().moduleLoads(), 1);
  void *args[] = {kQ, kO};
  EXPECT_EQ(sinter_rt_run(program, "attn", args, 2, nullptr), SINTER_RT_OK);
  EXPECT_EQ(sinter_rt_run(program, "attn", nullptr, 2, nullptr),
            SINTER_RT_ERROR_ARGUMENT);
  EXPECT_STREQ(fakes().launches(), "attn_0");
}

TEST_F(TensorMaps, OnlyManifestsWithTensorMapsNeedTheEncoder) {
  // Without tensor maps the program runs on any driver. (Its parameters
  // are 8 bytes each: the fake must not copy the fixture's 128-byte tensor
  // map sizes out of them, which ASan reported as a heap overflow.)
  fakes().reset();
  ASSERT_EQ(load(tensorMapManifest(false)), SINTER_RT_OK)
      << sinter_rt_last_error();
  void *args[] = {kQ, kO};
  ASSERT_EQ(sinter_rt_run(program, "attn", args, 2, nullptr), SINTER_RT_OK)
      << sinter_rt_last_error();
  EXPECT_STREQ(fakes().launches(), "attn_0");
  sinter_rt_unload(program);
  program = nullptr;
  int rc = load(tensorMapManifest());
  if (fakes().hasEncoder) {
    EXPECT_EQ(rc, SINTER_RT_OK) << sinter_rt_last_error();
    return;
  }
  EXPECT_EQ(rc, SINTER_RT_ERROR_DRIVER);
  EXPECT_EQ(program, nullptr);
  EXPECT_STREQ(sinter_rt_last_error(),
               "the CUDA driver has no cuTensorMapEncodeTiled (CUDA 12 or "
               "newer), which the tensor map arguments of attn_0 in attn "
               "need");
}

TEST_F(TensorMaps, EncodedInnermostFirstAndPassedByValue) {
  if (!fakes().hasEncoder)
    GTEST_SKIP() << "the fake driver has no cuTensorMapEncodeTiled";
  ASSERT_EQ(run(kQ), SINTER_RT_OK) << sinter_rt_last_error();
  EXPECT_STREQ(fakes().launches(), "attn_0");
  ASSERT_EQ(fakes().encodes(), 2);
  // q: bf16 [2, 16, 4096, 128], box [1, 1, 128, 64], outermost first.
  const FakeTensorMapEncode &q = *fakes().encode(0);
  EXPECT_EQ(q.dataType, 9); // CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
  EXPECT_EQ(q.rank, 4u);
  EXPECT_EQ(q.globalAddress, kQ);
  EXPECT_EQ(std::vector<uint64_t>(q.globalDim, q.globalDim + 4),
            (std::vector<uint64_t>{128, 4096, 16, 2}));
  EXPECT_EQ(std::vector<uint64_t>(q.globalStrides, q.globalStrides + 3),
            (std::vector<uint64_t>{256, 256 * 4096, 256 * 4096 * 16}));
  EXPECT_EQ(std::vector<uint32_t>(q.boxDim, q.boxDim + 4),
            (std::vector<uint32_t>{64, 128, 1, 1}));
  EXPECT_EQ(std::vector<uint32_t>(q.elementStrides, q.elementStrides + 4),
            (std::vector<uint32_t>{1, 1, 1, 1}));
  EXPECT_EQ(q.interleave, 0);
  EXPECT_EQ(q.swizzle, 3);     // CU_TENSOR_MAP_SWIZZLE_128B
  EXPECT_EQ(q.l2Promotion, 3); // CU_TENSOR_MAP_L2_PROMOTION_L2_256B
  EXPECT_EQ(q.oobFill, 0);     // CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE
  // The temp: f32 [32, 64], box [8, 32], at its (256-aligned) allocation.
  const FakeTensorMapEncode &t = *fakes().encode(1);
  EXPECT_EQ(fakes().allocations(8192), 1);
  EXPECT_EQ(t.dataType, 7); // CU_TENSOR_MAP_DATA_TYPE_FLOAT32
  EXPECT_EQ(t.rank, 2u);
  EXPECT_NE(t.globalAddress, nullptr);
  EXPECT_EQ(t.globalDim[0], 64u);
  EXPECT_EQ(t.globalDim[1], 32u);
  EXPECT_EQ(t.globalStrides[0], 256u);
  EXPECT_EQ(t.boxDim[0], 32u);
  EXPECT_EQ(t.boxDim[1], 8u);
  EXPECT_EQ(t.swizzle, 0);
  EXPECT_EQ(t.l2Promotion, 0);
  EXPECT_EQ(t.oobFill, 1); // CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
  // The kernel got the 128 encoded bytes of each map, the pointer of o and
  // the constant.
  ASSERT_EQ(fakes().paramCount(), 4);
  expectEncodedMap(0, 0, kQ);
  expectEncodedMap(2, 1, t.globalAddress);
  EXPECT_EQ(paramWord(1, 0), reinterpret_cast<uintptr_t>(kO));
  int32_t c;
  std::memcpy(&c, fakes().paramBytes(3), sizeof(c));
  EXPECT_EQ(c, 7);
}

TEST_F(TensorMaps, ReencodedOnlyWhenThePointerChanges) {
  if (!fakes().hasEncoder)
    GTEST_SKIP() << "the fake driver has no cuTensorMapEncodeTiled";
  ASSERT_EQ(run(kQ), SINTER_RT_OK) << sinter_rt_last_error();
  ASSERT_EQ(run(kQ), SINTER_RT_OK) << sinter_rt_last_error();
  EXPECT_EQ(fakes().encodes(), 2);
  expectEncodedMap(0, 0, kQ);
  // Another q (o does not matter): only q's map is encoded again.
  void *q2 = static_cast<char *>(kQ) + 64;
  ASSERT_EQ(run(q2, static_cast<char *>(kO) + 8), SINTER_RT_OK)
      << sinter_rt_last_error();
  ASSERT_EQ(fakes().encodes(), 3);
  EXPECT_EQ(fakes().encode(2)->globalAddress, q2);
  expectEncodedMap(0, 2, q2);
  ASSERT_EQ(run(kQ), SINTER_RT_OK) << sinter_rt_last_error();
  EXPECT_EQ(fakes().encodes(), 4);
  expectEncodedMap(0, 3, kQ);
  EXPECT_STREQ(fakes().launches(), "attn_0,attn_0,attn_0,attn_0");
}

TEST_F(TensorMaps, AMisalignedTensorIsAnArgumentError) {
  if (!fakes().hasEncoder)
    GTEST_SKIP() << "the fake driver has no cuTensorMapEncodeTiled";
  EXPECT_EQ(run(static_cast<char *>(kQ) + 8), SINTER_RT_ERROR_ARGUMENT);
  EXPECT_STREQ(sinter_rt_last_error(),
               "attn: argument q (0x7f0000100008), the tensor map of attn_0 "
               "arg 0, is not 16-byte aligned: the TMA needs 16-byte aligned "
               "tensors");
  EXPECT_EQ(fakes().encodes(), 0);
  EXPECT_STREQ(fakes().launches(), "");
  // An aligned one runs.
  EXPECT_EQ(run(kQ), SINTER_RT_OK) << sinter_rt_last_error();
}

TEST_F(TensorMaps, AFailingEncodeIsADriverError) {
  if (!fakes().hasEncoder)
    GTEST_SKIP() << "the fake driver has no cuTensorMapEncodeTiled";
  fakes().setEncodeStatus(1);
  EXPECT_EQ(run(kQ), SINTER_RT_ERROR_DRIVER);
  EXPECT_STREQ(sinter_rt_last_error(),
               "cuTensorMapEncodeTiled(attn_0 arg 0) in attn: CUDA_ERROR_FAKE "
               "(1): the fake driver failed");
  EXPECT_STREQ(fakes().launches(), "");
  // Nothing was cached: the next run encodes.
  fakes().setEncodeStatus(0);
  EXPECT_EQ(run(kQ), SINTER_RT_OK) << sinter_rt_last_error();
  EXPECT_EQ(fakes().encodes(), 3);
  expectEncodedMap(0, 1, kQ);
}

} // namespace
