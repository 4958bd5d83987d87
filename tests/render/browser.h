// Headless Chromium for the HTML report's tests: a page opened with everything that phones home
// turned off, and facts about its layout measured by a script in the page. The layout is measured
// in a frame of the width asked for: a headless window is never narrower than 500 px, so a
// 390 px phone is a 390 px frame.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "support/helpers.h"

namespace perfgate::testing {

// The browser's command ("" when none is installed).
std::string chromium();

// Runs the browser on a file with a fresh profile and `flags` (--dump-dom, --screenshot=...).
CommandResult browse(const std::string& page, const std::string& flags);

// Facts measured in the browser: `body` (JavaScript, run once the page has loaded in a frame of
// `width` x `height` CSS px) fills the object `out` with numbers, and texts that say what was
// measured (into `texts` where given). `flags` are the browser's (--force-dark-mode). Empty when
// nothing was measured.
std::map<std::string, double> measure(const std::string& page, int width, int height, const std::string& body,
                                      const std::string& flags = "",
                                      std::map<std::string, std::string>* texts = nullptr);

// The same facts for several pages, each in frames of several widths, measured by one browser (one
// start, where a frame each would cost a start each): results[page][width index], empty where
// nothing was measured.
using Measured = std::map<std::string, double>;
using MeasuredTexts = std::map<std::string, std::string>;
std::vector<std::vector<std::pair<Measured, MeasuredTexts>>> measure_widths(
    const std::vector<std::string>& pages, const std::vector<int>& widths, int height,
    const std::string& body);

// The document position of each selector's first element (-1: none).
std::map<std::string, double> layout(const std::string& page, int width, int height,
                                     const std::vector<std::string>& selectors);

// The HTML report of a shared trace (the bundled example where ../shared/traces is absent), written
// with `options` into a fresh folder.
std::string page_of(const std::string& shared_trace, const std::string& options = "");

}  // namespace perfgate::testing

#define REQUIRE_CHROMIUM()                     \
  if (::perfgate::testing::chromium().empty()) \
  GTEST_SKIP() << "Chromium not installed (ci/setup.sh --tests installs it)"
