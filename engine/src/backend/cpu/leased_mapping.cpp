// LeasedMapping: mmap under an F_SETLEASE read lease, and the one watcher thread of the process
// that takes the lease-break signals and turns broken mappings into private copies.
#include "leased_mapping.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

namespace earshot::backend::cpu {
namespace {

// The one thread that receives the lease-break signal. Every lease names it (F_SETOWN_EX with its
// thread id), it alone blocks the signal and takes it with sigwaitinfo, so no other thread ever
// sees it. SIGIO, set with F_SETSIG, is not queued: two breaks at once may arrive as one signal,
// so each signal checks every registered mapping's lease (F_GETLEASE answers F_UNLCK while a
// read lease is being broken).
class LeaseWatcher {
public:
    // Never destroyed: a lease may break while the process exits.
    static LeaseWatcher& instance() {
        static LeaseWatcher* watcher = new LeaseWatcher();
        return *watcher;
    }

    pid_t thread_id() const { return thread_id_; }

    void add(LeasedMapping* mapping) {
        const std::lock_guard lock(mutex_);
        mappings_.push_back(mapping);
    }
    void remove(LeasedMapping* mapping) {
        const std::lock_guard lock(mutex_);
        mappings_.erase(std::remove(mappings_.begin(), mappings_.end(), mapping), mappings_.end());
    }

private:
    LeaseWatcher() {
        std::thread([this] { run(); }).detach();
        std::unique_lock lock(mutex_);
        started_.wait(lock, [this] { return thread_id_ != 0; });
    }

    void run() {
        sigset_t signals;
        sigemptyset(&signals);
        sigaddset(&signals, SIGIO);
        pthread_sigmask(SIG_BLOCK, &signals, nullptr);
        {
            const std::lock_guard lock(mutex_);
            thread_id_ = gettid();
        }
        started_.notify_all();
        for (;;) {
            siginfo_t info{};
            if (sigwaitinfo(&signals, &info) < 0) continue;
            const std::lock_guard lock(mutex_);
            for (LeasedMapping* mapping : mappings_) {
                const int fd = mapping->lease_fd();
                if (fd >= 0 && fcntl(fd, F_GETLEASE) != F_RDLCK) mapping->copy_privately();
            }
        }
    }

    std::mutex mutex_;
    std::condition_variable started_;
    pid_t thread_id_ = 0;
    std::vector<LeasedMapping*> mappings_;
};

std::string reason(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

}  // namespace

void drop_file_pages(std::span<const std::byte> bytes) {
    const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    const auto begin = reinterpret_cast<uintptr_t>(bytes.data());
    const uintptr_t first = (begin + page - 1) / page * page;
    const uintptr_t last = (begin + bytes.size()) / page * page;
    if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

std::unique_ptr<LeasedMapping> LeasedMapping::open(const std::filesystem::path& path,
                                                   std::span<const std::byte> loaded,
                                                   std::string& why) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        why = reason("cannot open the file");
        return nullptr;
    }
    struct stat info {};
    if (fstat(fd, &info) != 0 || static_cast<size_t>(info.st_size) != loaded.size() ||
        loaded.empty()) {
        why = "the file changed after it was read";
        ::close(fd);
        return nullptr;
    }
    void* address = mmap(nullptr, loaded.size(), PROT_READ, MAP_PRIVATE, fd, 0);
    if (address == MAP_FAILED) {
        why = reason("cannot map the file");
        ::close(fd);
        return nullptr;
    }
    auto mapping = std::unique_ptr<LeasedMapping>(new LeasedMapping());
    mapping->path_ = path;
    mapping->fd_ = fd;
    mapping->data_ = static_cast<std::byte*>(address);
    mapping->size_bytes_ = loaded.size();
    // Registered before the lease exists, so that a break coming at once finds it.
    LeaseWatcher& watcher = LeaseWatcher::instance();
    watcher.add(mapping.get());
    const f_owner_ex owner{F_OWNER_TID, watcher.thread_id()};
    if (fcntl(fd, F_SETSIG, SIGIO) != 0 || fcntl(fd, F_SETOWN_EX, &owner) != 0 ||
        fcntl(fd, F_SETLEASE, F_RDLCK) != 0) {
        why = reason("no read lease on the file");
        return nullptr;  // the destructor unregisters, unmaps and closes
    }
    // Leased: from here on a writer waits for us. Is it still what the load read? (Another inode
    // renamed over the name, or bytes written before the lease, would differ.)
    constexpr size_t kBatchBytes = size_t{64} << 20;
    for (size_t at = 0; at < loaded.size(); at += kBatchBytes) {
        const size_t bytes = std::min(kBatchBytes, loaded.size() - at);
        const bool same = std::memcmp(mapping->data_ + at, loaded.data() + at, bytes) == 0;
        // Both copies of the batch leave this process's resident memory: the backend reads only
        // the block matrices of the leased one, and faults them in as it does (the file's other
        // tensors, copied at load, would otherwise stay resident here for nothing).
        drop_file_pages(loaded.subspan(at, bytes));
        drop_file_pages({mapping->data_ + at, bytes});
        if (!same) {
            why = "the file changed after it was read";
            return nullptr;
        }
    }
    return mapping;
}

LeasedMapping::~LeasedMapping() {
    LeaseWatcher::instance().remove(this);
    const std::lock_guard lock(mutex_);
    if (data_ != nullptr) munmap(data_, size_bytes_);
    if (fd_ >= 0) {
        fcntl(fd_, F_SETLEASE, F_UNLCK);
        ::close(fd_);
    }
}

bool LeasedMapping::file_backed() const {
    const std::lock_guard lock(mutex_);
    return file_backed_;
}

int LeasedMapping::lease_fd() const {
    const std::lock_guard lock(mutex_);
    return fd_;
}

void LeasedMapping::drop_pages(std::span<const std::byte> bytes) {
    const std::lock_guard lock(mutex_);
    if (file_backed_) drop_file_pages(bytes);
}

void LeasedMapping::copy_privately() {
    const std::lock_guard lock(mutex_);
    if (fd_ < 0) return;
    if (file_backed_) {
        void* copy =
            mmap(nullptr, size_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (copy != MAP_FAILED) {
            // The writer is held back until the lease goes: these are still the file's bytes.
            std::memcpy(copy, data_, size_bytes_);
            mprotect(copy, size_bytes_, PROT_READ);
            // Moved over the file's pages in one step: a reader sees the file's bytes or the copy.
            if (mremap(copy, size_bytes_, size_bytes_, MREMAP_MAYMOVE | MREMAP_FIXED, data_) ==
                MAP_FAILED) {
                munmap(copy, size_bytes_);
            } else {
                file_backed_ = false;
            }
        }
    }
    fcntl(fd_, F_SETLEASE, F_UNLCK);
    ::close(fd_);
    fd_ = -1;
}

}  // namespace earshot::backend::cpu
