// One progress line on stderr for `earshot transcribe`, redrawn with '\r'.
#include "cli/terminal/transcribe_progress.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>

namespace earshot::app {

TranscribeProgress::TranscribeProgress(std::ostream& err, std::string file_name, double audio_s)
    : err_(err),
      file_name_(std::move(file_name)),
      audio_s_(audio_s),
      start_(std::chrono::steady_clock::now()) {}

std::string TranscribeProgress::format_line(double fraction, double elapsed_s, double audio_s,
                                            const std::string& file_name) {
    fraction = std::clamp(fraction, 0.0, 1.0);
    const auto elapsed_whole_s = static_cast<long long>(std::floor(std::max(elapsed_s, 0.0)));
    char speed[32] = "-";
    if (elapsed_s > 0.0) {
        std::snprintf(speed, sizeof speed, "%.1fx", fraction * audio_s / elapsed_s);
    }
    char line[96];
    std::snprintf(line, sizeof line, "%3d%% | %lld:%02lld elapsed | %s real time | ",
                  static_cast<int>(std::floor(fraction * 100.0)), elapsed_whole_s / 60,
                  elapsed_whole_s % 60, speed);
    return line + file_name;
}

void TranscribeProgress::draw(double fraction) {
    const double elapsed_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::string line = format_line(fraction, elapsed_s, audio_s_, file_name_);
    const size_t width = line.size();
    if (width < last_width_) line.append(last_width_ - width, ' ');  // clear the old tail
    last_width_ = width;
    err_ << '\r' << line << std::flush;
    open_ = true;
}

void TranscribeProgress::update(double fraction) { draw(fraction); }

void TranscribeProgress::finish() {
    draw(1.0);
    err_ << '\n' << std::flush;
    open_ = false;
}

void TranscribeProgress::abandon() {
    if (open_) err_ << '\n' << std::flush;
    open_ = false;
}

}  // namespace earshot::app
