/* Wine 8.0 (Debian bookworm) has no bcryptprimitives.dll, whose ProcessPrng
   Rust's std (1.78 and later) imports on Windows for its random seeds.
   This stand-in serves it from RtlGenRandom (advapi32's SystemFunction036). */
#include <windows.h>
BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    while (length > 0) {
        ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk)) return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
