/*
 * A stand-in for Windows' bcryptprimitives.dll, for the Windows CI leg
 * under wine only; it never ships.
 *
 * Why: Go 1.22 and later runtimes load bcryptprimitives.dll from system32
 * at start-up and take their random bytes from its ProcessPrng export.
 * wine 8 (Debian 12) has no such DLL, so every Go binary dies before main.
 * wine 9 and later have it; .ci/windows installs this file only into a
 * prefix that lacks one.
 *
 * What: ProcessPrng(PBYTE, SIZE_T), which on Windows always returns TRUE,
 * forwarded to RtlGenRandom (exported by advapi32 as SystemFunction036).
 * RtlGenRandom takes a ULONG length, so larger requests go in chunks.
 *
 * Built without the C runtime (-nostdlib, DllMain as the entry point), so
 * the DLL needs nothing but kernel32 and advapi32, which every prefix has:
 *
 *   x86_64-w64-mingw32-gcc -O2 -shared -nostdlib -e DllMain \
 *     -o bcryptprimitives.dll bcryptprimitives.c -lkernel32 -ladvapi32
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	while (len > 0) {
		ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
		/* ProcessPrng cannot fail on Windows and Go's runtime treats a
		 * FALSE return as fatal; RtlGenRandom under wine reads the host's
		 * /dev/urandom and does not fail either, so pass its result on. */
		if (!SystemFunction036(data, n))
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}

BOOL WINAPI DllMain(HINSTANCE instance, DWORD reason, LPVOID reserved)
{
	(void)instance;
	(void)reason;
	(void)reserved;
	return TRUE;
}
