#include "support/training_run.h"

#include <algorithm>

#include <fmt/format.h>

#include "support/trace_builder.h"

namespace perfgate::testing {
namespace {

constexpr std::int64_t kGpuMemory = 40'000'000'000;
constexpr const char* kTcGemm = "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn";
constexpr const char* kPlainGemm = "ampere_sgemm_128x64_nn";
constexpr const char* kElementwise = "void at::native::vectorized_elementwise_kernel<4, AddFunctor<float>>";

class StepWriter {
 public:
  StepWriter(const TrainingRun& run, TraceBuilder& t) : run_(run), t_(t) {}

  // One step from host time `start`; returns when the next may start.
  double write(int index, double start) {
    host_ = start;
    if (run_.dataloader_us > 0) dataloader();
    if (run_.host_only_us > 0) host_op("aten::cpu_preprocess", run_.host_only_us);
    if (run_.runtime_only_us > 0) {
      t_.runtime("cudaMalloc", host_, run_.runtime_only_us, next_correlation_++);
      host_ += run_.runtime_only_us;
    }
    if (index == run_.steps / 2 && run_.gap_us > 0) host_op("aten::cpu_preprocess", run_.gap_us);
    // Launch-bound work first, while the GPU has drained the previous step: it waits for each launch.
    for (int k = 0; k < run_.short_kernels; ++k) launch_op("aten::mul", "short_kernel", 2, "", 20);
    if (run_.data_parallel) t_.annotation("DataParallel.forward", host_, 40);
    if (run_.ddp) t_.annotation("DistributedDataParallel.forward", host_, 40);
    double gemm_start = gemm();
    for (int k = 1; k < run_.gemms; ++k) gemm();
    double extra =
        index < static_cast<int>(run_.extra_us.size()) ? run_.extra_us[static_cast<std::size_t>(index)] : 0;
    launch_op("aten::add_", kElementwise, run_.elementwise_us + extra, "");
    if (run_.misaligned_gemm)
      launch_op("aten::mm", kPlainGemm, run_.misaligned_gemm_us,
                R"("Input Dims": [[63, 100], [100, 30]], "Input type": ["c10::Half", "c10::Half"])");
    if (run_.communication_us > 0) communication(gemm_start);
    copies_and_memsets();
    if (run_.data_parallel) replica();
    if (run_.sync_us > 0) {
      t_.runtime("cudaStreamSynchronize", host_, run_.sync_us, next_correlation_++);
      host_ += run_.sync_us;
    }
    memory();
    return std::max(host_, gpu_free_) + 10;
  }

 private:
  void host_op(const std::string& name, double us) {
    t_.op(name, host_, us);
    host_ += us;
  }

  void dataloader() {
    const char* name = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__";
    if (!run_.dataloader_annotation) return host_op(name, run_.dataloader_us);
    t_.annotation(name, host_, run_.dataloader_us);
    host_ += run_.dataloader_us;
  }

  // An op that launches one kernel on stream 7, after the kernels before it.
  double launch_op(const std::string& op, const std::string& kernel, double us, const std::string& args,
                   double host_us = 15) {
    std::int64_t ext = next_ext_++;
    t_.op(op, host_, host_us, ext, 1, args);
    double kernel_start = std::max(host_ + 3, gpu_free_);
    t_.launch(kernel, host_ + 1, kernel_start, us, ext);
    gpu_free_ = kernel_start + us;
    host_ += host_us;
    return kernel_start;
  }

  double gemm() {
    std::string args =
        run_.gemm_shapes
            ? fmt::format(
                  R"("Input Dims": [[{0}, {0}], [{0}, {0}]], "Input type": ["c10::Half", "c10::Half"])",
                  run_.gemm_size)
            : "";
    return launch_op("aten::mm", run_.tensor_cores ? kTcGemm : kPlainGemm, run_.gemm_us, args, 20);
  }

  void communication(double gemm_start) {
    std::int64_t ext = next_ext_++;
    t_.op(run_.collective, host_, 10, ext);
    if (run_.collective.starts_with("gloo:")) {  // Gloo runs on the host
      host_ += 10;
      return;
    }
    double start = run_.overlap_communication ? gemm_start : gpu_free_;
    t_.launch("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", host_ + 1,
              start, run_.communication_us, ext, 0, 1, 13);
    if (!run_.overlap_communication) gpu_free_ = start + run_.communication_us;
    host_ += 10;
  }

  void copy(const char* call, const char* name, std::int64_t bytes) {
    std::int64_t c = next_correlation_++;
    t_.runtime(call, host_, 5, c);
    double start = std::max(host_ + 3, gpu_free_);
    t_.memcpy(name, start, 50, c, 0, 7, bytes);
    gpu_free_ = start + 50;
    host_ += 5;
  }

  void copies_and_memsets() {
    for (int i = 0; i < run_.pageable_copies; ++i)
      copy("cudaMemcpyAsync", "Memcpy HtoD (Pageable -> Device)", 1'000'000);
    for (int i = 0; i < run_.sync_copies; ++i)
      copy("cudaMemcpy", "Memcpy DtoH (Device -> Pinned)", 1'000'000);
    for (int i = 0; i < run_.sync_memsets; ++i) {
      std::int64_t c = next_correlation_++;
      t_.runtime("cudaMemset", host_, 5, c);
      double start = std::max(host_ + 3, gpu_free_);
      t_.memset(start, 10, c);
      gpu_free_ = start + 10;
      host_ += 5;
    }
  }

  // DataParallel's replica: the same GEMM on the second GPU.
  void replica() {
    std::int64_t c = next_correlation_++;
    t_.runtime("cudaLaunchKernel", host_, 2, c);
    t_.kernel(kTcGemm, host_ + 5, run_.gemm_us, c, 1);
    host_ += 2;
  }

  void memory() {
    if (!run_.memory_peak_pct) return;
    auto peak = static_cast<std::int64_t>(*run_.memory_peak_pct / 100 * static_cast<double>(kGpuMemory));
    if (!run_.memory_totals) {
      t_.memory_change(host_, peak).memory_change(host_ + 1, -peak / 2);
      return;
    }
    t_.memory(host_, peak / 2, peak, 1, 0);
    t_.memory(host_ + 1, -peak / 2, peak / 2, 1, 0);
  }

  const TrainingRun& run_;
  TraceBuilder& t_;
  double host_ = 0;
  double gpu_free_ = 0;
  std::int64_t next_ext_ = 1;
  std::int64_t next_correlation_ = 900000;
};

}  // namespace

std::string training_trace(const TrainingRun& run) {
  TraceBuilder t;
  t.device(0, run.gpu_name, run.compute_major, run.compute_minor, kGpuMemory, 108);
  if (run.data_parallel) t.device(1, run.gpu_name, run.compute_major, run.compute_minor, kGpuMemory, 108);
  if (run.rank >= 0)
    t.top_level("distributedInfo",
                fmt::format(R"({{"backend": "nccl", "rank": {}, "world_size": 2}})", run.rank));
  StepWriter writer(run, t);
  double start = 100;
  for (int i = 0; i < run.steps; ++i) {
    double next = writer.write(i, start);
    if (run.profiler_steps) t.step(i + 1, start, next - 10 - start);
    start = next;
  }
  return t.json();
}

}  // namespace perfgate::testing
