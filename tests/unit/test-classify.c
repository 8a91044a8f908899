/* SPDX-License-Identifier: MIT */
/* Discovery + classification on the fake machines of tests/data/machines: every device
 * gets exactly the verdict and reason its machine's "expected" file names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "classify.h"
#include "devices.h"

static const char *data_dir;

static char *machine_root(const char *name)
{
        char *p = NULL;
        assert_true(asprintf(&p, "%s/machines/%s", data_dir, name) > 0);
        return p;
}

static ClassifyEnv env_for(const char *root, uid_t euid)
{
        return (ClassifyEnv){ .root = root, .euid = euid, .check_modesetting = NULL, .legacy_io = 1 };
}

/* Discovers and classifies a machine, then compares every device with "expected". */
static void check_machine(const char *name, size_t expected_devices)
{
        _cleanup_free_ char *root = machine_root(name), *expected_path = NULL;
        _cleanup_(device_list_freep) DeviceList *l = NULL;
        ClassifyEnv env = env_for(root, 0);
        char line[1024];
        size_t n_lines = 0;
        FILE *f;

        assert_int_equal(devices_discover(root, pci_source_sysfs, &l), (int)expected_devices);
        classify_devices(&env, l);

        assert_true(asprintf(&expected_path, "%s/expected", root) > 0);
        f = fopen(expected_path, "re");
        assert_non_null(f);
        while (fgets(line, sizeof(line), f)) {
                char *slot = line, *verdict, *reason, *nl;
                DisplayDevice *d;

                nl = strchr(line, '\n');
                if (nl)
                        *nl = '\0';
                verdict = strchr(slot, '|');
                assert_non_null(verdict);
                *verdict++ = '\0';
                reason = strchr(verdict, '|');
                assert_non_null(reason);
                *reason++ = '\0';

                d = device_list_find(l, slot);
                if (!d)
                        fail_msg("%s: device %s not discovered", name, slot);
                if (!streq(verdict_to_string(d->verdict), verdict) || !streq(d->reason, reason))
                        fail_msg("%s %s:\n  got      %s | %s\n  expected %s | %s", name, slot,
                                 verdict_to_string(d->verdict), d->reason, verdict, reason);
                n_lines++;
        }
        fclose(f);
        assert_int_equal(n_lines, expected_devices);
}

static void test_stdvga_bochs_kms(void **s)
{
        (void)s;
        check_machine("stdvga-bochs-kms", 1);
}
static void test_cirrus_nodriver(void **s)
{
        (void)s;
        check_machine("cirrus-nodriver", 1);
}
static void test_i945_ums(void **s)
{
        (void)s;
        check_machine("i945-ums", 1);
}
static void test_msi_wind_u100(void **s)
{
        (void)s;
        check_machine("msi-wind-u100", 2);
}
static void test_i945_kms_second_function(void **s)
{
        (void)s;
        check_machine("i945-kms-second-function", 2);
}
static void test_nomodeset_simpledrm(void **s)
{
        (void)s;
        check_machine("nomodeset-simpledrm", 1);
}
static void test_efifb(void **s)
{
        (void)s;
        check_machine("efifb", 1);
}
static void test_vesafb(void **s)
{
        (void)s;
        check_machine("vesafb", 1);
}
static void test_two_gpus(void **s)
{
        (void)s;
        check_machine("two-gpus", 2);
}
static void test_two_gpus_none_kms(void **s)
{
        (void)s;
        check_machine("two-gpus-none-kms", 2);
}
static void test_vfio(void **s)
{
        (void)s;
        check_machine("vfio", 1);
}
static void test_nvidia(void **s)
{
        (void)s;
        check_machine("nvidia", 1);
}
/* The Radeon and NVIDIA paths: no driver is managed, KMS (radeon, nouveau) is a hand-off. */
static void test_radeon_and_nvidia_paths(void **s)
{
        (void)s;
        check_machine("radeon-m6-vgacon", 1);
        check_machine("radeon-m6-kms", 1);
        check_machine("nvidia-nodriver", 1);
        check_machine("nvidia-nouveau-kms", 1);
}

static void test_lockdown(void **s)
{
        (void)s;
        check_machine("lockdown", 1);
}
static void test_no_gpu(void **s)
{
        (void)s;
        check_machine("no-gpu", 0);
}
static void test_unknown_driver(void **s)
{
        (void)s;
        check_machine("unknown-driver", 1);
}

static void test_identity_and_arbiter(void **s)
{
        _cleanup_free_ char *root = machine_root("two-gpus");
        _cleanup_(device_list_freep) DeviceList *l = NULL;
        ClassifyEnv env = env_for(root, 0);
        (void)s;

        assert_int_equal(devices_discover(root, pci_source_sysfs, &l), 2);
        classify_devices(&env, l);
        /* sorted by slot */
        assert_string_equal(l->devices[0].slot, "0000:00:02.0");
        assert_string_equal(l->devices[1].slot, "0000:01:00.0");
        assert_int_equal(l->devices[0].vendor_id, 0x8086);
        assert_int_equal(l->devices[0].device_id, 0x0046);
        assert_int_equal(l->devices[0].subvendor_id, 0x1af4);
        assert_int_equal(l->devices[0].subdevice_id, 0x1100);
        assert_int_equal(l->devices[0].revision, 0x02);
        assert_int_equal(l->devices[0].class_code, 0x030000);
        assert_true(l->devices[0].boot_vga);
        assert_false(l->devices[1].boot_vga);
        assert_string_equal(l->devices[0].driver, "i915");
        assert_string_equal(l->devices[1].driver, "");
        assert_int_equal(l->devices[0].n_drm_cards, 1);
        assert_string_equal(l->devices[0].drm_cards[0], "card0");
        assert_int_equal(l->devices[0].n_connectors, 2);
        assert_true(l->devices[0].needs_vga_arbiter);
        assert_true(l->devices[1].needs_vga_arbiter);
        assert_non_null(device_list_find(l, "01:00.0"));
        assert_null(device_list_find(l, "0000:03:00.0"));
}

static void test_not_root(void **s)
{
        _cleanup_free_ char *root = machine_root("cirrus-nodriver");
        _cleanup_(device_list_freep) DeviceList *l = NULL;
        ClassifyEnv env = env_for(root, 1000);
        (void)s;

        assert_int_equal(devices_discover(root, pci_source_sysfs, &l), 1);
        classify_devices(&env, l);
        assert_int_equal(l->devices[0].verdict, VERDICT_UNUSABLE);
        assert_string_equal(l->devices[0].reason,
                            "no kernel driver, but not running as root (save and restore need root)");
        assert_false(l->devices[0].needs_vga_arbiter);
}

static void test_not_root_does_not_hide_kms(void **s)
{
        _cleanup_free_ char *root = machine_root("stdvga-bochs-kms");
        _cleanup_(device_list_freep) DeviceList *l = NULL;
        ClassifyEnv env = env_for(root, 1000);
        (void)s;

        assert_int_equal(devices_discover(root, pci_source_sysfs, &l), 1);
        classify_devices(&env, l);
        assert_int_equal(l->devices[0].verdict, VERDICT_KMS);
}

static void test_no_legacy_io(void **s)
{
        _cleanup_free_ char *root = machine_root("cirrus-nodriver");
        _cleanup_(device_list_freep) DeviceList *l = NULL;
        ClassifyEnv env = env_for(root, 0);
        (void)s;

        env.legacy_io = 0;
        assert_int_equal(devices_discover(root, pci_source_sysfs, &l), 1);
        classify_devices(&env, l);
        assert_int_equal(l->devices[0].verdict, VERDICT_UNUSABLE);
        assert_string_equal(l->devices[0].reason,
                            "no kernel driver, but this architecture offers no legacy VGA I/O");
}

static int fake_modesetting_yes(const char *busid)
{
        return strstr(busid, "0000:00:02.0") ? 0 : -ENOSYS;
}

/* A card without connectors is UMS, unless libdrm says the driver does modesetting. */
static void test_libdrm_check(void **s)
{
        _cleanup_free_ char *root = machine_root("i945-ums");
        _cleanup_(device_list_freep) DeviceList *l = NULL;
        ClassifyEnv env = env_for(root, 0);
        (void)s;

        env.check_modesetting = fake_modesetting_yes;
        assert_int_equal(devices_discover(root, pci_source_sysfs, &l), 1);
        classify_devices(&env, l);
        /* modeset=0 on the command line overrides a stale libdrm answer */
        assert_int_equal(l->devices[0].verdict, VERDICT_UMS);
}

static void test_parse_slot(void **s)
{
        uint16_t dom;
        uint8_t bus, dev, fn;
        char buf[SLOT_MAX];
        (void)s;

        assert_int_equal(pci_parse_slot("0000:00:02.0", &dom, &bus, &dev, &fn), 0);
        assert_int_equal(bus, 0);
        assert_int_equal(dev, 2);
        assert_int_equal(pci_parse_slot("0001:0a:1f.7", &dom, &bus, &dev, &fn), 0);
        assert_int_equal(dom, 1);
        assert_int_equal(bus, 0x0a);
        assert_int_equal(dev, 0x1f);
        assert_int_equal(fn, 7);
        assert_int_equal(pci_parse_slot("01:00.0", &dom, &bus, &dev, &fn), 0);
        assert_int_equal(dom, 0);
        assert_int_equal(pci_parse_slot("00:20.0", &dom, &bus, &dev, &fn), -EINVAL);
        assert_int_equal(pci_parse_slot("00:02.8", &dom, &bus, &dev, &fn), -EINVAL);
        assert_int_equal(pci_parse_slot("00:02.0x", &dom, &bus, &dev, &fn), -EINVAL);
        assert_int_equal(pci_parse_slot("garbage", &dom, &bus, &dev, &fn), -EINVAL);
        assert_int_equal(pci_parse_slot("", &dom, &bus, &dev, &fn), -EINVAL);
        /* upper-case hex is accepted (lspci and sysfs print lower case; both mean the same) */
        assert_int_equal(pci_parse_slot("000A:0B:1F.7", &dom, &bus, &dev, &fn), 0);
        assert_int_equal(dom, 0xa);
        assert_int_equal(bus, 0xb);
        assert_int_equal(dev, 0x1f);
        assert_int_equal(fn, 7);
        /* fixed widths only: no short fields, no padding, no signs or 0x prefixes */
        static const char *const refused[] = {
                "0:0:2.0",       "0:00:02.0",     "000:00:02.0",   "00000:00:02.0", "0000:0:02.0",
                "0000:00:2.0",   "00:2.0",        "0:02.0",        "000:02.0",      "00:002.0",
                "00:02.00",      "00:02.",        " 00:02.0",      "00:02.0 ",      "0000:00:02.0 ",
                "00:02.0\n",     "\t00:02.0",     "+0:02.0",       "-0:02.0",       "0x:02.0",
                "00:+2.0",       "00:02.+0",      "00:02.-0",      "0000:00:02.0x", "0000-00:02.0",
                "0000:00-02.0",  "0000:00:02:0",  "00.02.0",       "g0:02.0",       "0000:00:02",
                "00:02",         "8086:27ae",
        };
        for (size_t i = 0; i < ELEMENTSOF(refused); i++)
                if (pci_parse_slot(refused[i], &dom, &bus, &dev, &fn) != -EINVAL)
                        fail_msg("pci_parse_slot() accepted '%s'", refused[i]);
        assert_int_equal(pci_parse_slot(NULL, &dom, &bus, &dev, &fn), -EINVAL);
        pci_format_slot(buf, 0, 0, 2, 0);
        assert_string_equal(buf, "0000:00:02.0");
}

static void test_missing_root(void **s)
{
        _cleanup_(device_list_freep) DeviceList *l = NULL;
        (void)s;
        assert_int_equal(devices_discover("/nonexistent-umsrestore-root", pci_source_sysfs, &l), 0);
        assert_int_equal(l->n, 0);
}

int main(int argc, char *argv[])
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_stdvga_bochs_kms),
                cmocka_unit_test(test_cirrus_nodriver),
                cmocka_unit_test(test_i945_ums),
                cmocka_unit_test(test_msi_wind_u100),
                cmocka_unit_test(test_i945_kms_second_function),
                cmocka_unit_test(test_nomodeset_simpledrm),
                cmocka_unit_test(test_efifb),
                cmocka_unit_test(test_vesafb),
                cmocka_unit_test(test_two_gpus),
                cmocka_unit_test(test_two_gpus_none_kms),
                cmocka_unit_test(test_vfio),
                cmocka_unit_test(test_nvidia),
                cmocka_unit_test(test_radeon_and_nvidia_paths),
                cmocka_unit_test(test_lockdown),
                cmocka_unit_test(test_no_gpu),
                cmocka_unit_test(test_unknown_driver),
                cmocka_unit_test(test_identity_and_arbiter),
                cmocka_unit_test(test_not_root),
                cmocka_unit_test(test_not_root_does_not_hide_kms),
                cmocka_unit_test(test_no_legacy_io),
                cmocka_unit_test(test_libdrm_check),
                cmocka_unit_test(test_parse_slot),
                cmocka_unit_test(test_missing_root),
        };
        if (argc != 2) {
                fprintf(stderr, "usage: %s TESTDATA-DIR\n", argv[0]);
                return 2;
        }
        data_dir = argv[1];
        return cmocka_run_group_tests(tests, NULL, NULL);
}
