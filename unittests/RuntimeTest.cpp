//===- RuntimeTest.cpp - Unit tests for the CUDA runtime ------------------===//
//
// Part of the Sinter project.
//
// The runtime must build and fail cleanly without a GPU: these tests run
// everywhere, and check the manifest reader and the error paths.
//
//===----------------------------------------------------------------------===//

#include "sinter-c/Runtime.h"
#include "../lib/Runtime/Json.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>

using sinter::rt::JsonValue;

namespace {

TEST(RuntimeJson, ParsesManifestShapes) {
  JsonValue v;
  std::string error;
  ASSERT_TRUE(sinter::rt::parseJson(
      R"({"a": [1, -2, 3.5e2, true, null], "s": "x\"y\u0041",
          "seed": 9007199254740993, "o": {}})",
      v, error))
      << error;
  ASSERT_TRUE(v.isObject());
  const JsonValue *a = v.get("a");
  ASSERT_TRUE(a && a->isArray());
  ASSERT_EQ(a->array.size(), 5u);
  EXPECT_EQ(a->array[1].integer, -2);
  EXPECT_DOUBLE_EQ(a->array[2].number, 350.0);
  EXPECT_TRUE(a->array[3].boolean);
  EXPECT_EQ(a->array[4].kind, JsonValue::Kind::Null);
  EXPECT_EQ(v.get("s")->string, "x\"yA");
  // 64-bit integers (dropout seeds) survive exactly.
  EXPECT_EQ(v.get("seed")->integer, 9007199254740993LL);
  EXPECT_TRUE(v.get("o")->isObject());
  EXPECT_EQ(v.get("missing"), nullptr);
}

TEST(RuntimeJson, ReportsErrorsWithOffsets) {
  JsonValue v;
  std::string error;
  EXPECT_FALSE(sinter::rt::parseJson(R"({"a": [1, 2})", v, error));
  EXPECT_NE(error.find("byte"), std::string::npos) << error;
  EXPECT_FALSE(sinter::rt::parseJson(R"({"a": 1} x)", v, error));
  EXPECT_NE(error.find("trailing"), std::string::npos) << error;
  EXPECT_FALSE(sinter::rt::parseJson(R"("unterminated)", v, error));
  EXPECT_FALSE(sinter::rt::parseJson("", v, error));
}

class RuntimeArtifact : public ::testing::Test {
protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sinter-rt-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir = tmpl;
  }
  void TearDown() override {
    std::remove((dir + "/manifest.json").c_str());
    std::remove((dir + "/kernels.cubin").c_str());
    rmdir(dir.c_str());
  }
  void write(const std::string &name, const std::string &text) {
    std::ofstream(dir + "/" + name) << text;
  }
  std::string dir;
};

TEST_F(RuntimeArtifact, MissingManifestIsAnArtifactError) {
  sinter_rt_program *p = nullptr;
  EXPECT_EQ(sinter_rt_load(dir.c_str(), 0, &p), SINTER_RT_ERROR_ARTIFACT);
  EXPECT_EQ(p, nullptr);
  EXPECT_NE(std::string(sinter_rt_last_error()).find("manifest.json"),
            std::string::npos);
}

TEST_F(RuntimeArtifact, MalformedManifestNamesTheProblem) {
  write("manifest.json", R"({"target": "cuda:sm_90a", "functions": [
      {"name": "main", "arguments": [], "temps": [], "launches": [
        {"kernel": "k", "grid": [1, 1, 1], "block": [32, 1, 1],
         "shared_memory": 0, "args": [{"arg": 3}]}]}]})");
  write("kernels.cubin", "not a cubin");
  sinter_rt_program *p = nullptr;
  EXPECT_EQ(sinter_rt_load(dir.c_str(), 0, &p), SINTER_RT_ERROR_ARTIFACT);
  EXPECT_NE(std::string(sinter_rt_last_error()).find("argument 3 of 0"),
            std::string::npos)
      << sinter_rt_last_error();
}

TEST_F(RuntimeArtifact, NonFiniteConstantsTravelAsBits) {
  // -inf as f32 bits: the manifest parses (the failure comes later, from the
  // driver or the bogus cubin, not from the manifest).
  write("manifest.json", R"({"target": "cuda:sm_90a", "functions": [
      {"name": "main", "arguments": [], "temps": [], "launches": [
        {"kernel": "k", "grid": [1, 1, 1], "block": [32, 1, 1],
         "shared_memory": 0,
         "args": [{"type": "f32", "bits": 4286578688}]}]}]})");
  write("kernels.cubin", "not a cubin");
  sinter_rt_program *p = nullptr;
  EXPECT_EQ(sinter_rt_load(dir.c_str(), 0, &p), SINTER_RT_ERROR_DRIVER)
      << sinter_rt_last_error();
}

TEST_F(RuntimeArtifact, CpuManifestIsRejected) {
  write("manifest.json", R"({"target": "cpu", "functions": []})");
  write("kernels.cubin", "");
  sinter_rt_program *p = nullptr;
  EXPECT_EQ(sinter_rt_load(dir.c_str(), 0, &p), SINTER_RT_ERROR_ARTIFACT);
  EXPECT_NE(std::string(sinter_rt_last_error()).find("not a cuda target"),
            std::string::npos);
}

TEST_F(RuntimeArtifact, WellFormedArtifactNeedsTheDriverOnlyAtLoad) {
  // A valid manifest gets as far as the driver: without a GPU that is a
  // driver error naming libcuda (never a crash); with one, the bogus cubin
  // is rejected by cuModuleLoadData.
  write("manifest.json", R"({"target": "cuda:sm_90a", "functions": [
      {"name": "main", "arguments": [{"name": "arg0", "kind": "buffer"}],
       "temps": [], "launches": []}]})");
  write("kernels.cubin", "not a cubin");
  sinter_rt_program *p = nullptr;
  int rc = sinter_rt_load(dir.c_str(), 0, &p);
  EXPECT_EQ(rc, SINTER_RT_ERROR_DRIVER);
  std::string error = sinter_rt_last_error();
  if (sinter_rt_cuda_available())
    EXPECT_NE(error.find("cuModuleLoadData"), std::string::npos) << error;
  else
    EXPECT_FALSE(error.empty());
}

TEST(Runtime, RunWithoutProgramIsAnArgumentError) {
  EXPECT_EQ(sinter_rt_run(nullptr, "main", nullptr, 0, nullptr),
            SINTER_RT_ERROR_ARGUMENT);
}

} // namespace
