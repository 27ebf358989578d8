//===- Graph.h - Launch sequences replayed as CUDA graphs -------*- C++ -*-===//
//
// Part of the Sinter project.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_RUNTIME_GRAPH_H
#define SINTER_LIB_RUNTIME_GRAPH_H

#include "Program.h"

namespace sinter::rt {

/// Runs `f`'s launches (kernels and library calls) on `stream`, in order
/// (Launch.cpp).
int runLaunches(sinter_rt_program &p, Function &f, void *const *args,
                CUstream stream);

/// With SINTER_CUDA_GRAPH=1 and a driver that can capture: runs `f` as a
/// CUDA graph of its launches, captured on the second call with the same
/// arguments (the first allocates what capture cannot) and replayed after;
/// `ran` is false when the caller must launch as usual (graphs off, or the
/// driver lacks them). Host cost per call: five driver calls instead of one
/// per launch.
int runAsGraph(sinter_rt_program &p, Function &f, void *const *args,
               CUstream stream, bool &ran);

/// Destroys the graphs, streams and events of `p`'s functions.
void releaseGraphs(sinter_rt_program &p);

} // namespace sinter::rt

#endif // SINTER_LIB_RUNTIME_GRAPH_H
