/* SPDX-License-Identifier: MIT */
/* Unit tests for the libpciaccess backend that need no display device: refusal of
 * unmanaged devices before libpciaccess is touched, clean -ENODEV, shared init/cleanup,
 * read-only config access and range checks on whatever PCI device this machine has, one
 * initialisation per pass, and the copies to and from device memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <pciaccess.h>

#include "hw/hw.h"
#include "sysfs.h"

/* The test executable defines these libpciaccess entry points, so the backend's calls
 * land here first: we count them, then forward to the real library. */
static unsigned n_system_init, n_system_cleanup, n_find_by_slot;

/* ISO C has no cast from void * to a function pointer; copy the bits (POSIX guarantees it). */
#define REAL(fn, name)                                                                                       \
        do {                                                                                                 \
                void *_sym_ = dlsym(RTLD_NEXT, (name));                                                      \
                assert_non_null(_sym_);                                                                      \
                memcpy(&(fn), &_sym_, sizeof(fn));                                                           \
        } while (0)

int pci_system_init(void)
{
        int (*real)(void);
        REAL(real, "pci_system_init");
        n_system_init++;
        return real();
}

void pci_system_cleanup(void)
{
        void (*real)(void);
        REAL(real, "pci_system_cleanup");
        n_system_cleanup++;
        real();
}

struct pci_device *pci_device_find_by_slot(uint32_t domain, uint32_t bus, uint32_t dev, uint32_t func)
{
        struct pci_device *(*real)(uint32_t, uint32_t, uint32_t, uint32_t);
        REAL(real, "pci_device_find_by_slot");
        n_find_by_slot++;
        return real(domain, bus, dev, func);
}

static void reset_counts(void)
{
        n_system_init = n_system_cleanup = n_find_by_slot = 0;
}

static DisplayDevice make_device(Verdict v, uint16_t domain, uint8_t bus, uint8_t dev, uint8_t func)
{
        DisplayDevice d = { 0 };

        snprintf(d.slot, sizeof(d.slot), "%04x:%02x:%02x.%x", domain, bus, dev, func);
        d.domain = domain;
        d.bus = bus;
        d.dev = dev;
        d.func = func;
        d.vendor_id = 0x8086;
        d.device_id = 0x27ae;
        d.class_code = 0x030000;
        d.verdict = v;
        return d;
}

static void test_refuses_unmanaged(void **state)
{
        static const Verdict refused[] = {
                VERDICT_UNKNOWN, VERDICT_KMS, VERDICT_FOREIGN, VERDICT_UNUSABLE,
        };
        Hw *sentinel = (Hw *)&sentinel, *hw;
        (void)state;

        for (size_t i = 0; i < ELEMENTSOF(refused); i++) {
                /* A slot that exists on most machines: refusal must not depend on absence. */
                DisplayDevice d = make_device(refused[i], 0, 0, 0, 0);

                reset_counts();
                hw = sentinel;
                assert_int_equal(hw_open_pciaccess(&d, &hw), -EPERM);
                assert_ptr_equal(hw, sentinel);
                assert_int_equal(n_system_init, 0);
                assert_int_equal(n_find_by_slot, 0);
                assert_int_equal(n_system_cleanup, 0);
        }

        DisplayDevice d = make_device(VERDICT_FIRMWARE, 0, 0, 0, 0);
        reset_counts();
        assert_int_equal(hw_open_pciaccess(NULL, &hw), -EINVAL);
        assert_int_equal(hw_open_pciaccess(&d, NULL), -EINVAL);
        assert_int_equal(n_system_init, 0);
}

static void test_missing_slot(void **state)
{
        static const Verdict managed[] = { VERDICT_UMS, VERDICT_FIRMWARE };
        Hw *sentinel = (Hw *)&sentinel, *hw;
        (void)state;

        for (size_t i = 0; i < ELEMENTSOF(managed); i++) {
                /* Domain 0x7ffe bus 0xfe 1f.7: no machine has it. */
                DisplayDevice d = make_device(managed[i], 0x7ffe, 0xfe, 0x1f, 7);

                reset_counts();
                hw = sentinel;
                assert_int_equal(hw_open_pciaccess(&d, &hw), -ENODEV);
                assert_ptr_equal(hw, sentinel);
                /* libpciaccess was set up and torn down again, once each. */
                assert_int_equal(n_system_init, 1);
                assert_int_equal(n_system_cleanup, 1);
        }
}

/* A real PCI function of this machine, to exercise the paths that only read. */
typedef struct RealDevice {
        char slot[64];
        uint16_t domain;
        uint8_t bus, dev, func;
        uint16_t vendor, device;
        /* From the sysfs "resource" file: 0 none, 1 I/O, 2 memory; and the size. */
        int bar_kind[6];
        uint64_t bar_size[6];
} RealDevice;

static bool load_real_device(const char *slot, RealDevice *ret)
{
        char path[256], line[256];
        unsigned domain, bus, dev, func;
        uint32_t v;
        FILE *f;
        RealDevice rd = { 0 };

        if (sscanf(slot, "%x:%x:%x.%x", &domain, &bus, &dev, &func) != 4)
                return false;
        snprintf(rd.slot, sizeof(rd.slot), "%.32s", slot);
        rd.domain = (uint16_t)domain;
        rd.bus = (uint8_t)bus;
        rd.dev = (uint8_t)dev;
        rd.func = (uint8_t)func;

        snprintf(path, sizeof(path), "/sys/bus/pci/devices/%.32s/vendor", slot);
        if (sysfs_read_u32(NULL, path, &v) < 0)
                return false;
        rd.vendor = (uint16_t)v;
        snprintf(path, sizeof(path), "/sys/bus/pci/devices/%.32s/device", slot);
        if (sysfs_read_u32(NULL, path, &v) < 0)
                return false;
        rd.device = (uint16_t)v;

        snprintf(path, sizeof(path), "/sys/bus/pci/devices/%.32s/resource", slot);
        f = fopen(path, "re");
        if (!f)
                return false;
        for (int i = 0; i < 6 && fgets(line, sizeof(line), f); i++) {
                unsigned long long start, end, flags;
                if (sscanf(line, "%llx %llx %llx", &start, &end, &flags) != 3)
                        break;
                if (start == 0)
                        continue;
                rd.bar_kind[i] = (flags & 1) ? 1 : 2;
                rd.bar_size[i] = end - start + 1;
        }
        fclose(f);
        *ret = rd;
        return true;
}

/* Picks the first function with a memory BAR, else the first function at all. */
static bool pick_real_device(RealDevice *ret)
{
        struct dirent **names = NULL;
        bool found = false;
        int n;

        n = scandir("/sys/bus/pci/devices", &names, NULL, alphasort);
        if (n < 0)
                return false;
        for (int pass = 0; pass < 2 && !found; pass++)
                for (int i = 0; i < n && !found; i++) {
                        RealDevice rd;
                        if (names[i]->d_name[0] == '.' || !load_real_device(names[i]->d_name, &rd))
                                continue;
                        for (int b = 0; b < 6; b++)
                                if (pass == 1 || rd.bar_kind[b] == 2)
                                        found = true;
                        if (found)
                                *ret = rd;
                }
        for (int i = 0; i < n; i++)
                free(names[i]);
        free(names);
        return found;
}

/* The first real PCI function as a managed device, or the test is skipped. */
static DisplayDevice real_device_or_skip(RealDevice *rd, const char *what)
{
        DisplayDevice d;

        if (!pick_real_device(rd)) {
                print_message("no PCI function in /sys/bus/pci/devices: %s not run\n", what);
                skip();
        }
        d = make_device(VERDICT_FIRMWARE, rd->domain, rd->bus, rd->dev, rd->func);
        d.vendor_id = rd->vendor;
        d.device_id = rd->device;
        return d;
}

static void test_real_device_read_only(void **state)
{
        RealDevice rd;
        DisplayDevice d;
        Hw *a = NULL, *b = NULL, *sentinel = (Hw *)&sentinel, *hw;
        uint8_t cfg[64], want[64];
        char path[256];
        uint32_t v;
        int fd;
        (void)state;

        d = real_device_or_skip(&rd, "real-device checks");

        /* Two handles share one libpciaccess initialisation. */
        reset_counts();
        assert_int_equal(hw_open_pciaccess(&d, &a), 0);
        assert_int_equal(hw_open_pciaccess(&d, &b), 0);
        assert_non_null(a);
        assert_non_null(b);
        assert_int_equal(n_system_init, 1);
        assert_string_equal(a->ops->name, "pciaccess");
        assert_string_equal(a->device->slot, d.slot);
        assert_ptr_not_equal(a->device, &d); /* the handle keeps its own copy */

        /* A device at that slot with other IDs is not ours: -ENODEV, no extra init. */
        DisplayDevice other = d;
        other.device_id ^= 0xffff;
        hw = sentinel;
        assert_int_equal(hw_open_pciaccess(&other, &hw), -ENODEV);
        assert_ptr_equal(hw, sentinel);
        assert_int_equal(n_system_init, 1);
        assert_int_equal(n_system_cleanup, 0);

        /* Config space reads match the kernel's view (first 64 bytes: readable without root). */
        snprintf(path, sizeof(path), "/sys/bus/pci/devices/%.32s/config", rd.slot);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        assert_int_equal(read(fd, want, sizeof(want)), (ssize_t)sizeof(want));
        close(fd);
        memset(cfg, 0xa5, sizeof(cfg));
        assert_int_equal(hw_cfg_read(a, 0, cfg, sizeof(cfg)), 0);
        assert_memory_equal(cfg, want, sizeof(cfg));
        assert_int_equal(hw_cfg_read(a, 0x0e, cfg, 1), 0);
        assert_int_equal(cfg[0], want[0x0e]);

        /* Ports outside 0x3B0-0x3DF and 0x1CE-0x1D0 (the 16-bit dispi data port spans 0x1CF-0x1D0)
         * are refused before any I/O is opened. */
        assert_int_equal(a->ops->io_read(a, 0x80, 1, &v), -ERANGE);
        assert_int_equal(a->ops->io_read(a, 0x3af, 1, &v), -ERANGE);
        assert_int_equal(a->ops->io_read(a, 0x3e0, 1, &v), -ERANGE);
        assert_int_equal(a->ops->io_read(a, 0x3df, 2, &v), -ERANGE);
        assert_int_equal(a->ops->io_read(a, 0x1cd, 1, &v), -ERANGE);
        assert_int_equal(a->ops->io_read(a, 0x1cf, 4, &v), -ERANGE);
        assert_int_equal(a->ops->io_read(a, 0x1d1, 1, &v), -ERANGE);
        assert_int_equal(a->ops->io_read(a, 0x1ce, 4, &v), -ERANGE);
        assert_int_equal(a->ops->io_write(a, 0x70, 1, 0), -ERANGE);
        assert_int_equal(a->ops->io_read(a, 0x3c0, 3, &v), -EINVAL);
        assert_int_equal(a->ops->io_write(a, 0x3c0, 1, 0x100), -EINVAL);

        /* The legacy window refuses what lies past 0xBFFFF before mapping it. */
        assert_int_equal(a->ops->vga_mem_read(a, HW_VGA_MEM_SIZE, cfg, 1), -ERANGE);
        assert_int_equal(a->ops->vga_mem_write(a, HW_VGA_MEM_SIZE - 1, cfg, 2), -ERANGE);

        /* MMIO: missing and I/O BARs are -ENXIO, memory BARs bounded by their size. */
        for (unsigned bar = 0; bar < 6; bar++) {
                if (rd.bar_kind[bar] != 2) {
                        assert_int_equal(a->ops->mmio_read32(a, bar, 0, &v), -ENXIO);
                        assert_int_equal(a->ops->mmio_write32(a, bar, 0, 0), -ENXIO);
                } else {
                        assert_true(rd.bar_size[bar] <= UINT32_MAX);
                        assert_int_equal(a->ops->mmio_read32(a, bar, (uint32_t)rd.bar_size[bar], &v), -ERANGE);
                        assert_int_equal(a->ops->mmio_write32(a, bar, (uint32_t)rd.bar_size[bar] - 2, 0), -EINVAL);
                }
        }
        assert_int_equal(a->ops->mmio_read32(a, 6, 0, &v), -EINVAL);

        /* One GPU: the arbiter calls are no-ops that succeed. */
        assert_int_equal(hw_vga_lock(a), 0);
        assert_int_equal(hw_vga_unlock(a), 0);

        /* The library stays up until the last handle goes. */
        a = hw_free(a);
        assert_int_equal(n_system_cleanup, 0);
        assert_int_equal(hw_cfg_read(b, 0, cfg, 4), 0);
        assert_memory_equal(cfg, want, 4);
        b = hw_free(b);
        assert_int_equal(n_system_cleanup, 1);

        /* And comes back for the next open. */
        assert_int_equal(hw_open_pciaccess(&d, &a), 0);
        assert_int_equal(n_system_init, 2);
        a = hw_free(a);
        assert_int_equal(n_system_cleanup, 2);
}

/* A pass keeps the library up from the survey's listing to the device's open and lets it go
 * at its end; outside a pass every user initialises and cleans up on its own. */
static void test_pass_keeps_library(void **state)
{
        PciIdentity *ids = NULL;
        RealDevice rd;
        DisplayDevice d;
        Hw *a = NULL;
        (void)state;

        d = real_device_or_skip(&rd, "pass checks");

        reset_counts();
        assert_int_equal(hw_backend_pciaccess.pass_begin(hw_backend_pciaccess.userdata, "save"), 0);
        assert_true(pci_source_pciaccess(NULL, &ids) >= 0);
        free(ids);
        ids = NULL;
        assert_int_equal(n_system_init, 1);
        assert_int_equal(n_system_cleanup, 0);
        assert_int_equal(hw_open_pciaccess(&d, &a), 0);
        a = hw_free(a);
        assert_int_equal(n_system_init, 1);
        assert_int_equal(n_system_cleanup, 0);
        assert_int_equal(hw_backend_pciaccess.pass_end(hw_backend_pciaccess.userdata), 0);
        assert_int_equal(n_system_cleanup, 1);
        /* A pass that never touched the library has nothing to let go. */
        assert_int_equal(hw_backend_pciaccess.pass_begin(hw_backend_pciaccess.userdata, "restore"), 0);
        assert_int_equal(hw_backend_pciaccess.pass_end(hw_backend_pciaccess.userdata), 0);
        assert_int_equal(n_system_init, 1);
        assert_int_equal(n_system_cleanup, 1);

        assert_true(pci_source_pciaccess(NULL, &ids) >= 0);
        free(ids);
        assert_int_equal(n_system_init, 2);
        assert_int_equal(n_system_cleanup, 2);
        assert_int_equal(hw_open_pciaccess(&d, &a), 0);
        assert_int_equal(n_system_init, 3);
        a = hw_free(a);
        assert_int_equal(n_system_cleanup, 3);
}

/* The device-memory copies: every head and tail around the aligned 32-bit middle lands each
 * byte where it belongs and nothing outside the range. */
static void test_io_copy(void **state)
{
        _Alignas(8) uint8_t io[64], buf[64], want[64];

        (void)state;
        for (size_t start = 0; start < 8; start++)
                for (size_t len = 0; start + len <= 40; len++) {
                        for (size_t i = 0; i < sizeof(io); i++)
                                io[i] = (uint8_t)(i * 7 + 1);
                        memset(buf, 0xEE, sizeof(buf));
                        memcpy(want, buf, sizeof(want));
                        memcpy(want + 3, io + start, len);
                        hw_io_copy_from(io + start, buf + 3, len);
                        assert_memory_equal(buf, want, sizeof(buf));

                        memset(io, 0x55, sizeof(io));
                        memcpy(want, io, sizeof(want));
                        for (size_t i = 0; i < sizeof(buf); i++)
                                buf[i] = (uint8_t)(i * 5 + 2);
                        memcpy(want + start, buf + 1, len);
                        hw_io_copy_to(io + start, buf + 1, len);
                        assert_memory_equal(io, want, sizeof(io));
                }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_refuses_unmanaged),
                cmocka_unit_test(test_missing_slot),
                cmocka_unit_test(test_real_device_read_only),
                cmocka_unit_test(test_pass_keeps_library),
                cmocka_unit_test(test_io_copy),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
