#include "load/nsys/nsys_reader.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/errors.h"
#include "load/nsys/capture.h"

namespace perfgate::nsys {
namespace {

void require_nsys_tables(const SqliteDb& db) {
  for (const char* table :
       {"StringIds", "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS",
        "TARGET_INFO_GPU", "TARGET_INFO_CUDA_DEVICE", "META_DATA_EXPORT", "EXPORT_META_DATA"})
    if (db.has_table(table)) return;
  throw NotAProfileError(
      fmt::format("{}: an SQLite database but not an Nsight Systems export (none of StringIds, "
                  "CUPTI_ACTIVITY_KIND_*, NVTX_EVENTS, TARGET_INFO_GPU or META_DATA_EXPORT) nor a rocprof v1 "
                  "results.db (none of its tables HIP, OPS, COPY or KERN with BeginNs and EndNs)",
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

// Each op range directly inside an op range of the same name on its thread is one call marked at
// several levels (PyProf marks torch.nn.functional.relu and torch.relu, emit_nvtx then aten::relu,
// all read as aten::relu): it folds into the outermost, which keeps its own shapes, types and
// sequence number and takes an inner level's where it has none. Needs the host tree; rebuilds it.
// Returns the ranges folded.
std::size_t fold_nested_ops(Profile& p) {
  std::vector<HostEvent>& events = p.host_events;
  std::vector<std::uint8_t> folded(events.size(), 0);
  std::vector<std::uint32_t> outermost(events.size(), kNone);
  std::size_t count = 0;
  for (std::uint32_t i = 0; i < events.size(); ++i) {
    HostEvent& e = events[i];
    std::uint32_t parent = e.parent;
    if (e.kind != HostKind::Op || parent == kNone) continue;
    std::uint32_t outer = folded[parent] ? outermost[parent] : parent;
    if (events[parent].kind != HostKind::Op || events[parent].name != e.name) continue;
    folded[i] = 1;
    outermost[i] = outer;
    ++count;
    if (e.details == kNone) continue;
    HostEvent& o = events[outer];
    if (o.details == kNone) {
      o.details = e.details;
      continue;
    }
    OpDetails& keep = p.op_details[o.details];
    const OpDetails& inner = p.op_details[e.details];
    if (keep.input_dims == kNoString) keep.input_dims = inner.input_dims;
    if (keep.input_types == kNoString) keep.input_types = inner.input_types;
    if (keep.sequence_number < 0) keep.sequence_number = inner.sequence_number;
    if (keep.call_stack == kNoString) keep.call_stack = inner.call_stack;
  }
  if (count == 0) return 0;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < events.size(); ++i)
    if (!folded[i]) events[kept++] = events[i];
  events.resize(kept);
  build_host_tree(p);
  return count;
}

void finish(Profile& p, const NvtxSummary& nvtx, ExportOptions options) {
  sort_by_start(p);
  if (std::size_t missing = kernels_without_launch(p); missing > 0)
    p.notes.push_back(note<NoteId::nsys_kernels_without_launch>(arg<"count">(missing)));
  if (nvtx.cross_thread > 0)
    p.notes.push_back(note<NoteId::nsys_nvtx_cross_thread>(arg<"count">(nvtx.cross_thread)));
  if (std::size_t overlapping = build_host_tree(p); overlapping > 0)
    p.notes.push_back(note<NoteId::nsys_nvtx_overlap>(arg<"count">(overlapping)));
  if (!options.fold_nested_ops) return;
  if (std::size_t folded = fold_nested_ops(p); folded > 0)
    p.notes.push_back(note<NoteId::nsys_nested_ops_folded>(arg<"count">(folded)));
}

}  // namespace

void read_export(const ByteInput& input, const std::string& worker,
                 const std::function<void(Profile&&)>& emit, ExportOptions options) {
  SqliteDb db(input, options.max_memory);
  const std::string& path = input.name();
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
      for (Note& skipped : capture.skipped_notes()) p.notes.push_back(std::move(skipped));
      finish(p, nvtx, options);
    }
    describe(p);
    p.worker = processes.size() > 1 ? fmt::format("{}-pid{}", worker, pid_of(key)) : worker;
    p.info.family = trace_family(p);
    emit(std::move(p));
  }
}

}  // namespace perfgate::nsys
