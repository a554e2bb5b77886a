// CacheBuffer (backend/cpu/cpu_cache.h): a cache's pages become resident one 4 KiB page at a time
// as they are written, never as 2 MiB huge pages, so a self cache costs the positions decoded so
// far even where transparent huge pages are "always".
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "backend/cpu/cpu_cache.h"

namespace earshot::backend::cpu {
namespace {

// The VmFlags of the mapping (in /proc/self/smaps) holding `address`; empty when none does.
std::string vm_flags_of(const void* address) {
    std::ifstream smaps("/proc/self/smaps");
    const auto wanted = reinterpret_cast<uintptr_t>(address);
    std::string line;
    bool inside = false;
    while (std::getline(smaps, line)) {
        unsigned long long begin = 0;
        unsigned long long end = 0;
        if (std::sscanf(line.c_str(), "%llx-%llx ", &begin, &end) == 2 &&
            line.find(':') > line.find(' ')) {
            inside = wanted >= begin && wanted < end;
        } else if (inside && line.starts_with("VmFlags:")) {
            return line.substr(8);
        }
    }
    return {};
}

// Pages of [data, data + bytes) resident now (mincore: exact for this range, whatever mapping
// the kernel merged it into).
int64_t resident_pages(const std::byte* data, size_t bytes) {
    const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    std::vector<unsigned char> in_core((bytes + page - 1) / page);
    if (mincore(const_cast<std::byte*>(data), bytes, in_core.data()) != 0) return -1;
    int64_t count = 0;
    for (const unsigned char flag : in_core) count += flag & 1;
    return count;
}

TEST(CpuCacheBuffer, WritesMakeOnlyTheirOwnSmallPagesResidentNeverHugePages) {
    const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t bytes = size_t{16} << 20;  // 8 huge pages' worth
    CacheBuffer buffer(bytes);
    ASSERT_NE(buffer.data(), nullptr);
    EXPECT_EQ(buffer.size_bytes(), bytes);
    EXPECT_EQ(resident_pages(buffer.data(), bytes), 0);

    // The mapping is marked "nh" (MADV_NOHUGEPAGE): no huge page backs it, whatever the
    // system's transparent huge page mode.
    std::istringstream flags(vm_flags_of(buffer.data()));
    std::vector<std::string> words;
    for (std::string word; flags >> word;) words.push_back(word);
    EXPECT_NE(std::find(words.begin(), words.end(), "nh"), words.end())
        << "VmFlags:" << vm_flags_of(buffer.data());

    // One write every 64 KiB (a head's few positions): exactly those pages are resident, and
    // the rest still read as zeros.
    const size_t stride = size_t{64} << 10;
    for (size_t at = 0; at < bytes; at += stride) buffer.data()[at] = std::byte{1};
    EXPECT_EQ(resident_pages(buffer.data(), bytes), static_cast<int64_t>(bytes / stride));
    EXPECT_EQ(buffer.data()[page], std::byte{0});
    EXPECT_EQ(buffer.data()[stride], std::byte{1});
}

}  // namespace
}  // namespace earshot::backend::cpu
