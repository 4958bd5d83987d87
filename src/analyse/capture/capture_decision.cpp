#include "analyse/capture/capture_decision.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include <fmt/format.h>

#include "analyse/ops/warmup.h"
#include "model/memory_snapshot.h"

namespace perfgate {
namespace {

// Evidence quotes a name at most this long: a Python function's full path runs to hundreds of bytes.
constexpr std::size_t kQuotedNameChars = 80;

std::string quoted(std::string_view name) {
  if (name.size() <= kQuotedNameChars) return std::string(name);
  return std::string(name.substr(0, kQuotedNameChars)) + "…";
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return out;
}

// ---- Devices ----

struct DeviceKey {
  DeviceKind kind = DeviceKind::Unknown;
  DeviceVendor vendor = DeviceVendor::Unknown;
};

// A GPU's kind and vendor from what its reader and the analysis named: the XPlane reader names a
// TPU "TPU ..." (its device_type_string); the rules' gpu_architectures give the vendor of the
// architecture the device's name or compute capability named; an AMD family the rules do not list
// is named by its ISA (gfx90x); any other described GPU (a compute capability) is NVIDIA's.
DeviceKey device_key(const CompiledClassification& c, const GpuMetrics& g) {
  if (g.name.starts_with("TPU")) return {DeviceKind::Tpu, DeviceVendor::Tpu};
  if (g.name.starts_with("MTIA")) return {DeviceKind::Mtia, DeviceVendor::Mtia};  // the Kineto reader's name
  std::string vendor;
  if (const GpuArchitecture* a = c.architecture_of_device(g.name)) vendor = lower(a->vendor);
  if (vendor.empty() && !g.architecture.empty())
    for (const GpuArchitecture& a : c.gpu_architectures)
      if (a.name == g.architecture) vendor = lower(a.vendor);
  if (vendor.empty() && g.architecture.starts_with("gfx")) vendor = "amd";
  if (vendor.empty() && (!g.architecture.empty() || g.compute_major >= 0)) vendor = "nvidia";
  std::optional<DeviceVendor> v = capture_enum_named<DeviceVendor>(kDeviceVendorNames, vendor);
  if (!v) return {DeviceKind::Unknown, DeviceVendor::Unknown};
  return {DeviceKind::Gpu, *v};
}

// The model as the rules' peak table names it ("AMD Instinct MI300X": the loader names an unnamed
// device by its properties), else as the trace does; unknown where the trace names none (an
// architecture inferred from kernel names is no model: sm80 kernels run on an H100 too).
std::string device_model(const CompiledClassification& c, const GpuMetrics& g) {
  if (g.name == "MTIA") return "";  // the Kineto reader's name of an MTIA no device description names
  if (const GpuPeak* peak = c.gpu_peak(g.name); peak && !peak->name.empty()) return peak->name;
  return g.name;
}

// Events on lanes the trace declares a device's, of categories its reader does not read (the Kineto
// reader's input_skipped notes with a "device_events" count, load/kineto/block_merger.cpp): device
// work the profile holds none of.
std::int64_t unread_device_events(const Profile& profile) {
  std::int64_t total = 0;
  for (const Note& n : profile.notes) {
    if (n.id != NoteId::input_skipped) continue;
    for (const NoteArg& a : n.args)
      if (a.name == "device_events" && std::holds_alternative<std::int64_t>(a.value))
        total += std::get<std::int64_t>(a.value);
  }
  return total;
}

std::vector<CaptureDevices> decide_devices(const Profile& profile, const CompiledClassification& c,
                                           const WorkerAnalysis& w) {
  if (profile.info.family == DeviceFamily::Neuron)
    return {{DeviceKind::NeuronCore, DeviceVendor::Neuron, "", 1,
             "a Neuron device profile (neuron-profile): one NeuronCore's instructions and DMA"}};
  if (std::int64_t unread = unread_device_events(profile);
      profile.info.family == DeviceFamily::CpuOnly && unread > 0)
    return {
        {DeviceKind::Unknown, DeviceVendor::Unknown, "", 0,
         fmt::format("no device activity read, but {} events on lanes the trace declares a device's are of "
                     "categories perfgate does not read (the run warnings name them)",
                     unread)}};
  if (profile.info.family == DeviceFamily::CpuOnly)
    return {{DeviceKind::CpuOnly, DeviceVendor::Unknown, "", 0,
             profile.devices.empty()
                 ? std::string("no GPU activity and no device in the trace")
                 : fmt::format("no GPU activity; the trace lists {} device(s) that ran nothing",
                               profile.devices.size())}};
  std::vector<CaptureDevices> out;
  for (const GpuMetrics& g : w.gpus) {
    DeviceKey key = device_key(c, g);
    std::string model = device_model(c, g);
    auto same = [&](const CaptureDevices& d) {
      return d.kind == key.kind && d.vendor == key.vendor && d.model == model;
    };
    auto it = std::find_if(out.begin(), out.end(), same);
    if (it == out.end()) it = out.insert(out.end(), CaptureDevices{key.kind, key.vendor, model, 0, ""});
    ++it->count;
  }
  std::string_view plane =
      profile.info.format.starts_with("xspace") || profile.info.format.starts_with("xplane")
          ? "device planes with activity"
      : std::any_of(out.begin(), out.end(),
                    [](const CaptureDevices& d) { return d.kind == DeviceKind::Mtia; })
          ? "devices with MTIA activity (mtia_ccp_events)"
          : "devices with GPU activity";
  for (CaptureDevices& d : out) {
    d.evidence = fmt::format("{} {}", d.count, plane);
    if (!profile.devices.empty() && profile.devices.size() != w.gpus.size())
      d.evidence += fmt::format("; the trace describes {}", profile.devices.size());
    if (d.kind == DeviceKind::Unknown)
      d.evidence += ", of a model and vendor the trace does not name";
    else if (d.model.empty())
      d.evidence += ", of a model the trace does not name";
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const CaptureDevices& a, const CaptureDevices& b) { return a.count > b.count; });
  return out;
}

// ---- Markers: the names the rules' capture_frameworks and capture_workloads match ----

struct MarkerCount {
  std::uint64_t calls = 0;
  StringId first = kNoString;  // the first name seen
};

// Each name of the profile's host events, runtime calls, kernels and GPU ranges looked up once (the answer
// per interned name kept in a byte), the calls counted per type.
class MarkerCounter {
 public:
  MarkerCounter(const Profile& p, const PatternSet& set, const std::vector<std::string>& types)
      : profile_(p), set_(set), types_(types), counts_(types.size()) {
    if (set.empty() || types.size() >= 127) return;
    answers_.assign(p.strings.size(), kUnasked);
    for (const HostEvent& e : p.host_events) count(e.name);
    for (const RuntimeCall& r : p.runtime_calls) count(r.name);
    for (const GpuActivity& a : p.gpu_activities)
      if (a.kind == GpuActivityKind::Kernel) count(a.name);
    for (const GpuRange& r : p.gpu_ranges) count(r.name);  // an XLA op's framework op, a GPU annotation
  }

  // The calls of every entry of `type` and the first name seen of the first such entry.
  MarkerCount of(std::string_view type) const {
    MarkerCount out;
    for (std::size_t i = 0; i < types_.size(); ++i) {
      if (types_[i] != type) continue;
      out.calls += counts_[i].calls;
      if (out.first == kNoString) out.first = counts_[i].first;
    }
    return out;
  }
  std::string_view name(StringId id) const { return profile_.str(id); }

 private:
  static constexpr signed char kUnasked = -2;
  void count(StringId name) {
    signed char& answer = answers_[name];
    if (answer == kUnasked) answer = static_cast<signed char>(set_.first_match(profile_.str(name)));
    if (answer < 0) return;
    MarkerCount& c = counts_[static_cast<std::size_t>(answer)];
    if (c.calls++ == 0) c.first = name;
  }

  const Profile& profile_;
  const PatternSet& set_;
  const std::vector<std::string>& types_;
  std::vector<MarkerCount> counts_;
  std::vector<signed char> answers_;
};

// The frameworks' types in the order the rules list them, each once.
std::vector<std::string> distinct(const std::vector<std::string>& types) {
  std::vector<std::string> out;
  for (const std::string& t : types)
    if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
  return out;
}

// Runtimes and libraries under a framework, not one of their own: a capture that shows only these
// ran no framework (a plain CUDA or HIP program).
bool is_runtime(std::string_view name) {
  return name == "cuda" || name == "hip" || name == "nccl" || name == "rccl" || name == "cuda-graphs";
}

bool vendor_is(const std::vector<CaptureDevices>& devices, DeviceVendor vendor) {
  return std::any_of(devices.begin(), devices.end(),
                     [&](const CaptureDevices& d) { return d.vendor == vendor; });
}

// The first marker seen, and how many other calls matched the same type: "execute_model, 1 call",
// "vllm::unified_attention and 3 other calls" (the count is of every marker, not of the one named).
std::string marker_evidence(const MarkerCounter& markers, const MarkerCount& m) {
  std::string first = quoted(markers.name(m.first));
  if (m.calls == 1) return first + ", 1 call";
  return fmt::format("{} and {} other call{}", first, m.calls - 1, m.calls == 2 ? "" : "s");
}

std::vector<CaptureFramework> decide_frameworks(const Profile& profile, const CompiledClassification& c,
                                                const MarkerCounter& markers,
                                                const std::vector<CaptureDevices>& devices) {
  std::vector<CaptureFramework> out;
  for (const std::string& type : distinct(c.capture_framework_names)) {
    MarkerCount m = markers.of(type);
    if (m.calls > 0) {
      out.push_back({type, marker_evidence(markers, m)});
      continue;
    }
    // The trace's own metadata (an XSpace's /host:metadata jax_version): its key, as a name.
    for (const auto& [key, value] : profile.info.attributes) {
      int i = c.capture_frameworks.first_match(key);
      if (i >= 0 && c.capture_framework_names[static_cast<std::size_t>(i)] == type) {
        out.push_back({type, fmt::format("the profile's {} {}", key, quoted(value))});
        break;
      }
    }
  }
  // RCCL keeps NCCL's kernel names: on AMD devices they are RCCL's.
  for (CaptureFramework& f : out)
    if (f.name == "nccl" && vendor_is(devices, DeviceVendor::Amd) &&
        !vendor_is(devices, DeviceVendor::Nvidia)) {
      f.name = "rccl";
      f.evidence += " (NCCL's names, on AMD GPUs: RCCL)";
    }
  std::vector<CaptureFramework> unique;
  for (CaptureFramework& f : out)
    if (std::none_of(unique.begin(), unique.end(),
                     [&](const CaptureFramework& u) { return u.name == f.name; }))
      unique.push_back(std::move(f));
  return unique;
}

// ---- Workload ----

std::pair<CaptureWorkload, std::string> decide_workload(const Profile& profile, const WorkerAnalysis& w,
                                                        const MarkerCounter& markers,
                                                        const std::vector<CaptureFramework>& frameworks) {
  const OpCallSums& ops = w.op_calls;
  if (ops.backward_calls > 0)
    return {CaptureWorkload::Training, fmt::format("{} of the window's {} op calls ran in the backward pass",
                                                   ops.backward_calls, ops.calls)};
  if (MarkerCount m = markers.of("training"); m.calls > 0)
    return {CaptureWorkload::Training, marker_evidence(markers, m)};
  if (MarkerCount m = markers.of("serving"); m.calls > 0)
    return {CaptureWorkload::Serving, marker_evidence(markers, m)};
  TimeNs phased = w.serving.decode + w.serving.prefill + w.serving.mixed;
  if (phased > 0)
    return {CaptureWorkload::Serving,
            fmt::format("{:.1f} ms of serving steps by their phase (rules: serving_phases)",
                        static_cast<double>(phased) / 1e6)};
  if (MarkerCount m = markers.of("offline-inference"); m.calls > 0)
    return {CaptureWorkload::OfflineInference, marker_evidence(markers, m)};
  if (MarkerCount m = markers.of("benchmark"); m.calls > 0)
    return {CaptureWorkload::MicroBenchmark, marker_evidence(markers, m)};
  // PyTorch's ops with none in the backward pass: only a PyTorch profiler trace shows the autograd
  // engine (ops.backward_pct), so only there does no backward op mean no training.
  if (ops.calls > 0)
    return {
        CaptureWorkload::OfflineInference,
        fmt::format("{} op calls in the window, none in the backward pass, no serving scheduler", ops.calls)};
  bool framework = std::any_of(frameworks.begin(), frameworks.end(),
                               [](const CaptureFramework& f) { return !is_runtime(f.name); });
  bool host_work = std::any_of(profile.host_events.begin(), profile.host_events.end(),
                               [](const HostEvent& e) { return e.kind != HostKind::PythonFunction; });
  if (!framework && !host_work && w.host.kernels > 0)
    return {CaptureWorkload::MicroBenchmark,
            fmt::format("{} kernels with no framework op or annotation around them", w.host.kernels)};
  return {CaptureWorkload::Unknown, ""};
}

// ---- Phases ----

// The one-offs' phases as the warm-up analysis measured them (capture_phases, ops/warmup.h); none
// where the worker has no device work and no runtime calls to tell set-up from steady state.
CapturePhases decide_phases(const WorkerAnalysis& w) {
  if (w.host.step_time <= 0 || (w.gpus.empty() && !w.has_runtime_calls)) return {};
  return capture_phases(w.host.warmup, w.host.step_time);
}

void add_phase(std::optional<double>& sum, const std::optional<double>& part) {
  if (part) sum = sum.value_or(0) + *part;
}

}  // namespace

CaptureProfile decide_capture(const Profile& profile, const CompiledClassification& compiled,
                              const WorkerAnalysis& w) {
  CaptureProfile out;
  out.devices = decide_devices(profile, compiled, w);
  MarkerCounter frameworks(profile, compiled.capture_frameworks, compiled.capture_framework_names);
  out.frameworks = decide_frameworks(profile, compiled, frameworks, out.devices);
  // Kernels and nothing else: the runtime that launched them is the vendor's, whether or not the
  // trace recorded its calls (rocprofv3's kernel dispatches alone).
  bool any = std::any_of(out.frameworks.begin(), out.frameworks.end(),
                         [](const CaptureFramework& f) { return f.name != "nccl" && f.name != "rccl"; });
  if (!any && w.host.kernels > 0) {
    std::string_view runtime = vendor_is(out.devices, DeviceVendor::Amd)      ? "hip"
                               : vendor_is(out.devices, DeviceVendor::Nvidia) ? "cuda"
                                                                              : "";
    if (!runtime.empty())
      out.frameworks.push_back(
          {std::string(runtime),
           fmt::format("{} kernels and no launching call or framework op", w.host.kernels)});
  }
  // A memory snapshot is PyTorch's own record of its caching allocator on the GPUs, whoever made them
  // (torch.cuda.memory._snapshot(), on CUDA and ROCm alike).
  if (profile.memory_snapshot && out.frameworks.empty()) {
    out.frameworks.push_back({"pytorch", "a PyTorch memory snapshot (torch.cuda.memory._snapshot())"});
    if (out.devices.empty() && !profile.memory_snapshot->devices.empty())
      out.devices.push_back({DeviceKind::Gpu, DeviceVendor::Unknown, "",
                             profile.memory_snapshot->devices.size(),
                             "the snapshot's CUDA caching allocator, one per GPU"});
  }
  MarkerCounter workloads(profile, compiled.capture_workloads, compiled.capture_workload_names);
  auto [workload, evidence] = decide_workload(profile, w, workloads, out.frameworks);
  out.workload = workload;
  out.workload_evidence = std::move(evidence);
  out.phases = decide_phases(w);
  return out;
}

void CaptureCombiner::add(const CaptureProfile& worker) {
  ++workers_;
  for (const CaptureDevices& d : worker.devices) {
    auto it = std::find_if(run_.devices.begin(), run_.devices.end(), [&](const CaptureDevices& r) {
      return r.kind == d.kind && r.vendor == d.vendor && r.model == d.model;
    });
    if (it == run_.devices.end())
      run_.devices.push_back(d);
    else
      it->count += d.count;
  }
  for (const CaptureFramework& f : worker.frameworks)
    if (!run_.has_framework(f.name)) run_.frameworks.push_back(f);
  ++workload_workers_[static_cast<std::size_t>(worker.workload)];
  if (run_.workload_evidence.empty() && worker.workload != CaptureWorkload::Unknown)
    run_.workload_evidence = worker.workload_evidence;
  const CapturePhases& p = worker.phases;
  add_phase(run_.phases.window_us, p.window_us);
  add_phase(run_.phases.setup_us, p.setup_us);
  add_phase(run_.phases.teardown_us, p.teardown_us);
  add_phase(run_.phases.profiler_us, p.profiler_us);
  add_phase(run_.phases.steady_us, p.steady_us);
  if (run_.phases.evidence.empty()) run_.phases.evidence = p.evidence;
}

CaptureProfile CaptureCombiner::finish() const {
  CaptureProfile out = run_;
  if (workers_ <= 1) {
    out.workload = CaptureWorkload::Unknown;
    for (std::size_t i = 1; i < workload_workers_.size(); ++i)
      if (workload_workers_[i] > 0) out.workload = static_cast<CaptureWorkload>(i);
    return out;
  }
  for (CaptureDevices& d : out.devices) d.evidence = fmt::format("{} over {} workers", d.count, workers_);
  std::stable_sort(out.devices.begin(), out.devices.end(),
                   [](const CaptureDevices& a, const CaptureDevices& b) { return a.count > b.count; });
  std::vector<std::string> seen;
  CaptureWorkload agreed = CaptureWorkload::Unknown;
  for (std::size_t i = 1; i < workload_workers_.size(); ++i)
    if (workload_workers_[i] > 0) {
      agreed = static_cast<CaptureWorkload>(i);
      seen.push_back(fmt::format("{} ({} worker{})", kCaptureWorkloadNames[i], workload_workers_[i],
                                 workload_workers_[i] == 1 ? "" : "s"));
    }
  if (seen.size() > 1) {
    out.workload = CaptureWorkload::Unknown;
    std::string mixed = "mixed:";
    for (std::size_t i = 0; i < seen.size(); ++i) mixed += (i ? ", " : " ") + seen[i];
    out.workload_evidence = mixed;
  } else {
    out.workload = agreed;
    if (agreed != CaptureWorkload::Unknown)
      out.workload_evidence =
          fmt::format("{} of {} workers; the first: {}", workload_workers_[static_cast<std::size_t>(agreed)],
                      workers_, run_.workload_evidence);
  }
  return out;
}

}  // namespace perfgate
