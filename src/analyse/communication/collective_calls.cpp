#include "analyse/communication/collective_calls.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <numeric>
#include <string>

#include "analyse/communication/communication.h"

namespace perfgate {
namespace {

// The name in lower case without separators: "nccl:_all_gather_base" -> "ncclallgatherbase".
std::string squeezed(std::string_view name) {
  std::string out;
  for (char c : name)
    if (std::isalnum(static_cast<unsigned char>(c)))
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Message size as nccl-tests' S: the whole array, the larger of the input and the output (the
// gathered output of an all-gather, the scattered input of a reduce-scatter).
std::uint64_t message_bytes(const Profile& p, const CollectiveArgs* recorded,
                            std::optional<std::uint64_t> input) {
  if (recorded) {
    int size = element_bytes(p.str(recorded->dtype));
    std::int64_t elements = std::max(recorded->in_elements, recorded->out_elements);
    if (size > 0 && elements > 0)
      return static_cast<std::uint64_t>(elements) * static_cast<std::uint64_t>(size);
  }
  return input.value_or(0);
}

}  // namespace

CollectiveType collective_type(std::string_view name) {
  // Longer names first: "allreduce" and "reducescatter" hold "reduce".
  static constexpr std::array<std::pair<std::string_view, CollectiveType>, 9> kNames = {{
      {"allreduce", CollectiveType::AllReduce},
      {"reducescatter", CollectiveType::ReduceScatter},
      {"allgather", CollectiveType::AllGather},
      {"alltoall", CollectiveType::AllToAll},
      {"broadcast", CollectiveType::Broadcast},
      {"barrier", CollectiveType::Barrier},
      {"send", CollectiveType::SendRecv},
      {"recv", CollectiveType::SendRecv},
      {"reduce", CollectiveType::Reduce},
  }};
  std::string s = squeezed(name);
  for (const auto& [part, type] : kNames)
    if (s.find(part) != std::string::npos) return type;
  return CollectiveType::Other;
}

CollectiveCallRecorder::CollectiveCallRecorder(const Profile& profile, const StepDetection& steps,
                                               const Window& window)
    : p_(profile), steps_(steps), window_(window), host_timed_(profile.gpu_activities.empty()) {}

std::uint32_t CollectiveCallRecorder::group_of(const CollectiveArgs* recorded) {
  std::string_view name = recorded ? p_.str(recorded->process_group) : std::string_view{};
  auto it = group_index_.find(name);
  if (it != group_index_.end()) return it->second;
  auto index = static_cast<std::uint32_t>(out_.groups.size());
  out_.groups.emplace_back(name);
  group_index_.emplace(std::string(name), index);
  return index;
}

// The number of the window step whose host span holds the start (the last one starting before it).
std::int64_t CollectiveCallRecorder::step_of(TimeNs host_start) const {
  std::int64_t found = -1;
  for (std::size_t i : window_.steps) {
    const Step& s = steps_.steps[i];
    if (s.host_start > host_start) break;
    found = s.number.value_or(static_cast<std::int64_t>(i));
  }
  return found;
}

void CollectiveCallRecorder::add(std::size_t op, const CollectiveArgs* recorded,
                                 std::optional<std::uint64_t> input_bytes, std::optional<Interval> device) {
  const HostEvent& e = p_.host_events[op];
  CollectiveCall c;
  c.group = group_of(recorded);
  c.type = recorded ? collective_type(p_.str(recorded->collective)) : CollectiveType::Other;
  if (c.type == CollectiveType::Other) c.type = collective_type(p_.str(e.name));
  c.group_size = recorded && recorded->group_size > 0
                     ? recorded->group_size
                     : static_cast<std::int32_t>(p_.info.world_size.value_or(-1));
  c.bytes = message_bytes(p_, recorded, input_bytes);
  c.step = step_of(e.start);
  c.start = device ? device->start : e.start;
  if (device) c.duration = device->end - device->start;
  if (!device && host_timed_) c.duration = e.end - e.start;
  out_.calls.push_back(c);
  host_starts_.push_back(e.start);
}

CollectiveCalls CollectiveCallRecorder::finish() {
  std::vector<std::size_t> order(out_.calls.size());
  std::iota(order.begin(), order.end(), 0);
  const auto& calls = out_.calls;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const CollectiveCall& x = calls[a];
    const CollectiveCall& y = calls[b];
    if (out_.groups[x.group] != out_.groups[y.group]) return out_.groups[x.group] < out_.groups[y.group];
    if (x.type != y.type) return x.type < y.type;
    if (x.step != y.step) return x.step < y.step;
    return host_starts_[a] < host_starts_[b];
  });
  CollectiveCalls sorted{out_.groups, {}};
  sorted.calls.reserve(order.size());
  for (std::size_t i : order) {
    CollectiveCall c = calls[i];
    const CollectiveCall* before = sorted.calls.empty() ? nullptr : &sorted.calls.back();
    bool same = before && before->group == c.group && before->type == c.type && before->step == c.step;
    c.index = same ? before->index + 1 : 0;
    sorted.calls.push_back(c);
  }
  return sorted;
}

}  // namespace perfgate
