/* SPDX-License-Identifier: MIT */
/* kernel.acpi_video_flags around sleep on a fake root: set from the quirks' flags with the
 * machine's value recorded, kept across a sleep that was never put back, written back after,
 * nothing done without flags, a missing sysctl reported without a record left behind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sleep-flags.h"
#include "sysfs.h"

typedef struct Fixture {
        char root[64];
        char sysctl[128];
        RunDir *rundir;
} Fixture;

static void write_sysctl(const Fixture *f, const char *text)
{
        FILE *fp = fopen(f->sysctl, "we");

        assert_non_null(fp);
        fputs(text, fp);
        assert_int_equal(fclose(fp), 0);
}

static unsigned read_sysctl(const Fixture *f)
{
        uint32_t v = 0xdead;

        assert_int_equal(sysfs_read_u32(f->root, "/proc/sys/kernel/acpi_video_flags", &v), 0);
        return v;
}

static bool has_record(const Fixture *f)
{
        return faccessat(f->rundir->fd, SLEEP_FLAGS_RECORD, F_OK, 0) == 0;
}

static int setup(void **state)
{
        Fixture *f = calloc(1, sizeof(*f));
        char cmd[256], dir[128];

        assert_non_null(f);
        snprintf(f->root, sizeof(f->root), "/tmp/test-sleep-flags-XXXXXX");
        assert_non_null(mkdtemp(f->root));
        snprintf(cmd, sizeof(cmd), "mkdir -p '%s/proc/sys/kernel'", f->root);
        assert_int_equal(system(cmd), 0);
        snprintf(f->sysctl, sizeof(f->sysctl), "%s/proc/sys/kernel/acpi_video_flags", f->root);
        write_sysctl(f, "0\n");
        snprintf(dir, sizeof(dir), "%s/run", f->root);
        assert_int_equal(rundir_open(dir, geteuid(), true, &f->rundir, NULL), 0);
        *state = f;
        return 0;
}

static int teardown(void **state)
{
        Fixture *f = *state;
        char cmd[128];

        rundir_free(f->rundir);
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->root);
        assert_int_equal(system(cmd), 0);
        free(f);
        return 0;
}

static void test_set_and_put_back(void **state)
{
        Fixture *f = *state;
        SleepFlagsResult res;

        sleep_flags_apply(f->root, f->rundir, 3, &res);
        assert_int_equal(res.r, 0);
        assert_true(res.acted);
        assert_int_equal(res.previous, 0);
        assert_int_equal(read_sysctl(f), 3);
        assert_true(has_record(f));

        sleep_flags_reset(f->root, f->rundir, &res);
        assert_int_equal(res.r, 0);
        assert_true(res.acted);
        assert_int_equal(res.value, 0);
        assert_int_equal(res.previous, 3);
        assert_int_equal(read_sysctl(f), 0);
        assert_false(has_record(f));

        /* nothing recorded: nothing to put back */
        write_sysctl(f, "2\n");
        sleep_flags_reset(f->root, f->rundir, &res);
        assert_int_equal(res.r, 0);
        assert_false(res.acted);
        assert_int_equal(read_sysctl(f), 2);
}

/* Two saves without a restore between them (a sleep that failed): the machine's own value
 * is the one recorded first, not the quirks' value of the first save. */
static void test_second_save_keeps_machine_value(void **state)
{
        Fixture *f = *state;
        SleepFlagsResult res;

        write_sysctl(f, "0\n");
        sleep_flags_apply(f->root, f->rundir, 1, &res);
        assert_true(res.acted);
        sleep_flags_apply(f->root, f->rundir, 2, &res);
        assert_true(res.acted);
        assert_int_equal(res.previous, 1);
        assert_int_equal(read_sysctl(f), 2);
        sleep_flags_reset(f->root, f->rundir, &res);
        assert_true(res.acted);
        assert_int_equal(read_sysctl(f), 0);
}

static void test_no_flags_no_write(void **state)
{
        Fixture *f = *state;
        SleepFlagsResult res;

        write_sysctl(f, "2\n");
        sleep_flags_apply(f->root, f->rundir, 0, &res);
        assert_int_equal(res.r, 0);
        assert_false(res.acted);
        assert_int_equal(read_sysctl(f), 2);
        assert_false(has_record(f));
}

/* A kernel without the sysctl: the error is returned, no record is left that a restore
 * would later write back. */
static void test_missing_sysctl(void **state)
{
        Fixture *f = *state;
        SleepFlagsResult res;

        assert_int_equal(unlink(f->sysctl), 0);
        sleep_flags_apply(f->root, f->rundir, 3, &res);
        assert_int_equal(res.r, -ENOENT);
        assert_false(res.acted);
        assert_false(has_record(f));
        assert_int_equal(access(f->sysctl, F_OK), -1);
}

/* A tampered record is refused (not written back) and removed. */
static void test_garbage_record(void **state)
{
        Fixture *f = *state;
        SleepFlagsResult res;
        int fd;

        write_sysctl(f, "3\n");
        fd = openat(f->rundir->fd, SLEEP_FLAGS_RECORD, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, "lots\n", 5), 5);
        close(fd);
        sleep_flags_reset(f->root, f->rundir, &res);
        assert_true(res.r < 0);
        assert_false(res.acted);
        assert_int_equal(read_sysctl(f), 3);
        assert_false(has_record(f));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_set_and_put_back, setup, teardown),
                cmocka_unit_test_setup_teardown(test_second_save_keeps_machine_value, setup, teardown),
                cmocka_unit_test_setup_teardown(test_no_flags_no_write, setup, teardown),
                cmocka_unit_test_setup_teardown(test_missing_sysctl, setup, teardown),
                cmocka_unit_test_setup_teardown(test_garbage_record, setup, teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
