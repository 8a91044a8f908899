/* SPDX-License-Identifier: MIT */
/* Unit tests for log.c: level parsing, return values, prefix format and %m. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "log.h"

static void test_level_from_string(void **state)
{
        (void)state;
        assert_int_equal(log_level_from_string("debug"), LOG_DEBUG);
        assert_int_equal(log_level_from_string("err"), LOG_ERR);
        assert_int_equal(log_level_from_string("error"), LOG_ERR);
        assert_int_equal(log_level_from_string("warning"), LOG_WARNING);
        assert_int_equal(log_level_from_string("5"), 5);
        assert_int_equal(log_level_from_string("8"), -EINVAL);
        assert_int_equal(log_level_from_string("verbose"), -EINVAL);
        assert_int_equal(log_level_from_string(""), -EINVAL);
        assert_int_equal(log_level_from_string(NULL), -EINVAL);
}

/* Captures stderr into a temporary file while fn runs. */
static char *capture_stderr(void (*fn)(void))
{
        static char buf[4096];
        FILE *tmp = tmpfile();
        int saved = dup(STDERR_FILENO);
        size_t n;

        assert_non_null(tmp);
        assert_true(saved >= 0);
        fflush(stderr);
        assert_true(dup2(fileno(tmp), STDERR_FILENO) >= 0);
        fn();
        fflush(stderr);
        assert_true(dup2(saved, STDERR_FILENO) >= 0);
        close(saved);
        rewind(tmp);
        n = fread(buf, 1, sizeof(buf) - 1, tmp);
        buf[n] = '\0';
        fclose(tmp);
        return buf;
}

static int last_r;

static void emit_error_with_prefix(void)
{
        log_set_prefix_mode(1);
        last_r = log_error_errno(EACCES, "Failed to open '%s': %s", "/dev/port", STRERROR(EACCES));
}

static void emit_debug_suppressed(void)
{
        log_set_prefix_mode(0);
        log_set_max_level(LOG_INFO);
        log_debug("hidden %d", 42);
}

static void emit_plain_warning(void)
{
        log_set_prefix_mode(0);
        log_set_max_level(LOG_INFO);
        last_r = log_warning_errno(-ENOENT, "No state for %s, ignoring.", "0000:00:02.0");
}

static void test_prefix_and_errno(void **state)
{
        (void)state;
        const char *out = capture_stderr(emit_error_with_prefix);
        assert_string_equal(out, "<3>Failed to open '/dev/port': Permission denied\n");
        assert_int_equal(last_r, -EACCES);
}

static void test_level_filter(void **state)
{
        (void)state;
        assert_string_equal(capture_stderr(emit_debug_suppressed), "");
}

static void test_plain_format(void **state)
{
        (void)state;
        const char *out = capture_stderr(emit_plain_warning);
        assert_string_equal(out, "umsrestored: No state for 0000:00:02.0, ignoring.\n");
        assert_int_equal(last_r, -ENOENT);
}

static void test_errno_preserved(void **state)
{
        (void)state;
        log_set_max_level(LOG_EMERG); /* nothing printed */
        errno = EBUSY;
        assert_int_equal(log_error_errno(EIO, "x %s", STRERROR(EIO)), -EIO);
        assert_int_equal(errno, EBUSY);
        assert_int_equal(log_error_errno(0, "no error"), 0);
        log_set_max_level(LOG_INFO);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_level_from_string),
                cmocka_unit_test(test_prefix_and_errno),
                cmocka_unit_test(test_level_filter),
                cmocka_unit_test(test_plain_format),
                cmocka_unit_test(test_errno_preserved),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
