//===- CompileOptionsTest.cpp - The one table of compile options ----------===//
//
// Part of the Sinter project.
//
// sinterc's flags, the C API's option string and sinter.compile(**options)
// all read CompileOptions through compileOptionTable(): these tests check
// that every option of the fusion and CUDA pipelines' option structs is in
// it under its documented name (so a field added there needs nothing
// else), and that option strings set the embedded structs.
//
//===----------------------------------------------------------------------===//

#include "sinter/Target/CompileOptions.h"

#include <gtest/gtest.h>

#include <set>

using sinter::CompileOptionInfo;
using sinter::CompileOptions;

namespace {

const CompileOptionInfo *find(const std::string &name) {
  for (const CompileOptionInfo &info : sinter::compileOptionTable())
    if (info.name == name)
      return &info;
  return nullptr;
}

TEST(CompileOptions, EveryPipelineOptionIsInTheTable) {
  CompileOptions prototype;
  std::set<std::string> names;
  for (const CompileOptionInfo &info : sinter::compileOptionTable())
    EXPECT_TRUE(names.insert(info.name).second) << info.name;
  // The fusion pipeline's options keep their names; the CUDA pipeline's
  // are cuda-<name>, but attention-config; chip and format are the
  // compiler's.
  for (auto &[name, option] : prototype.fusion.all())
    EXPECT_TRUE(names.count(name)) << name;
  for (auto &[name, option] : prototype.cuda.all()) {
    if (name == "chip" || name == "format") {
      EXPECT_FALSE(names.count("cuda-" + name)) << name;
      continue;
    }
    EXPECT_TRUE(names.count(name == "attention-config" ? name : "cuda-" + name))
        << name;
  }
  for (const char *driver : {"target", "no-fusion", "emit"})
    EXPECT_TRUE(names.count(driver)) << driver;
  // What sinterc's help shows.
  ASSERT_NE(find("no-fusion"), nullptr);
  EXPECT_TRUE(find("no-fusion")->isFlag);
  EXPECT_TRUE(find("allow-rng-change")->isFlag);
  EXPECT_FALSE(find("target")->isFlag);
  EXPECT_EQ(find("target")->valueName, "target");
  EXPECT_EQ(find("cuda-row-vectors")->groupName, "row-vectors");
  EXPECT_EQ(find("cuda-row-vectors")->group, CompileOptionInfo::Group::CUDA);
  EXPECT_EQ(find("allow-rng-change")->group, CompileOptionInfo::Group::Fusion);
}

TEST(CompileOptions, AStringSetsTheEmbeddedOptions) {
  CompileOptions options;
  EXPECT_EQ(options.driver.target, "cpu");
  EXPECT_FALSE(options.fusion.allowRngChange);
  std::string error;
  ASSERT_TRUE(options.parse("  target=cuda:sm_80 --no-fusion emit=ptx "
                            "allow-rng-change attention-config=wgmma,warps=4,"
                            "mtiles=1,bn=64 cuda-row-vectors=4 "
                            "report=\"a file.json\" cuda-matmul=kernel",
                            error))
      << error;
  EXPECT_EQ(options.driver.target, "cuda:sm_80");
  EXPECT_TRUE(options.driver.noFusion);
  EXPECT_EQ(options.driver.emit, sinter::EmitKind::PTX);
  EXPECT_TRUE(options.fusion.allowRngChange);
  EXPECT_EQ(options.fusion.reportFile, "a file.json");
  EXPECT_EQ(options.cuda.attentionConfig, "wgmma,warps=4,mtiles=1,bn=64");
  EXPECT_EQ(options.cuda.rowVectors, 4);
  EXPECT_EQ(options.cuda.matmul, "kernel");
  ASSERT_TRUE(options.parse("no-fusion=false allow-rng-change=0", error))
      << error;
  EXPECT_FALSE(options.driver.noFusion);
  EXPECT_FALSE(options.fusion.allowRngChange);
  EXPECT_TRUE(options.parse("", error));
}

TEST(CompileOptions, ErrorsNameTheOption) {
  CompileOptions options;
  std::string error;
  EXPECT_FALSE(options.parse("target=cpu tpu=1", error));
  EXPECT_EQ(error, "unknown option 'tpu'");
  EXPECT_FALSE(options.parse("cuda-row-vectors=four", error));
  EXPECT_EQ(error, "option 'cuda-row-vectors': invalid value 'four'");
  EXPECT_FALSE(options.parse("emit=obj", error));
  EXPECT_EQ(error, "option 'emit': invalid value 'obj'");
  EXPECT_FALSE(options.parse("target", error));
  EXPECT_EQ(error, "option 'target' needs a value (target=<target>)");
  EXPECT_FALSE(options.parse("report=\"x.json", error));
  EXPECT_EQ(error, "option 'report': unterminated quoted value");
  EXPECT_FALSE(options.parse("=cpu", error));
  EXPECT_EQ(error, "an option without a name");
  // The compiler's own CUDA options are not users'.
  EXPECT_FALSE(options.parse("cuda-chip=sm_80", error));
  EXPECT_EQ(error, "unknown option 'cuda-chip'");
}

} // namespace
