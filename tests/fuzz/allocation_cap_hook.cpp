// Where the allocation cap (fuzz_support.hpp) sees allocations. Under AddressSanitizer (the
// libFuzzer build, CLCG_SANITIZE) a sanitizer malloc hook sees every one, new and malloc alike
// (Eigen's included), and aborts with its stack, which libFuzzer reports as a crash, saving the
// input. In a plain build a replaced operator new sees the reader's buffers (its text and
// inflate buffers are new[]; Eigen's malloc goes unseen).
#include <cstddef>
#include <cstdlib>
#include <new>

#include "fuzz_support.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define CLCG_FUZZ_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CLCG_FUZZ_ASAN 1
#endif
#endif

#ifdef CLCG_FUZZ_ASAN
// The sanitizer runtime's interface (<sanitizer/allocator_interface.h>, which g++ does not ship).
extern "C" int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void*, std::size_t),
                                                         void (*free_hook)(const volatile void*));
extern "C" void __sanitizer_print_stack_trace();

namespace {

void on_malloc(const volatile void*, std::size_t bytes) {
    if (!clcg::fuzz::over_allocation_cap(bytes)) return;
    __sanitizer_print_stack_trace();
    std::abort();
}

void on_free(const volatile void*) {}

// Installed before main, on the main thread, as the hook API asks.
[[maybe_unused]] const int installed = __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free);

}  // namespace

#else

void* operator new(std::size_t bytes) {
    if (clcg::fuzz::over_allocation_cap(bytes)) std::abort();
    if (void* p = std::malloc(bytes == 0 ? 1 : bytes)) return p;
    throw std::bad_alloc();
}

void* operator new[](std::size_t bytes) { return ::operator new(bytes); }

#endif
