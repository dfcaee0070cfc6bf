/* Forced into the C files built for x86_64-pc-windows-gnu by
 * scripts/cross/windows-env.sh: Debian 12's mingw-w64 headers (v10) lack Windows 10's
 * THREAD_POWER_THROTTLING_STATE, which llama.cpp's CPU backend sets on its
 * threads. Its layout is the process one's, which the headers have. The
 * Windows version is the one llama.cpp's own headers pick (Windows 10).
 * Only llama.cpp's ggml sources define GGML_SCHED_MAX_COPIES: no other C
 * dependency sees any of this. */
#if defined(__MINGW32__) && defined(GGML_SCHED_MAX_COPIES)
#ifndef _WIN32_WINNT
#define _WIN32_WINNT 0x0A00
#endif
#include <windows.h>
#ifndef THREAD_POWER_THROTTLING_CURRENT_VERSION
#define THREAD_POWER_THROTTLING_CURRENT_VERSION 1
#define THREAD_POWER_THROTTLING_EXECUTION_SPEED 0x1
typedef PROCESS_POWER_THROTTLING_STATE THREAD_POWER_THROTTLING_STATE;
#endif
#endif
