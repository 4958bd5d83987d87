// The terminal's lines for a run of Neuron device profiles, read like the GPU ones: the window as
// one execution per profile, the engines with their semaphore waits apart, throttling, DMA, and a
// line per profile (total time, active share, MFU) with the slowest named.
#pragma once

#include <string>
#include <vector>

#include "report_model/report.h"

namespace perfgate {

struct TerminalLine {
  std::string label;
  std::string text;
};

// What the terminal says in place of the window line for a Neuron run.
std::string neuron_window_text(const ReportModel& r);
// The Neuron lines; empty when the run holds no Neuron profile.
std::vector<TerminalLine> neuron_terminal_lines(const ReportModel& r);

}  // namespace perfgate
