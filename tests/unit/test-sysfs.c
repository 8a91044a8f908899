/* SPDX-License-Identifier: MIT */
/* Unit tests for sysfs.c on a mkdtemp tree: path joining, first-line reads, u32 parsing,
 * symlink basenames and existence checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>

#include "sysfs.h"

static char tree[] = "/tmp/test-sysfs-XXXXXX";

static void write_file(const char *rel, const void *data, size_t len)
{
        char p[512];
        int fd;

        snprintf(p, sizeof(p), "%s/%s", tree, rel);
        fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, data, len), (ssize_t)len);
        close(fd);
}

static void write_str(const char *rel, const char *s)
{
        write_file(rel, s, strlen(s));
}

static void make_dir(const char *rel)
{
        char p[512];
        snprintf(p, sizeof(p), "%s/%s", tree, rel);
        assert_int_equal(mkdir(p, 0755), 0);
}

static void make_link(const char *target, const char *rel)
{
        char p[512];
        snprintf(p, sizeof(p), "%s/%s", tree, rel);
        assert_int_equal(symlink(target, p), 0);
}

static int setup_tree(void **state)
{
        (void)state;
        assert_non_null(mkdtemp(tree));
        make_dir("sys");
        make_dir("sys/bus");
        make_dir("sys/bus/pci");
        make_dir("sys/bus/pci/drivers");
        make_dir("sys/bus/pci/drivers/i915");
        make_dir("sys/dev");
        make_dir("sys/dev/0000:00:02.0");
        write_str("sys/dev/0000:00:02.0/vendor", "0x8086\n");
        write_str("sys/dev/0000:00:02.0/device", "0x27ae\n");
        write_str("sys/dev/0000:00:02.0/class", "0x030000\n");
        write_str("sys/dev/0000:00:02.0/boot_vga", "1\n");
        write_str("sys/dev/0000:00:02.0/enable", "  42 \n");
        write_str("sys/dev/0000:00:02.0/modalias", "pci:v00008086d000027AE\nsecond line\n");
        write_str("sys/dev/0000:00:02.0/nonl", "no newline");
        write_str("sys/dev/0000:00:02.0/empty", "");
        write_str("sys/dev/0000:00:02.0/big", "0x100000000\n");
        write_str("sys/dev/0000:00:02.0/max", "4294967295\n");
        write_str("sys/dev/0000:00:02.0/over", "4294967296\n");
        write_str("sys/dev/0000:00:02.0/neg", "-1\n");
        write_str("sys/dev/0000:00:02.0/word", "i915\n");
        write_str("sys/dev/0000:00:02.0/junk", "12abc\n");
        write_str("sys/dev/0000:00:02.0/hexonly", "0x\n");
        write_file("sys/dev/0000:00:02.0/binary", "ab\0cd\n", 6);
        make_link("../../bus/pci/drivers/i915", "sys/dev/0000:00:02.0/driver");
        make_link("../../bus/pci/drivers/i915/", "sys/dev/0000:00:02.0/driver_slash");
        make_link("nowhere/vfio-pci", "sys/dev/0000:00:02.0/dangling");
        make_link("..", "sys/dev/0000:00:02.0/dotdot");
        return 0;
}

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
        (void)st, (void)flag, (void)ftw;
        return remove(p);
}

static int teardown_tree(void **state)
{
        (void)state;
        assert_int_equal(nftw(tree, rm_entry, 16, FTW_DEPTH | FTW_PHYS), 0);
        return 0;
}

static void test_path(void **state)
{
        char *p = NULL;
        (void)state;

        assert_int_equal(sysfs_path(NULL, "/sys/bus/pci", &p), 0);
        assert_string_equal(p, "/sys/bus/pci");
        free(p);
        assert_int_equal(sysfs_path("", "sys/bus/pci", &p), 0);
        assert_string_equal(p, "/sys/bus/pci");
        free(p);
        assert_int_equal(sysfs_path("/", "/sys", &p), 0);
        assert_string_equal(p, "/sys");
        free(p);
        assert_int_equal(sysfs_path("/tmp/root", "/sys/x", &p), 0);
        assert_string_equal(p, "/tmp/root/sys/x");
        free(p);
        assert_int_equal(sysfs_path("/tmp/root//", "sys/x", &p), 0);
        assert_string_equal(p, "/tmp/root/sys/x");
        free(p);
        assert_int_equal(sysfs_path("rel", "//sys", &p), 0);
        assert_string_equal(p, "rel/sys");
        free(p);

        p = (char *)"untouched";
        assert_int_equal(sysfs_path("/tmp", "", &p), -EINVAL);
        assert_int_equal(sysfs_path("/tmp", "/", &p), -EINVAL);
        assert_int_equal(sysfs_path("/tmp", NULL, &p), -EINVAL);
        assert_string_equal(p, "untouched");
}

static void test_read_line(void **state)
{
        char *s = NULL;
        (void)state;

        assert_int_equal(sysfs_read_line(tree, "sys/dev/0000:00:02.0/vendor", &s), 0);
        assert_string_equal(s, "0x8086");
        free(s);
        /* Leading slash in path, trailing slash in root. */
        char root_slash[sizeof(tree) + 1];
        snprintf(root_slash, sizeof(root_slash), "%s/", tree);
        assert_int_equal(sysfs_read_line(root_slash, "/sys/dev/0000:00:02.0/class", &s), 0);
        assert_string_equal(s, "0x030000");
        free(s);
        assert_int_equal(sysfs_read_line(tree, "sys/dev/0000:00:02.0/modalias", &s), 0);
        assert_string_equal(s, "pci:v00008086d000027AE");
        free(s);
        assert_int_equal(sysfs_read_line(tree, "sys/dev/0000:00:02.0/nonl", &s), 0);
        assert_string_equal(s, "no newline");
        free(s);
        assert_int_equal(sysfs_read_line(tree, "sys/dev/0000:00:02.0/empty", &s), 0);
        assert_string_equal(s, "");
        free(s);

        s = (char *)"untouched";
        assert_int_equal(sysfs_read_line(tree, "sys/dev/0000:00:02.0/missing", &s), -ENOENT);
        assert_int_equal(sysfs_read_line(tree, "sys/dev/0000:00:02.0/binary", &s), -EBADMSG);
        assert_int_equal(sysfs_read_line(tree, "no/such/dir/file", &s), -ENOENT);
        /* A FIFO under a --root tree is refused at once, not read (it would block). */
        {
                char fifo[sizeof(tree) + 32];
                snprintf(fifo, sizeof(fifo), "%s/sys/fifo", tree);
                assert_int_equal(mkfifo(fifo, 0600), 0);
                alarm(5);
                assert_int_equal(sysfs_read_line(tree, "sys/fifo", &s), -EBADFD);
                alarm(0);
                assert_int_equal(unlink(fifo), 0);
        }
        assert_string_equal(s, "untouched");
}

static void test_read_line_too_long(void **state)
{
        char big[5000];
        char *s = (char *)"untouched";
        (void)state;

        memset(big, 'x', sizeof(big));
        write_file("long", big, sizeof(big));
        assert_int_equal(sysfs_read_line(tree, "long", &s), -E2BIG);
        assert_string_equal(s, "untouched");

        /* Exactly at the limit (4096 chars + newline) is fine. */
        big[4096] = '\n';
        write_file("fits", big, 4097);
        assert_int_equal(sysfs_read_line(tree, "fits", &s), 0);
        assert_int_equal(strlen(s), 4096);
        free(s);
}

static void test_read_u32(void **state)
{
        uint32_t v = 0;
        (void)state;

        assert_int_equal(sysfs_read_u32(tree, "sys/dev/0000:00:02.0/vendor", &v), 0);
        assert_int_equal(v, 0x8086);
        assert_int_equal(sysfs_read_u32(tree, "sys/dev/0000:00:02.0/device", &v), 0);
        assert_int_equal(v, 0x27ae);
        assert_int_equal(sysfs_read_u32(tree, "sys/dev/0000:00:02.0/class", &v), 0);
        assert_int_equal(v, 0x030000);
        assert_int_equal(sysfs_read_u32(tree, "sys/dev/0000:00:02.0/boot_vga", &v), 0);
        assert_int_equal(v, 1);
        assert_int_equal(sysfs_read_u32(tree, "sys/dev/0000:00:02.0/enable", &v), 0);
        assert_int_equal(v, 42);
        assert_int_equal(sysfs_read_u32(tree, "sys/dev/0000:00:02.0/max", &v), 0);
        assert_int_equal(v, UINT32_MAX);

        v = 7;
        assert_int_equal(sysfs_read_u32(tree, "sys/dev/0000:00:02.0/big", &v), -ERANGE);
        assert_int_equal(sysfs_read_u32(tree, "sys/dev/0000:00:02.0/over", &v), -ERANGE);
        assert_int_equal(sysfs_read_u32(tree, "sys/dev/0000:00:02.0/neg", &v), -EINVAL);
        assert_int_equal(sysfs_read_u32(tree, "sys/dev/0000:00:02.0/word", &v), -EINVAL);
        assert_int_equal(sysfs_read_u32(tree, "sys/dev/0000:00:02.0/junk", &v), -EINVAL);
        assert_int_equal(sysfs_read_u32(tree, "sys/dev/0000:00:02.0/hexonly", &v), -EINVAL);
        assert_int_equal(sysfs_read_u32(tree, "sys/dev/0000:00:02.0/empty", &v), -EINVAL);
        assert_int_equal(sysfs_read_u32(tree, "sys/dev/0000:00:02.0/missing", &v), -ENOENT);
        assert_int_equal(v, 7);
}

static void test_readlink_basename(void **state)
{
        char *s = NULL;
        (void)state;

        assert_int_equal(sysfs_readlink_basename(tree, "sys/dev/0000:00:02.0/driver", &s), 0);
        assert_string_equal(s, "i915");
        free(s);
        assert_int_equal(sysfs_readlink_basename(tree, "sys/dev/0000:00:02.0/driver_slash", &s), 0);
        assert_string_equal(s, "i915");
        free(s);
        /* The target need not exist: only the link text matters. */
        assert_int_equal(sysfs_readlink_basename(tree, "sys/dev/0000:00:02.0/dangling", &s), 0);
        assert_string_equal(s, "vfio-pci");
        free(s);

        s = (char *)"untouched";
        assert_int_equal(sysfs_readlink_basename(tree, "sys/dev/0000:00:02.0/nodriver", &s), -ENOENT);
        assert_int_equal(sysfs_readlink_basename(tree, "sys/dev/0000:00:02.0/vendor", &s), -EINVAL);
        assert_int_equal(sysfs_readlink_basename(tree, "sys/dev/0000:00:02.0/dotdot", &s), -EINVAL);
        assert_string_equal(s, "untouched");
}

static void test_exists(void **state)
{
        (void)state;
        assert_true(sysfs_exists(tree, "sys/dev/0000:00:02.0/vendor"));
        assert_true(sysfs_exists(tree, "/sys/dev/0000:00:02.0"));
        assert_true(sysfs_exists(tree, "sys/dev/0000:00:02.0/driver"));
        assert_false(sysfs_exists(tree, "sys/dev/0000:00:02.0/dangling"));
        assert_false(sysfs_exists(tree, "sys/dev/0000:00:03.0"));
        assert_false(sysfs_exists(tree, ""));
        /* The real root: "/" exists-check on an always-present path. */
        assert_true(sysfs_exists(NULL, "/tmp"));
        assert_true(sysfs_exists("/", "tmp"));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_path),
                cmocka_unit_test(test_read_line),
                cmocka_unit_test(test_read_line_too_long),
                cmocka_unit_test(test_read_u32),
                cmocka_unit_test(test_readlink_basename),
                cmocka_unit_test(test_exists),
        };
        return cmocka_run_group_tests(tests, setup_tree, teardown_tree);
}
