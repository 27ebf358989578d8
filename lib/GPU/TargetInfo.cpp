//===- TargetInfo.cpp - Facts about the NVIDIA chips ----------------------===//
//
// Part of the Sinter project.
//
// Sources: the CUDA C++ Programming Guide's "Technical Specifications per
// Compute Capability" (threads, blocks and shared memory per SM and block,
// registers), the PTX ISA's "PTX Target Architectures" (the first PTX ISA
// version of each target; LLVM's NVPTX backend refuses older ones), and
// the parts' data sheets (SM counts).
//
//===----------------------------------------------------------------------===//

#include "TargetInfo.h"

#include "llvm/ADT/StringExtras.h"

using namespace sinter::gpu_kernels;

static constexpr int64_t KiB = 1024;

// Ascending smVersion.
static constexpr ChipInfo kChips[] = {
    // smVersion, part, SMs, PTX, shared/block, threads/SM, blocks/SM, regs/SM
    {80, "A100", 108, 70, 163 * KiB, 2048, 32, 65536},
    {86, "A40", 84, 71, 99 * KiB, 1536, 16, 65536},
    {89, "L40S", 142, 78, 99 * KiB, 1536, 24, 65536},
    {90, "H100 SXM, H200", 132, 80, 227 * KiB, 2048, 32, 65536},
    {100, "B200", 148, 86, 227 * KiB, 2048, 32, 65536},
    {120, "RTX PRO 6000 Blackwell", 188, 87, 99 * KiB, 1536, 32, 65536},
};

/// Chips before sm_80 (no Sinter kernel needs them; the memory-bound ones
/// compile for them): sm_80's limits, PTX 8.0 and 132 SMs as before this
/// table.
static constexpr ChipInfo kOlderChip = {
    0, "(before sm_80)", 132, 80, 163 * KiB, 2048, 32, 65536};

const ChipInfo &sinter::gpu_kernels::chipInfo(int64_t smVersion) {
  const ChipInfo *found = &kOlderChip;
  for (const ChipInfo &c : kChips)
    if (c.smVersion <= smVersion)
      found = &c;
  return *found;
}

std::string sinter::gpu_kernels::ptxFeature(int64_t ptxVersion) {
  return "+ptx" + std::to_string(ptxVersion);
}

int64_t sinter::gpu_kernels::smVersionOf(llvm::StringRef chip) {
  int64_t version = 0;
  chip = chip.trim();
  if (!chip.consume_front("sm_") ||
      chip.take_while(llvm::isDigit).getAsInteger(10, version))
    return 0;
  return version;
}
