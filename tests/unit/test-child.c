/* SPDX-License-Identifier: MIT */
/* Bounded children: only stdio and the kept fd survive into the child (wherever the kept
 * fd sits, 3 included), the exit code comes back, and an overrun is killed and reaped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>

#include "child.h"

/* Exit code: 0 if the open fds are exactly 0, 1, 2 and *keep (if >= 0), else 1. */
static int only_stdio_and_keep(void *userdata)
{
        int keep = *(int *)userdata;
        bool seen_keep = false;
        struct dirent *de;
        DIR *d = opendir("/proc/self/fd");
        int bad = 0;

        if (!d)
                return 2;
        while ((de = readdir(d))) {
                int fd;
                if (de->d_name[0] == '.')
                        continue;
                fd = atoi(de->d_name);
                if (fd == dirfd(d) || fd <= 2)
                        continue;
                if (fd == keep)
                        seen_keep = true;
                else
                        bad = 1;
        }
        closedir(d);
        return bad || (keep >= 0 && !seen_keep);
}

static void check_keep(int keep_target)
{
        int extra[4], keep = -1;

        /* Make keep_target the kept fd, with other fds open below and above it. */
        for (size_t i = 0; i < ELEMENTSOF(extra); i++) {
                extra[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
                assert_true(extra[i] >= 3);
        }
        if (keep_target >= 0) {
                keep = fcntl(extra[0], F_DUPFD_CLOEXEC, keep_target);
                assert_true(keep >= keep_target);
        }
        assert_int_equal(child_run_bounded(only_stdio_and_keep, &keep, keep, 5000000), 0);
        for (size_t i = 0; i < ELEMENTSOF(extra); i++)
                close(extra[i]);
        if (keep >= 0)
                close(keep);
}

static void test_fds(void **state)
{
        (void)state;
        check_keep(-1);
        check_keep(40);
        /* The lowest free fd (3 in a small process, like the run directory's in the CLI),
         * with another one open above it. */
        {
                int keep = open("/dev/null", O_RDONLY | O_CLOEXEC);
                int other = open("/dev/null", O_RDONLY | O_CLOEXEC);

                assert_true(keep >= 3 && other > keep);
                assert_int_equal(child_run_bounded(only_stdio_and_keep, &keep, keep, 5000000), 0);
                close(other);
                close(keep);
        }
}

static int exit_with(void *userdata)
{
        return *(int *)userdata;
}

static int hang(void *userdata)
{
        (void)userdata;
        for (;;)
                pause();
        return 0;
}

static void test_exit_code_and_overrun(void **state)
{
        int code = 7;
        pid_t pid;
        (void)state;

        assert_int_equal(child_run_bounded(exit_with, &code, -1, 5000000), 7);
        assert_int_equal(child_spawn(hang, NULL, -1, &pid), 0);
        assert_int_equal(child_wait(pid, 100000), -ETIMEDOUT);
        /* killed and reaped: nothing left to wait for */
        assert_int_equal(waitpid(pid, NULL, WNOHANG), -1);
        assert_int_equal(errno, ECHILD);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_fds),
                cmocka_unit_test(test_exit_code_and_overrun),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
