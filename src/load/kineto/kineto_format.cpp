// The Kineto / Chrome JSON trace, plain or gzip, as formats of the registry (load/reader.h).
#include <fmt/format.h>

#include "common/errors.h"
#include "load/kineto/kineto_reader.h"
#include "load/reader.h"

namespace perfgate {
namespace {

// What the profiler recorded with a time: without any, a trace is only metadata (threads, GPUs,
// distributedInfo) and every metric would be n/a or 0, which a gate must not pass as a run.
bool holds_activity(const Profile& p) {
  return !p.host_events.empty() || !p.runtime_calls.empty() || !p.gpu_activities.empty() ||
         !p.gpu_ranges.empty() || !p.memory_samples.empty();
}

// A plain file is mapped and parsed where it lies. A .json.gz read in pieces is inflated by the
// thread that cuts them while the others parse; a one-thread read inflates ahead.
void read(const ReaderInput& in, const ProfileSink& emit) {
  const std::string& path = in.name();
  auto open = [&] { return in.bytes.open({.inflate_ahead = in.threads <= 1}); };
  Profile profile = kineto::read_trace(open, path, in.progress,
                                       {.driver_calls = in.options.read.count_driver_api_calls,
                                        .threads = in.threads,
                                        .max_memory = in.options.max_input_memory});
  if (!holds_activity(profile))
    throw InputError(
        fmt::format("{}: holds no profiled activity (no CPU op, annotation, CUDA/HIP call, GPU "
                    "activity or allocator event)",
                    path));
  profile.worker = in.worker;
  profile.info.family = trace_family(profile);
  emit(std::move(profile));
}

// Any JSON document no other reader claims is read as a Chrome trace (a bare array of events too).
Sniffed sniff_json(const FileHead& head) {
  return !head.inflated() && !head.json().empty() ? Sniffed::Maybe : Sniffed::No;
}

// Any gzip file whose inflated head no other reader claims, JSON or not (a stream that does not
// inflate too: the reading says what is wrong with it): a Kineto trace is what is compressed. Its
// name in reports is the format's own, "kineto-json.gz", where the other formats keep theirs.
Sniffed sniff_gzip(const FileHead& head) {
  return head.inflated() ? Sniffed::Maybe : Sniffed::No;
}

}  // namespace

extern const Reader kKinetoJsonReader{"kineto-json", "a Kineto JSON trace (plain or gzip)", sniff_json, read};
extern const Reader kKinetoJsonGzipReader{"kineto-json.gz", nullptr, sniff_gzip, read};

}  // namespace perfgate
