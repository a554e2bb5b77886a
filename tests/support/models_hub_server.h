// The model download tests' hub: tests/support/hub_server.py on a free port of 127.0.0.1, serving
// a hub-like tree of checkpoints the test writes, and a catalog file naming them.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/models/file_digest.h"

namespace earshot::test {

class HubServer {
public:
    // Serves `root` (<repo>/<file>); logs each request to `log`.
    HubServer(const std::filesystem::path& root, const std::filesystem::path& log) {
        int out[2];
        if (pipe(out) != 0) return;
        pid_ = fork();
        if (pid_ == 0) {
            dup2(out[1], STDOUT_FILENO);
            close(out[0]);
            close(out[1]);
            execlp("python3", "python3", EARSHOT_HUB_SERVER_SCRIPT, "--root", root.c_str(), "--log",
                   log.c_str(), static_cast<char*>(nullptr));
            _exit(127);
        }
        close(out[1]);
        std::string line;
        char c = 0;
        while (read(out[0], &c, 1) == 1 && c != '\n') line += c;
        close(out[0]);
        port_ = line.empty() ? 0 : std::stoi(line);
    }
    ~HubServer() {
        if (pid_ > 0) {
            kill(pid_, SIGTERM);
            waitpid(pid_, nullptr, 0);
        }
    }
    HubServer(const HubServer&) = delete;
    HubServer& operator=(const HubServer&) = delete;

    int port() const { return port_; }
    // The hub's base URL; `mode` ("stall", "404", "corrupt", "cut-N") selects a failure.
    std::string url(const std::string& mode = {}) const {
        return "http://127.0.0.1:" + std::to_string(port_) + (mode.empty() ? "" : "/" + mode);
    }

private:
    pid_t pid_ = -1;
    int port_ = 0;
};

// One file of a catalog entry, with or without its hash in the catalog.
struct HubFile {
    std::string name;
    bool with_sha256 = true;
};

// Copies `files` from `source` into <root>/<repo>/ and returns the catalog entry that names them
// (sizes exact, SHA-256 where asked).
inline nlohmann::json publish(const std::filesystem::path& root, const std::string& repo,
                              const std::string& name, const std::string& form,
                              const std::filesystem::path& source,
                              const std::vector<HubFile>& files) {
    namespace fs = std::filesystem;
    fs::create_directories(root / repo);
    nlohmann::json entry = {{"name", name},
                            {"form", form},
                            {"repo", repo},
                            {"languages", "English"},
                            {"memory_bytes", 50000000},
                            {"files", nlohmann::json::array()}};
    for (const HubFile& file : files) {
        fs::copy_file(source / file.name, root / repo / file.name,
                      fs::copy_options::overwrite_existing);
        nlohmann::json item = {
            {"name", file.name},
            {"size_bytes", static_cast<int64_t>(fs::file_size(source / file.name))}};
        if (file.with_sha256) {
            item["sha256"] = app::file_digest(source / file.name, app::DigestKind::sha256);
        }
        entry["files"].push_back(item);
    }
    return entry;
}

inline void write_catalog(const std::filesystem::path& path,
                          const std::vector<nlohmann::json>& entries) {
    std::ofstream out(path);
    out << nlohmann::json{{"models", entries}}.dump(2);
}

}  // namespace earshot::test
