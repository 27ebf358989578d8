// The whole CUDA pipeline to PTX for each supported chip; no GPU needed.
// RUN: sinter-opt %s --sinter-lower-to-nvvm="chip=sm_90a format=isa" | FileCheck %s --check-prefix=SM90
// RUN: sinter-opt %s --sinter-lower-to-nvvm="chip=sm_80 format=isa" | FileCheck %s --check-prefix=SM80
// RUN: sinter-opt %s --sinter-lower-to-nvvm="chip=sm_89 format=isa" | FileCheck %s --check-prefix=SM89

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
func.func @rms(%x: tensor<64x4096xbf16>, %w: tensor<4096xbf16>) -> tensor<64x4096xbf16> {
  %y = sinter.rms_norm %x weight(%w : tensor<4096xbf16>) : tensor<64x4096xbf16> -> tensor<64x4096xbf16>
  return %y : tensor<64x4096xbf16>
}
