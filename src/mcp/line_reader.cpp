#include "mcp/line_reader.h"

#include <algorithm>

namespace perfgate::mcp {

LineReader::LineReader(Read read, std::size_t max_line_bytes, std::size_t chunk_bytes)
    : read_(std::move(read)), max_line_(max_line_bytes), chunk_(std::max<std::size_t>(chunk_bytes, 1)) {}

bool LineReader::fill() {
  if (ended_) return false;
  buffer_.erase(0, start_);
  start_ = 0;
  std::size_t old = buffer_.size();
  buffer_.resize(old + chunk_);
  std::size_t got = read_(buffer_.data() + old, chunk_);
  buffer_.resize(old + std::min(got, chunk_));
  if (got == 0) ended_ = true;
  return got != 0;
}

LineReader::Status LineReader::skip_rest_of_line() {
  buffer_.clear();
  start_ = 0;
  while (fill()) {
    std::size_t newline = buffer_.find('\n');
    if (newline != std::string::npos) {
      start_ = newline + 1;
      return Status::TooLong;
    }
    buffer_.clear();
  }
  return Status::TooLong;
}

LineReader::Status LineReader::next(std::string& line) {
  std::size_t searched = start_;  // bytes before this hold no newline
  for (;;) {
    std::size_t newline = buffer_.find('\n', searched);
    if (newline != std::string::npos) {
      std::size_t length = newline - start_;
      if (length > max_line_) {
        start_ = newline + 1;
        return Status::TooLong;
      }
      line.assign(buffer_, start_, length);
      start_ = newline + 1;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.empty()) {
        searched = start_;
        continue;  // blank lines carry no message
      }
      return Status::Line;
    }
    if (buffer_.size() - start_ > max_line_) return skip_rest_of_line();
    std::size_t unread = buffer_.size() - start_;
    if (!fill()) {
      if (start_ >= buffer_.size()) return Status::End;
      // The last line without its newline: a client that wrote it and closed its end.
      line.assign(buffer_, start_, std::string::npos);
      start_ = buffer_.size();
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.empty()) return Status::End;
      return Status::Line;
    }
    searched = unread;  // fill() moved the unread bytes to the front
  }
}

}  // namespace perfgate::mcp
