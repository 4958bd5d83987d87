// Turns a Neuron profile's rows (RowSink) into the profile model: instructions on their engine's
// lane named by their HLO op, DMA transfers on their queue's lane, the summary's numeric metrics,
// layer_summary rows, warnings, SBUF/PSUM occupancy (instruction_usage) and device memory by use
// (nc_mem_usage). Checks every time it keeps and says which row is wrong.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "load/neuron/row_handler.h"
#include "model/profile.h"

namespace perfgate::neuron {

class ProfileBuilder : public RowSink {
 public:
  explicit ProfileBuilder(bool summary_json) : summary_json_(summary_json) {}

  std::string begin_row(Section section, std::string_view name) override;
  std::string field(std::string_view key, const Scalar& value) override;
  std::string end_row() override;

  // The profiles read: one for the full JSON, one per node of a summary-json (none when it had
  // none). Call once, after the document ends.
  std::vector<Profile> finish(const std::string& path);
  std::uint64_t memory_bytes() const;
  std::uint64_t instruction_rows() const { return instruction_rows_; }

 private:
  // The fields of the row being read that perfgate keeps.
  struct Row {
    std::optional<std::int64_t> timestamp, duration, bytes, end;
    std::string lane, subgroup, hlo_op, queue, queue_type, dma_engine, message, category, name, opcode;
    std::optional<bool> collective;
    NeuronLayer layer;
    std::optional<std::int64_t> device, core;  // nc_mem_usage's nd, nc
    std::string buffer;                        // instruction_usage's type
    NeuronBufferSample sample;
  };

  std::string instruction_field(std::string_view key, const Scalar& value);
  std::string dma_field(std::string_view key, const Scalar& value);
  std::string active_time_field(std::string_view key, const Scalar& value);
  void layer_field(std::string_view key, const Scalar& value);
  void summary_field(std::string_view key, const Scalar& value);
  std::string end_instruction();
  std::string end_dma();
  std::string end_active_time();
  std::string buffer_field(std::string_view key, const Scalar& value);
  void memory_field(std::string_view key, const Scalar& value);
  std::string end_buffer_sample();
  void end_memory_use();
  void add_buffer_notes(Profile& p) const;
  std::string check_span(const char* what, std::uint64_t row);
  StringId intern(std::string_view text);
  Profile& current() { return profiles_.back(); }

  bool summary_json_;
  std::vector<Profile> profiles_ = std::vector<Profile>(1);
  Section section_ = Section::None;
  Row row_;
  std::uint64_t summary_rows_ = 0;
  std::uint64_t instruction_rows_ = 0;
  std::uint64_t dma_rows_ = 0;
  std::uint64_t active_rows_ = 0;
  std::uint64_t invalid_utf8_ = 0;
  std::uint64_t buffer_rows_ = 0;
  std::uint64_t unknown_buffer_rows_ = 0;  // instruction_usage rows of a type other than sb, psum
  std::uint64_t bad_usage_values_ = 0;     // usage values that are no fraction 0-1
  std::uint64_t bad_memory_rows_ = 0;      // nc_mem_usage rows without a byte count
  std::vector<std::string> node_ids_;
  std::unordered_map<StringId, std::uint16_t> lane_index_;
  std::unordered_map<StringId, std::uint16_t> queue_index_;
};

}  // namespace perfgate::neuron
