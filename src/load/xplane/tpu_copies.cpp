// A TPU's asynchronous copies in XLA's terms (docs/formats.md, "XSpace profile"): `copy-start` begins
// a transfer and returns at once; `copy-done` waits on the TensorCore until the data has arrived.
// The transfer is the span from the copy-start to its copy-done's end (what the "Async XLA Ops"
// line's async-copy events show, where a profile records them: for one TPU of four in XProf's
// v6e test file), so a copy becomes one Memcpy activity over that span, on a transfer line of its
// device (concurrent transfers on lines of their own), with its bytes once (XLA's bytes_accessed
// of the copy-done: the tensor's) and its direction from the memory spaces of its shapes: XLA's
// host memory space is S(5) (xla/layout.h, Layout::kHostMemorySpace), the device's HBM the
// default. The copy-start and copy-done ops are not kernels: the TensorCore computes nothing in them.
#include <algorithm>
#include <vector>

#include "load/xplane/builder.h"

namespace perfgate::xplane {
namespace {

// XLA's memory space of host memory in a layout ("{3,2,1,0:T(8,128)S(5)}").
constexpr std::string_view kHostMemorySpace = "S(5)";

// A device's transfer lines: 2^29 + 256 x the device's number + the line's number.
constexpr std::uint32_t kTransferStreams = 1u << 29;
constexpr std::size_t kTransferLines = 256;

bool in_host_memory(std::string_view shape) {
  return shape.find(kHostMemorySpace) != std::string_view::npos;
}

// The elements of a tuple shape "(A, B, C)" at its top level; empty where it is not a tuple.
std::vector<std::string_view> tuple_elements(std::string_view shape) {
  std::vector<std::string_view> out;
  if (!shape.starts_with('(')) return out;
  int depth = 0;
  std::size_t from = 1;
  for (std::size_t i = 1; i < shape.size(); ++i) {
    char c = shape[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    bool close = c == ')' || c == ']' || c == '}';
    if (close && depth == 0) {
      out.push_back(shape.substr(from, i - from));
      break;
    }
    if (close) --depth;
    if (c == ',' && depth == 0) {
      out.push_back(shape.substr(from, i - from));
      from = std::min(i + 2, shape.size());
    }
  }
  return out;
}

// An HLO instruction's text, "%copy-done.4 = f32[8]{0} copy-done((f32[8]{0}, f32[8]{0:S(5)}, u32[])
// %copy-start.4)": its result shape, its operand's shape and its operand's name (empty where the
// text is not of that form).
struct InstructionText {
  std::string_view result, operand_shape, operand;
};
InstructionText instruction_text(std::string_view text, std::string_view opcode) {
  InstructionText t;
  std::size_t equals = text.find(" = ");
  if (equals == std::string_view::npos) return t;
  std::string call = " " + std::string(opcode) + "(";
  std::size_t at = text.find(call, equals);
  std::size_t close = text.rfind(')');
  if (at == std::string_view::npos || close == std::string_view::npos || close < at + call.size()) return t;
  t.result = text.substr(equals + 3, at - equals - 3);
  std::string_view operand = text.substr(at + call.size(), close - at - call.size());
  std::size_t name = operand.rfind(" %");
  if (name == std::string_view::npos) return t;
  t.operand_shape = operand.substr(0, name);
  t.operand = operand.substr(name + 2);
  return t;
}

// The direction of a copy from its destination's and its source's memory (`source` empty: not known).
CopyKind copy_direction(std::string_view destination, std::string_view source) {
  bool to_host = in_host_memory(destination);
  if (source.empty()) return to_host ? CopyKind::DeviceToHost : CopyKind::Unknown;
  bool from_host = in_host_memory(source);
  if (from_host == to_host) return to_host ? CopyKind::HostToHost : CopyKind::DeviceToDevice;
  return to_host ? CopyKind::DeviceToHost : CopyKind::HostToDevice;
}

}  // namespace

bool Builder::tpu_copy(const EventMetadata* meta, std::string_view category, std::string_view shape,
                       double bytes, GpuActivity& a) {
  std::string_view text = meta ? meta->name : std::string_view();
  if (category == "copy-start") {
    // Its name as a copy-done's operand names it: the display name, else the text's "%NAME = ".
    std::string_view name = meta ? meta->display_name : std::string_view();
    if (name.empty() && text.starts_with('%')) name = text.substr(1, text.find(" = ") - 1);
    if (!name.empty()) copy_starts_[name] = a.start;
    return false;
  }
  InstructionText done = instruction_text(text, "copy-done");
  // A copy-start's tuple is (destination, source, context) (HloInstruction::CreateCopyStart); the
  // copy-done's result is the destination.
  std::vector<std::string_view> tuple = tuple_elements(done.operand_shape);
  std::string_view destination = !shape.empty() ? shape : done.result;
  a.kind = GpuActivityKind::Memcpy;
  a.copy_kind = copy_direction(destination, tuple.size() >= 2 ? tuple[1] : std::string_view());
  if (bytes >= 0) a.bytes = static_cast<std::uint64_t>(bytes);
  // Without its copy-start (outside the capture, or named otherwise), the copy-done is its own span.
  auto started = copy_starts_.find(done.operand);
  if (started != copy_starts_.end() && started->second <= a.start) {
    a.start = started->second;
    copy_starts_.erase(started);
  }
  // The first of the device's transfer lines free at its start: concurrent transfers never share one.
  std::vector<TimeNs>& lines = transfer_lines_[a.device];
  auto free = std::find_if(lines.begin(), lines.end(), [&](TimeNs end) { return end <= a.start; });
  if (free == lines.end() && lines.size() < kTransferLines) free = lines.insert(lines.end(), a.start);
  if (free == lines.end()) free = lines.end() - 1;
  *free = std::max(*free, a.end);
  a.stream = kTransferStreams + static_cast<std::uint32_t>((a.device & 0xffff) * kTransferLines) +
             static_cast<std::uint32_t>(free - lines.begin());
  return true;
}

}  // namespace perfgate::xplane
