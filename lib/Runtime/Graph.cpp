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
// and scalar values): arguments seen a second time are captured into a
// graph of their own, up to Function::Graph::kMaxGraphs of them.
//
//===----------------------------------------------------------------------===//

#include "Graph.h"

#include "Error.h"

#include <algorithm>
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

static void dropExec(Driver &d, Function::Graph::Captured &c) {
  if (c.exec)
    d.cuGraphExecDestroy(c.exec);
  c.exec = nullptr;
}

/// Captures `f`'s launches for `args` into a new graph (replacing the least
/// recently used one when kMaxGraphs are held).
static int capture(sinter_rt_program &p, Function &f, void *const *args,
                   std::vector<uint64_t> key, Function::Graph::Captured *&out) {
  Driver &d = *p.drv;
  Function::Graph &g = f.graph;
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
  CUgraphExec exec = nullptr;
  CUresult inst = d.cuGraphInstantiate(&exec, graph, 0);
  d.cuGraphDestroy(graph);
  if (inst != 0)
    return fail(SINTER_RT_ERROR_DRIVER,
                "cuGraphInstantiate for " + f.name + ": " + d.describe(inst));
  if (g.captured.size() == Function::Graph::kMaxGraphs) {
    auto oldest = std::min_element(
        g.captured.begin(), g.captured.end(),
        [](const auto &a, const auto &b) { return a.lastUse < b.lastUse; });
    dropExec(d, *oldest);
    g.captured.erase(oldest);
  }
  g.captured.push_back({std::move(key), exec, 0});
  out = &g.captured.back();
  return SINTER_RT_OK;
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
  auto it = std::find_if(g.captured.begin(), g.captured.end(),
                         [&](const auto &c) { return c.key == key; });
  Function::Graph::Captured *c = it == g.captured.end() ? nullptr : &*it;
  if (!c) {
    auto seen = std::find(g.seenOnce.begin(), g.seenOnce.end(), key);
    if (seen == g.seenOnce.end()) {
      // New arguments: run directly once on the graph's stream (cuBLASLt
      // allocates its workspace for that stream), capture on the next call.
      if (g.seenOnce.size() == Function::Graph::kMaxGraphs)
        g.seenOnce.erase(g.seenOnce.begin());
      g.seenOnce.push_back(std::move(key));
      ran = true;
      return onOwnStream(d, f, stream,
                         [&] { return runLaunches(p, f, args, g.stream); });
    }
    g.seenOnce.erase(seen);
    if (int rc = capture(p, f, args, std::move(key), c))
      return rc;
  }
  c->lastUse = ++g.clock;
  CUgraphExec exec = c->exec;
  ran = true;
  return onOwnStream(d, f, stream, [&]() -> int {
    SINTER_CU(&d, cuGraphLaunch(exec, g.stream), "cuGraphLaunch " + f.name);
    return SINTER_RT_OK;
  });
}

void sinter::rt::releaseGraphs(sinter_rt_program &p) {
  Driver &d = *p.drv;
  for (auto &[name, f] : p.functions) {
    Function::Graph &g = f.graph;
    for (Function::Graph::Captured &c : g.captured)
      dropExec(d, c);
    if (g.in)
      d.cuEventDestroy(g.in);
    if (g.out)
      d.cuEventDestroy(g.out);
    if (g.stream)
      d.cuStreamDestroy(g.stream);
    g = Function::Graph();
  }
}
