/* SPDX-License-Identifier: MIT */
/* Unit tests for the configuration (conf*.c): defaults, every key, every error with its
 * FILE:LINE, drop-in order and masking in a temporary tree, files that are refused (FIFOs,
 * files the daemon could not read), device matching, format round trip, the shipped file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <syslog.h>

#include "conf.h"
#include "version.h"

static const char *testdata_dir;

/* ---- helpers ------------------------------------------------------------------- */

static Config *parse_ok(const char *text)
{
        Config *c = NULL;
        char *error = NULL;

        assert_int_equal(config_new(&c), 0);
        if (config_parse_string(text, "t.conf", c, &error) < 0)
                fail_msg("unexpected error: %s", error ? error : "(none)");
        assert_null(error);
        return c;
}

/* Parses text as file "t.conf" and returns the error message (static storage). */
static const char *parse_error(const char *text)
{
        static char buf[1024];
        _cleanup_(config_freep) Config *c = NULL;
        _cleanup_free_ char *error = NULL;

        assert_int_equal(config_new(&c), 0);
        assert_int_equal(config_parse_string(text, "t.conf", c, &error), -EINVAL);
        assert_non_null(error);
        assert_null(strchr(error, '\n'));
        snprintf(buf, sizeof(buf), "%s", error);
        return buf;
}

static void expect_error(const char *text, const char *message)
{
        assert_string_equal(parse_error(text), message);
}

static void expect_error_prefix(const char *text, const char *prefix)
{
        const char *e = parse_error(text);

        if (strncmp(e, prefix, strlen(prefix)) != 0)
                fail_msg("error '%s' does not start with '%s'", e, prefix);
}

static bool matches_equal(const DeviceMatch *a, const DeviceMatch *b, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                if (a[i].by_id != b[i].by_id)
                        return false;
                if (a[i].by_id && (a[i].vendor_id != b[i].vendor_id || a[i].device_id != b[i].device_id))
                        return false;
                if (!a[i].by_id && (a[i].domain != b[i].domain || a[i].bus != b[i].bus ||
                                    a[i].dev != b[i].dev || a[i].func != b[i].func))
                        return false;
        }
        return true;
}

static bool methods_equal(const char *const *a, size_t na, const char *const *b, size_t nb)
{
        if (na != nb)
                return false;
        for (size_t i = 0; i < na; i++)
                if (!streq(a[i], b[i]))
                        return false;
        return true;
}

static void assert_config_equal(const Config *a, const Config *b)
{
        assert_true(methods_equal(a->methods, a->n_methods, b->methods, b->n_methods));
        assert_int_equal(a->console_switch, b->console_switch);
        assert_int_equal(a->vbe_post, b->vbe_post);
        assert_int_equal(a->console_switch_set, b->console_switch_set);
        assert_int_equal(a->vbe_post_set, b->vbe_post_set);
        assert_int_equal(a->save_deadline_usec, b->save_deadline_usec);
        assert_int_equal(a->manual_deadline_usec, b->manual_deadline_usec);
        assert_int_equal(a->n_include, b->n_include);
        assert_true(matches_equal(a->include, b->include, a->n_include));
        assert_int_equal(a->n_exclude, b->n_exclude);
        assert_true(matches_equal(a->exclude, b->exclude, a->n_exclude));
        assert_int_equal(a->log_level, b->log_level);
        assert_int_equal(a->n_devices, b->n_devices);
        for (size_t i = 0; i < a->n_devices; i++) {
                assert_true(matches_equal(&a->devices[i].match, &b->devices[i].match, 1));
                assert_int_equal(a->devices[i].manage, b->devices[i].manage);
                assert_int_equal(a->devices[i].vbe_post, b->devices[i].vbe_post);
                assert_true(methods_equal(a->devices[i].methods, a->devices[i].n_methods,
                                          b->devices[i].methods, b->devices[i].n_methods));
        }
}

static void assert_defaults(const Config *c)
{
        assert_int_equal(c->n_methods, 0);
        assert_true(c->console_switch);
        assert_false(c->vbe_post);
        assert_int_equal(c->save_deadline_usec, 0);
        assert_int_equal(c->manual_deadline_usec, CONFIG_MANUAL_DEADLINE_DEFAULT_USEC);
        assert_int_equal(c->n_include, 0);
        assert_int_equal(c->n_exclude, 0);
        assert_int_equal(c->log_level, LOG_INFO);
        assert_int_equal(c->n_devices, 0);
}

static DisplayDevice make_device(const char *slot, uint16_t vendor, uint16_t device)
{
        DisplayDevice d = { 0 };

        assert_int_equal(pci_parse_slot(slot, &d.domain, &d.bus, &d.dev, &d.func), 0);
        pci_format_slot(d.slot, d.domain, d.bus, d.dev, d.func);
        d.vendor_id = vendor;
        d.device_id = device;
        return d;
}

static char *make_tree(void)
{
        const char *tmp = getenv("TMPDIR");
        char *t = NULL;

        assert_true(asprintf(&t, "%s/test-conf-XXXXXX", tmp && tmp[0] ? tmp : "/tmp") > 0);
        assert_non_null(mkdtemp(t));
        return t;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        (void)st;
        (void)ftw;
        return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static void remove_tree(char *t)
{
        assert_int_equal(nftw(t, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
        free(t);
}

static void mkdir_p(const char *path)
{
        char buf[4096];

        snprintf(buf, sizeof(buf), "%s", path);
        for (char *p = buf + 1; *p; p++)
                if (*p == '/') {
                        *p = '\0';
                        assert_true(mkdir(buf, 0755) == 0 || errno == EEXIST);
                        *p = '/';
                }
        assert_true(mkdir(buf, 0755) == 0 || errno == EEXIST);
}

/* Writes ROOT/REL (creating directories); returns the full path (static storage). */
static const char *write_file(const char *root, const char *rel, const char *text)
{
        static char path[4096];
        char dir[4096];
        FILE *f;

        snprintf(path, sizeof(path), "%s%s", root, rel);
        snprintf(dir, sizeof(dir), "%s", path);
        *strrchr(dir, '/') = '\0';
        mkdir_p(dir);
        f = fopen(path, "we");
        assert_non_null(f);
        assert_int_equal(fputs(text, f) >= 0, 1);
        assert_int_equal(fclose(f), 0);
        return path;
}

/* Runs config_load(root, explicit_path) in a child process bounded to a few seconds, so
 * that a loader that blocks (on a FIFO, say) fails the test instead of hanging it.
 * Returns the load's result; *ret_error gets its message ("" on success). */
static int load_bounded(const char *root, const char *explicit_path, char **ret_error)
{
        int fds[2], status, r = 0;
        char buf[4096];
        size_t len = 0;
        ssize_t n;
        pid_t pid;

        assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                Config *c = NULL;
                char *error = NULL;
                int q;

                close(fds[0]);
                q = config_load(root, explicit_path, &c, &error);
                (void)!write(fds[1], &q, sizeof(q));
                if (error)
                        (void)!write(fds[1], error, strlen(error));
                _exit(0);
        }
        close(fds[1]);
        for (;;) {
                struct pollfd p = { .fd = fds[0], .events = POLLIN };

                if (poll(&p, 1, 5000) == 0) {
                        kill(pid, SIGKILL);
                        (void)waitpid(pid, &status, 0);
                        close(fds[0]);
                        fail_msg("config_load() did not return within 5 seconds");
                }
                n = read(fds[0], buf + len, sizeof(buf) - 1 - len);
                if (n <= 0)
                        break;
                len += (size_t)n;
        }
        close(fds[0]);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        assert_true(len >= sizeof(r));
        memcpy(&r, buf, sizeof(r));
        buf[len] = '\0';
        *ret_error = strdup(buf + sizeof(r));
        assert_non_null(*ret_error);
        return r;
}

/* config_load(root) must fail with exactly "PATH" + message, PATH being root + rel. */
static void expect_load_error(const char *root, const char *rel, const char *message)
{
        _cleanup_free_ char *error = NULL, *expected = NULL;

        assert_true(load_bounded(root, NULL, &error) < 0);
        assert_true(asprintf(&expected, "%s%s%s", root, rel, message) > 0);
        assert_string_equal(error, expected);
}

/* The refusal of a file or directory the daemon could not read: owner_mode is e.g.
 * "uid 0 gid 0, mode 0000". */
static void expect_unreadable(const char *root, const char *rel, bool dir, const char *owner_mode)
{
        _cleanup_free_ char *error = NULL, *expected = NULL, *path = NULL;

        assert_true(asprintf(&path, "%s%s", root, rel) > 0);
        assert_int_equal(load_bounded(root, NULL, &error), -EACCES);
        assert_true(asprintf(&expected,
                             "%s: the daemon cannot %s (owner %s; umsrestored runs as root without "
                             "CAP_DAC_OVERRIDE): run 'chown root:root %s; chmod %s %s'",
                             path, dir ? "list this directory" : "read this file", owner_mode, path,
                             dir ? "0755" : "0644", path) > 0);
        assert_string_equal(error, expected);
}

static void make_fifo(const char *root, const char *rel)
{
        _cleanup_free_ char *path = NULL;

        assert_true(asprintf(&path, "%s%s", root, rel) > 0);
        assert_int_equal(mkfifo(path, 0644), 0);
}

static void set_owner_mode(const char *root, const char *rel, uid_t uid, gid_t gid, mode_t mode)
{
        _cleanup_free_ char *path = NULL;

        assert_true(asprintf(&path, "%s%s", root, rel) > 0);
        assert_int_equal(chown(path, uid, gid), 0);
        assert_int_equal(chmod(path, mode), 0);
}

#define SYSCONF UMSRESTORE_SYSCONFDIR
#define DROPIN_ETC SYSCONF "/umsrestore.conf.d/"
#define DROPIN_RUN "/run/umsrestore.conf.d/"
#define DROPIN_LIB "/usr/lib/umsrestore.conf.d/"

/* ---- tests --------------------------------------------------------------------- */

static void test_defaults(void **state)
{
        _cleanup_(config_freep) Config *c = NULL, *empty = NULL;

        (void)state;
        assert_int_equal(config_new(&c), 0);
        assert_defaults(c);
        /* An empty file and a file of comments change nothing. */
        empty = parse_ok("");
        assert_defaults(empty);
        config_free(empty);
        empty = parse_ok("# nothing\n; here\n\n[General]\n");
        assert_defaults(empty);
        assert_null(config_free(NULL));
}

static void test_every_key(void **state)
{
        _cleanup_(config_freep) Config *c = NULL;

        (void)state;
        c = parse_ok("[General]\n"
                     "Methods=pci-config vga\n"
                     "ConsoleSwitch=off\n"
                     "VBEPost=TRUE\n"
                     "SaveDeadlineSec=2.5\n"
                     "ManualDeadlineSec=7.5\n"
                     "Include=00:02.0   8086:27AE\n"
                     "Exclude=0001:0a:1f.7\n"
                     "; a comment on a line of its own\n"
                     "LogLevel=debug\n"
                     "\n"
                     "[Device 8086:27ae]\n"
                     "Manage=no\n"
                     "Methods=vga\n"
                     "\n"
                     "[Device 00:02.0]\n"
                     "Manage=1\n");
        assert_int_equal(c->n_methods, 2);
        assert_string_equal(c->methods[0], "pci-config");
        assert_string_equal(c->methods[1], "vga");
        assert_false(c->console_switch);
        assert_true(c->vbe_post);
        assert_int_equal(c->manual_deadline_usec, 7500000);
        assert_int_equal(c->save_deadline_usec, 2500000);
        assert_int_equal(c->n_include, 2);
        assert_false(c->include[0].by_id);
        assert_int_equal(c->include[0].domain, 0);
        assert_int_equal(c->include[0].bus, 0);
        assert_int_equal(c->include[0].dev, 2);
        assert_int_equal(c->include[0].func, 0);
        assert_true(c->include[1].by_id);
        assert_int_equal(c->include[1].vendor_id, 0x8086);
        assert_int_equal(c->include[1].device_id, 0x27ae);
        assert_int_equal(c->n_exclude, 1);
        assert_int_equal(c->exclude[0].domain, 1);
        assert_int_equal(c->exclude[0].bus, 0x0a);
        assert_int_equal(c->exclude[0].dev, 0x1f);
        assert_int_equal(c->exclude[0].func, 7);
        assert_int_equal(c->log_level, LOG_DEBUG);
        assert_int_equal(c->n_devices, 2);
        assert_true(c->devices[0].match.by_id);
        assert_int_equal(c->devices[0].manage, 0);
        assert_int_equal(c->devices[0].n_methods, 1);
        assert_string_equal(c->devices[0].methods[0], "vga");
        assert_false(c->devices[1].match.by_id);
        assert_int_equal(c->devices[1].match.dev, 2);
        assert_int_equal(c->devices[1].manage, 1);
        assert_int_equal(c->devices[1].n_methods, 0);
}

static void test_values(void **state)
{
        static const struct {
                const char *value;
                uint64_t usec;
        } deadlines[] = {
                { "0", 0 },
                { "0.0", 0 },
                { "0.1", 100000 },
                { "60", 60000000 },
                { "60.000000", 60000000 },
                { "1.000001", 1000001 },
                { "007", 7000000 },
        };
        static const char *const yes[] = { "yes", "true", "1", "on", "YES", "On" };
        static const char *const no[] = { "no", "false", "0", "off", "No", "FALSE" };
        static const struct {
                const char *name;
                int level;
        } levels[] = {
                { "debug", LOG_DEBUG },     { "info", LOG_INFO }, { "notice", LOG_NOTICE },
                { "warning", LOG_WARNING }, { "err", LOG_ERR },
        };
        char text[128];

        (void)state;
        for (size_t i = 0; i < ELEMENTSOF(deadlines); i++) {
                _cleanup_(config_freep) Config *c = NULL;

                snprintf(text, sizeof(text), "[General]\nSaveDeadlineSec=%s\n", deadlines[i].value);
                c = parse_ok(text);
                assert_int_equal(c->save_deadline_usec, deadlines[i].usec);
        }
        for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
                _cleanup_(config_freep) Config *c = NULL;

                snprintf(text, sizeof(text), "[General]\nConsoleSwitch=%s\nVBEPost=%s\n", no[i], yes[i]);
                c = parse_ok(text);
                assert_false(c->console_switch);
                assert_true(c->vbe_post);
        }
        for (size_t i = 0; i < ELEMENTSOF(levels); i++) {
                _cleanup_(config_freep) Config *c = NULL;

                snprintf(text, sizeof(text), "[General]\nLogLevel=%s\n", levels[i].name);
                c = parse_ok(text);
                assert_int_equal(c->log_level, levels[i].level);
        }
}

static void test_empty_value_resets(void **state)
{
        _cleanup_(config_freep) Config *c = NULL;
        _cleanup_free_ char *error = NULL;

        (void)state;
        c = parse_ok("[General]\nMethods=vga\nConsoleSwitch=no\nVBEPost=yes\nSaveDeadlineSec=3\nManualDeadlineSec=1\n"
                     "Include=00:02.0\nExclude=8086:27ae\nLogLevel=err\n"
                     "[Device 00:02.0]\nManage=no\nMethods=vga\n");
        assert_int_equal(
                config_parse_string("[General]\nMethods=\nConsoleSwitch=\nVBEPost=\nSaveDeadlineSec=\nManualDeadlineSec=\n"
                                    "Include=\nExclude=\nLogLevel=\n"
                                    "[Device 0000:00:02.0]\nManage=\nMethods=\n",
                                    "drop-in.conf", c, &error),
                0);
        assert_null(error);
        assert_int_equal(c->n_devices, 1);
        assert_int_equal(c->devices[0].manage, -1);
        assert_int_equal(c->devices[0].n_methods, 0);
        c->n_devices = 0; /* the entry stays, unset: compare the rest with the defaults */
        assert_defaults(c);
}

static void test_errors(void **state)
{
        (void)state;
        /* unknown sections: with and without keys, with and without a suggestion */
        expect_error("[General]\nLogLevel=info\n\n[Genral]\n",
                     "t.conf:4: unknown section [Genral] (did you mean [General]?)");
        expect_error("# x\n[general]\nLogLevel=info\n",
                     "t.conf:2: unknown section [general] (did you mean [General]?)");
        expect_error("[Devise 00:02.0]\nManage=no\n",
                     "t.conf:1: unknown section [Devise 00:02.0] (did you mean [Device 00:02.0]?)");
        expect_error(
                "[General]\n[Options]\nX=1\n",
                "t.conf:2: unknown section [Options] (expected [General] or [Device SLOT|VENDOR:DEVICE])");
        expect_error(
                "[Device]\n",
                "t.conf:1: section [Device] needs a device: [Device 0000:00:02.0] or [Device 8086:27ae]");
        expect_error("[General] LogLevel=debug\n",
                     "t.conf:1: unexpected text after [General]: 'LogLevel=debug'");
        /* unknown keys */
        expect_error("[General]\n# c\nConsoleSwich=no\n",
                     "t.conf:3: unknown key 'ConsoleSwich' in [General] (did you mean 'ConsoleSwitch'?)");
        expect_error("[General]\nloglevel=info\n",
                     "t.conf:2: unknown key 'loglevel' in [General] (did you mean 'LogLevel'?)");
        expect_error("[General]\nFrobnicate=1\n", "t.conf:2: unknown key 'Frobnicate' in [General] (known "
                                                  "keys: Methods, ConsoleSwitch, VBEPost, "
                                                  "SaveDeadlineSec, ManualDeadlineSec, Include, Exclude, LogLevel)");
        expect_error("[Device 00:02.0]\nManaged=no\n",
                     "t.conf:2: unknown key 'Managed' in [Device 00:02.0] (did you mean 'Manage'?)");
        expect_error("[General]\nManage=no\n",
                     "t.conf:2: key 'Manage' belongs in a [Device ...] section, not in [General]");
        expect_error("[Device 8086:27ae]\nLogLevel=debug\n",
                     "t.conf:2: key 'LogLevel' belongs in [General], not in [Device 8086:27ae]");
        expect_error("[General]\n=yes\n", "t.conf:2: missing key name before '=' in [General]");
        expect_error(
                "LogLevel=debug\n[General]\n",
                "t.conf:1: 'LogLevel=' is outside of any section (put it under [General] or [Device ...])");
        /* bad booleans; '#' after a value is not a comment but an error (see test_inline_comments) */
        expect_error(
                "[General]\nVBEPost=maybe\n",
                "t.conf:2: invalid boolean 'maybe' for VBEPost= (use yes/no, true/false, on/off or 1/0)");
        expect_error("[General]\nConsoleSwitch=yes # really\n",
                     "t.conf:2: unexpected '#' in the value of ConsoleSwitch= (comments go on their own line)");
        expect_error("[Device 00:02.0]\n\nManage=2\n",
                     "t.conf:3: invalid boolean '2' for Manage= (use yes/no, true/false, on/off or 1/0)");
        /* unknown methods */
        expect_error("[General]\nMethods=vga\n[Device 00:02.0]\nMethods=pci-config vag\n",
                     "t.conf:4: unknown method 'vag' (did you mean 'vga'?)");
        expect_error("[General]\nMethods=pci_config\n",
                     "t.conf:2: unknown method 'pci_config' (did you mean 'pci-config'?)");
        expect_error("[General]\nMethods=VGA\n", "t.conf:2: unknown method 'VGA' (did you mean 'vga'?)");
        /* the list of known methods follows the method table */
        expect_error_prefix("[General]\nMethods=framebuffer\n",
                            "t.conf:2: unknown method 'framebuffer' (known methods: ");
        assert_non_null(strstr(parse_error("[General]\nMethods=framebuffer\n"), "vga"));
        assert_non_null(strstr(parse_error("[General]\nMethods=framebuffer\n"), "pci-config"));
        expect_error("[General]\nMethods=vga,pci-config\n",
                     "t.conf:2: unknown method 'vga,pci-config' (separate method names with spaces)");
        expect_error("[General]\nMethods=vga pci-config vga\n",
                     "t.conf:2: method 'vga' is listed twice in Methods=");
        /* bad slots and IDs, in headers and lists */
        expect_error(
                "[Device 00:2.0]\n",
                "t.conf:1: invalid PCI slot '00:2.0' in [Device 00:2.0] (expected 0000:00:02.0 or 00:02.0)");
        expect_error("[Device 00:20.0]\n", "t.conf:1: invalid PCI slot '00:20.0' in [Device 00:20.0] "
                                           "(expected 0000:00:02.0 or 00:02.0)");
        expect_error(
                "[General]\nInclude=00:02.0 0000:00:02.8\n",
                "t.conf:2: invalid PCI slot '0000:00:02.8' in Include= (expected 0000:00:02.0 or 00:02.0)");
        expect_error(
                "[General]\nExclude=0x00:02.0\n",
                "t.conf:2: invalid PCI slot '0x00:02.0' in Exclude= (expected 0000:00:02.0 or 00:02.0)");
        /* one strict slot syntax, pci_parse_slot()'s: no short fields, no prefixes */
        expect_error(
                "[General]\nInclude=0:0:2.0\n",
                "t.conf:2: invalid PCI slot '0:0:2.0' in Include= (expected 0000:00:02.0 or 00:02.0)");
        expect_error(
                "[Device 0000:00:2.0]\n",
                "t.conf:1: invalid PCI slot '0000:00:2.0' in [Device 0000:00:2.0] (expected 0000:00:02.0 or "
                "00:02.0)");
        expect_error("[General]\nExclude=0x86:27ae\n",
                     "t.conf:2: invalid PCI ID '0x86:27ae' in Exclude= (expected vendor:device, e.g. 8086:27ae)");
        expect_error("[Device 8086:27a]\n", "t.conf:1: invalid PCI ID '8086:27a' in [Device 8086:27a] "
                                            "(expected vendor:device, e.g. 8086:27ae)");
        expect_error(
                "[General]\nExclude=8086-27ae\n",
                "t.conf:2: invalid PCI ID '8086-27ae' in Exclude= (expected vendor:device, e.g. 8086:27ae)");
        expect_error("[General]\nInclude=8086:27ae,00:02.0\n",
                     "t.conf:2: invalid PCI slot '8086:27ae,00:02.0' in Include= (expected 0000:00:02.0 or "
                     "00:02.0)");
        /* numbers */
        expect_error("[General]\nSaveDeadlineSec=61\n",
                     "t.conf:2: SaveDeadlineSec=61 is out of range (0, or 0.1 to 60 seconds)");
        expect_error("[General]\nSaveDeadlineSec=0.05\n",
                     "t.conf:2: SaveDeadlineSec=0.05 is out of range (0, or 0.1 to 60 seconds)");
        expect_error("[General]\nSaveDeadlineSec=60.000001\n",
                     "t.conf:2: SaveDeadlineSec=60.000001 is out of range (0, or 0.1 to 60 seconds)");
        expect_error(
                "[General]\nSaveDeadlineSec=99999999999999999999\n",
                "t.conf:2: SaveDeadlineSec=99999999999999999999 is out of range (0, or 0.1 to 60 seconds)");
        expect_error("[General]\nSaveDeadlineSec=5s\n",
                     "t.conf:2: invalid number '5s' for SaveDeadlineSec= (seconds, e.g. 5 or 2.5)");
        expect_error("[General]\nSaveDeadlineSec=-1\n",
                     "t.conf:2: invalid number '-1' for SaveDeadlineSec= (seconds, e.g. 5 or 2.5)");
        expect_error("[General]\nSaveDeadlineSec=1e1\n",
                     "t.conf:2: invalid number '1e1' for SaveDeadlineSec= (seconds, e.g. 5 or 2.5)");
        expect_error("[General]\nSaveDeadlineSec=1.\n",
                     "t.conf:2: invalid number '1.' for SaveDeadlineSec= (seconds, e.g. 5 or 2.5)");
        expect_error("[General]\nLogLevel=loud\n", "t.conf:2: invalid log level 'loud' for LogLevel= (use "
                                                   "debug, info, notice, warning or err)");
        /* duplicates within one file */
        expect_error("[General]\nLogLevel=info\nConsoleSwitch=no\nLogLevel=debug\n",
                     "t.conf:4: duplicate key 'LogLevel' in [General] (first set at line 2)");
        expect_error("[Device 00:02.0]\nManage=no\n\n[Device 0000:00:02.0]\n",
                     "t.conf:4: duplicate section [Device 0000:00:02.0] (this device already has a section "
                     "at line 1)");
        expect_error("[Device 8086:27ae]\n[Device 8086:27AE]\n",
                     "t.conf:2: duplicate section [Device 8086:27AE] (this device already has a section at "
                     "line 1)");
        expect_error("[General]\nVBEPost=no\n[General]\n",
                     "t.conf:3: duplicate section [General] (first at line 1)");
}

static void test_syntax_errors(void **state)
{
        char text[512];

        (void)state;
        expect_error(
                "[General]\nLogLevel=info\nthis is not a key\n",
                "t.conf:3: expected 'Key=Value', a [Section] header or a comment, got 'this is not a key'");
        expect_error("[General]\n[Device 00:02.0\nManage=no\n",
                     "t.conf:2: invalid section header '[Device 00:02.0' (expected [Name])");
        /* the first problem wins, whoever finds it */
        expect_error("[General]\nbogus\nFoo=1\n",
                     "t.conf:2: expected 'Key=Value', a [Section] header or a comment, got 'bogus'");
        expect_error(
                "[General]\nFoo=1\nbogus\n",
                "t.conf:2: unknown key 'Foo' in [General] (known keys: Methods, ConsoleSwitch, VBEPost, "
                "SaveDeadlineSec, ManualDeadlineSec, Include, Exclude, LogLevel)");
        /* an indented line is not the continuation of the previous value */
        expect_error("[General]\nMethods=vga\n  pci-config\n",
                     "t.conf:3: expected 'Key=Value', a [Section] header or a comment, got 'pci-config'");
        /* BOM, CRLF and indentation do not shift line numbers */
        expect_error(
                "\xef\xbb\xbf[General]\r\n  LogLevel=debug\r\n\r\n\tVBEPost=bogus\r\n",
                "t.conf:4: invalid boolean 'bogus' for VBEPost= (use yes/no, true/false, on/off or 1/0)");
        /* "Key: Value" is not an assignment (inih took ':' for '='; the manual never did) */
        expect_error("[General]\nLogLevel: debug\n",
                     "t.conf:2: expected 'Key=Value', a [Section] header or a comment, got 'LogLevel: debug'");
        /* a line of 200 characters is read, one more is refused */
        snprintf(text, sizeof(text), "[General]\n#%0199d\n   LogLevel=debug  \n#%0200d\n", 0, 0);
        expect_error(text, "t.conf:4: line is longer than 200 characters");
        /* a line too long is refused, not split in two */
        snprintf(text, sizeof(text), "[General]\n# %0300d\nLogLevel=debug\n", 0);
        expect_error_prefix(text, "t.conf:2: line is longer than ");
        snprintf(text, sizeof(text), "[General]\nInclude=%0250d\n", 0);
        expect_error_prefix(text, "t.conf:2: line is longer than ");
        /* a long line of bad syntax is quoted in part */
        snprintf(text, sizeof(text), "[General]\nx%0150d\n", 0);
        assert_non_null(strstr(parse_error(text), "...'"));
}

static void test_dropins(void **state)
{
        _cleanup_(config_freep) Config *c = NULL;
        _cleanup_free_ char *error = NULL, *link = NULL, *dir = NULL;
        char *root = make_tree();

        (void)state;
        write_file(root, SYSCONF "/umsrestore.conf",
                   "[General]\nLogLevel=debug\nConsoleSwitch=no\nSaveDeadlineSec=3\n"
                   "[Device 00:02.0]\nManage=no\nMethods=vga\n");
        /* masked by /run's file of the same name: VBEPost=yes must not apply */
        write_file(root, DROPIN_LIB "10-vendor.conf", "[General]\nVBEPost=yes\nSaveDeadlineSec=5\n");
        write_file(root, DROPIN_RUN "10-vendor.conf", "[General]\nSaveDeadlineSec=7\n");
        write_file(
                root, DROPIN_ETC "20-admin.conf",
                "[General]\nSaveDeadlineSec=9\nLogLevel=err\n[Device 0000:00:02.0]\nMethods=pci-config\n");
        /* applied last by name, although its directory comes last */
        write_file(root, DROPIN_LIB "30-late.conf", "[General]\nLogLevel=warning\n");
        /* masked by a /dev/null symlink in /etc: its bad key must not be read */
        write_file(root, DROPIN_LIB "40-masked.conf", "[General]\nBogus=1\n");
        assert_true(asprintf(&link, "%s" DROPIN_ETC "40-masked.conf", root) > 0);
        assert_int_equal(symlink("/dev/null", link), 0);
        /* not drop-ins */
        write_file(root, DROPIN_ETC "README", "garbage\n");
        write_file(root, DROPIN_ETC ".hidden.conf", "garbage\n");
        write_file(root, DROPIN_RUN "umsrestore.conf.orig", "garbage\n");
        assert_true(asprintf(&dir, "%s" DROPIN_RUN "50-dir.conf", root) > 0);
        mkdir_p(dir);

        if (config_load(root, NULL, &c, &error) < 0)
                fail_msg("unexpected error: %s", error ? error : "(none)");
        assert_null(error);
        assert_false(c->console_switch); /* main file, never overridden */
        assert_false(c->vbe_post);       /* /usr/lib/10-vendor.conf masked */
        assert_int_equal(c->save_deadline_usec, 9000000);
        assert_int_equal(c->log_level, LOG_WARNING);
        assert_int_equal(c->n_devices, 1); /* 00:02.0 and 0000:00:02.0 are one device */
        assert_int_equal(c->devices[0].manage, 0);
        assert_int_equal(c->devices[0].n_methods, 1);
        assert_string_equal(c->devices[0].methods[0], "pci-config");
        config_free(TAKE_PTR(c));

        /* An error in a drop-in names that file and line; nothing is returned. */
        {
                _cleanup_free_ char *expected = NULL;
                Config *untouched = (Config *)(uintptr_t)0x1;

                write_file(root, DROPIN_RUN "60-bad.conf", "[General]\n\nLogLevel=loud\n");
                assert_int_equal(config_load(root, NULL, &untouched, &error), -EINVAL);
                assert_ptr_equal(untouched, (Config *)(uintptr_t)0x1);
                assert_true(asprintf(&expected,
                                     "%s" DROPIN_RUN
                                     "60-bad.conf:3: invalid log level 'loud' for LogLevel= (use "
                                     "debug, info, notice, warning or err)",
                                     root) > 0);
                assert_string_equal(error, expected);
                free(TAKE_PTR(error));
        }
        remove_tree(root);
}

static void test_main_file_optional(void **state)
{
        _cleanup_(config_freep) Config *c = NULL;
        _cleanup_free_ char *error = NULL;
        char *root = make_tree();

        (void)state;
        assert_int_equal(config_load(root, NULL, &c, &error), 0);
        assert_defaults(c);
        config_free(TAKE_PTR(c));

        /* drop-ins apply without a main file */
        write_file(root, DROPIN_LIB "10-x.conf", "[General]\nVBEPost=yes\n");
        assert_int_equal(config_load(root, NULL, &c, &error), 0);
        assert_true(c->vbe_post);
        remove_tree(root);
}

static void test_explicit(void **state)
{
        _cleanup_(config_freep) Config *c = NULL;
        _cleanup_free_ char *error = NULL, *missing = NULL, *expected = NULL;
        char *root = make_tree();
        Config *untouched = NULL;
        const char *path;

        (void)state;
        assert_true(asprintf(&missing, "%s/nope.conf", root) > 0);
        assert_int_equal(config_load(root, missing, &untouched, &error), -ENOENT);
        assert_null(untouched);
        assert_true(asprintf(&expected, "%s: cannot read: %s", missing, strerror(ENOENT)) > 0);
        assert_string_equal(error, expected);
        free(TAKE_PTR(error));

        /* Only the explicit file: neither the main file nor drop-ins are read. */
        write_file(root, SYSCONF "/umsrestore.conf", "[General]\nVBEPost=yes\n");
        write_file(root, DROPIN_ETC "10-x.conf", "[General]\nSaveDeadlineSec=5\n");
        path = write_file(root, "/mine.conf", "[General]\nLogLevel=notice\n");
        assert_int_equal(config_load(root, path, &c, &error), 0);
        assert_int_equal(c->log_level, LOG_NOTICE);
        assert_false(c->vbe_post);
        assert_int_equal(c->save_deadline_usec, 0);

        /* A directory or a binary file is refused with its name. */
        assert_int_equal(config_load(root, root, &untouched, &error), -EISDIR);
        assert_null(untouched);
        assert_non_null(strstr(error, ": cannot read: "));
        free(TAKE_PTR(error));
        {
                _cleanup_free_ char *bin = NULL;
                FILE *f;

                assert_true(asprintf(&bin, "%s/bin.conf", root) > 0);
                f = fopen(bin, "we");
                assert_non_null(f);
                assert_int_equal(fwrite("[General]\n\0x", 1, 12, f), 12);
                assert_int_equal(fclose(f), 0);
                assert_true(config_load(root, bin, &untouched, &error) < 0);
                assert_null(untouched);
                free(TAKE_PTR(expected));
                assert_true(asprintf(&expected, "%s: not a text file (it contains a NUL byte)", bin) > 0);
                assert_string_equal(error, expected);
        }
        remove_tree(root);
}

static void test_matching(void **state)
{
        _cleanup_(config_freep) Config *c = NULL, *g = NULL;
        const char *m[CONFIG_METHODS_MAX];
        DisplayDevice a =
                make_device("0000:00:02.0", 0x8086, 0x27ae); /* slot section wins over ID section */
        DisplayDevice b = make_device("0000:00:05.0", 0x8086, 0x27ae); /* ID section */
        DisplayDevice x = make_device("0000:00:03.0", 0x1234, 0x5678); /* included by ID, excluded by slot */
        DisplayDevice d = make_device("0000:01:00.0", 0x1234, 0x5678); /* included by ID */
        DisplayDevice e =
                make_device("0000:00:04.0", 0x10de, 0x0001); /* section without Manage, not included */
        DisplayDevice f = make_device("0001:00:02.0", 0x10de, 0x0002); /* short slot means domain 0 */
        DisplayDevice h = make_device("0000:00:06.0", 0x1af4, 0x1050); /* Manage=yes by ID, not included */

        (void)state;
        c = parse_ok("[General]\n"
                     "Include=00:02.0 1234:5678\n"
                     "Exclude=0000:00:03.0\n"
                     "[Device 8086:27ae]\nManage=no\nMethods=vga\n"
                     "[Device 0000:00:02.0]\nManage=yes\nMethods=pci-config vga\n"
                     "[Device 00:04.0]\nMethods=pci-config\n"
                     "[Device 1af4:1050]\nManage=yes\n");
        assert_true(config_device_managed(c, &a));
        assert_false(config_device_managed(c, &b));
        assert_false(config_device_managed(c, &x));
        assert_true(config_device_managed(c, &d));
        assert_false(config_device_managed(c, &e));
        assert_false(config_device_managed(c, &f));
        assert_true(config_device_managed(c, &h));

        assert_int_equal(config_device_methods(c, &a, m, ELEMENTSOF(m)), 2);
        assert_string_equal(m[0], "pci-config");
        assert_string_equal(m[1], "vga");
        assert_int_equal(config_device_methods(c, &a, m, 1), 1); /* bounded by max */
        assert_string_equal(m[0], "pci-config");
        assert_int_equal(config_device_methods(c, &b, m, ELEMENTSOF(m)), 1);
        assert_string_equal(m[0], "vga");
        assert_int_equal(config_device_methods(c, &e, m, ELEMENTSOF(m)), 1);
        assert_string_equal(m[0], "pci-config");
        assert_int_equal(config_device_methods(c, &d, m, ELEMENTSOF(m)), 0); /* built-in defaults */

        /* Without Include= everything is managed but Exclude= and Manage=no; [General]
         * Methods= is the fallback; Exclude wins over Manage=yes. */
        g = parse_ok("[General]\nMethods=vga\nExclude=8086:27ae\n"
                     "[Device 00:02.0]\nManage=yes\n"
                     "[Device 01:00.0]\nManage=no\n");
        assert_false(config_device_managed(g, &a));
        assert_false(config_device_managed(g, &b));
        assert_false(config_device_managed(g, &d));
        assert_true(config_device_managed(g, &e));
        assert_true(config_device_managed(g, &f));
        assert_int_equal(config_device_methods(g, &e, m, ELEMENTSOF(m)), 1);
        assert_string_equal(m[0], "vga");
}

/* VBEPost= per device: the slot section, then the ID section, then [General]; a typo in
 * the value is an error with the line. */
static void test_vbe_post_per_device(void **state)
{
        _cleanup_(config_freep) Config *c = NULL, *g = NULL;
        DisplayDevice a = make_device("0000:00:02.0", 0x8086, 0x27ae); /* slot section: no */
        DisplayDevice b = make_device("0000:00:05.0", 0x8086, 0x27ae); /* ID section: yes */
        DisplayDevice e = make_device("0000:00:04.0", 0x10de, 0x0001); /* [General] */
        char *error = NULL;

        (void)state;
        c = parse_ok("[General]\nVBEPost=no\n"
                     "[Device 8086:27ae]\nVBEPost=yes\n"
                     "[Device 0000:00:02.0]\nVBEPost=no\n"
                     "[Device 00:04.0]\nVBEPost=\n");
        assert_false(config_device_vbe_post(c, &a));
        assert_true(config_device_vbe_post(c, &b));
        assert_false(config_device_vbe_post(c, &e));
        assert_int_equal(c->devices[2].vbe_post, -1);
        g = parse_ok("[General]\nVBEPost=yes\n[Device 00:02.0]\nManage=yes\n");
        assert_true(config_device_vbe_post(g, &a));
        assert_true(config_device_vbe_post(g, &e));
        config_free(TAKE_PTR(g));
        assert_int_equal(config_new(&g), 0);
        assert_int_equal(config_parse_string("[Device 00:02.0]\nVBEPost=sometimes\n", "t.conf", g, &error), -EINVAL);
        assert_non_null(error);
        assert_non_null(strstr(error, "t.conf:2"));
        free(error);
}

static void roundtrip(const char *text)
{
        _cleanup_(config_freep) Config *c = NULL, *again = NULL;
        Buffer first = { 0 }, second = { 0 };

        c = parse_ok(text);
        assert_int_equal(config_format(c, &first), 0);
        again = parse_ok(buffer_str(&first));
        assert_config_equal(c, again);
        assert_int_equal(config_format(again, &second), 0);
        assert_string_equal(buffer_str(&first), buffer_str(&second));
        buffer_done(&first);
        buffer_done(&second);
}

static void test_format(void **state)
{
        _cleanup_(config_freep) Config *c = NULL;
        Buffer out = { 0 };
        char text[512];

        (void)state;
        assert_int_equal(config_new(&c), 0);
        assert_int_equal(config_format(c, &out), 0);
        /* ConsoleSwitch= and VBEPost= not set stay empty: a quirk may set them (quirks.h). */
        assert_string_equal(buffer_str(&out), "[General]\n"
                                              "Methods=\n"
                                              "ConsoleSwitch=\n"
                                              "VBEPost=\n"
                                              "SaveDeadlineSec=0\n"
                                              "ManualDeadlineSec=20\n"
                                              "Include=\n"
                                              "Exclude=\n"
                                              "LogLevel=info\n");
        buffer_done(&out);
        config_free(TAKE_PTR(c));

        c = parse_ok(
                "[General]\nMethods=pci-config vga\nSaveDeadlineSec=0.125\nInclude=0000:00:02.0 "
                "0001:01:00.1 "
                "10DE:0a6c\nLogLevel=3\n[Device 00:02.0]\nMethods=vga\n[Device 8086:27AE]\nManage=off\n");
        assert_int_equal(config_format(c, &out), 0);
        assert_string_equal(buffer_str(&out), "[General]\n"
                                              "Methods=pci-config vga\n"
                                              "ConsoleSwitch=\n"
                                              "VBEPost=\n"
                                              "SaveDeadlineSec=0.125\n"
                                              "ManualDeadlineSec=20\n"
                                              "Include=00:02.0 0001:01:00.1 10de:0a6c\n"
                                              "Exclude=\n"
                                              "LogLevel=err\n"
                                              "\n"
                                              "[Device 0000:00:02.0]\n"
                                              "Manage=\n"
                                              "Methods=vga\n"
                                              "VBEPost=\n"
                                              "\n"
                                              "[Device 8086:27ae]\n"
                                              "Manage=no\n"
                                              "Methods=\n"
                                              "VBEPost=\n");
        buffer_done(&out);

        roundtrip("");
        roundtrip("[Device 00:02.0]\nVBEPost=yes\n[Device 8086:27ae]\nVBEPost=no\nManage=yes\n");
        roundtrip("[General]\nMethods=vga "
                  "pci-config\nConsoleSwitch=no\nVBEPost=yes\nSaveDeadlineSec=59.999999\n"
                  "Include=00:02.0 8086:27ae 0002:03:1f.7\nExclude=ffff:ffff\nLogLevel=debug\n"
                  "[Device 8086:27ae]\nManage=yes\nMethods=vga\n[Device 0000:01:00.0]\nManage=no\n"
                  "[Device 00:02.0]\nMethods=pci-config\n");
        /* The longest list line that parses still parses once printed. */
        snprintf(text, sizeof(text), "[General]\nInclude=");
        for (unsigned i = 0; strlen(text) + 8 < 10 + 198; i++)
                snprintf(text + strlen(text), sizeof(text) - strlen(text), "00:%02x.0 ", i);
        strcat(text, "\n");
        roundtrip(text);
}

static void test_shipped_file(void **state)
{
        _cleanup_(config_freep) Config *c = NULL, *defaults = NULL, *loaded = NULL;
        _cleanup_free_ char *path = NULL, *error = NULL;

        (void)state;
        assert_true(asprintf(&path, "%s/../../conf/umsrestore.conf", testdata_dir) > 0);
        assert_int_equal(config_new(&c), 0);
        assert_int_equal(config_new(&defaults), 0);
        if (config_load_file(path, c, &error) < 0)
                fail_msg("shipped file: %s", error ? error : "(none)");
        assert_config_equal(c, defaults);
        assert_int_equal(config_load(NULL, path, &loaded, &error), 0);
        assert_config_equal(loaded, defaults);
}

static void test_inline_comments(void **state)
{
        _cleanup_(config_freep) Config *c = NULL;

        (void)state;
        /* ';' and '#' after a value are errors, never comments: both the same way */
        expect_error("[General]\nMethods=vga ; pci-config\n",
                     "t.conf:2: unexpected ';' in the value of Methods= (comments go on their own line)");
        expect_error("[General]\nMethods=vga # pci-config\n",
                     "t.conf:2: unexpected '#' in the value of Methods= (comments go on their own line)");
        expect_error("[General]\nLogLevel=debug;\n",
                     "t.conf:2: unexpected ';' in the value of LogLevel= (comments go on their own line)");
        expect_error("[Device 00:02.0]\n\nManage=no #x\n",
                     "t.conf:3: unexpected '#' in the value of Manage= (comments go on their own line)");
        expect_error("[General]\nInclude=;\n",
                     "t.conf:2: unexpected ';' in the value of Include= (comments go on their own line)");
        /* and after a section header */
        expect_error("[General] ; settings\n",
                     "t.conf:1: unexpected text after [General]: '; settings' (comments go on their own line)");
        expect_error("[Device 00:02.0] # the laptop panel\n",
                     "t.conf:1: unexpected text after [Device 00:02.0]: '# the laptop panel' (comments go on "
                     "their own line)");
        /* comments on their own line, indented or not, stay comments */
        c = parse_ok("; one\n# two\n[General]\n  ; three\n\t# four\nMethods=vga pci-config\n");
        assert_int_equal(c->n_methods, 2);
}

static void test_fifo(void **state)
{
        _cleanup_free_ char *error = NULL;
        char *root = make_tree();

        (void)state;
        /* A FIFO as the main file: refused at once, not read (a reader would wait forever). */
        write_file(root, DROPIN_ETC "10-ok.conf", "[General]\n");
        make_fifo(root, SYSCONF "/umsrestore.conf");
        expect_load_error(root, SYSCONF "/umsrestore.conf", ": cannot read: not a regular file (a FIFO)");
        {
                _cleanup_free_ char *path = NULL, *expected = NULL;

                /* and as the file given with --config */
                assert_true(asprintf(&path, "%s" SYSCONF "/umsrestore.conf", root) > 0);
                assert_int_equal(load_bounded(root, path, &error), -EBADFD);
                assert_true(asprintf(&expected, "%s: cannot read: not a regular file (a FIFO)", path) > 0);
                assert_string_equal(error, expected);
                free(TAKE_PTR(error));
                assert_int_equal(unlink(path), 0);
        }
        /* A FIFO as a drop-in, in any of the three directories. */
        make_fifo(root, DROPIN_ETC "20-fifo.conf");
        expect_load_error(root, DROPIN_ETC "20-fifo.conf", ": cannot read: not a regular file (a FIFO)");
        remove_tree(root);

        root = make_tree();
        write_file(root, DROPIN_LIB "10-ok.conf", "[General]\n");
        make_fifo(root, DROPIN_LIB "20-fifo.conf");
        expect_load_error(root, DROPIN_LIB "20-fifo.conf", ": cannot read: not a regular file (a FIFO)");
        /* masked by /dev/null in /etc, it is not opened at all */
        {
                _cleanup_free_ char *link = NULL;

                write_file(root, DROPIN_ETC "05-x.conf", "[General]\n");
                assert_true(asprintf(&link, "%s" DROPIN_ETC "20-fifo.conf", root) > 0);
                assert_int_equal(symlink("/dev/null", link), 0);
                assert_int_equal(load_bounded(root, NULL, &error), 0);
                assert_string_equal(error, "");
        }
        remove_tree(root);
}

/* Files the daemon (root without CAP_DAC_OVERRIDE / CAP_DAC_READ_SEARCH) could not read are
 * refused whoever loads them: --check-config run as root must fail where the daemon would. */
static void test_daemon_readable(void **state)
{
        _cleanup_(config_freep) Config *c = NULL;
        _cleanup_free_ char *error = NULL, *expected = NULL, *dir = NULL;
        char *root;

        (void)state;
        if (geteuid() != 0)
                skip(); /* needs chown; CI runs as root */
        root = make_tree();

        /* root-owned, mode 0000 */
        write_file(root, DROPIN_ETC "10-zero.conf", "[General]\n");
        set_owner_mode(root, DROPIN_ETC "10-zero.conf", 0, 0, 0000);
        expect_unreadable(root, DROPIN_ETC "10-zero.conf", false, "uid 0 gid 0, mode 0000");
        assert_int_equal(unlink(write_file(root, DROPIN_ETC "10-zero.conf", "")), 0);

        /* owned by uid 1000, mode 0600 */
        write_file(root, DROPIN_RUN "20-user.conf", "[General]\n");
        set_owner_mode(root, DROPIN_RUN "20-user.conf", 1000, 1000, 0600);
        expect_unreadable(root, DROPIN_RUN "20-user.conf", false, "uid 1000 gid 1000, mode 0600");

        /* The owner's bits apply when the owner matches, then the group's, then the others':
         * other bits that would allow do not help a root-owned file without u+r. */
        set_owner_mode(root, DROPIN_RUN "20-user.conf", 0, 0, 0044);
        assert_int_equal(load_bounded(root, NULL, &error), -EACCES);
        free(TAKE_PTR(error));
        set_owner_mode(root, DROPIN_RUN "20-user.conf", 1000, 0, 0040); /* group root may read */
        assert_int_equal(load_bounded(root, NULL, &error), 0);
        free(TAKE_PTR(error));
        set_owner_mode(root, DROPIN_RUN "20-user.conf", 1000, 1000, 0604); /* others may read */
        assert_int_equal(load_bounded(root, NULL, &error), 0);
        free(TAKE_PTR(error));
        set_owner_mode(root, DROPIN_RUN "20-user.conf", 1000, 0, 0604); /* group bits apply: none */
        assert_int_equal(load_bounded(root, NULL, &error), -EACCES);
        free(TAKE_PTR(error));
        set_owner_mode(root, DROPIN_RUN "20-user.conf", 0, 0, 0400);
        assert_int_equal(load_bounded(root, NULL, &error), 0);
        free(TAKE_PTR(error));

        /* a drop-in directory the daemon cannot list */
        assert_true(asprintf(&dir, "%s" DROPIN_LIB, root) > 0);
        mkdir_p(dir);
        set_owner_mode(root, DROPIN_LIB, 1000, 1000, 0700);
        expect_unreadable(root, "/usr/lib/umsrestore.conf.d", true, "uid 1000 gid 1000, mode 0700");
        set_owner_mode(root, DROPIN_LIB, 0, 0, 0755);

        /* the main file, and the file given with --config */
        write_file(root, SYSCONF "/umsrestore.conf", "[General]\n");
        set_owner_mode(root, SYSCONF "/umsrestore.conf", 1000, 1000, 0640);
        assert_int_equal(load_bounded(root, NULL, &error), -EACCES);
        assert_non_null(strstr(error, "/umsrestore.conf: the daemon cannot read this file (owner uid 1000 "
                                      "gid 1000, mode 0640;"));
        free(TAKE_PTR(error));
        assert_true(asprintf(&expected, "%s" SYSCONF "/umsrestore.conf", root) > 0);
        assert_int_equal(load_bounded(root, expected, &error), -EACCES);
        free(TAKE_PTR(error));
        set_owner_mode(root, SYSCONF "/umsrestore.conf", 0, 0, 0600);
        assert_int_equal(config_load(root, NULL, &c, &error), 0);
        assert_null(error);
        remove_tree(root);
}

int main(int argc, char **argv)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_defaults), cmocka_unit_test(test_every_key),
                cmocka_unit_test(test_values),   cmocka_unit_test(test_empty_value_resets),
                cmocka_unit_test(test_errors),   cmocka_unit_test(test_syntax_errors),
                cmocka_unit_test(test_dropins),  cmocka_unit_test(test_main_file_optional),
                cmocka_unit_test(test_explicit), cmocka_unit_test(test_matching),
                cmocka_unit_test(test_format),   cmocka_unit_test(test_shipped_file),
                cmocka_unit_test(test_inline_comments), cmocka_unit_test(test_fifo),
                cmocka_unit_test(test_daemon_readable), cmocka_unit_test(test_vbe_post_per_device),
        };

        if (argc < 2) {
                fprintf(stderr, "usage: %s TESTDATA_DIR\n", argv[0]);
                return 2;
        }
        testdata_dir = argv[1];
        umask(022); /* the files the tests write are readable as the daemon reads them */
        return cmocka_run_group_tests(tests, NULL, NULL);
}
