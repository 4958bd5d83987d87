// Kineto/Chrome-trace vocabulary: which category means which model entity. Both schemas:
// PyTorch 1.8 (`Operator`, `Runtime`, `Kernel`, `Memcpy`, `Memset`) and current
// (`cpu_op`, `user_annotation`, `cuda_runtime`, `cuda_driver`, `kernel`, `gpu_memcpy`, ...).
#pragma once

#include <optional>
#include <string_view>

#include "model/profile.h"

namespace perfgate::kineto {

enum class EventClass : unsigned char {
  Ignored,
  Op,
  Annotation,
  PythonFunction,
  Runtime,
  Kernel,
  Memcpy,
  Memset,
  GpuAnnotation,
  ProfilerSpan,
  GpuSync,     // cuda_sync: Context Sync, Stream Sync, Event Sync, Stream Wait Event
  MtiaDevice,  // mtia_ccp_events: an MTIA's kernels and DMA requests (a kernel or a copy by its name)
};

EventClass classify_category(std::string_view category);

// The kind of a cuda_sync event by its name ("Event Sync"), or empty for a kind perfgate does not know.
std::optional<GpuSyncKind> gpu_sync_kind(std::string_view name);

// A runtime category of driver-API calls: cuda_driver, hip_driver, any *_driver.
bool is_driver_category(std::string_view category);

// "Memcpy HtoD (Pageable -> Device)" -> HostToDevice, pageable.
struct MemcpyName {
  CopyKind kind = CopyKind::Unknown;
  bool pageable = false;
  bool pinned = false;  // "Memcpy HtoD (Pinned -> Device)"
};
MemcpyName parse_memcpy_name(std::string_view name);

// An MTIA device event (mtia_ccp_events) that is a DMA request ("dma_request"), not a kernel.
bool is_mtia_dma(std::string_view name);

// An MTIA DMA request's args.direction ("HOST_TO_DEVICE") as a copy kind.
CopyKind mtia_dma_kind(std::string_view direction);

}  // namespace perfgate::kineto
