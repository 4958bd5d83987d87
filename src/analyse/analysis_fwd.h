// The analysis stage's types by name only (CLI11's *Fwd.hpp): a header that passes them by
// reference, or declares a function that returns one, includes this rather than their definitions
// (analyse/analysis.h, analyse/worker_analysis.h).
#pragma once

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

}  // namespace perfgate
