/* SPDX-License-Identifier: MIT */
/* Loads libsystemd for the daemon and resolves the functions it calls; the rest of the
 * binary (every command-line action) runs without it. */
#define LIBSYSTEMD_DL_NO_REDIRECT
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "libsystemd-dl.h"

#define LIBSYSTEMD_DEFINE(name) __typeof__(name) *sym_##name;
LIBSYSTEMD_SYMBOLS(LIBSYSTEMD_DEFINE)
#undef LIBSYSTEMD_DEFINE

static void *libsystemd_handle;

bool libsystemd_loaded(void)
{
        return libsystemd_handle != NULL;
}

#define LIBSYSTEMD_COUNT(name) +1
enum { LIBSYSTEMD_N = 0 LIBSYSTEMD_SYMBOLS(LIBSYSTEMD_COUNT) };
#undef LIBSYSTEMD_COUNT

int libsystemd_load(const char *soname, char *why, size_t why_size)
{
        const char *missing = NULL;
        void *h, *found[LIBSYSTEMD_N];
        size_t i = 0;

        if (libsystemd_handle)
                return 0;
        dlerror();
        h = dlopen(soname, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
        if (!h) {
                const char *e = dlerror();
                snprintf(why, why_size, "%s", e ? e : soname);
                return -ENOENT;
        }

        /* Every symbol is looked up first, the pointers are set only if all are there: all or none. */
#define LIBSYSTEMD_FIND(name)                                                                                          \
        found[i] = dlsym(h, #name);                                                                                    \
        if (!found[i++] && !missing)                                                                                   \
                missing = #name;
        LIBSYSTEMD_SYMBOLS(LIBSYSTEMD_FIND)
#undef LIBSYSTEMD_FIND
        if (missing) {
                snprintf(why, why_size, "'%s' has no function %s() (libsystemd 252 or later is needed)", soname,
                         missing);
                dlclose(h);
                return -ENOSYS;
        }

        /* A function pointer is copied out of dlsym()'s void * byte for byte (POSIX allows the
         * conversion; ISO C has no cast for it). */
        i = 0;
#define LIBSYSTEMD_SET(name) memcpy(&sym_##name, &found[i++], sizeof(found[0]));
        LIBSYSTEMD_SYMBOLS(LIBSYSTEMD_SET)
#undef LIBSYSTEMD_SET
        libsystemd_handle = h;
        return 0;
}
