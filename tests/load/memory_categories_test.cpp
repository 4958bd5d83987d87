// Issue 73: a memory snapshot's categories by frame are data (rules: memory_categories), read by the
// knowledge stage, compiled once per snapshot and handed to the reader with the classification: a
// rule file of a user's adds a category, its entries win over the shipped ones, an entry with a
// file and a function pattern needs both, and a bad entry is refused naming its file.
#include <gtest/gtest.h>

#include <algorithm>

#include "common/errors.h"
#include "gate/rules.h"
#include "knowledge/memory_categories.h"
#include "load/snapshot/snapshot_reader.h"
#include "model/memory_snapshot.h"
#include "support/helpers.h"
#include "support/snapshot_builder.h"

namespace perfgate::testing {
namespace {

constexpr std::uint64_t kMiB = 1 << 20;
constexpr const char* kModule = "/usr/lib/python3/site-packages/torch/nn/modules/module.py";
constexpr const char* kLoader = "/usr/lib/python3/site-packages/torch/utils/data/dataloader.py";
constexpr const char* kCheckpoint = "/usr/lib/python3/site-packages/torch/utils/checkpoint.py";

// Data loading (pinned batches copied to the device) and activation checkpointing's recomputation
// as categories of the user's, added before the shipped entries.
std::string user_rules() {
  return write_text(
      temp_dir() + "/categories.yaml",
      "memory_categories:\n"
      "  add:\n"
      "    - {category: data loading, file: '/torch/utils/data/', source: \"DataLoader's workers\"}\n"
      "    - {category: recompute, file: '/torch/utils/checkpoint\\.py$', function: '^recompute_fn$'}\n");
}

std::string category(MemoryCategories& categories, const std::vector<test::SnapFrame>& frames) {
  test::PickleWriter w(4);
  w.empty_dict().mark().str("frames");
  test::write_frames(w, frames);
  w.setitems().stop();
  return snapshot::category_of(pickle::unpickle(w.text(), "entry.pickle", {}), categories);
}

TEST(MemoryCategories, ShippedEntriesHaveTheirCategoriesInOrder) {
  const std::vector<MemoryCategoryPattern>& shipped = default_classification().memory_categories;
  std::vector<std::string> order;
  for (const MemoryCategoryPattern& m : shipped)
    if (order.empty() || order.back() != m.category) order.push_back(m.category);
  // By precedence: what writes a gradient first, then the optimizer, parameters, the backward pass
  // and the forward pass (docs/formats.md, "Categories").
  EXPECT_EQ(order, (std::vector<std::string>{"gradient", "optimizer", "parameter", "backward", "forward"}));
}

TEST(MemoryCategories, AUserRuleFileAddsACategoryThatWinsOverTheShippedOnes) {
  RuleBook rules = load_rule_book({user_rules()});
  ASSERT_GE(rules.knowledge.memory_categories.size(), 2u);
  EXPECT_EQ(rules.knowledge.memory_categories.front().category, "data loading");
  MemoryCategories categories(rules.knowledge.memory_categories);
  test::SnapFrame call{"_call_impl", kModule, 1};
  // Under a module's forward (the shipped "forward"), the user's entry comes first and wins.
  EXPECT_EQ(category(categories, {{"pin_memory", kLoader, 3}, call}), "data loading");
  // Both patterns must match: the file alone, or the function in another file, is not recompute.
  EXPECT_EQ(category(categories, {{"recompute_fn", kCheckpoint, 7}}), "recompute");
  EXPECT_EQ(category(categories, {{"checkpoint", kCheckpoint, 7}, call}), "forward");
  EXPECT_EQ(category(categories, {{"recompute_fn", "/home/me/train.py", 7}}), "unknown");
  // Windows paths are read with '/'.
  EXPECT_EQ(category(categories, {{"fetch", "C:\\py\\Lib\\site-packages\\torch\\utils\\data\\fetch.py", 1}}),
            "data loading");
  // Without the user's file, the same frames are the shipped categories'.
  MemoryCategories shipped(default_classification().memory_categories);
  EXPECT_EQ(category(shipped, {{"pin_memory", kLoader, 3}, call}), "forward");
}

// The whole way: the classification reaches the snapshot reader through the load options, and the
// live block's site carries the user's category.
TEST(MemoryCategories, TheLoaderHandsTheCategoriesToTheSnapshotReader) {
  test::Snapshot s;
  s.segments.push_back(
      {0, 0x100000, 2 * kMiB, {{0x100000, kMiB, "active_allocated", {{"pin_memory", kLoader, 3}}}}});
  s.device_traces.push_back({{"alloc", 0x100000, kMiB, 10, {{"pin_memory", kLoader, 3}}}});
  std::string path = write_text(temp_dir() + "/categories.pickle", test::snapshot_pickle(s));
  auto categories_of = [&](const LoadOptions& options) {
    Profile p = std::move(load_run({path}, options).workers.at(0));
    return p.memory_snapshot->site_categories;
  };
  RuleBook rules = load_rule_book({user_rules()});
  EXPECT_EQ(categories_of(load_options_for(rules.knowledge)), std::vector<std::string>{"data loading"});
  EXPECT_EQ(categories_of(load_options_for(default_classification())), std::vector<std::string>{"unknown"});
  // No classification: no frame patterns, so only what a snapshot says names a category.
  EXPECT_EQ(categories_of(LoadOptions{}), std::vector<std::string>{"unknown"});
}

TEST(MemoryCategories, AnEntryWithoutAPatternOrWithABadOneIsRefused) {
  auto error_of = [](const std::string& yaml) {
    std::string path = write_text(temp_dir() + "/bad_categories.yaml", yaml);
    try {
      (void)load_rule_book({path});
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  std::string none = error_of("memory_categories:\n  add:\n    - {category: mine}\n");
  EXPECT_NE(none.find("bad_categories.yaml"), std::string::npos) << none;
  EXPECT_NE(none.find("needs 'category' and 'file' or 'function'"), std::string::npos) << none;
  std::string bad = error_of("memory_categories:\n  add:\n    - {category: mine, file: '(unclosed'}\n");
  EXPECT_NE(bad.find("bad_categories.yaml"), std::string::npos) << bad;
  EXPECT_NE(bad.find("(unclosed"), std::string::npos) << bad;
  std::string key = error_of("memory_categories:\n  add:\n    - {category: mine, path: '/x/'}\n");
  EXPECT_NE(key.find("unknown key 'path'"), std::string::npos) << key;
}

}  // namespace
}  // namespace perfgate::testing
