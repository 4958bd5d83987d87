#include "load/neuron/profile_builder.h"

#include <algorithm>
#include <charconv>
#include <limits>

#include <fmt/format.h>

#include "common/utf8.h"
#include "load/neuron/neuron_reader.h"
#include "load/neuron/scalar_values.h"

namespace perfgate::neuron {
namespace {

constexpr std::size_t kMaxAttributes = 64;      // facts kept per profile (versions, names, clock)
constexpr std::size_t kMaxAttributeText = 256;  // longer facts are cut there
constexpr std::size_t kMaxLanes = std::numeric_limits<std::uint16_t>::max();

// The engines of layer_summary's per-engine fields, in NeuronEngine order.
constexpr std::string_view kEngineNames[] = {"tensor", "vector", "scalar", "gpsimd", "sync"};

void add_attribute(Profile& p, std::string key, std::string value) {
  if (p.info.attributes.size() >= kMaxAttributes || value.empty()) return;
  if (value.size() > kMaxAttributeText) value.resize(kMaxAttributeText);
  for (const auto& [k, v] : p.info.attributes)
    if (k == key) return;
  p.info.attributes.emplace_back(std::move(key), std::move(value));
}

// A summary or fact's value as text: strings and numbers.
std::string fact_text(const Scalar& v) {
  std::string text = as_text(v);
  std::size_t replaced = 0;
  return is_valid_utf8(text) ? text : repair_utf8(text, replaced);
}

}  // namespace

StringId ProfileBuilder::intern(std::string_view text) {
  if (is_valid_utf8(text)) return current().strings.intern(text);
  std::size_t replaced = 0;
  ++invalid_utf8_;
  return current().strings.intern(repair_utf8(text, replaced));
}

std::string ProfileBuilder::begin_row(Section section, std::string_view name) {
  section_ = section;
  row_ = Row{};
  if (section == Section::Node) {
    if (!node_ids_.empty()) profiles_.emplace_back();
    node_ids_.emplace_back(name);
  }
  if (section == Section::Summary) ++summary_rows_;
  return {};
}

std::string ProfileBuilder::field(std::string_view key, const Scalar& value) {
  switch (section_) {
    case Section::Instructions:
      return instruction_field(key, value);
    case Section::Dma:
      return dma_field(key, value);
    case Section::ActiveTime:
      return active_time_field(key, value);
    case Section::Layers:
      layer_field(key, value);
      break;
    case Section::Summary:
      if (summary_rows_ == 1) summary_field(key, value);
      break;
    case Section::Node:
      summary_field(key, value);
      break;
    case Section::Warnings:
      if (key == "message") row_.message = fact_text(value);
      if (key == "category") row_.category = fact_text(value);
      break;
    case Section::Facts:
      add_attribute(current(), std::string(key), fact_text(value));
      break;
    case Section::BufferUsage:
      return buffer_field(key, value);
    case Section::MemoryUse:
      memory_field(key, value);
      break;
    case Section::None:
      break;
  }
  return {};
}

// A time field: an integer number of nanoseconds (a numeric string, a double truncated).
static std::string time_field(std::string_view key, const Scalar& value, std::optional<std::int64_t>& out) {
  out = as_integer(value);
  if (!out && value.kind != Scalar::Kind::Null)
    return fmt::format("'{}' is not a number of nanoseconds ({})", key, as_text(value).substr(0, 40));
  return {};
}

std::string ProfileBuilder::instruction_field(std::string_view key, const Scalar& value) {
  if (key == "timestamp") return time_field(key, value, row_.timestamp);
  if (key == "duration") return time_field(key, value, row_.duration);
  if (key == "label") row_.lane = as_text(value);
  if (key == "subgroup") row_.subgroup = as_text(value);
  if (key == "hlo_name") row_.hlo_op = as_text(value);
  if (key == "opcode") row_.opcode = as_text(value);
  return {};
}

// An active_time row: engine, start_ts, end_ts, duration_ns (docs/formats.md).
std::string ProfileBuilder::active_time_field(std::string_view key, const Scalar& value) {
  if (key == "start_ts") return time_field(key, value, row_.timestamp);
  if (key == "end_ts") return time_field(key, value, row_.end);
  if (key == "duration_ns") return time_field(key, value, row_.duration);
  if (key == "engine") row_.lane = as_text(value);
  return {};
}

// The part of a buffer a usage key names: partition_<32 k>_usage (SBUF) or bank_<k>_usage (PSUM)
// at k; empty for another key.
static std::optional<std::size_t> buffer_part(std::string_view key) {
  constexpr std::string_view kSuffix = "_usage";
  if (!key.ends_with(kSuffix)) return std::nullopt;
  key.remove_suffix(kSuffix.size());
  // SBUF: partitions 0, 32, 64, 96 at 0-3; PSUM: banks at their number.
  const bool partition = key.starts_with("partition_");
  if (!partition && !key.starts_with("bank_")) return std::nullopt;
  key.remove_prefix(partition ? 10 : 5);
  const std::size_t step = partition ? 32 : 1, parts = partition ? 4 : kNeuronBufferParts;
  std::size_t n = 0;
  auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), n);
  if (ec != std::errc{} || end != key.data() + key.size() || n % step != 0 || n / step >= parts)
    return std::nullopt;
  return n / step;
}

// An instruction_usage row: type, timestamp, usage_avg and the parts' usage (fractions 0-1), in
// any order (docs/formats.md). A usage that is no fraction 0-1 is read as absent, and counted.
std::string ProfileBuilder::buffer_field(std::string_view key, const Scalar& value) {
  if (key == "timestamp") return time_field(key, value, row_.timestamp);
  if (key == "type") {
    row_.buffer = as_text(value);
    return {};
  }
  std::optional<std::size_t> part = buffer_part(key);
  if (key != "usage_avg" && !part) return {};
  std::optional<double> usage = as_number(value);
  if (usage && !(*usage >= 0 && *usage <= 1)) usage.reset();
  if (!usage) {
    if (value.kind != Scalar::Kind::Null) ++bad_usage_values_;
    return {};
  }
  if (part)
    row_.sample.parts[*part] = usage;
  else
    row_.sample.average = usage;
  return {};
}

// An nc_mem_usage row: nd, nc, usage_type, amount_bytes.
void ProfileBuilder::memory_field(std::string_view key, const Scalar& value) {
  if (key == "nd") row_.device = as_integer(value);
  if (key == "nc") row_.core = as_integer(value);
  if (key == "usage_type") row_.name = fact_text(value);
  if (key == "amount_bytes") {
    row_.bytes = as_integer(value);
    if (!row_.bytes && value.kind != Scalar::Kind::Null) row_.bytes = -1;  // no count: left out
  }
}

std::string ProfileBuilder::end_buffer_sample() {
  ++buffer_rows_;
  if (!row_.timestamp) return fmt::format("instruction_usage row {} has no timestamp", buffer_rows_);
  if (*row_.timestamp < 0 || *row_.timestamp >= kMaxTimeNs)
    return fmt::format("instruction_usage row {}: timestamp {} ns is out of range", buffer_rows_,
                       *row_.timestamp);
  if (row_.buffer != "sb" && row_.buffer != "psum") {
    ++unknown_buffer_rows_;
    return {};
  }
  row_.sample.time = *row_.timestamp;
  row_.sample.buffer = row_.buffer == "sb" ? NeuronBuffer::Sbuf : NeuronBuffer::Psum;
  current().neuron.buffer_samples.push_back(row_.sample);
  return {};
}

void ProfileBuilder::end_memory_use() {
  if (!row_.bytes || *row_.bytes < 0) {
    ++bad_memory_rows_;
    return;
  }
  current().neuron.memory_uses.push_back({row_.device.value_or(0), row_.core.value_or(0),
                                          row_.name.empty() ? "(no usage_type)" : std::move(row_.name),
                                          static_cast<std::uint64_t>(*row_.bytes)});
}

std::string ProfileBuilder::dma_field(std::string_view key, const Scalar& value) {
  if (key == "timestamp") return time_field(key, value, row_.timestamp);
  if (key == "duration") return time_field(key, value, row_.duration);
  if (key == "transfer_size") {
    row_.bytes = as_integer(value);
    if (row_.bytes && *row_.bytes < 0) return fmt::format("'transfer_size' is negative ({})", *row_.bytes);
    // NaN, 1e308, 2^64, text or a flag is no byte count: refused, never counted as 0 bytes.
    if (!row_.bytes && value.kind != Scalar::Kind::Null)
      return fmt::format("'transfer_size' is not a number of bytes ({})", as_text(value).substr(0, 40));
  }
  if (key == "dma_queue") row_.queue = as_text(value);
  if (key == "queue_type") row_.queue_type = as_text(value);
  if (key == "dma_engine") row_.dma_engine = as_text(value);
  if (key == "is_cc_dma") row_.collective = as_flag(value);
  if (key == "hlo_name") row_.hlo_op = as_text(value);
  return {};
}

// layer_summary's fields (docs/formats.md: the names are the summary's, per subgraph; times in
// integer nanoseconds where the summary has seconds).
void ProfileBuilder::layer_field(std::string_view key, const Scalar& value) {
  NeuronLayer& l = row_.layer;
  if (key == "layer" || key == "subgraph" || key == "name" || key == "layer_name") {
    if (l.name.empty()) l.name = fact_text(value);
    return;
  }
  std::optional<double> number = as_number(value);
  if (!number) return;
  for (std::size_t e = 0; e < std::size(kEngineNames); ++e) {
    std::string prefix = std::string(kEngineNames[e]) + "_engine_";
    if (!key.starts_with(prefix)) continue;
    std::string_view rest = key.substr(prefix.size());
    if (rest == "active_time") l.active_time_ns[e] = number;
    if (rest == "instruction_count") l.instructions[e] = number;
  }
  if (key == "tensor_engine_mfu" || key == "mfu_estimated_percent") l.mfu = number;
  if (key == "tensor_engine_hfu" || key == "hfu_estimated_percent") l.hfu = number;
  if (key == "tensor_engine_model_flop_count" || (key == "model_flops" && !l.model_flops))
    l.model_flops = number;
  if (key == "tensor_engine_flop_count" || (key == "hardware_flops" && !l.hardware_flops))
    l.hardware_flops = number;
}

// Numbers are metrics; text (instance_type, versions) is a fact about the profile.
void ProfileBuilder::summary_field(std::string_view key, const Scalar& value) {
  if (value.kind == Scalar::Kind::Null || value.kind == Scalar::Kind::Bool) return;
  if (std::optional<double> number = as_number(value)) {
    // A share outside 0-100% is no share: noted by name and left out, never shown as -100%.
    if (key.ends_with("_percent") && !(*number >= 0 && *number <= 1e2)) {
      current().notes.push_back(note<NoteId::neuron_share_out_of_range>(
          arg<"key">(key), arg<"value">(as_text(value).substr(0, 40))));
      return;
    }
    current().neuron.summary.emplace_back(std::string(key), *number);
    return;
  }
  add_attribute(current(), std::string(key), fact_text(value));
}

std::string ProfileBuilder::check_span(const char* what, std::uint64_t row) {
  if (!row_.timestamp) return fmt::format("{} row {} has no timestamp", what, row);
  if (!row_.duration) return fmt::format("{} row {} has no duration", what, row);
  if (*row_.timestamp < 0 || *row_.timestamp >= kMaxTimeNs)
    return fmt::format("{} row {}: timestamp {} ns is out of range", what, row, *row_.timestamp);
  if (*row_.duration < 0 || *row_.duration > kMaxDurationNs)
    return fmt::format("{} row {}: duration {} ns is out of range", what, row, *row_.duration);
  if (*row_.timestamp + *row_.duration >= kMaxTimeNs)
    return fmt::format("{} row {}: ends out of range", what, row);
  return {};
}

std::string ProfileBuilder::end_instruction() {
  ++instruction_rows_;
  if (std::string why = check_span("instruction", instruction_rows_); !why.empty()) return why;
  NeuronDevice& n = current().neuron;
  StringId label =
      intern(row_.lane.empty() ? (row_.subgroup.empty() ? "(no engine)" : row_.subgroup) : row_.lane);
  auto [it, added] = lane_index_.try_emplace(label, static_cast<std::uint16_t>(n.lanes.size()));
  if (added) {
    if (n.lanes.size() >= kMaxLanes) return fmt::format("more than {} engine rows (label)", kMaxLanes);
    n.lanes.push_back({label, engine_of_lane(current().str(label))});
  }
  // EVENT_SEMAPHORE and EVENT_SEMAPHORE_RANGE_CLEAR: an engine waiting on a semaphore.
  bool wait = row_.opcode.starts_with("EVENT_SEMAPHORE");
  n.instructions.push_back(
      {*row_.timestamp, *row_.timestamp + *row_.duration, intern(row_.hlo_op), it->second, wait});
  return {};
}

std::string ProfileBuilder::end_active_time() {
  ++active_rows_;
  if (!row_.duration && row_.timestamp && row_.end) row_.duration = *row_.end - *row_.timestamp;
  if (!row_.end && row_.timestamp && row_.duration) row_.end = *row_.timestamp + *row_.duration;
  if (std::string why = check_span("active_time", active_rows_); !why.empty()) return why;
  if (*row_.end < *row_.timestamp || *row_.end >= kMaxTimeNs)
    return fmt::format("active_time row {}: end_ts {} ns is out of range", active_rows_, *row_.end);
  current().neuron.active_spans.push_back(
      {*row_.timestamp, *row_.end, *row_.duration, engine_of_lane(row_.lane)});
  return {};
}

std::string ProfileBuilder::end_dma() {
  ++dma_rows_;
  if (std::string why = check_span("dma", dma_rows_); !why.empty()) return why;
  NeuronDevice& n = current().neuron;
  std::string name = !row_.queue.empty()        ? row_.queue
                     : !row_.queue_type.empty() ? row_.queue_type
                     : !row_.dma_engine.empty() ? "dma_engine " + row_.dma_engine
                                                : "(no queue)";
  StringId queue = intern(name);
  auto [it, added] = queue_index_.try_emplace(queue, static_cast<std::uint16_t>(n.dma_queues.size()));
  if (added) {
    if (n.dma_queues.size() >= kMaxLanes) return fmt::format("more than {} DMA queues", kMaxLanes);
    n.dma_queues.push_back(queue);
  }
  n.dmas.push_back({*row_.timestamp, *row_.timestamp + *row_.duration,
                    static_cast<std::uint64_t>(row_.bytes.value_or(0)), intern(row_.hlo_op), it->second,
                    row_.collective.value_or(false)});
  return {};
}

std::string ProfileBuilder::end_row() {
  Section section = section_;
  section_ = Section::None;
  switch (section) {
    case Section::Instructions:
      return end_instruction();
    case Section::Dma:
      return end_dma();
    case Section::ActiveTime:
      return end_active_time();
    case Section::Layers:
      current().neuron.layers.push_back(std::move(row_.layer));
      break;
    case Section::Warnings:
      current().neuron.warnings.push_back({std::move(row_.category), std::move(row_.message)});
      break;
    case Section::BufferUsage:
      return end_buffer_sample();
    case Section::MemoryUse:
      end_memory_use();
      break;
    default:
      break;
  }
  return {};
}

std::uint64_t ProfileBuilder::memory_bytes() const {
  std::uint64_t bytes = 0;
  for (const Profile& p : profiles_)
    bytes += p.strings.memory_bytes() + p.neuron.instructions.capacity() * sizeof(NeuronInstruction) +
             p.neuron.dmas.capacity() * sizeof(NeuronDma) +
             p.neuron.active_spans.capacity() * sizeof(NeuronActiveSpan) + p.neuron.summary.size() * 64 +
             p.neuron.layers.size() * sizeof(NeuronLayer) + p.neuron.warnings.size() * 64 +
             p.neuron.buffer_samples.capacity() * sizeof(NeuronBufferSample) +
             p.neuron.memory_uses.size() * (sizeof(NeuronMemoryUse) + 32);
  return bytes;
}

// What instruction_usage and nc_mem_usage held that perfgate could not read, said once.
void ProfileBuilder::add_buffer_notes(Profile& p) const {
  if (unknown_buffer_rows_ > 0)
    p.notes.push_back(note<NoteId::neuron_usage_rows_unknown>(arg<"count">(unknown_buffer_rows_)));
  if (bad_usage_values_ > 0)
    p.notes.push_back(note<NoteId::neuron_usage_values_bad>(arg<"count">(bad_usage_values_)));
  if (bad_memory_rows_ > 0)
    p.notes.push_back(note<NoteId::neuron_memory_rows_unsized>(arg<"count">(bad_memory_rows_)));
}

std::vector<Profile> ProfileBuilder::finish(const std::string& path) {
  if (summary_json_ && node_ids_.empty()) return {};
  for (std::size_t i = 0; i < profiles_.size(); ++i) {
    Profile& p = profiles_[i];
    NeuronDevice& n = p.neuron;
    n.present = true;
    n.full_profile = !summary_json_;
    p.source_path = path;
    p.info.format = summary_json_ ? "neuron-summary-json" : "neuron-json";
    p.info.family = DeviceFamily::Neuron;
    if (summary_json_) p.info.trace_name = node_ids_[i];
    // Rows in time order (the profiler writes them so; a file that does not is sorted).
    auto by_start = [](const auto& a, const auto& b) { return a.start < b.start; };
    if (!std::is_sorted(n.instructions.begin(), n.instructions.end(), by_start))
      std::stable_sort(n.instructions.begin(), n.instructions.end(), by_start);
    if (!std::is_sorted(n.dmas.begin(), n.dmas.end(), by_start))
      std::stable_sort(n.dmas.begin(), n.dmas.end(), by_start);
    auto by_time = [](const auto& a, const auto& b) { return a.time < b.time; };
    if (!std::is_sorted(n.buffer_samples.begin(), n.buffer_samples.end(), by_time))
      std::stable_sort(n.buffer_samples.begin(), n.buffer_samples.end(), by_time);
    add_buffer_notes(p);
    if (summary_rows_ > 1)
      p.notes.push_back(note<NoteId::neuron_summary_entries>(arg<"count">(summary_rows_)));
    if (invalid_utf8_ > 0) p.notes.push_back(note<NoteId::neuron_invalid_utf8>(arg<"count">(invalid_utf8_)));
  }
  return std::move(profiles_);
}

}  // namespace perfgate::neuron
