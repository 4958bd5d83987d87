#include "load/nsys/nsys_reader.h"

#include <algorithm>

#include <fmt/format.h>

#include "load/nsys/capture.h"
#include "perfgate/errors.h"

namespace perfgate::nsys {
namespace {

void require_nsys_tables(const SqliteDb& db) {
  for (const char* table :
       {"StringIds", "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS",
        "TARGET_INFO_GPU", "TARGET_INFO_CUDA_DEVICE", "META_DATA_EXPORT", "EXPORT_META_DATA"})
    if (db.has_table(table)) return;
  throw NotAProfileError(
      fmt::format("{}: an SQLite database but not an Nsight Systems export (none of StringIds, "
                  "CUPTI_ACTIVITY_KIND_*, NVTX_EVENTS, TARGET_INFO_GPU or META_DATA_EXPORT)",
                  db.path()));
}

std::size_t kernels_without_launch(const Profile& p) {
  std::vector<std::int64_t> launched;
  launched.reserve(p.runtime_calls.size());
  for (const RuntimeCall& r : p.runtime_calls) launched.push_back(r.correlation);
  std::sort(launched.begin(), launched.end());
  std::size_t missing = 0;
  for (const GpuActivity& a : p.gpu_activities)
    missing += a.kind == GpuActivityKind::Kernel &&
               !std::binary_search(launched.begin(), launched.end(), a.correlation);
  return missing;
}

void finish(Profile& p, const NvtxSummary& nvtx) {
  sort_by_start(p);
  if (std::size_t missing = kernels_without_launch(p); missing > 0)
    p.notes.push_back(fmt::format(
        "{} kernels have no launch call in the export (launched before the captured window): they are "
        "counted (kernels.without_launch) and shown, attributed to no op",
        missing));
  if (nvtx.cross_thread > 0)
    p.notes.push_back(fmt::format(
        "{} NVTX start/end ranges ended on another thread than they started; each is attributed by time "
        "containment within the process (placed on the thread that made the most CUDA calls during it)",
        nvtx.cross_thread));
  if (std::size_t overlapping = build_host_tree(p); overlapping > 0)
    p.notes.push_back(
        fmt::format("{} NVTX ranges overlap a sibling instead of nesting; each was attached to the nearest "
                    "range containing it",
                    overlapping));
}

}  // namespace

void read_export(const std::string& path, const std::string& worker,
                 const std::function<void(Profile&&)>& emit) {
  SqliteDb db(path);
  require_nsys_tables(db);
  ProfileInfo info;
  info.format = "nsys-sqlite";
  info.step_marking = StepMarking::NvtxRanges;
  info.window_spans_capture = true;
  read_export_info(db, info);
  std::vector<DeviceInfo> gpus = read_gpus(db);
  auto describe = [&](Profile& p) {
    p.info = info;
    p.devices = gpus;
    p.source_path = path;
  };

  std::vector<std::int64_t> processes = worker_processes(db);
  // An empty capture (GPUs listed, nothing ran) would pass the gate as a run with nothing to
  // measure.
  if (processes.empty())
    throw InputError(fmt::format(
        "{}: holds no profiled activity (no kernel, memory copy, memset, CUDA call or NVTX range)", path));
  for (std::int64_t key : processes) {
    Profile p;
    {
      Capture capture(db, key);
      read_runtime_calls(capture);  // sorted by start: start/end ranges are placed by them
      read_gpu_activities(capture);
      read_syncs(capture);
      NvtxSummary nvtx = read_nvtx(capture);
      p = std::move(capture.process().profile);
      for (std::string& note : capture.skipped_notes()) p.notes.push_back(std::move(note));
      finish(p, nvtx);
    }
    describe(p);
    p.worker = processes.size() > 1 ? fmt::format("{}-pid{}", worker, pid_of(key)) : worker;
    p.info.family = trace_family(p);
    emit(std::move(p));
  }
}

}  // namespace perfgate::nsys
