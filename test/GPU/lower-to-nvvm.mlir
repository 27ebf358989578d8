// The whole CUDA pipeline to PTX for each supported chip; no GPU needed.
// RUN: sinter-opt %s --sinter-lower-to-nvvm="chip=sm_90a format=isa" | FileCheck %s --check-prefix=SM90
// RUN: sinter-opt %s --sinter-lower-to-nvvm="chip=sm_80 format=isa" | FileCheck %s --check-prefix=SM80
// RUN: sinter-opt %s --sinter-lower-to-nvvm="chip=sm_89 format=isa" | FileCheck %s --check-prefix=SM89
// Each chip gets the first PTX ISA that knows it (lib/GPU/TargetInfo.cpp;
// NVPTX refuses older ones): sm_86 7.1, sm_100a 8.6, sm_120 8.7.
// RUN: sinter-opt %s --sinter-lower-to-nvvm="chip=sm_86 format=isa" | FileCheck %s --check-prefix=SM86
// RUN: sinter-opt %s --sinter-lower-to-nvvm="chip=sm_100a format=isa" | FileCheck %s --check-prefix=SM100
// RUN: sinter-opt %s --sinter-lower-to-nvvm="chip=sm_120 format=isa" | FileCheck %s --check-prefix=SM120

// SM90: gpu.binary @sinter_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80"
// SM90-SAME: .target sm_90a
// SM90-SAME: .entry rms_norm_0
// SM90-SAME: ld.global.v4.b32
// SM90-SAME: shfl.sync.bfly.b32
// SM90-SAME: st.global.v4.b32
// SM80: chip = "sm_80", features = "+ptx70"
// SM80-SAME: .target sm_80
// SM89: chip = "sm_89", features = "+ptx78"
// SM89-SAME: .target sm_89
// SM86: chip = "sm_86", features = "+ptx71"
// SM86-SAME: .target sm_86
// SM100: chip = "sm_100a", features = "+ptx86"
// SM100-SAME: .target sm_100a
// SM120: chip = "sm_120", features = "+ptx87"
// SM120-SAME: .target sm_120
func.func @rms(%x: tensor<64x4096xbf16>, %w: tensor<4096xbf16>) -> tensor<64x4096xbf16> {
  %y = sinter.rms_norm %x weight(%w : tensor<4096xbf16>) : tensor<64x4096xbf16> -> tensor<64x4096xbf16>
  return %y : tensor<64x4096xbf16>
}
