// The Kineto / Chrome JSON trace, plain or gzip, as formats of the registry (load/reader.h).
#include <fmt/format.h>

#include "io/gzip.h"
#include "load/kineto/kineto_reader.h"
#include "load/reader.h"
#include "perfgate/errors.h"

namespace perfgate {
namespace {

// What the profiler recorded with a time: without any, a trace is only metadata (threads, GPUs,
// distributedInfo) and every metric would be n/a or 0, which a gate must not pass as a run.
bool holds_activity(const Profile& p) {
  return !p.host_events.empty() || !p.runtime_calls.empty() || !p.gpu_activities.empty() ||
         !p.gpu_ranges.empty() || !p.memory_samples.empty();
}

void read_kineto(const ReaderInput& in, bool gzip, const ProfileSink& emit) {
  const std::string& path = in.file.path;
  // A plain file is mapped and parsed where it lies. A .json.gz read in pieces is inflated by the
  // thread that cuts them while the others parse; a one-thread read inflates ahead.
  auto open = [&]() -> std::unique_ptr<ByteSource> {
    return gzip ? open_gzip_file(path, in.threads <= 1) : open_plain_file(path);
  };
  Profile profile = kineto::read_trace(
      open, path, in.progress,
      {.driver_calls = !in.options.classification || in.options.classification->count_driver_api_calls,
       .threads = in.threads,
       .max_memory = in.options.max_input_memory});
  if (!holds_activity(profile))
    throw InputError(
        fmt::format("{}: holds no profiled activity (no CPU op, annotation, CUDA/HIP call, GPU "
                    "activity or allocator event)",
                    path));
  profile.worker = in.file.worker;
  profile.info.family = trace_family(profile);
  emit(std::move(profile));
}

// Any JSON document no other reader claims is read as a Chrome trace (a bare array of events too).
Sniffed sniff_json(const FileHead& head) {
  return head.json().empty() ? Sniffed::No : Sniffed::Maybe;
}

// Any gzip file: what it holds is known only once inflated, and a Kineto trace is what is
// compressed (the legacy exporter never compresses; docs/formats.md).
Sniffed sniff_gzip(const FileHead& head) {
  return is_gzip(head.bytes()) ? Sniffed::Yes : Sniffed::No;
}

}  // namespace

extern const Reader kKinetoJsonReader{
    "kineto-json", "a Kineto JSON trace (plain or gzip)", sniff_json,
    [](const ReaderInput& in, const ProfileSink& emit) { read_kineto(in, false, emit); }};
extern const Reader kKinetoJsonGzipReader{
    "kineto-json.gz", nullptr, sniff_gzip,
    [](const ReaderInput& in, const ProfileSink& emit) { read_kineto(in, true, emit); }};

}  // namespace perfgate
