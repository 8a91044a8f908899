/* SPDX-License-Identifier: MIT */
/* Small shared macros: cleanup attributes, TAKE_PTR/TAKE_FD, array sizes, a clock in µs.
 * Header-only; included by every module. */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _noreturn_ __attribute__((noreturn))
#define _warn_unused_result_ __attribute__((warn_unused_result))

/* The clock's time in microseconds (CLOCK_MONOTONIC for durations and deadlines). */
static inline uint64_t clock_usec(clockid_t clock)
{
        struct timespec ts;
        clock_gettime(clock, &ts);
        return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))
/* Each argument is evaluated exactly once: MIN(r, hw_outb(...)) does the write one time. */
#define MIN(a, b)                                                                                            \
        __extension__({                                                                                      \
                __typeof__(a) _min_a_ = (a);                                                                 \
                __typeof__(b) _min_b_ = (b);                                                                 \
                _min_a_ < _min_b_ ? _min_a_ : _min_b_;                                                       \
        })
#define MAX(a, b)                                                                                            \
        __extension__({                                                                                      \
                __typeof__(a) _max_a_ = (a);                                                                 \
                __typeof__(b) _max_b_ = (b);                                                                 \
                _max_a_ > _max_b_ ? _max_a_ : _max_b_;                                                       \
        })

#define TAKE_PTR(p)                                                                                          \
        __extension__({                                                                                                 \
                __typeof__(p) _tp_ = (p);                                                                    \
                (p) = NULL;                                                                                  \
                _tp_;                                                                                        \
        })

#define TAKE_FD(fd)                                                                                          \
        __extension__({                                                                                                 \
                int _tfd_ = (fd);                                                                            \
                (fd) = -EBADF;                                                                               \
                _tfd_;                                                                                       \
        })

/* Defines foo_freep(Foo **p) for a foo_free() that returns NULL. */
#define DEFINE_TRIVIAL_CLEANUP_FUNC(type, func)                                                              \
        static inline void func##p(type *p)                                                                  \
        {                                                                                                    \
                if (*p)                                                                                      \
                        *p = func(*p);                                                                       \
        }                                                                                                    \
        struct __useless_struct_to_allow_trailing_semicolon__

static inline void *mfree(void *p)
{
        free(p);
        return NULL;
}

static inline void freep(void *p)
{
        free(*(void **)p);
}
#define _cleanup_free_ _cleanup_(freep)

static inline int safe_close(int fd)
{
        if (fd >= 0) {
                int saved = errno;
                (void)close(fd);
                errno = saved;
        }
        return -EBADF;
}

static inline void closep(int *fd)
{
        *fd = safe_close(*fd);
}
#define _cleanup_close_ _cleanup_(closep)

static inline void fclosep(FILE **f)
{
        if (*f)
                (void)fclose(*f);
        *f = NULL;
}
#define _cleanup_fclose_ _cleanup_(fclosep)

static inline bool streq(const char *a, const char *b)
{
        return strcmp(a, b) == 0;
}

static inline bool streq_ptr(const char *a, const char *b)
{
        if (!a || !b)
                return a == b;
        return streq(a, b);
}

/* errno as a negative value, never 0 (some libc paths leave errno unset). */
static inline int negative_errno(void)
{
        return errno > 0 ? -errno : -EIO;
}
