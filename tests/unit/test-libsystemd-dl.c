/* SPDX-License-Identifier: MIT */
/* Unit tests for libsystemd-dl.c: a missing library or one without the daemon's functions
 * sets no pointer and says what is missing; the real libsystemd sets them all. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#define LIBSYSTEMD_DL_NO_REDIRECT
#include "libsystemd-dl.h"

static size_t pointers_set(void)
{
        size_t n = 0;
#define COUNT(name) n += sym_##name != NULL;
        LIBSYSTEMD_SYMBOLS(COUNT)
#undef COUNT
        return n;
}

static size_t symbols(void)
{
        size_t n = 0;
#define COUNT(name) n++;
        LIBSYSTEMD_SYMBOLS(COUNT)
#undef COUNT
        return n;
}

/* The cases run in this order: the successful load stays. */
static void test_missing_library(void **state)
{
        char why[512] = "";

        (void)state;
        assert_true(libsystemd_load("libumsrestore-test-no-such-library.so.0", why, sizeof(why)) < 0);
        assert_non_null(strstr(why, "libumsrestore-test-no-such-library.so.0"));
        assert_false(libsystemd_loaded());
        assert_int_equal(pointers_set(), 0);
}

static void test_library_without_the_functions(void **state)
{
        char why[512] = "";

        (void)state;
        /* The C library is there and loads, but has none of sd-bus: nothing is half set. */
        assert_int_equal(libsystemd_load("libc.so.6", why, sizeof(why)), -ENOSYS);
        assert_non_null(strstr(why, "'libc.so.6' has no function sd_bus_attach_event()"));
        assert_false(libsystemd_loaded());
        assert_int_equal(pointers_set(), 0);
}

static void test_real_library(void **state)
{
        char why[512] = "";

        (void)state;
        assert_int_equal(libsystemd_load(LIBSYSTEMD_SONAME, why, sizeof(why)), 0);
        assert_true(libsystemd_loaded());
        assert_int_equal(pointers_set(), symbols());
        assert_true(symbols() >= 20);
        /* A call through a pointer reaches libsystemd: outside systemd, sd_notify() has no
         * socket to write to and returns 0. */
        assert_int_equal(sym_sd_notify(false, "STATUS=test"), 0);
        /* Once loaded, a second call does nothing more. */
        assert_int_equal(libsystemd_load("libumsrestore-test-no-such-library.so.0", why, sizeof(why)), 0);
}

int main(int argc, char **argv)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_missing_library),
                cmocka_unit_test(test_library_without_the_functions),
                cmocka_unit_test(test_real_library),
        };
        (void)argc;
        (void)argv;
        return cmocka_run_group_tests(tests, NULL, NULL);
}
