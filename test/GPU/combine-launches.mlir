// sinter-combine-launches: independent elementwise launches become one
// launch whose blocks run each member's body in turn; a launch that reads
// what another wrote, writes what another reads, or is not elementwise
// ends the group. Post-outlining IR, written by hand to pin each rule; the
// real GPT-2 partitions are checked in train-real-ir.test.
// RUN: sinter-opt %s --sinter-combine-launches --split-input-file | FileCheck %s

// Two casts (a 256- and a 96-thread block) and a library call between
// groups: one combined launch of 3 + 1 blocks of 256 threads, a block
// finding its member by binary search over the members' first blocks. The
// narrow member runs on its first 96 threads with its own block and grid
// sizes; the member kernels only the group launched are erased.
// CHECK-LABEL: gpu.module @kernels
// CHECK-NOT: gpu.func @cast_
// CHECK: gpu.func @gemm
// CHECK-NOT: gpu.func @cast_
// CHECK: gpu.func @combined_0({{.*}}) kernel attributes {known_block_size = array<i32: 256, 1, 1>, sinter.combined_kernels = ["cast_a", "cast_b"], sinter.elementwise_kernel}
// CHECK: %[[ID:.*]] = gpu.block_id x
// CHECK: %[[FIRST:.*]] = arith.cmpi ult, %[[ID]], %c3
// CHECK: scf.if %[[FIRST]] {
// CHECK: %[[L0:.*]] = arith.subi %[[ID]], %c0
// CHECK: arith.muli %[[L0]], %c256
// CHECK: } else {
// CHECK: %[[L1:.*]] = arith.subi %[[ID]], %c3
// CHECK: %[[T:.*]] = gpu.thread_id x
// CHECK: arith.cmpi ult, %[[T]], %c96
// CHECK: scf.if
// CHECK: arith.muli %[[L1]], %c96
// CHECK: arith.muli %c1{{.*}}, %c96
// CHECK-LABEL: func.func @casts
// CHECK: gpu.launch_func @kernels::@combined_0 blocks in (%c4, %{{.*}}, %{{.*}}) threads in (%c256{{.*}}, %{{.*}}, %{{.*}}) args(%{{.*}} : memref<768xf32>, %{{.*}} : memref<768xbf16>, %{{.*}} : memref<96xf32>, %{{.*}} : memref<96xbf16>)
// CHECK-NOT: @cast_
// CHECK: gpu.launch_func @kernels::@gemm
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @cast_a(%x: memref<768xf32>, %y: memref<768xbf16>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, sinter.elementwise_kernel} {
      %c256 = arith.constant 256 : index
      %b = gpu.block_id x
      %t = gpu.thread_id x
      %o = arith.muli %b, %c256 : index
      %i = arith.addi %o, %t : index
      %v = memref.load %x[%i] : memref<768xf32>
      %h = arith.truncf %v : f32 to bf16
      memref.store %h, %y[%i] : memref<768xbf16>
      gpu.return
    }
    gpu.func @cast_b(%x: memref<96xf32>, %y: memref<96xbf16>) kernel attributes {known_block_size = array<i32: 96, 1, 1>, sinter.elementwise_kernel} {
      %bd = gpu.block_dim x
      %g = gpu.grid_dim x
      %b = gpu.block_id x
      %t = gpu.thread_id x
      %o = arith.muli %b, %bd : index
      %i = arith.addi %o, %t : index
      %all = arith.muli %g, %bd : index
      %ok = arith.cmpi ult, %i, %all : index
      scf.if %ok {
        %v = memref.load %x[%i] : memref<96xf32>
        %h = arith.truncf %v : f32 to bf16
        memref.store %h, %y[%i] : memref<96xbf16>
      }
      gpu.return
    }
    gpu.func @gemm(%x: memref<768xbf16>, %y: memref<768xbf16>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      gpu.return
    }
  }
  func.func @casts(%a: tensor<768xf32>, %b: tensor<96xf32>) -> (tensor<768xbf16>, tensor<96xbf16>, tensor<768xbf16>) {
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c256 = arith.constant 256 : index
    %c96 = arith.constant 96 : index
    %0 = bufferization.to_buffer %a read_only : tensor<768xf32> to memref<768xf32>
    %1 = memref.alloc() : memref<768xbf16>
    gpu.launch_func @kernels::@cast_a blocks in (%c3, %c1, %c1) threads in (%c256, %c1, %c1) args(%0 : memref<768xf32>, %1 : memref<768xbf16>)
    %2 = bufferization.to_tensor %1 restrict writable : memref<768xbf16> to tensor<768xbf16>
    %3 = bufferization.to_buffer %b read_only : tensor<96xf32> to memref<96xf32>
    %4 = memref.alloc() : memref<96xbf16>
    gpu.launch_func @kernels::@cast_b blocks in (%c1, %c1, %c1) threads in (%c96, %c1, %c1) args(%3 : memref<96xf32>, %4 : memref<96xbf16>)
    %5 = bufferization.to_tensor %4 restrict writable : memref<96xbf16> to tensor<96xbf16>
    %6 = bufferization.to_buffer %2 read_only : tensor<768xbf16> to memref<768xbf16>
    %7 = memref.alloc() : memref<768xbf16>
    gpu.launch_func @kernels::@gemm blocks in (%c3, %c1, %c1) threads in (%c256, %c1, %c1) args(%6 : memref<768xbf16>, %7 : memref<768xbf16>)
    %8 = bufferization.to_tensor %7 restrict writable : memref<768xbf16> to tensor<768xbf16>
    return %2, %5, %8 : tensor<768xbf16>, tensor<96xbf16>, tensor<768xbf16>
  }
}

// -----

// A launch reading what the previous one wrote (through to_tensor and a
// read_only to_buffer), and one writing in place (a to_buffer without
// read_only) a buffer the previous one reads: three launches stay three.
// CHECK-LABEL: func.func @dependent
// CHECK: gpu.launch_func @kernels::@scale
// CHECK: gpu.launch_func @kernels::@scale
// CHECK: gpu.launch_func @kernels::@scale
// CHECK-NOT: combined
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%x: memref<256xf32>, %y: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, sinter.elementwise_kernel} {
      %t = gpu.thread_id x
      %v = memref.load %x[%t] : memref<256xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %y[%t] : memref<256xf32>
      gpu.return
    }
  }
  func.func @dependent(%a: tensor<256xf32>) -> (tensor<256xf32>, tensor<256xf32>) {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %0 = bufferization.to_buffer %a read_only : tensor<256xf32> to memref<256xf32>
    %1 = memref.alloc() : memref<256xf32>
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%0 : memref<256xf32>, %1 : memref<256xf32>)
    %2 = bufferization.to_tensor %1 restrict writable : memref<256xf32> to tensor<256xf32>
    %3 = bufferization.to_buffer %2 read_only : tensor<256xf32> to memref<256xf32>
    %4 = memref.alloc() : memref<256xf32>
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%3 : memref<256xf32>, %4 : memref<256xf32>)
    %5 = bufferization.to_tensor %4 restrict writable : memref<256xf32> to tensor<256xf32>
    %6 = bufferization.to_buffer %5 : tensor<256xf32> to memref<256xf32>
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%3 : memref<256xf32>, %6 : memref<256xf32>)
    %7 = bufferization.to_tensor %6 restrict writable : memref<256xf32> to tensor<256xf32>
    return %2, %7 : tensor<256xf32>, tensor<256xf32>
  }
}

// -----

// Kernels the outliner did not mark elementwise, and elementwise ones
// holding a barrier (a member may run in a wider block) or launched with
// dynamic shared memory, stay alone.
// CHECK-LABEL: func.func @not_members
// CHECK: gpu.launch_func @kernels::@row
// CHECK: gpu.launch_func @kernels::@synced
// CHECK: gpu.launch_func @kernels::@plain
// CHECK: gpu.launch_func @kernels::@plain
// CHECK-NOT: combined
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @row(%x: memref<256xf32>, %y: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      gpu.return
    }
    gpu.func @synced(%x: memref<256xf32>, %y: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, sinter.elementwise_kernel} {
      gpu.barrier
      gpu.return
    }
    gpu.func @plain(%x: memref<256xf32>, %y: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, sinter.elementwise_kernel} {
      gpu.return
    }
  }
  func.func @not_members(%a: tensor<256xf32>) {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %smem = arith.constant 1024 : i32
    %0 = bufferization.to_buffer %a read_only : tensor<256xf32> to memref<256xf32>
    %1 = memref.alloc() : memref<256xf32>
    %2 = memref.alloc() : memref<256xf32>
    %3 = memref.alloc() : memref<256xf32>
    %4 = memref.alloc() : memref<256xf32>
    gpu.launch_func @kernels::@row blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%0 : memref<256xf32>, %1 : memref<256xf32>)
    gpu.launch_func @kernels::@synced blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%0 : memref<256xf32>, %2 : memref<256xf32>)
    gpu.launch_func @kernels::@plain blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) dynamic_shared_memory_size %smem args(%0 : memref<256xf32>, %3 : memref<256xf32>)
    gpu.launch_func @kernels::@plain blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%0 : memref<256xf32>, %4 : memref<256xf32>)
    return
  }
}
