// Writes examples/small_training.pt.trace.json.gz: a synthetic but realistic PyTorch Profiler
// trace of a small CNN trained in FP32 on one A100, recorded with a profiler schedule (warm-up,
// then 8 active steps). It exercises every part of the analysis: a DataLoader without workers,
// pageable host-to-device copies, a loss.item() synchronisation, forward and backward (on the
// autograd thread, linked by fwdbwd flows), an SGD step, and TC-eligible ops without Tensor Cores.
// Deterministic: the same bytes every run.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "support/trace_builder.h"

namespace {

using perfgate::testing::KernelArgs;
using perfgate::testing::TraceBuilder;

constexpr int kMainThread = 1;
constexpr int kAutogradThread = 2;

// A small linear congruential generator: the same jitter on every machine.
class Jitter {
 public:
  double operator()(double base, double spread) {
    state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    double unit = static_cast<double>(state_ >> 11) / 9007199254740992.0;
    return base * (1.0 + spread * (2 * unit - 1));
  }

 private:
  std::uint64_t state_ = 42;
};

class TrainingTrace {
 public:
  explicit TrainingTrace(TraceBuilder& t) : t_(t) {}

  void run(int first_step, int steps) {
    double host = 1000;
    for (int s = first_step; s < first_step + steps; ++s) host = step(s, host);
  }

 private:
  // One kernel on the single stream: it starts when launched and the stream is free.
  void kernel(const std::string& name, double launch_at, double duration, std::int64_t ext, int tid,
              const KernelArgs& args = {}) {
    double start = std::max(launch_at + jitter_(6, 0.3), gpu_free_);
    t_.launch(name, launch_at, start, duration, ext, 0, tid, 7, args);
    gpu_free_ = start + duration;
  }

  std::int64_t ext() { return next_ext_++; }

  double op_with_kernel(const std::string& op, const std::string& kernel_name, double at, double gpu_us,
                        int tid, const std::string& shapes, double blocks = 4, double occupancy = 50) {
    std::int64_t id = ext();
    double host = jitter_(35, 0.2);
    t_.op(op, at, host, id, tid, shapes);
    kernel(kernel_name, at + host * 0.6, jitter_(gpu_us, 0.05), id, tid,
           KernelArgs{.blocks_per_sm = blocks,
                      .occupancy_pct = occupancy,
                      .grid = {256, 1, 1},
                      .block = {256, 1, 1},
                      .registers_per_thread = 64,
                      .shared_memory = 4096});
    return at + host + 2;
  }

  // A 3x3 convolution with stride 1 and padding 1, with the scalar arguments PyTorch >= 2.1
  // records (in each op's own argument order).
  double convolution(double at, int tid, const std::string& shapes, double gpu_us) {
    std::int64_t outer = ext();
    double start = at;
    const std::string conv2d =
        shapes + R"(, "Concrete Inputs": ["", "", "", "[1, 1]", "[1, 1]", "[1, 1]", "1"])";
    const std::string convolution =
        shapes + R"(, "Concrete Inputs": ["", "", "", "[1, 1]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1"])";
    const std::string cudnn =
        shapes +
        R"(, "Concrete Inputs": ["", "", "[1, 1]", "[1, 1]", "[1, 1]", "1", "False", "False", "True"])";
    t_.op("aten::conv2d", start, 120, outer, tid, conv2d);
    t_.op("aten::convolution", start + 3, 114, ext(), tid, convolution);
    t_.op("aten::_convolution", start + 6, 108, ext(), tid, convolution);
    op_with_kernel("aten::cudnn_convolution",
                   "void implicit_convolve_sgemm<float, float, 128, 5, 5, 3, 3, 3, 1, false, false, "
                   "true>(int, int, int, float const*, int, float*, float const*, kernel_conv_params, "
                   "unsigned long long, int, float, float, int, float const*, float const*, bool, int, int)",
                   start + 10, gpu_us, tid, cudnn, 2.5, 45);
    return start + 124;
  }

  double forward(double at) {
    double t = at;
    t_.annotation("## forward ##", t, 1, 0, kMainThread);
    t = convolution(
        t + 2, kMainThread,
        R"("Input Dims": [[64, 3, 32, 32], [32, 3, 3, 3], [32]], "Input type": ["float", "float", "float"])",
        900);
    t = op_with_kernel(
        "aten::relu",
        "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "
        "namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, "
        "at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() "
        "const::{lambda(float)#1}, at::detail::Array<char*, 2> >(int, at::native::(anonymous "
        "namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, "
        "at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() "
        "const::{lambda(float)#1}, at::detail::Array<char*, 2>)",
        t, 90, kMainThread, R"("Input Dims": [[64, 32, 32, 32]], "Input type": ["float"])");
    t = convolution(
        t, kMainThread,
        R"("Input Dims": [[64, 32, 32, 32], [64, 32, 3, 3], [64]], "Input type": ["float", "float", "float"])",
        2100);
    t = op_with_kernel(
        "aten::max_pool2d",
        "void at::native::(anonymous namespace)::max_pool_forward_nchw<float, float>(int, float const*, int, "
        "int, int, int, int, int, int, int, int, int, int, int, int, int, float*, long*)",
        t, 160, kMainThread, R"("Input Dims": [[64, 64, 32, 32]], "Input type": ["float"])");
    std::int64_t linear = ext();
    t_.op("aten::linear", t, 90, linear, kMainThread,
          R"("Input Dims": [[64, 16384], [10, 16384], [10]], "Input type": ["float", "float", "float"])");
    t_.op("aten::t", t + 4, 10, ext(), kMainThread);
    op_with_kernel(
        "aten::addmm", "ampere_sgemm_128x64_nn", t + 20, 240, kMainThread,
        R"("Input Dims": [[10], [64, 16384], [16384, 10]], "Input type": ["float", "float", "float"])", 0.6,
        25);
    t += 94;
    t = op_with_kernel(
        "aten::cross_entropy_loss",
        "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
        "at::native::(anonymous namespace)::LogSoftMaxForwardEpilogue>(float*, float const*, int)",
        t, 30, kMainThread, R"("Input Dims": [[64, 10], [64]], "Input type": ["float", "long int"])", 0.5,
        20);
    return t;
  }

  double backward(double at, double forward_start) {
    double t = at;
    struct Node {
      const char* name;
      const char* kernel;
      double gpu_us;
      const char* args = "";  // the inner op's shapes, for FLOPs
    };
    const Node nodes[] = {
        {"NllLossBackward0",
         "void at::native::(anonymous namespace)::nll_loss_backward_reduce_cuda_kernel_2d<float, "
         "long>(float*, float const*, long const*, float const*, float const*, bool, int, int, long, long)",
         20},
        {"AddmmBackward0", "ampere_sgemm_64x32_sliced1x4_tn", 260,
         R"("Input Dims": [[64, 10], [10, 16384]], "Input type": ["float", "float"])"},
        {"MaxPool2DWithIndicesBackward0",
         "void at::native::(anonymous namespace)::max_pool_backward_nchw<float, float>(float const*, long "
         "const*, int, long, long, long, long, long, long, long, long, long, long, long, long, long, long, "
         "float*)",
         300},
        {"ConvolutionBackward0",
         "void cudnn::detail::dgrad_engine<float, 128, 6, 8, 3, 3, 5, false>(int, int, int, float const*, "
         "int, float const*, int, float*, kernel_grad_params, unsigned long long, int, unsigned long long, "
         "int, float, int, int, int)",
         2600,
         R"("Input Dims": [[64, 64, 32, 32], [64, 32, 32, 32], [64, 32, 3, 3]], )"
         R"("Input type": ["float", "float", "float"], )"
         R"("Concrete Inputs": ["", "", "", "[64]", "[1, 1]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1", )"
         R"("[True, True, True]"])"},
        {"ReluBackward0",
         "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "
         "namespace)::threshold_kernel_impl<float>(at::TensorIteratorBase&, float, float)::{lambda(float, "
         "float)#1}, at::detail::Array<char*, 3> >(int, at::native::(anonymous "
         "namespace)::threshold_kernel_impl<float>(at::TensorIteratorBase&, float, float)::{lambda(float, "
         "float)#1}, at::detail::Array<char*, 3>)",
         110},
        {"ConvolutionBackward0",
         "void cudnn::cnn::wgrad_alg0_engine<float, 128, 5, 5, 3, 3, 3, false, 512>(int, int, int, float "
         "const*, int, float*, float const*, kernel_grad_params, unsigned long long, int, float, int, int, "
         "int, int)",
         1300,
         R"("Input Dims": [[64, 32, 32, 32], [64, 3, 32, 32], [32, 3, 3, 3]], )"
         R"("Input type": ["float", "float", "float"], )"
         R"("Concrete Inputs": ["", "", "", "[32]", "[1, 1]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1", )"
         R"("[False, True, True]"])"},  // the first layer needs no input gradient
    };
    int seq = 0;
    for (const Node& n : nodes) {
      std::int64_t id = ext();
      t_.op(fmt::format("autograd::engine::evaluate_function: {}", n.name), t, 70, id, kAutogradThread);
      t_.op(n.name, t + 3, 64, ext(), kAutogradThread);
      bool conv = std::string(n.name) == "ConvolutionBackward0";
      bool gemm = std::string(n.name) == "AddmmBackward0";
      std::string inner = conv ? "aten::convolution_backward" : gemm ? "aten::mm" : "";
      if (!inner.empty()) {
        op_with_kernel(inner, n.kernel, t + 8, n.gpu_us, kAutogradThread, n.args, 3, 40);
      } else {
        kernel(n.kernel, t + 20, jitter_(n.gpu_us, 0.05), id, kAutogradThread);
      }
      t_.flow_forward_backward(next_flow_++, forward_start + 10 * ++seq, kMainThread, t + 3, kAutogradThread);
      t += 75;
    }
    return t;
  }

  double optimizer(double at) {
    std::int64_t id = ext();
    t_.annotation("Optimizer.step#SGD.step", at, 140, id, kMainThread);
    op_with_kernel("aten::_foreach_add_",
                   "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
                   "namespace)::TensorListMetadata<2>, at::native::(anonymous "
                   "namespace)::BinaryOpListAlphaFunctor<float, 2, 2, 0>, std::plus<float>, "
                   "float>(at::native::(anonymous namespace)::TensorListMetadata<2>, at::native::(anonymous "
                   "namespace)::BinaryOpListAlphaFunctor<float, 2, 2, 0>, std::plus<float>, float)",
                   at + 20, 180, kMainThread, "");
    return at + 142;
  }

  // loss.item(): a device-to-host copy and a stream synchronisation that waits for the GPU.
  double read_loss(double at) {
    std::int64_t id = ext();
    t_.op("aten::item", at, 0, id, kMainThread);
    std::int64_t correlation = 900000 + next_ext_;
    double copy_start = std::max(at + 8, gpu_free_);
    t_.runtime("cudaMemcpyAsync", at + 2, 6, correlation, id, kMainThread);
    t_.memcpy("Memcpy DtoH (Device -> Pageable)", copy_start, 3, correlation, 0, 7, 4);
    gpu_free_ = copy_start + 3;
    double wait_until = gpu_free_ + 4;
    t_.runtime("cudaStreamSynchronize", at + 9, wait_until - (at + 9), correlation + 1, id, kMainThread);
    t_.op("aten::_local_scalar_dense", at, wait_until - at + 2, ext(), kMainThread);
    return wait_until + 6;
  }

  double step(int number, double at) {
    double step_start = at;
    double t = at + 10;
    // Single-process DataLoader: the batch is prepared on the main thread.
    double load = jitter_(3200, 0.15);
    t_.op("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", t, load, ext(), kMainThread);
    t += load + 20;
    std::int64_t to = ext();
    t_.op("aten::to", t, 260, to, kMainThread, R"("Input Dims": [[64, 3, 32, 32]], "Input type": ["float"])");
    std::int64_t correlation = 800000 + next_ext_;
    double copy_start = std::max(t + 30, gpu_free_);
    t_.runtime("cudaMemcpyAsync", t + 20, 230, correlation, to, kMainThread);
    t_.memcpy("Memcpy HtoD (Pageable -> Device)", copy_start, jitter_(220, 0.1), correlation, 0, 7,
              64 * 3 * 32 * 32 * 4);
    gpu_free_ = copy_start + 220;
    t += 270;
    double forward_start = t;
    t = forward(t);
    t = backward(t + 20, forward_start);
    t = optimizer(t + 10);
    t = read_loss(std::max(t + 10, gpu_free_ - 400));
    t_.step(number, step_start, t - step_start + 5, kMainThread);
    return t + 10;
  }

  TraceBuilder& t_;
  Jitter jitter_;
  double gpu_free_ = 0;
  std::int64_t next_ext_ = 1;
  std::int64_t next_flow_ = 1;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT.pt.trace.json[.gz]\n", argv[0]);
    return 2;
  }
  TraceBuilder t;
  t.device(0, "NVIDIA A100-SXM4-40GB", 8, 0, 42505273344, 108);
  t.top_level("distributedInfo", R"({"backend": "nccl", "rank": 0, "world_size": 1})");
  t.top_level("traceName", "\"small_training: synthetic, written by tools/make_example.cpp\"");
  TrainingTrace(t).run(3, 8);
  t.write(argv[1]);
  return 0;
}
