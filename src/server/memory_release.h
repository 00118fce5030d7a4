// Gives the memory a large request used back to the operating system.
//
// glibc's malloc keeps what is freed in its arenas, one per thread that
// allocated, to serve later allocations; after a few requests of several
// megabytes on gRPC's threads the server's RSS stayed hundreds of megabytes
// above its idle size for good. After each call ReleaseFreeMemorySoon()
// wakes a thread that, a moment later (so the call's request and response
// are freed too), calls malloc_trim(0): every arena's free pages go back.
// At most one trim per kTrimInterval, however busy the server is. Trimming
// alone still left 200 MB: small allocations that outlive a call pin pages
// of every thread's arena. LimitAllocatorArenas() caps the arenas at two,
// so what is freed lies in fewer, denser heaps.
// Internal to src/server; thread-safe.
#ifndef HPTUNE_SRC_SERVER_MEMORY_RELEASE_H_
#define HPTUNE_SRC_SERVER_MEMORY_RELEASE_H_

#include <chrono>

namespace hptune::server {

inline constexpr std::chrono::milliseconds kTrimInterval{250};

void ReleaseFreeMemorySoon();

// Once, at start-up, before any thread is started.
void LimitAllocatorArenas();

}  // namespace hptune::server

#endif  // HPTUNE_SRC_SERVER_MEMORY_RELEASE_H_
