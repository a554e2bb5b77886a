// VirtualMic: a private PulseAudio daemon whose null sink "virtmic" is the default microphone,
// started and stopped through tests/support/virtual_mic.sh for one test (label device).
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "temp_dir.h"

namespace earshot::test {

class VirtualMic {
public:
    // Starts the daemon with its state in a fresh temp folder. When that fails, available() is
    // false and error() says why. PulseAudio is a required package (packaging/setup.sh), so the
    // tests fail on it (ASSERT_TRUE(mic.available()) << mic.error()), never skip.
    VirtualMic() {
        const std::filesystem::path env_file = state_.path() / "mic.env";
        const auto [status, output] = script("start " + quote(env_file.string()));
        if (status != 0) {
            error_ = "the virtual microphone did not start (virtual_mic.sh start exited " +
                     std::to_string(status) + "): " + output;
            return;
        }
        std::ifstream env(env_file);
        std::string line;
        while (std::getline(env, line)) {
            const std::string prefix = "export ";
            if (line.rfind(prefix, 0) != 0) continue;
            const std::string assignment = line.substr(prefix.size());
            const std::size_t eq = assignment.find('=');
            if (eq == std::string::npos) continue;
            const std::string name = assignment.substr(0, eq);
            const std::string value = assignment.substr(eq + 1);
            if (name == "PULSE_SERVER") pulse_server_ = value;
            if (name == "XDG_RUNTIME_DIR") runtime_dir_ = value;
        }
        if (pulse_server_.empty() || runtime_dir_.empty()) {
            error_ = "virtual_mic.sh start wrote no environment to " + env_file.string();
            return;
        }
        started_ = true;
    }

    ~VirtualMic() { script("stop"); }

    VirtualMic(const VirtualMic&) = delete;
    VirtualMic& operator=(const VirtualMic&) = delete;

    bool available() const { return started_; }
    const std::string& error() const { return error_; }

    // Points this process's PulseAudio clients (ALSA's pulse plugin, hence PortAudio) at the
    // daemon. Call before PortAudio is initialised.
    void export_environment() const {
        ::setenv("XDG_RUNTIME_DIR", runtime_dir_.c_str(), 1);
        ::setenv("PULSE_SERVER", pulse_server_.c_str(), 1);
    }

    // "XDG_RUNTIME_DIR=... PULSE_SERVER=... " for a shell command line.
    std::string shell_environment() const {
        return "XDG_RUNTIME_DIR=" + quote(runtime_dir_) + " PULSE_SERVER=" + quote(pulse_server_) +
               " ";
    }

    // Plays `file` into the sink and returns when it has been played; true on success.
    bool play(const std::filesystem::path& file) const {
        return script("play " + quote(file.string())).first == 0;
    }

    // The same, in the background: returns at once; the sound plays for its duration.
    bool play_in_background(const std::filesystem::path& file) const {
        return std::system(("VIRTUAL_MIC_DIR=" + quote(state_.path().string()) + " " +
                            quote(EARSHOT_VIRTUAL_MIC_SCRIPT) + " play " + quote(file.string()) +
                            " >/dev/null 2>&1 &")
                               .c_str()) == 0;
    }

    // The daemon's pid as the script recorded it (for tests that take the device away).
    int daemon_pid() const {
        std::ifstream pid_file(state_.path() / "pulseaudio.pid");
        int pid = -1;
        pid_file >> pid;
        return pid;
    }

    static std::string quote(const std::string& text) {
        std::string quoted = "'";
        for (char c : text) {
            quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
        }
        return quoted + "'";
    }

private:
    // Runs the script with our state folder; returns its exit status and combined output.
    std::pair<int, std::string> script(const std::string& arguments) const {
        const std::string command = "VIRTUAL_MIC_DIR=" + quote(state_.path().string()) + " " +
                                    quote(EARSHOT_VIRTUAL_MIC_SCRIPT) + " " + arguments + " 2>&1";
        std::string output;
        FILE* pipe = ::popen(command.c_str(), "r");
        if (pipe == nullptr) return {-1, "popen failed"};
        std::array<char, 512> buffer{};
        std::size_t n = 0;
        while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) {
            output.append(buffer.data(), n);
        }
        const int status = ::pclose(pipe);
        return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
    }

    TempDir state_{"earshot-virtual-mic"};
    bool started_ = false;
    std::string error_;
    std::string pulse_server_;
    std::string runtime_dir_;
};

}  // namespace earshot::test
