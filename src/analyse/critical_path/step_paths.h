// The critical path of a profile's window steps event by event, for a trace that shows it on the
// timeline (perfgate analyze --annotated-trace): the steps and the path the worker's analysis finds
// (the same attribution, steps, window and graph, analyse.cpp), kept as the events on the path
// rather than summed by name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyse/analysis_options.h"
#include "analyse/critical_path/critical_path_results.h"
#include "model/profile.h"

namespace perfgate {

struct Classification;

// Which record a stretch of the path belongs to.
enum class PathRecord : std::uint8_t { HostEvent, RuntimeCall, GpuActivity };

// One timed edge of a step's path: [start, start + time) of the event's time on the path.
struct PathStretchEvent {
  PathRecord record = PathRecord::HostEvent;
  PathBound bound = PathBound::Cpu;
  std::uint32_t index = 0;  // into Profile::host_events, runtime_calls or gpu_activities
  TimeNs start = 0;
  TimeNs time = 0;
};

struct AnnotatedStep {
  std::string name;  // "ProfilerStep#12"; "window" for the window without steps
  std::optional<std::int64_t> number;
  TimeNs start = 0;  // the step as analysed (Step::start, Step::end): its step time
  TimeNs end = 0;
  TimeNs host_start = 0;  // the host range its path is built over
  TimeNs host_end = 0;
  TimeNs path_length = 0;
  bool has_path = false;               // the path was walked (one of the first steps asked for)
  std::vector<PathStretchEvent> path;  // in path order; empty unless has_path
};

struct AnnotatedSteps {
  std::vector<AnnotatedStep> steps;  // the window's steps in order (one "window" step without steps)
  TimeNs window_start = 0;
  TimeNs window_end = 0;
};

// The window's steps of `profile` as `options` select them, and the critical path of the first
// `path_steps` of them (0: every step). A Neuron device profile, or one without host events or
// runtime calls, has steps but no path. Throws ConfigError as the analysis does (a window that
// selects no step, a pattern that does not compile).
AnnotatedSteps annotated_steps(const Profile& profile, const Classification& classification,
                               const AnalysisOptions& options, std::size_t path_steps);

}  // namespace perfgate
