// A private Xvfb for one test (it picks a free display itself, -displayfd) and the processes the
// test starts on it, stopped in reverse order so the X server goes last.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace earshot::test {

// Starts Xvfb (1024x768, no TCP) and appends its pid to `pids`; its display (":N"), or "" when it
// did not start.
inline std::string start_private_xvfb(std::vector<pid_t>& pids) {
    int fds[2];
    if (::pipe(fds) != 0) return {};
    const pid_t pid = ::fork();
    if (pid < 0) return {};
    if (pid == 0) {
        ::close(fds[0]);
        const std::string fd = std::to_string(fds[1]);
        ::execlp("Xvfb", "Xvfb", "-displayfd", fd.c_str(), "-screen", "0", "1024x768x24",
                 "-nolisten", "tcp", static_cast<char*>(nullptr));
        ::_exit(127);
    }
    ::close(fds[1]);
    pids.push_back(pid);
    std::string number;
    char c = 0;
    while (::read(fds[0], &c, 1) == 1 && c != '\n') number += c;
    ::close(fds[0]);
    return number.empty() ? std::string() : ":" + number;
}

// Stops `pids` last first (SIGTERM, then SIGKILL after 5 s) and forgets them.
inline void stop_processes(std::vector<pid_t>& pids) {
    for (auto it = pids.rbegin(); it != pids.rend(); ++it) {
        ::kill(*it, SIGTERM);
        bool gone = false;
        for (int i = 0; i < 50 && !gone; ++i) {
            gone = ::waitpid(*it, nullptr, WNOHANG) == *it;
            if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        if (!gone) {
            ::kill(*it, SIGKILL);
            ::waitpid(*it, nullptr, 0);
        }
    }
    pids.clear();
}

}  // namespace earshot::test
