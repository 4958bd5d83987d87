#include "cli/trace_events.h"

#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>
#include <boost/json.hpp>

namespace perfgate::cli {
namespace {

// One event's common fields: phase, category, name, lane and time.
void begin_event(JsonWriter& out, const char* ph, const char* cat, std::string_view name, std::int64_t pid,
                 std::int64_t tid, TimeNs start) {
  out.begin_object();
  out.key("ph").value(ph).key("cat").value(cat).key("name").value(name);
  out.key("pid").value(pid).key("tid").value(tid).key("ts").json(kineto_time(start));
}

void complete(JsonWriter& out, const char* cat, std::string_view name, std::int64_t pid, std::int64_t tid,
              TimeNs start, TimeNs end) {
  begin_event(out, "X", cat, name, pid, tid, start);
  out.key("dur").json(kineto_time(end - start));
}

const char* host_category(HostKind kind) {
  switch (kind) {
    case HostKind::Op:
      return "cpu_op";
    case HostKind::Annotation:
      return "user_annotation";
    case HostKind::PythonFunction:
      break;
  }
  return "python_function";
}

const char* gpu_category(GpuActivityKind kind) {
  switch (kind) {
    case GpuActivityKind::Kernel:
      return "kernel";
    case GpuActivityKind::Memcpy:
      return "gpu_memcpy";
    case GpuActivityKind::Memset:
      break;
  }
  return "gpu_memset";
}

void optional_text(JsonWriter& out, JsonKey key, const Profile& p, StringId id) {
  if (id != kNoString) out.key(key).value(p.str(id));
}

void write_value(JsonWriter& out, const boost::json::value& v) {
  switch (v.kind()) {
    case boost::json::kind::object:
      out.begin_object();
      for (const auto& member : v.get_object()) {
        out.key(JsonKey(std::string_view(member.key())));
        write_value(out, member.value());
      }
      out.end_object();
      break;
    case boost::json::kind::array:
      out.begin_array();
      for (const boost::json::value& item : v.get_array()) write_value(out, item);
      out.end_array();
      break;
    case boost::json::kind::string:
      out.value(std::string_view(v.get_string()));
      break;
    case boost::json::kind::int64:
      out.value(v.get_int64());
      break;
    case boost::json::kind::uint64:
      out.value(v.get_uint64());
      break;
    case boost::json::kind::double_:
      out.value(v.get_double());
      break;
    case boost::json::kind::bool_:
      out.value(v.get_bool());
      break;
    case boost::json::kind::null:
      out.null();
      break;
  }
}

// Shapes, types and concrete inputs, which the reader keeps as the compact JSON text of the trace's
// arrays: written as those arrays again, each string through the writer's escaping.
void optional_json(JsonWriter& out, JsonKey key, const Profile& p, StringId id) {
  if (id == kNoString) return;
  boost::system::error_code error;
  boost::json::value v = boost::json::parse(p.str(id), error);
  out.key(key);
  if (error)
    out.value(p.str(id));
  else
    write_value(out, v);
}

void host_args(JsonWriter& out, const Profile& p, const HostEvent& e,
               const std::unordered_map<std::int64_t, const CollectiveArgs*>& collectives) {
  const OpDetails& d = p.details(e);
  out.key("args").begin_object();
  if (d.external_id != 0) out.key("External id").value(d.external_id);
  if (d.sequence_number >= 0) out.key("Sequence number").value(d.sequence_number);
  if (d.flops >= 0) out.key("flops").value(static_cast<double>(d.flops));
  optional_json(out, "Input Dims", p, d.input_dims);
  optional_json(out, "Input type", p, d.input_types);
  optional_json(out, "Concrete Inputs", p, d.concrete_inputs);
  optional_text(out, "Call stack", p, d.call_stack);
  auto c = d.external_id == 0 ? collectives.end() : collectives.find(d.external_id);
  if (c != collectives.end()) {
    const CollectiveArgs& a = *c->second;
    if (a.in_elements >= 0) out.key("In msg nelems").value(a.in_elements);
    if (a.out_elements >= 0) out.key("Out msg nelems").value(a.out_elements);
    if (a.group_size >= 0) out.key("Group size").value(a.group_size);
    out.key("dtype").value(p.str(a.dtype)).key("Collective name").value(p.str(a.collective));
    optional_text(out, "Process Group Name", p, a.process_group);
  }
  out.end_object();
}

void kernel_args(JsonWriter& out, const KernelLaunchInfo& k) {
  auto triple = [&](JsonKey key, const std::int32_t(&v)[3]) {
    if (v[0] < 0) return;
    out.key(key).begin_array().value(v[0]).value(v[1]).value(v[2]).end_array();
  };
  triple("grid", k.grid);
  triple("block", k.block);
  if (k.registers_per_thread >= 0) out.key("registers per thread").value(k.registers_per_thread);
  if (k.shared_memory >= 0) out.key("shared memory").value(k.shared_memory);
  if (k.blocks_per_sm >= 0) out.key("blocks per SM").value(static_cast<double>(k.blocks_per_sm));
  if (k.occupancy_pct >= 0) out.key("est. achieved occupancy %").value(static_cast<double>(k.occupancy_pct));
}

void gpu_activity(JsonWriter& out, const Profile& p, const GpuActivity& a, const GpuLanes& lanes) {
  complete(out, gpu_category(a.kind), p.str(a.name), lanes.pid(a.device), a.stream, a.start, a.end);
  out.key("args").begin_object();
  out.key("device").value(a.device).key("stream").value(a.stream);
  out.key("correlation").value(a.correlation).key("External id").value(a.external_id);
  if (a.bytes > 0) out.key("bytes").value(a.bytes);
  if (a.kind == GpuActivityKind::Kernel && a.kernel_info != kNone)
    kernel_args(out, p.kernel_info[a.kernel_info]);
  out.end_object().end_object();
}

}  // namespace

std::string kineto_time(TimeNs t) {
  // Times of a profile lie in [0, 2^62); a duration is never negative.
  return fmt::format("{}.{:03}", t / 1000, t % 1000);
}

const char* gpu_sync_name(GpuSyncKind kind) {
  switch (kind) {
    case GpuSyncKind::Context:
      return "Context Sync";
    case GpuSyncKind::Stream:
      return "Stream Sync";
    case GpuSyncKind::Event:
      return "Event Sync";
    case GpuSyncKind::StreamWaitEvent:
      break;
  }
  return "Stream Wait Event";
}

std::uint64_t count_records(const Profile& p, const RecordSelection& s) {
  std::uint64_t n = 0;
  auto count = [&](const auto& records) {
    for (const auto& r : records) n += s.holds(r.start, r.end);
  };
  count(p.host_events);
  // As write_records writes them: the GPU work of a launch written, wherever it ran.
  std::unordered_set<std::int64_t> launched;
  for (const RuntimeCall& r : p.runtime_calls) {
    if (!s.holds(r.start, r.end)) continue;
    ++n;
    if (r.correlation != 0 && !s.all) launched.insert(r.correlation);
  }
  for (const GpuActivity& a : p.gpu_activities)
    n += s.holds(a.start, a.end) || (a.correlation != 0 && launched.contains(a.correlation));
  count(p.gpu_ranges);
  count(p.gpu_syncs);
  for (const MemorySample& m : p.memory_samples) n += s.holds(m.time, m.time);
  n += p.info.profiler_end > p.info.profiler_start && s.holds(p.info.profiler_start, p.info.profiler_end);
  return n;
}

std::uint64_t write_records(JsonWriter& out, const Profile& p, const RecordSelection& s,
                            const GpuLanes& lanes) {
  std::uint64_t written = 0;
  std::unordered_map<std::int64_t, const CollectiveArgs*> collectives;
  for (const CollectiveArgs& c : p.collectives) collectives.emplace(c.external_id, &c);
  auto thread = [&](std::uint32_t t) { return t < p.threads.size() ? p.threads[t] : ThreadInfo{}; };
  for (const HostEvent& e : p.host_events) {
    if (!s.holds(e.start, e.end)) continue;
    ThreadInfo t = thread(e.thread);
    complete(out, host_category(e.kind), p.str(e.name), t.pid, t.tid, e.start, e.end);
    host_args(out, p, e, collectives);
    out.end_object();
    ++written;
  }
  // The launches written, so that the GPU work they launched is written wherever it ran.
  std::unordered_set<std::int64_t> launched;
  for (const RuntimeCall& r : p.runtime_calls) {
    if (!s.holds(r.start, r.end)) continue;
    ThreadInfo t = thread(r.thread);
    complete(out, "cuda_runtime", p.str(r.name), t.pid, t.tid, r.start, r.end);
    out.key("args").begin_object().key("correlation").value(r.correlation);
    out.key("External id").value(r.external_id).end_object().end_object();
    if (r.correlation != 0) launched.insert(r.correlation);
    ++written;
  }
  for (const GpuActivity& a : p.gpu_activities) {
    if (!s.holds(a.start, a.end) && !(a.correlation != 0 && launched.contains(a.correlation))) continue;
    gpu_activity(out, p, a, lanes);
    ++written;
  }
  for (const GpuRange& r : p.gpu_ranges) {
    if (!s.holds(r.start, r.end)) continue;
    complete(out, "gpu_user_annotation", p.str(r.name), lanes.pid(r.device), r.stream, r.start, r.end);
    out.key("args").begin_object().key("device").value(r.device).key("stream").value(r.stream);
    out.end_object().end_object();
    ++written;
  }
  for (const GpuSync& g : p.gpu_syncs) {
    if (!s.holds(g.start, g.end)) continue;
    complete(out, "cuda_sync", gpu_sync_name(g.kind), lanes.pid(g.device), g.stream < 0 ? 0 : g.stream,
             g.start, g.end);
    out.key("args").begin_object().key("device").value(g.device).key("correlation").value(g.correlation);
    if (g.stream >= 0) out.key("stream").value(g.stream);
    if (g.wait_on_stream >= 0) out.key("wait_on_stream").value(g.wait_on_stream);
    if (g.event_record_correlation >= 0)
      out.key("wait_on_cuda_event_record_corr_id").value(g.event_record_correlation);
    out.end_object().end_object();
    ++written;
  }
  for (const MemorySample& m : p.memory_samples) {
    if (!s.holds(m.time, m.time)) continue;
    ThreadInfo t = thread(m.thread);
    begin_event(out, "i", "cpu_instant_event", "[memory]", t.pid, t.tid, m.time);
    out.key("s").value("t").key("args").begin_object();
    out.key("Device Type").value(1).key("Device Id").value(m.device_id).key("Bytes").value(m.bytes);
    if (m.total_allocated >= 0) out.key("Total Allocated").value(m.total_allocated);
    if (m.total_reserved >= 0) out.key("Total Reserved").value(m.total_reserved);
    out.end_object().end_object();
    ++written;
  }
  // The profiler's own span (Kineto's "PyTorch Profiler (0)", category Trace): where it stopped.
  if (p.info.profiler_end > p.info.profiler_start && s.holds(p.info.profiler_start, p.info.profiler_end)) {
    ThreadInfo t = thread(0);
    complete(out, "Trace", "PyTorch Profiler (0)", t.pid, t.tid, p.info.profiler_start, p.info.profiler_end);
    out.end_object();
    ++written;
  }
  // Forward/backward links, where both ops are written.
  std::uint64_t flow = lanes.flow_base;
  for (const ForwardBackwardLink& l : p.forward_backward_links) {
    if (!s.holds(l.forward_start, l.forward_start) || !s.holds(l.backward_start, l.backward_start)) continue;
    ++flow;
    for (bool start : {true, false}) {
      ThreadInfo t = thread(start ? l.forward_thread : l.backward_thread);
      begin_event(out, start ? "s" : "f", "fwdbwd", "fwdbwd", t.pid, t.tid,
                  start ? l.forward_start : l.backward_start);
      out.key("id").value(flow);
      if (!start) out.key("bp").value("e");
      out.end_object();
    }
  }
  return written;
}

}  // namespace perfgate::cli
