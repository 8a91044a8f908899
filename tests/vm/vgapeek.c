/* SPDX-License-Identifier: MIT */
/* vgapeek: the QEMU suite's in-guest look at the VGA registers. Prints one line of
 * "key=value" pairs (misc output, sequencer, CRTC, graphics, attribute index, the Bochs dispi
 * ID, enable, mode, virtual width and offsets, bank, and with --mem a hash of the
 * 0xA0000-0xBFFFF window; on an ATI device at 0000:00:02.0 also CRTC_GEN_CNTL, CRTC_EXT_CNTL
 * and DAC_CNTL from its register BAR, BAR2) so the host can tell a live
 * display from one that is off. It reads only: every index register it moves is put back,
 * and the attribute controller is never written (a write would change the PAS bit). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/io.h>
#include <sys/mman.h>
#include <unistd.h>

#define VGA_AR_ADDR 0x3C0
#define VGA_MSR_READ 0x3CC
#define VGA_SR_ADDR 0x3C4
#define VGA_GR_ADDR 0x3CE
#define VGA_CRTC_COLOUR 0x3D4
#define VGA_CRTC_MONO 0x3B4
#define VGA_ST01_COLOUR 0x3DA
#define VGA_ST01_MONO 0x3BA
#define DISPI_INDEX 0x1CE
#define DISPI_DATA 0x1CF
#define DISPI_INDEX_ID 0x0
#define DISPI_INDEX_XRES 0x1
#define DISPI_INDEX_YRES 0x2
#define DISPI_INDEX_BPP 0x3
#define DISPI_INDEX_ENABLE 0x4
#define DISPI_INDEX_BANK 0x5
#define DISPI_INDEX_VIRT_WIDTH 0x6
#define DISPI_INDEX_X_OFFSET 0x8
#define DISPI_INDEX_Y_OFFSET 0x9

#define VGA_WINDOW_BASE 0xA0000
#define VGA_WINDOW_SIZE 0x20000

static uint8_t read_indexed(uint16_t addr, uint8_t index)
{
        outb(index, addr);
        return inb(addr + 1);
}

static void print_group(const char *name, uint16_t addr, unsigned count)
{
        uint8_t saved = inb(addr);

        printf(" %s=", name);
        for (unsigned i = 0; i < count; i++)
                printf("%s%02x", i ? "," : "", read_indexed(addr, (uint8_t)i));
        outb(saved, addr);
}

static uint16_t dispi_read(uint16_t index)
{
        outw(index, DISPI_INDEX);
        return inw(DISPI_DATA);
}

/* FNV-1a over the legacy window as the CPU sees it with the current register settings.
 * Reads load the VGA latches and change nothing else. */
static int hash_window(uint64_t *ret)
{
        volatile const uint8_t *m;
        uint64_t h = 0xcbf29ce484222325ULL;
        void *p;
        int fd;

        fd = open("/dev/mem", O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        p = mmap(NULL, VGA_WINDOW_SIZE, PROT_READ, MAP_SHARED, fd, VGA_WINDOW_BASE);
        close(fd);
        if (p == MAP_FAILED)
                return -errno;
        m = p;
        for (size_t i = 0; i < VGA_WINDOW_SIZE; i++) {
                h ^= m[i];
                h *= 0x100000001b3ULL;
        }
        munmap(p, VGA_WINDOW_SIZE);
        *ret = h;
        return 0;
}

#define ATI_SLOT_DIR "/sys/bus/pci/devices/0000:00:02.0"
#define ATI_REGS_SIZE 0x4000

/* " radeon=CRTC_GEN_CNTL,CRTC_EXT_CNTL,DAC_CNTL" for an ATI device at 00:02.0 (read-only
 * mapping of its register BAR through sysfs), nothing for any other device. */
static void print_radeon(void)
{
        char vendor[16] = "";
        volatile const uint32_t *r;
        void *p;
        FILE *f;
        int fd;

        f = fopen(ATI_SLOT_DIR "/vendor", "re");
        if (!f)
                return;
        if (!fgets(vendor, sizeof(vendor), f))
                vendor[0] = '\0';
        fclose(f);
        if (strncmp(vendor, "0x1002", 6) != 0)
                return;
        fd = open(ATI_SLOT_DIR "/resource2", O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
                printf(" radeon=error:%s", strerror(errno));
                return;
        }
        p = mmap(NULL, ATI_REGS_SIZE, PROT_READ, MAP_SHARED, fd, 0);
        close(fd);
        if (p == MAP_FAILED) {
                printf(" radeon=error:%s", strerror(errno));
                return;
        }
        r = p;
        printf(" radeon=%08" PRIx32 ",%08" PRIx32 ",%08" PRIx32, r[0x50 / 4], r[0x54 / 4], r[0x58 / 4]);
        munmap(p, ATI_REGS_SIZE);
}

int main(int argc, char **argv)
{
        uint16_t crtc, st01, saved_dispi;
        uint8_t msr, ar_index;
        int want_mem = argc > 1 && strcmp(argv[1], "--mem") == 0;

        if (argc > 1 && !want_mem) {
                fprintf(stderr, "usage: vgapeek [--mem]\n");
                return 2;
        }
        if (ioperm(0x3B0, 0x30, 1) < 0 || ioperm(DISPI_INDEX, 3, 1) < 0) { /* 16-bit data at 0x1CF-0x1D0 */
                fprintf(stderr, "vgapeek: ioperm: %s\n", strerror(errno));
                return 1;
        }

        msr = inb(VGA_MSR_READ);
        crtc = (msr & 0x01) ? VGA_CRTC_COLOUR : VGA_CRTC_MONO;
        st01 = (msr & 0x01) ? VGA_ST01_COLOUR : VGA_ST01_MONO;

        printf("vgapeek msr=%02x", msr);
        print_group("sr", VGA_SR_ADDR, 5);
        print_group("cr", crtc, 0x19);
        print_group("gr", VGA_GR_ADDR, 9);

        /* Reset the flip-flop so that 0x3C0 reads back the index (with PAS, bit 5). */
        (void)inb(st01);
        ar_index = inb(VGA_AR_ADDR);
        printf(" ar_index=%02x", ar_index);

        saved_dispi = inw(DISPI_INDEX);
        printf(" dispi_id=%04x", dispi_read(DISPI_INDEX_ID));
        printf(" dispi_enable=%04x", dispi_read(DISPI_INDEX_ENABLE));
        printf(" dispi_mode=%ux%ux%u", dispi_read(DISPI_INDEX_XRES), dispi_read(DISPI_INDEX_YRES),
               dispi_read(DISPI_INDEX_BPP));
        printf(" dispi_virt=%u+%u+%u", dispi_read(DISPI_INDEX_VIRT_WIDTH), dispi_read(DISPI_INDEX_X_OFFSET),
               dispi_read(DISPI_INDEX_Y_OFFSET));
        printf(" dispi_bank=%u", dispi_read(DISPI_INDEX_BANK));
        outw(saved_dispi, DISPI_INDEX);
        print_radeon();

        if (want_mem) {
                uint64_t h = 0;
                int r = hash_window(&h);
                if (r < 0)
                        printf(" mem=error:%s", strerror(-r));
                else
                        printf(" mem=%016" PRIx64, h);
        }
        printf("\n");
        return 0;
}
