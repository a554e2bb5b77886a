// download_model: one libcurl transfer per file into `<file>.part`, resumed with a Range request,
// checked against the catalog's or the hub's hash, then renamed into place.
#include "core/models/model_download.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>

#include "core/models/file_digest.h"
#include "core/models/model_store.h"

namespace earshot::app {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

constexpr double kProgressIntervalSeconds = 0.1;
constexpr double kRateWindowSeconds = 0.5;  // the rate is measured over this much time
constexpr long kMaxRedirects = 10;

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

std::string trim(std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
        text.remove_prefix(1);
    }
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
        text.remove_suffix(1);
    }
    return std::string(text);
}

// An ETag's value without W/ and quotes.
std::string etag_value(std::string value) {
    if (value.rfind("W/", 0) == 0) value.erase(0, 2);
    value.erase(std::remove(value.begin(), value.end(), '"'), value.end());
    return lower(value);
}

bool is_hex(const std::string& text, size_t length) {
    return text.size() == length && std::all_of(text.begin(), text.end(), [](unsigned char c) {
               return std::isxdigit(c) != 0;
           });
}

std::optional<int64_t> parse_int(const std::string& text) {
    char* end = nullptr;
    errno = 0;
    const long long value = std::strtoll(text.c_str(), &end, 10);
    if (end == text.c_str() || errno != 0 || value < 0) return std::nullopt;
    return value;
}

const char* env(const char* name) {
    const char* value = std::getenv(name);
    return value != nullptr && *value != 0 ? value : nullptr;
}

// The proxy libcurl takes from the environment for `url`, if any (for messages: libcurl itself
// reads the same variables). no_proxy is honoured for exact hosts, suffixes and "*".
std::string proxy_for(const std::string& url) {
    const bool https = url.rfind("https://", 0) == 0;
    const char* proxy =
        https ? (env("https_proxy") ? env("https_proxy") : env("HTTPS_PROXY")) : env("http_proxy");
    if (proxy == nullptr) proxy = env("all_proxy") ? env("all_proxy") : env("ALL_PROXY");
    if (proxy == nullptr) return {};
    const char* no_proxy = env("no_proxy") ? env("no_proxy") : env("NO_PROXY");
    if (no_proxy != nullptr) {
        const size_t host_start = url.find("://") + 3;
        std::string host = url.substr(host_start, url.find_first_of(":/", host_start) - host_start);
        std::string list = no_proxy;
        size_t start = 0;
        while (start <= list.size()) {
            const size_t comma = std::min(list.find(',', start), list.size());
            std::string item = trim(std::string_view(list).substr(start, comma - start));
            if (!item.empty() && item.front() == '.') item.erase(0, 1);
            if (item == "*" || (!item.empty() && (host == item || host.ends_with("." + item)))) {
                return {};
            }
            start = comma + 1;
        }
    }
    return proxy;
}

// Free bytes for an unprivileged writer on the file system of `path` (or its nearest existing
// parent); nullopt when unknown.
std::optional<int64_t> free_bytes(fs::path path) {
    std::error_code error;
    while (!path.empty() && !fs::exists(path, error)) path = path.parent_path();
    struct statvfs info {};
    if (path.empty() || statvfs(path.c_str(), &info) != 0) return std::nullopt;
    return static_cast<int64_t>(info.f_bavail) * static_cast<int64_t>(info.f_frsize);
}

int64_t file_size_or_zero(const fs::path& path) {
    std::error_code error;
    const auto size = fs::file_size(path, error);
    return error ? 0 : static_cast<int64_t>(size);
}

// One response's state while libcurl runs the transfer.
struct Transfer {
    fs::path part;
    int64_t offset = 0;  // bytes the .part held when the request was sent
    int fd = -1;
    long status = 0;
    int64_t content_length = -1;
    int64_t range_total = -1;  // the total of a Content-Range header
    std::string linked_etag;   // X-Linked-Etag: the LFS file's SHA-256 on the hub
    int64_t linked_size = -1;  // X-Linked-Size
    std::string etag;
    int write_errno = 0;
    std::string write_refusal;  // why the write callback stopped the transfer
    int64_t written = 0;        // body bytes written by this response

    const DownloadOptions* options = nullptr;
    DownloadProgress progress;
    Clock::time_point last_report{};
    Clock::time_point rate_start{};
    int64_t rate_start_bytes = 0;

    ~Transfer() {
        if (fd >= 0) ::close(fd);
    }

    // The whole file's size as the server states it; -1 when unknown.
    int64_t server_total() const {
        if (range_total >= 0) return range_total;
        if (status == 200 && content_length >= 0) return content_length;
        if (status == 206 && content_length >= 0) return offset + content_length;
        return linked_size;
    }
};

size_t on_header(char* data, size_t size, size_t count, void* user) {
    auto& t = *static_cast<Transfer*>(user);
    const size_t bytes = size * count;
    const std::string line = trim(std::string_view(data, bytes));
    if (line.rfind("HTTP/", 0) == 0) {
        // A new response (after a redirect): its own status and lengths.
        const size_t space = line.find(' ');
        t.status =
            space == std::string::npos ? 0 : std::strtol(line.c_str() + space + 1, nullptr, 10);
        t.content_length = -1;
        t.range_total = -1;
        return bytes;
    }
    const size_t colon = line.find(':');
    if (colon == std::string::npos) return bytes;
    const std::string name = lower(line.substr(0, colon));
    const std::string value = trim(std::string_view(line).substr(colon + 1));
    if (name == "content-length") {
        t.content_length = parse_int(value).value_or(-1);
    } else if (name == "content-range") {
        const size_t slash = value.rfind('/');
        if (slash != std::string::npos)
            t.range_total = parse_int(value.substr(slash + 1)).value_or(-1);
    } else if (name == "x-linked-etag") {
        t.linked_etag = etag_value(value);
    } else if (name == "x-linked-size") {
        t.linked_size = parse_int(value).value_or(-1);
    } else if (name == "etag") {
        t.etag = etag_value(value);
    }
    return bytes;
}

size_t on_body(char* data, size_t size, size_t count, void* user) {
    auto& t = *static_cast<Transfer*>(user);
    const size_t bytes = size * count;
    if (t.fd < 0) {
        // The first bytes of the body: 206 continues the .part, 200 starts it over.
        const bool resume = t.status == 206;
        if (!resume) t.offset = 0;
        const int64_t total = t.server_total();
        if (total > 0) {
            const std::optional<int64_t> available = free_bytes(t.part.parent_path());
            if (available && *available < total - t.offset) {
                t.write_refusal = "needs " + format_bytes(total - t.offset) + " but only " +
                                  format_bytes(*available) + " is free in " +
                                  t.part.parent_path().string();
                return 0;
            }
        }
        t.fd = ::open(t.part.c_str(), O_WRONLY | O_CREAT | (resume ? O_APPEND : O_TRUNC), 0644);
        if (t.fd < 0) {
            t.write_errno = errno;
            return 0;
        }
    }
    size_t done = 0;
    while (done < bytes) {
        const ssize_t n = ::write(t.fd, data + done, bytes - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            t.write_errno = errno;
            return 0;
        }
        done += static_cast<size_t>(n);
    }
    t.written += static_cast<int64_t>(bytes);
    return bytes;
}

void report(Transfer& t, bool force) {
    const Clock::time_point now = Clock::now();
    t.progress.received_bytes = t.offset + t.written;
    t.progress.total_bytes = t.server_total();
    const double window = std::chrono::duration<double>(now - t.rate_start).count();
    if (window >= kRateWindowSeconds) {
        const double rate =
            static_cast<double>(t.progress.received_bytes - t.rate_start_bytes) / window;
        // Smoothed over the windows, so that one slow moment does not swing the estimate.
        t.progress.rate_bytes_per_second =
            t.progress.rate_bytes_per_second == 0.0
                ? rate
                : 0.7 * t.progress.rate_bytes_per_second + 0.3 * rate;
        t.rate_start = now;
        t.rate_start_bytes = t.progress.received_bytes;
    }
    t.progress.seconds_left =
        t.progress.total_bytes > 0 && t.progress.rate_bytes_per_second > 0.0
            ? static_cast<double>(t.progress.total_bytes - t.progress.received_bytes) /
                  t.progress.rate_bytes_per_second
            : -1.0;
    if (!t.options->on_progress) return;
    if (force ||
        std::chrono::duration<double>(now - t.last_report).count() >= kProgressIntervalSeconds) {
        t.last_report = now;
        t.options->on_progress(t.progress);
    }
}

int on_transfer_info(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
    auto& t = *static_cast<Transfer*>(user);
    if (t.options->cancel != nullptr && t.options->cancel->load()) return 1;
    report(t, false);
    return 0;
}

void init_curl_once() {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

DownloadResult failed(DownloadFailure failure, std::string message) {
    return {failure, std::move(message), {}};
}

std::string kept_note(const Transfer& t, const std::string& name) {
    const int64_t kept = file_size_or_zero(t.part);
    const int64_t total = t.server_total();
    return format_bytes(kept) + (total > 0 ? " of " + format_bytes(total) : std::string()) +
           " kept in " + t.part.string() + "; `earshot models pull " + name + "` resumes it";
}

// Fetches one file into `part`; on success the .part holds the whole file and `t` the headers.
DownloadResult fetch(const CatalogEntry& entry, const CatalogFile& file, Transfer& t,
                     const DownloadOptions& options) {
    const std::string url = resolve_url(options.hub, entry.repo, file.name);
    init_curl_once();
    std::unique_ptr<CURL, void (*)(CURL*)> curl(curl_easy_init(), &curl_easy_cleanup);
    if (!curl) return failed(DownloadFailure::http_error, "cannot start libcurl");
    char error_text[CURL_ERROR_SIZE] = {};
    CURL* c = curl.get();
    curl_easy_setopt(c, CURLOPT_URL, url.c_str());
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(c, CURLOPT_MAXREDIRS, kMaxRedirects);
    curl_easy_setopt(c, CURLOPT_FAILONERROR, 1L);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error_text);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "earshot");
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, static_cast<long>(options.connect_timeout_seconds));
    // A stall: under 1 byte/s for stall_seconds.
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, static_cast<long>(options.stall_seconds));
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &t);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_transfer_info);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, &t);
    const std::string range = std::to_string(t.offset) + "-";
    if (t.offset > 0) curl_easy_setopt(c, CURLOPT_RANGE, range.c_str());

    t.rate_start = Clock::now();
    t.rate_start_bytes = t.offset;
    report(t, true);
    const CURLcode code = curl_easy_perform(c);
    if (t.fd >= 0) {
        ::close(t.fd);
        t.fd = -1;
    }
    long status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    long connect_status = 0;
    curl_easy_getinfo(c, CURLINFO_HTTP_CONNECTCODE, &connect_status);
    const std::string detail = error_text[0] != 0 ? error_text : curl_easy_strerror(code);
    const std::string proxy = proxy_for(url);
    const std::string where = file.name + " from " + url;

    if (code == CURLE_OK) return {};
    if (code == CURLE_HTTP_RETURNED_ERROR && status == 416 && t.offset > 0 &&
        t.range_total == t.offset) {
        return {};  // the .part was already whole
    }
    switch (code) {
        case CURLE_ABORTED_BY_CALLBACK:
            return failed(DownloadFailure::cancelled, "cancelled; " + kept_note(t, entry.name));
        case CURLE_WRITE_ERROR:
            if (!t.write_refusal.empty()) {
                return failed(DownloadFailure::disk_full,
                              "not enough disk space for " + file.name + ": " + t.write_refusal);
            }
            if (t.write_errno == ENOSPC || t.write_errno == EDQUOT || t.write_errno == EFBIG) {
                return failed(DownloadFailure::disk_full,
                              "the disk is full: writing " + t.part.string() + " failed after " +
                                  format_bytes(file_size_or_zero(t.part)) + " (" +
                                  std::strerror(t.write_errno) + ")");
            }
            return failed(DownloadFailure::io_error,
                          "cannot write " + t.part.string() + ": " + std::strerror(t.write_errno));
        case CURLE_HTTP_RETURNED_ERROR:
            if (status == 404) {
                return failed(DownloadFailure::not_found, "not found (404): " + file.name +
                                                              " is not in " + entry.repo + " on " +
                                                              options.hub + " (" + url + ")");
            }
            if (status == 416 && t.offset > 0) {
                // The .part is longer than the file now on the server: start over next time.
                std::error_code ignored;
                fs::remove(t.part, ignored);
                return failed(DownloadFailure::http_error,
                              "the partial download of " + file.name + " (" +
                                  format_bytes(t.offset) + ") is longer than the file on the " +
                                  "server; it was removed, pull again to start over");
            }
            if (status == 407) {
                return failed(DownloadFailure::proxy_refused,
                              "the proxy " + proxy + " refused the request (407 Proxy " +
                                  "Authentication Required) for " + url);
            }
            return failed(DownloadFailure::http_error,
                          "the server answered HTTP " + std::to_string(status) + " for " + url);
        case CURLE_COULDNT_RESOLVE_PROXY:
            return failed(DownloadFailure::proxy_refused,
                          "cannot resolve the proxy " + proxy + " (" + detail + ")");
        case CURLE_COULDNT_RESOLVE_HOST:
            return failed(DownloadFailure::offline,
                          "offline? cannot resolve the host of " + url + " (" + detail + ")");
        case CURLE_COULDNT_CONNECT:
            if (!proxy.empty()) {
                return failed(DownloadFailure::proxy_refused,
                              "the proxy " + proxy + " refused the connection (" + detail + ")");
            }
            return failed(DownloadFailure::offline,
                          "offline? cannot connect to " + options.hub + " (" + detail + ")");
        case CURLE_OPERATION_TIMEDOUT:
            return failed(DownloadFailure::stalled, "the server stalled: nothing received for " +
                                                        std::to_string(options.stall_seconds) +
                                                        " s while fetching " + where + "; " +
                                                        kept_note(t, entry.name));
        case CURLE_PARTIAL_FILE:
        case CURLE_RECV_ERROR:
        case CURLE_GOT_NOTHING:
        case CURLE_SEND_ERROR:
            if (connect_status >= 400 || (!proxy.empty() && status == 0 && t.written == 0)) {
                return failed(DownloadFailure::proxy_refused,
                              "the proxy " + proxy + " refused the connection" +
                                  (connect_status > 0 ? " (CONNECT answered " +
                                                            std::to_string(connect_status) + ")"
                                                      : std::string(" (" + detail + ")")));
            }
            return failed(DownloadFailure::connection_lost,
                          "the connection closed early while fetching " + where + "; " +
                              kept_note(t, entry.name));
        default:
            return failed(DownloadFailure::http_error,
                          "download of " + where + " failed: " + detail);
    }
}

// The file's hash against the catalog's, else the hub's X-Linked-Etag (SHA-256 of an LFS file);
// an empty string when it matches or nothing is published.
std::string hash_problem(const CatalogFile& file, const Transfer& t) {
    std::string sha256 = lower(file.sha256);
    std::string source = "the catalog";
    if (sha256.empty() && is_hex(t.linked_etag, 64)) {
        sha256 = t.linked_etag;
        source = "the hub (X-Linked-Etag)";
    }
    if (!sha256.empty()) {
        const std::string found = file_digest(t.part, DigestKind::sha256);
        if (found != sha256) {
            return file.name + ": SHA-256 " + found + " is not " + sha256 + " (from " + source +
                   ")";
        }
    }
    if (!file.sha1.empty()) {
        const std::string found = file_digest(t.part, DigestKind::sha1);
        if (found != lower(file.sha1)) {
            return file.name + ": SHA-1 " + found + " is not " + lower(file.sha1) +
                   " (from the catalog)";
        }
    }
    return {};
}

}  // namespace

std::string hub_url(const std::string& flag) {
    std::string hub = !flag.empty()            ? flag
                      : env("EARSHOT_HUB_URL") ? env("EARSHOT_HUB_URL")
                      : env("HF_ENDPOINT")     ? env("HF_ENDPOINT")
                                               : "https://huggingface.co";
    while (!hub.empty() && hub.back() == '/') hub.pop_back();
    return hub;
}

std::string resolve_url(const std::string& hub, const std::string& repo, const std::string& file) {
    return hub + "/" + repo + "/resolve/main/" + file;
}

DownloadResult download_model(const CatalogEntry& entry, const fs::path& models,
                              const DownloadOptions& options) {
    const fs::path folder = model_folder(models, entry);
    std::error_code error;
    fs::create_directories(folder, error);
    if (error) {
        return failed(DownloadFailure::io_error,
                      "cannot create " + folder.string() + ": " + error.message());
    }

    // Enough free space for what is still missing, before any request.
    int64_t needed = 0;
    for (const CatalogFile& file : entry.files) {
        if (fs::exists(folder / file.name, error)) continue;
        fs::path part = folder / file.name;
        part += ".part";
        needed += std::max<int64_t>(0, file.size_bytes - file_size_or_zero(part));
    }
    if (const std::optional<int64_t> available = free_bytes(folder);
        available && *available < needed) {
        return failed(DownloadFailure::disk_full, "not enough disk space: " + entry.name +
                                                      " needs " + format_bytes(needed) +
                                                      " more, and " + folder.string() + " has " +
                                                      format_bytes(*available) + " free");
    }

    const int count = static_cast<int>(entry.files.size());
    for (int i = 0; i < count; ++i) {
        const CatalogFile& file = entry.files[static_cast<size_t>(i)];
        const fs::path target = folder / file.name;
        if (fs::exists(target, error)) continue;  // moved into place after its check
        Transfer t;
        t.options = &options;
        t.part = target;
        t.part += ".part";
        fs::create_directories(t.part.parent_path(), error);
        t.offset = file_size_or_zero(t.part);
        t.progress.file = file.name;
        t.progress.file_index = i;
        t.progress.file_count = count;
        DownloadResult fetched = fetch(entry, file, t, options);
        if (fetched.failure == DownloadFailure::not_found && file.optional) {
            fs::remove(t.part, error);
            continue;  // this repository does without it
        }
        if (!fetched.ok()) return fetched;

        const int64_t size = file_size_or_zero(t.part);
        const int64_t total = t.server_total();
        if (total >= 0 && size != total) {
            return failed(DownloadFailure::connection_lost,
                          file.name + ": got " + format_bytes(size) + " of " + format_bytes(total) +
                              "; " + kept_note(t, entry.name));
        }
        t.progress.verifying = true;
        report(t, true);
        std::string problem;
        try {
            problem = hash_problem(file, t);
        } catch (const std::exception& e) {
            return failed(DownloadFailure::io_error, e.what());
        }
        if (!problem.empty()) {
            // Nothing of a damaged download stays: the next pull starts over.
            fs::remove_all(folder, error);
            return failed(DownloadFailure::hash_mismatch,
                          "hash mismatch, the download was deleted: " + problem);
        }
        fs::rename(t.part, target, error);
        if (error) {
            return failed(DownloadFailure::io_error,
                          "cannot move " + t.part.string() + " into place: " + error.message());
        }
    }
    DownloadResult done;
    done.location = model_location(models, entry);
    return done;
}

}  // namespace earshot::app
