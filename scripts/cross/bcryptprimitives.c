#include <windows.h>
#include <bcrypt.h>
/* Wine 8.0 (Debian 12) has no bcryptprimitives.dll; Rust's standard library
   takes its random bytes from ProcessPrng there. The same bytes from the
   system's generator, through bcrypt.dll, which Wine has. */
BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG chunk = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (BCryptGenRandom(NULL, data, chunk, BCRYPT_USE_SYSTEM_PREFERRED_RNG) != 0) return FALSE;
        data += chunk; len -= chunk;
    }
    return TRUE;
}
