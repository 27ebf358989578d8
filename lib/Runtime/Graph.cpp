//===- Graph.cpp - Launch sequences replayed as CUDA graphs ---------------===//
//
// Part of the Sinter project.
//
// A whole model is a few hundred launches; issuing them costs the host
// ~2 us each. SINTER_CUDA_GRAPH=1 captures a function's launches once into
// a CUDA graph on a stream of the runtime's own and replays it: the
// caller's stream waits for nothing but the graph, and the graph waits for
// the caller's stream (two events), so ordering is as with direct launches.
// A graph is valid for the arguments it was captured with (their pointers
// and scalar values): other arguments capture again.
//
//===----------------------------------------------------------------------===//

#include "Graph.h"

#include "Error.h"

#include <cstdlib>
#include <cstring>

using namespace sinter::rt;

static bool graphsRequested() {
  const char *v = std::getenv("SINTER_CUDA_GRAPH");
  return v && std::strcmp(v, "0") != 0 && std::strcmp(v, "") != 0;
}

/// What a captured graph depends on: each argument's pointer, or a scalar's
/// bits (at most 8 bytes).
static std::vector<uint64_t> keyOf(const Function &f, void *const *args) {
  std::vector<uint64_t> key(f.argumentNames.size());
  for (size_t i = 0; i < key.size(); ++i) {
    if (f.argumentIsScalar[i])
      std::memcpy(&key[i], args[i], 8);
    else
      key[i] = reinterpret_cast<uint64_t>(args[i]);
  }
  return key;
}

static void dropExec(Driver &d, Function::Graph &g) {
  if (g.exec)
    d.cuGraphExecDestroy(g.exec);
  g.exec = nullptr;
}

/// `stream`'s work before this point, then `work` on the graph's stream,
/// then `stream` waits for it.
template <typename Work>
static int onOwnStream(Driver &d, Function &f, CUstream stream, Work work) {
  Function::Graph &g = f.graph;
  SINTER_CU(&d, cuEventRecord(g.in, stream), "cuEventRecord in " + f.name);
  SINTER_CU(&d, cuStreamWaitEvent(g.stream, g.in, 0),
            "cuStreamWaitEvent in " + f.name);
  if (int rc = work())
    return rc;
  SINTER_CU(&d, cuEventRecord(g.out, g.stream), "cuEventRecord in " + f.name);
  SINTER_CU(&d, cuStreamWaitEvent(stream, g.out, 0),
            "cuStreamWaitEvent in " + f.name);
  return SINTER_RT_OK;
}

int sinter::rt::runAsGraph(sinter_rt_program &p, Function &f, void *const *args,
                           CUstream stream, bool &ran) {
  ran = false;
  Driver &d = *p.drv;
  if (!graphsRequested() || !d.hasGraphs() || std::getenv("SINTER_CUDA_SYNC"))
    return SINTER_RT_OK;
  Function::Graph &g = f.graph;
  if (!g.stream) {
    SINTER_CU(&d, cuStreamCreate(&g.stream, kStreamNonBlocking),
              "cuStreamCreate for " + f.name);
    SINTER_CU(&d, cuEventCreate(&g.in, kEventDisableTiming), "cuEventCreate");
    SINTER_CU(&d, cuEventCreate(&g.out, kEventDisableTiming), "cuEventCreate");
  }
  std::vector<uint64_t> key = keyOf(f, args);
  if (key != g.key) {
    // New arguments: run directly once on the graph's stream (cuBLASLt
    // allocates its workspace for that stream), capture on the next call.
    dropExec(d, g);
    g.key = std::move(key);
    ran = true;
    return onOwnStream(d, f, stream,
                       [&] { return runLaunches(p, f, args, g.stream); });
  }
  if (!g.exec) {
    CUgraph graph = nullptr;
    SINTER_CU(&d, cuStreamBeginCapture(g.stream, kCaptureModeRelaxed),
              "cuStreamBeginCapture for " + f.name);
    int rc = runLaunches(p, f, args, g.stream);
    CUresult end = d.cuStreamEndCapture(g.stream, &graph);
    if (rc)
      return rc;
    if (end != 0)
      return fail(SINTER_RT_ERROR_DRIVER,
                  "cuStreamEndCapture for " + f.name + ": " + d.describe(end));
    CUresult inst = d.cuGraphInstantiate(&g.exec, graph, 0);
    d.cuGraphDestroy(graph);
    if (inst != 0)
      return fail(SINTER_RT_ERROR_DRIVER,
                  "cuGraphInstantiate for " + f.name + ": " + d.describe(inst));
  }
  ran = true;
  return onOwnStream(d, f, stream, [&]() -> int {
    SINTER_CU(&d, cuGraphLaunch(g.exec, g.stream), "cuGraphLaunch " + f.name);
    return SINTER_RT_OK;
  });
}

void sinter::rt::releaseGraphs(sinter_rt_program &p) {
  Driver &d = *p.drv;
  for (auto &[name, f] : p.functions) {
    Function::Graph &g = f.graph;
    dropExec(d, g);
    if (g.in)
      d.cuEventDestroy(g.in);
    if (g.out)
      d.cuEventDestroy(g.out);
    if (g.stream)
      d.cuStreamDestroy(g.stream);
    g = Function::Graph();
  }
}
