// PyTorch memory snapshots (torch.cuda.memory._snapshot(), written by _dump_snapshot): the pickle
// read by the restricted unpickler (pickle.h), its dict turned into each device's final state and
// trace (snapshot_reader.cpp, the model's MemorySnapshot: model/memory_snapshot.h), and the trace
// replayed from the final state backwards into the blocks' sizes and the profile model's allocator
// samples (snapshot_replay.cpp; docs/formats.md, "PyTorch memory snapshot").
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "knowledge/classification.h"
#include "knowledge/memory_categories.h"
#include "load/snapshot/pickle.h"
#include "model/memory_snapshot.h"
#include "model/profile.h"

namespace perfgate::snapshot {

// A pickle (protocol 2 to 5) whose first value is a dict with a "segments" key: the shape of a
// memory snapshot, from a file's first bytes.
bool detect(std::string_view head);

// The snapshot `root`, its allocations' categories by the frame patterns `categories` (rules:
// memory_categories; none: only what the snapshot says names a category). Throws
// InputError naming `path` when it is not a snapshot's shape or its sizes pass 2^62 bytes in sum, and
// InputMemoryError when what it keeps of values shared through the memo passes `max_memory` (0: no
// limit).
MemorySnapshot read_snapshot(const pickle::Value& root, const std::string& path,
                             const std::vector<MemoryCategoryPattern>& categories = {},
                             std::uint64_t max_memory = 0);

// The snapshot in the pickle that `open()` gives, read as it streams (pickle::unpickle_stream):
// each segment and each trace entry taken into the model as it is read and then let go, so that
// what is held is the model, the memo's shared values (keys, frames) and one entry, bounded by
// `limits` (the file's size plays no part). `bytes_read`: the pickle's bytes (inflated) in all.
MemorySnapshot read_snapshot_stream(const std::function<std::unique_ptr<ByteSource>()>& open,
                                    const std::string& path, const pickle::Limits& limits,
                                    std::uint64_t* bytes_read = nullptr,
                                    const std::vector<MemoryCategoryPattern>& categories = {});

// The frames' top user frame, "name (file.py:line)": the first frame not in an installed package
// (site-packages, dist-packages, torch/, the Python library) nor in C or C++ source.
std::string site_of(const pickle::Value* frames);

// What a trace entry's or a block's memory holds (docs/formats.md, "Categories"): its `category`
// (PyTorch's memory profiler's, lower case, as torch.cuda._memory_viz writes it), else its
// `user_metadata` when that names one of those categories, else the category of the first entry of
// `categories` (rules: memory_categories: gradient, optimizer, parameter, backward, forward) that
// any of its frames matches; else "unknown".
std::string category_of(const pickle::Value& entry, MemoryCategories& categories);

// The block the CUDA caching allocator makes for a request of `requested` bytes (c10/cuda/
// CUDACachingAllocator.cpp, round_size: 512 bytes at least, else rounded up to a multiple of 512).
// The allocator may hand out more (a large block it does not split: at most 1 MiB more; more under
// roundup_power2_divisions or max_split_size_mb), so for a block the final state does not hold this
// is a lower bound of its size.
std::uint64_t block_size_of(std::uint64_t requested);

// Replays each device's trace from the final state backwards (snapshot_replay.cpp): each alloc's
// and free_completed's block, the totals and live blocks entering the trace; and adds the totals
// after each change to `profile`'s allocator samples. Throws InputError when the totals pass 2^62.
void replay_snapshot(MemorySnapshot& snapshot, Profile& profile);

}  // namespace perfgate::snapshot
