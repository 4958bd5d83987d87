// A parametrised training loop as a Kineto trace: each step an fp16 GEMM and an elementwise
// kernel on one GPU, and whatever problem a test turns on (a data loader, synchronising calls,
// pageable copies, short kernels, no Tensor Cores, ...). The default is a healthy run that none of
// the default rules flags; each rule's test changes the one thing that should make it fire.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace perfgate::testing {

struct TrainingRun {
  int steps = 8;
  double gemm_us = 6000;          // per step: the GEMM's kernel
  double elementwise_us = 3000;   // per step: an elementwise kernel
  std::vector<double> extra_us;   // per step: added to the elementwise kernel
  bool tensor_cores = true;       // the GEMM's kernel runs on Tensor Cores
  std::int64_t gemm_size = 8192;  // M = N = K of the GEMM: 2 x 8192^3 FLOP = 3.5 ms at A100 fp16 peak
  int gemms = 1;                  // per step: a batch x2 as two micro-batches launches the GEMM twice
  bool gemm_shapes = true;        // false: the GEMM's op records no input shapes (its FLOPs unknown)
  bool misaligned_gemm = false;   // also an fp16 GEMM with dimensions not multiples of 8, without TC
  double misaligned_gemm_us = 100;
  double dataloader_us = 0;               // at each step's start, with the GPU idle
  bool dataloader_annotation = false;     // the DataLoader as a user_annotation (PyTorch 2.x), not an op
  double host_only_us = 0;                // CPU work without kernels at each step's start
  double runtime_only_us = 0;             // a cudaMalloc with the GPU idle, each step
  double sync_us = 0;                     // a cudaStreamSynchronize at each step's end
  int pageable_copies = 0;                // per step
  int sync_copies = 0;                    // per step: cudaMemcpy device to host, 1 MB
  int sync_memsets = 0;                   // per step: cudaMemset
  int short_kernels = 0;                  // per step: 2 µs kernels launched 20 µs apart
  double gap_us = 0;                      // host-only time before the GEMM of the middle step
  std::optional<double> memory_peak_pct;  // allocator samples reaching this share of GPU memory
  bool memory_totals = true;              // false: the samples carry no totals (PyTorch 1.8/1.9)
  // Of every GPU.
  std::string gpu_name = "NVIDIA A100-SXM4-40GB";
  int compute_major = 8;
  int compute_minor = 0;
  bool profiler_steps = true;
  bool data_parallel = false;                  // DataParallel.forward, replicas on a second GPU
  bool ddp = false;                            // DistributedDataParallel.forward
  std::string collective = "nccl:all_reduce";  // per step when communication_us > 0
  double communication_us = 0;                 // the collective's kernel (none for gloo:)
  bool overlap_communication = true;           // on its own stream beside the GEMM, or after all compute
  int rank = -1;                               // distributedInfo when >= 0
};

std::string training_trace(const TrainingRun& run);

}  // namespace perfgate::testing
