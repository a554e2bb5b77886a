// Starting the real earshot executable for the crash tests (crash_journal_*_test.cpp): stdout
// read as it arrives with the time of each piece, and SIGKILL at a moment the test chooses.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace earshot::test {

using Clock = std::chrono::steady_clock;

// stdio rather than iostreams: GCC 12 reports a false -Wnull-dereference in istreambuf_iterator.
inline std::string read_text(const std::filesystem::path& path) {
    std::string text;
    if (std::FILE* file = std::fopen(path.c_str(), "rb")) {
        char buffer[4096];
        std::size_t n = 0;
        while ((n = std::fread(buffer, 1, sizeof(buffer), file)) > 0) text.append(buffer, n);
        std::fclose(file);
    }
    return text;
}

// Text that arrived on a pipe, and when.
struct Arrival {
    Clock::time_point at;
    std::string text;
};

#ifdef EARSHOT_EXE  // the front ends' tests (earshot_app_tests) know the executable
// The executable started with `args`, stdout on a pipe, stderr into `err_path`.
class RunningEarshot {
public:
    // `environment` holds NAME=value settings, and NAME alone for a variable to remove.
    RunningEarshot(const std::vector<std::string>& args, const std::filesystem::path& err_path,
                   const std::vector<std::string>& environment = {}) {
        // Everything the child needs is prepared before fork(): it only calls async-signal-safe
        // functions (the test process may have threads).
        std::vector<std::string> env;
        for (char** e = environ; *e != nullptr; ++e) {
            const std::string entry = *e;
            const std::string name = entry.substr(0, entry.find('='));
            bool replaced = false;
            for (const auto& setting : environment) {
                if (setting.substr(0, setting.find('=')) == name) replaced = true;
            }
            if (!replaced) env.push_back(entry);
        }
        for (const auto& setting : environment) {
            if (setting.find('=') != std::string::npos) env.push_back(setting);
        }
        std::vector<std::string> argv_text = {EARSHOT_EXE};
        argv_text.insert(argv_text.end(), args.begin(), args.end());
        std::vector<char*> argv;
        for (auto& arg : argv_text) argv.push_back(arg.data());
        argv.push_back(nullptr);
        std::vector<char*> envp;
        for (auto& entry : env) envp.push_back(entry.data());
        envp.push_back(nullptr);
        const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        int pipe_fds[2];
        if (err < 0 || ::pipe2(pipe_fds, O_CLOEXEC) != 0) return;
        pid_ = ::fork();
        if (pid_ == 0) {
            ::dup2(pipe_fds[1], STDOUT_FILENO);
            ::dup2(err, STDERR_FILENO);
            ::execve(argv[0], argv.data(), envp.data());
            ::_exit(127);
        }
        ::close(err);
        ::close(pipe_fds[1]);
        out_fd_ = pipe_fds[0];
    }
    ~RunningEarshot() {
        if (running()) kill();
        if (out_fd_ >= 0) ::close(out_fd_);
    }
    RunningEarshot(const RunningEarshot&) = delete;
    RunningEarshot& operator=(const RunningEarshot&) = delete;

    bool started() const { return pid_ > 0 && out_fd_ >= 0; }
    bool running() {
        if (pid_ <= 0 || exited_) return false;
        int status = 0;
        if (::waitpid(pid_, &status, WNOHANG) == pid_) exited_ = true;
        return !exited_;
    }
    // Reads what stdout has for up to `wait_ms`; false at end of file.
    bool read_for(int wait_ms) {
        pollfd fd{out_fd_, POLLIN, 0};
        if (::poll(&fd, 1, wait_ms) <= 0) return true;
        char buffer[4096];
        const ssize_t n = ::read(out_fd_, buffer, sizeof(buffer));
        if (n <= 0) return false;
        arrivals_.push_back({Clock::now(), std::string(buffer, static_cast<std::size_t>(n))});
        return true;
    }
    void kill() {
        ::kill(pid_, SIGKILL);
        int status = 0;
        ::waitpid(pid_, &status, 0);
        exited_ = true;
    }
    const std::vector<Arrival>& arrivals() const { return arrivals_; }
    std::string text_until(Clock::time_point until) const {
        std::string text;
        for (const auto& a : arrivals_) {
            if (a.at <= until) text += a.text;
        }
        return text;
    }

private:
    pid_t pid_ = -1;
    int out_fd_ = -1;
    bool exited_ = false;
    std::vector<Arrival> arrivals_;
};

#endif  // EARSHOT_EXE

}  // namespace earshot::test
