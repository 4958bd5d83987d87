// make-large-trace: writes a Kineto training trace of a chosen size, seeded, so that traces larger
// than memory can be measured (issue #41) without a stored file.
//
//   make-large-trace OUT.json SIZE [--seed N]      SIZE: bytes, or with a K, M or G suffix (GiB)
//
// The trace is a training loop on one GPU: each step is a ProfilerStep# range holding a forward
// pass (per layer aten::linear -> aten::addmm, aten::relu, and every eighth layer an aten::copy_
// with a host-to-device memcpy), a backward pass on the autograd thread (per layer an
// AddmmBackward0 with two aten::mm) and an optimizer step (aten::_foreach_add_), every op launching
// its kernels through cudaLaunchKernel with correlation ids, External ids and ac2g flow events, the
// kernels serialised on stream 7 after their launches, and a cudaDeviceSynchronize at the step's
// end. Shapes and durations vary by layer and step from a 64-bit generator of the seed (SplitMix64,
// the same numbers on every machine), so two runs with one seed write the same bytes. Steps are
// written until the file reaches SIZE; the JSON is always complete.
#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

// SplitMix64: tiny, seedable and the same everywhere (std:: distributions are not).
struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::uint64_t below(std::uint64_t n) { return next() % n; }
};

constexpr int kPid = 4242;
constexpr int kMainThread = 4242;
constexpr int kAutogradThread = 4250;
constexpr int kLayers = 24;
constexpr std::int64_t kStartUs = 1'700'000'000'000'000;

const char* const kGemmKernels[] = {
    "sm80_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x32_stage4_warpsize2x2x1_tensor16x8x16_kernel",
    "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_tn",
    "void cutlass::Kernel<cutlass_80_tensorop_f16_s16816gemm_relu_f16_64x64_64x4_nn_align8>(Params)",
};
const char* const kReluKernel =
    "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "
    "namespace)::launch_clamp_scalar("
    "at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::"
    "operator()() const::{lambda()#14}::operator()() const::{lambda(c10::Half)#1}, at::detail::Array<char*, "
    "2> >"
    "(int, at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, "
    "c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() "
    "const::{lambda()#14}::operator()() "
    "const::{lambda(c10::Half)#1}, at::detail::Array<char*, 2>)";
const char* const kForeachKernel =
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::"
    "TensorListMetadata<2>, at::native::(anonymous namespace)::BinaryOpListAlphaFunctor<c10::Half, 2, 2, 0>, "
    "std::plus<float>, float>(at::native::(anonymous namespace)::TensorListMetadata<2>, "
    "at::native::(anonymous namespace)::BinaryOpListAlphaFunctor<c10::Half, 2, 2, 0>, std::plus<float>, "
    "float)";

class TraceWriter {
 public:
  TraceWriter(std::FILE* out, std::uint64_t seed) : out_(out), random_{seed} {}

  std::uint64_t bytes() const { return bytes_; }

  void header() {
    put("{\"schemaVersion\": 1, \"record_shapes\": 1,\n"
        "\"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA A100-SXM4-80GB\", \"totalGlobalMem\": "
        "84990623744, "
        "\"computeMajor\": 8, \"computeMinor\": 0, \"maxThreadsPerBlock\": 1024, "
        "\"maxThreadsPerMultiprocessor\": 2048, "
        "\"regsPerBlock\": 65536, \"regsPerMultiprocessor\": 65536, \"warpSize\": 32, \"sharedMemPerBlock\": "
        "49152, "
        "\"sharedMemPerMultiprocessor\": 167936, \"numSms\": 108, \"sharedMemPerBlockOptin\": 166912}],\n"
        "\"traceEvents\": [\n");
    event(fmt("{\"name\": \"process_name\", \"ph\": \"M\", \"ts\": %" PRId64 ", \"pid\": %d, \"tid\": 0, "
              "\"args\": {\"name\": \"python3\"}}",
              kStartUs, kPid));
    event(fmt("{\"name\": \"thread_name\", \"ph\": \"M\", \"ts\": %" PRId64 ", \"pid\": %d, \"tid\": %d, "
              "\"args\": {\"name\": \"thread %d (python3)\"}}",
              kStartUs, kPid, kMainThread, kMainThread));
  }

  // One training step; host and GPU clocks move on from where the last step left them.
  void step() {
    ++step_;
    std::int64_t step_start = host_;
    host_ += 20 + static_cast<std::int64_t>(random_.below(30));
    for (int layer = 0; layer < kLayers; ++layer) forward_layer(layer);
    host_ += 15;
    std::int64_t backward_host = host_;
    for (int layer = kLayers - 1; layer >= 0; --layer) backward_layer(layer, backward_host);
    host_ = std::max(host_, backward_host) + 10;
    optimizer();
    // The step ends when the host has waited for the GPU.
    std::int64_t sync_start = host_;
    host_ = std::max(host_ + 5, gpu_ + 3);
    event(x_event("cuda_runtime", "cudaDeviceSynchronize", kMainThread, sync_start, host_ - sync_start,
                  fmt("\"External id\": %" PRIu64 ", \"cbid\": 165, \"correlation\": %" PRIu64, ++external_,
                      ++correlation_)));
    host_ += 4;
    // The step's range is known only at its end; Kineto writes events in any order.
    event(x_event("user_annotation", fmt("ProfilerStep#%d", step_).c_str(), kMainThread, step_start,
                  host_ - step_start, fmt("\"External id\": %" PRIu64, ++external_)));
  }

  void footer() { put("\n],\n\"traceName\": \"make-large-trace\"}\n"); }

 private:
  static std::string fmt(const char* format, ...) __attribute__((format(printf, 1, 2))) {
    char buffer[1024];
    va_list args;
    va_start(args, format);
    int n = std::vsnprintf(buffer, sizeof buffer, format, args);
    va_end(args);
    return std::string(buffer, static_cast<std::size_t>(std::min<int>(n, sizeof buffer - 1)));
  }

  static std::string x_event(const char* cat, const char* name, int tid, std::int64_t ts, std::int64_t dur,
                             const std::string& args, int pid = kPid) {
    return fmt("{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": %d, \"tid\": %d, \"ts\": %" PRId64
               ", \"dur\": %" PRId64 ", \"args\": {%s}}",
               cat, name, pid, tid, ts, dur, args.c_str());
  }

  void put(const std::string& text) {
    if (std::fwrite(text.data(), 1, text.size(), out_) != text.size()) {
      std::fprintf(stderr, "make-large-trace: write failed: %s\n", std::strerror(errno));
      std::exit(1);
    }
    bytes_ += text.size();
  }
  void event(const std::string& text) {
    put(first_ ? text : ",\n" + text);
    first_ = false;
  }

  // An op on `tid` from the host clock, with `kernels` launches inside, each followed on the GPU.
  void op(const char* name, int tid, std::int64_t& clock, const std::string& op_args, const char* kernel,
          int launches, std::int64_t kernel_us, const char* grid) {
    std::int64_t start = clock;
    std::uint64_t ext = ++external_;
    clock += 3 + static_cast<std::int64_t>(random_.below(4));
    for (int i = 0; i < launches; ++i) {
      std::uint64_t corr = ++correlation_;
      std::int64_t launch_dur = 4 + static_cast<std::int64_t>(random_.below(5));
      event(
          x_event("cuda_runtime", "cudaLaunchKernel", tid, clock, launch_dur,
                  fmt("\"External id\": %" PRIu64 ", \"cbid\": 211, \"correlation\": %" PRIu64, ext, corr)));
      event(fmt("{\"ph\": \"s\", \"id\": %" PRIu64 ", \"pid\": %d, \"tid\": %d, \"ts\": %" PRId64
                ", \"cat\": \"ac2g\", \"name\": \"ac2g\"}",
                corr, kPid, tid, clock));
      std::int64_t kernel_start = std::max(gpu_ + 1, clock + launch_dur + 2);
      std::int64_t dur =
          kernel_us + static_cast<std::int64_t>(random_.below(static_cast<std::uint64_t>(kernel_us / 4 + 1)));
      event(x_event(
          "kernel", kernel, 7, kernel_start, dur,
          fmt("\"External id\": %" PRIu64 ", \"queued\": 0, \"device\": 0, \"context\": 1, \"stream\": 7, "
              "\"correlation\": %" PRIu64 ", \"registers per thread\": 128, \"shared memory\": 49152, "
              "\"blocks per SM\": 1.185185, \"warps per SM\": 4.740741, \"grid\": %s, "
              "\"block\": [128, 1, 1], \"est. achieved occupancy %%\": 6",
              ext, corr, grid),
          0));
      event(fmt("{\"ph\": \"f\", \"id\": %" PRIu64 ", \"pid\": 0, \"tid\": 7, \"ts\": %" PRId64
                ", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"}",
                corr, kernel_start));
      gpu_ = kernel_start + dur;
      clock += launch_dur + 1;
    }
    clock += 2;
    event(x_event("cpu_op", name, tid, start, clock - start,
                  fmt("\"External id\": %" PRIu64 ", \"Sequence number\": %" PRIu64 ", %s", ext, ++sequence_,
                      op_args.c_str())));
    clock += 1;
  }

  void forward_layer(int layer) {
    std::uint64_t batch = 32u << random_.below(3), in = 1024u + 256u * static_cast<unsigned>(layer % 5),
                  out = 1024u + 512u * static_cast<unsigned>(layer % 3);
    std::int64_t linear_start = host_;
    std::uint64_t linear_ext = ++external_;
    host_ += 2;
    std::string shapes =
        fmt("\"Input Dims\": [[%" PRIu64 "], [%" PRIu64 ", %" PRIu64 "], [%" PRIu64 ", %" PRIu64
            "], [], []], \"Input type\": [\"c10::Half\", \"c10::Half\", \"c10::Half\", \"Scalar\", "
            "\"Scalar\"]",
            out, batch, in, in, out);
    op("aten::addmm", kMainThread, host_, shapes, kGemmKernels[layer % 3], 1,
       static_cast<std::int64_t>(batch * in * out / 40'000'000 + 8), "[64, 8, 1]");
    host_ += 2;
    event(x_event("cpu_op", "aten::linear", kMainThread, linear_start, host_ - linear_start,
                  fmt("\"External id\": %" PRIu64 ", \"Sequence number\": %" PRIu64
                      ", \"Input Dims\": [[%" PRIu64 ", %" PRIu64 "], [%" PRIu64 ", %" PRIu64 "], [%" PRIu64
                      "]], \"Input type\": [\"c10::Half\", \"c10::Half\", \"c10::Half\"]",
                      linear_ext, ++sequence_, batch, in, out, in, out)));
    host_ += 1;
    op("aten::relu", kMainThread, host_,
       fmt("\"Input Dims\": [[%" PRIu64 ", %" PRIu64 "]], \"Input type\": [\"c10::Half\"]", batch, out),
       kReluKernel, 1, 3, "[1024, 1, 1]");
    if (layer % 8 == 0) copy_to_device(batch * in * 2);
  }

  void copy_to_device(std::uint64_t bytes) {
    std::int64_t start = host_;
    std::uint64_t ext = ++external_, corr = ++correlation_;
    host_ += 3;
    event(x_event("cuda_runtime", "cudaMemcpyAsync", kMainThread, host_, 6,
                  fmt("\"External id\": %" PRIu64 ", \"cbid\": 41, \"correlation\": %" PRIu64, ext, corr)));
    std::int64_t copy_start = std::max(gpu_ + 1, host_ + 8);
    std::int64_t dur = static_cast<std::int64_t>(bytes / 20'000) + 2;
    event(
        x_event("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", 7, copy_start, dur,
                fmt("\"External id\": %" PRIu64 ", \"device\": 0, \"context\": 1, \"stream\": 7, "
                    "\"correlation\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"memory bandwidth (GB/s)\": 20.0",
                    ext, corr, bytes),
                0));
    gpu_ = copy_start + dur;
    host_ += 9;
    event(x_event("cpu_op", "aten::copy_", kMainThread, start, host_ - start,
                  fmt("\"External id\": %" PRIu64 ", \"Sequence number\": %" PRIu64
                      ", \"Input Dims\": [[%" PRIu64 "], [%" PRIu64 "], []], \"Input type\": [\"c10::Half\", "
                      "\"c10::Half\", \"Scalar\"]",
                      ext, ++sequence_, bytes / 2, bytes / 2)));
    host_ += 1;
  }

  void backward_layer(int layer, std::int64_t& clock) {
    std::int64_t start = clock;
    std::uint64_t ext = ++external_;
    clock += 3;
    std::uint64_t rows = 64, in = 1024u + 256u * static_cast<unsigned>(layer % 5),
                  out = 1024u + 512u * static_cast<unsigned>(layer % 3);
    for (int part = 0; part < 2; ++part)
      op("aten::mm", kAutogradThread, clock,
         fmt("\"Input Dims\": [[%" PRIu64 ", %" PRIu64 "], [%" PRIu64 ", %" PRIu64 "]], \"Input type\": "
             "[\"c10::Half\", \"c10::Half\"]",
             rows, part ? in : out, part ? in : out, part ? out : in),
         kGemmKernels[(layer + part) % 3], 1, static_cast<std::int64_t>(rows * in * out / 30'000'000 + 10),
         "[32, 16, 1]");
    clock += 2;
    event(x_event("cpu_op", "autograd::engine::evaluate_function: AddmmBackward0", kAutogradThread, start,
                  clock - start,
                  fmt("\"External id\": %" PRIu64 ", \"Sequence number\": %" PRIu64 ", \"Fwd thread id\": 1",
                      ext, ++sequence_)));
    clock += 1;
  }

  void optimizer() {
    std::int64_t start = host_;
    std::uint64_t ext = ++external_;
    host_ += 4;
    op("aten::_foreach_add_", kMainThread, host_,
       "\"Input Dims\": [[], [], []], \"Input type\": [\"TensorList\", \"TensorList\", \"Scalar\"]",
       kForeachKernel, 4, 12, "[320, 1, 1]");
    host_ += 3;
    event(x_event("user_annotation", "Optimizer.step#SGD.step", kMainThread, start, host_ - start,
                  fmt("\"External id\": %" PRIu64, ext)));
    host_ += 2;
  }

  std::FILE* out_;
  SplitMix64 random_;
  std::uint64_t bytes_ = 0;
  bool first_ = true;
  int step_ = 0;
  std::int64_t host_ = kStartUs + 100;
  std::int64_t gpu_ = kStartUs + 100;
  std::uint64_t external_ = 0, correlation_ = 0, sequence_ = 0;
};

std::uint64_t parse_size(const char* text) {
  char* end = nullptr;
  double value = std::strtod(text, &end);
  if (end == text || value <= 0) return 0;
  double unit = 1;
  if (*end == 'K' || *end == 'k') unit = 1024.0;
  if (*end == 'M' || *end == 'm') unit = 1024.0 * 1024;
  if (*end == 'G' || *end == 'g') unit = 1024.0 * 1024 * 1024;
  return static_cast<std::uint64_t>(value * unit);
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t seed = 41;
  std::string out_path;
  std::uint64_t size = 0;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--seed" && i + 1 < argc)
      seed = std::strtoull(argv[++i], nullptr, 10);
    else if (out_path.empty())
      out_path = arg;
    else
      size = parse_size(argv[i]);
  }
  if (out_path.empty() || size == 0) {
    std::fprintf(stderr, "usage: make-large-trace OUT.json SIZE[K|M|G] [--seed N]\n");
    return 2;
  }
  std::FILE* out = std::fopen(out_path.c_str(), "wb");
  if (!out) {
    std::fprintf(stderr, "make-large-trace: cannot write %s: %s\n", out_path.c_str(), std::strerror(errno));
    return 1;
  }
  static char buffer[1 << 20];
  std::setvbuf(out, buffer, _IOFBF, sizeof buffer);
  TraceWriter writer(out, seed);
  writer.header();
  while (writer.bytes() < size) writer.step();
  writer.footer();
  if (std::fclose(out) != 0) {
    std::fprintf(stderr, "make-large-trace: write failed: %s\n", std::strerror(errno));
    return 1;
  }
  std::printf("%s: %" PRIu64 " bytes\n", out_path.c_str(), writer.bytes());
  return 0;
}
