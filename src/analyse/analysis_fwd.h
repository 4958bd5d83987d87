// The analysis stage's types by name only (CLI11's *Fwd.hpp): a header that passes them by
// reference, or declares a function that returns one, includes this rather than their definitions
// (analyse/analysis.h, analyse/worker_analysis.h).
#pragma once

#include <deque>

namespace perfgate {

struct AnalysisOptions;
struct PartialRun;
struct RunAnalysis;
struct RunTables;
struct WindowOptions;
struct WorkerAnalysis;
struct WorkerTables;
class RunCombiner;
class WorkerAnalyser;

// A run's workers, each in a block of its own (a deque of one worker a block): moved out of the
// RunCombiner's nodes into blocks of the same size, and freed one by one as the report takes them
// apart, so that the heap reuses their memory (issue 78: 65,536 tiny ranks made a contiguous list
// of 301 MB that no freed node could fill, and the report's sections took new pages beside it).
using WorkerList = std::deque<WorkerAnalysis>;

}  // namespace perfgate
