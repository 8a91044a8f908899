/* SPDX-License-Identifier: MIT */
/* The simulated hardware backend: a standard VGA (ports, planes, DAC, Bochs dispi), PCI
 * config space, an MMIO register file, fake VTs and backlights, a QEMU-like wake and the
 * access log tests read. */
#include "hw-sim.h"

#include <stdarg.h>

#define SIM_LOG_INITIAL 1024

/* Index of the standard VGA registers the model interprets. */
#define SR_RESET 0x00
#define SR_CLOCKING 0x01
#define SR_MAP_MASK 0x02
#define SR_MEMORY_MODE 0x04
#define CR_HDISP_END 0x01
#define CR_VRETRACE_END 0x11
#define GR_SET_RESET 0x00
#define GR_SET_RESET_ENABLE 0x01
#define GR_COLOR_COMPARE 0x02
#define GR_ROTATE 0x03
#define GR_READ_MAP 0x04
#define GR_MODE 0x05
#define GR_MISC 0x06
#define GR_COLOR_DONT_CARE 0x07
#define GR_BIT_MASK 0x08

struct HwSim {
        unsigned n_ref;
        DisplayDevice device;

        HwSimVgaState st;

        /* Transient access state. */
        bool ar_flipflop_data;
        uint8_t dac_read_index, dac_write_index, dac_sub, dac_state;
        uint8_t dac_latch[3];
        uint8_t latch[HW_SIM_PLANES];
        uint8_t st01;
        uint8_t feature_control, vga_enable;

        bool dispi_present;
        uint8_t *dispi_fb;
        unsigned dispi_fb_clears; /* enable transitions without NOCLEARMEM */

        bool dac_mask_reads_zero;
        bool forbid;
        HwSimAccessType fail_type; /* hw_sim_fail_type(): accesses of this type fail with -EIO */
        bool fail_armed;
        unsigned violations;
        unsigned errors;
        char last_error[256];
        unsigned protected_writes;
        uint64_t delay_total_us;

        uint8_t cfg[HW_SIM_CFG_SIZE];
        uint8_t cfg_wmask[HW_SIM_CFG_SIZE];

        uint32_t *mmio;
        unsigned mmio_bar;
        HwSimMmioHook mmio_hook;
        void *mmio_hook_userdata;

        uint8_t *rom;
        size_t rom_size;
        uint8_t *firmware; /* HW_FIRMWARE_END bytes */
        uint16_t hang_port;
        size_t export_mark; /* child_export(): log entries before this one are the parent's */

        HwSimSystemState sys;
        uint32_t vt_switch_polls;   /* polls a switch takes */
        unsigned vt_pending;        /* VT asked for and not active yet, 0 = none */
        uint32_t vt_pending_polls;  /* polls left before it is */
        HwSimVtHook vt_hook;        /* called once a switch took effect */
        void *vt_hook_userdata;
        unsigned wake_vt;
        HwSimBacklightWake backlight_wake;
        uint32_t backlight_wake_value;

        HwSimAccess *log;
        size_t n_log, n_log_allocated;
        bool log_failed; /* out of memory while logging: counts as an error */
};

_printf_(2, 3) static void sim_error(HwSim *sim, const char *fmt, ...)
{
        va_list ap;

        sim->errors++;
        va_start(ap, fmt);
        vsnprintf(sim->last_error, sizeof(sim->last_error), fmt, ap);
        va_end(ap);
}

/* ---- access log ------------------------------------------------------------------ */

static HwSimAccess *sim_log_append(HwSim *sim, HwSimAccessType type)
{
        HwSimAccess *a;

        if (sim->n_log >= sim->n_log_allocated) {
                size_t n = MAX(sim->n_log_allocated * 2, (size_t)SIM_LOG_INITIAL);
                HwSimAccess *p = realloc(sim->log, n * sizeof(HwSimAccess));
                if (!p) {
                        if (!sim->log_failed)
                                sim_error(sim, "out of memory for the access log");
                        sim->log_failed = true;
                        return NULL;
                }
                sim->log = p;
                sim->n_log_allocated = n;
        }

        a = &sim->log[sim->n_log++];
        *a = (HwSimAccess){
                .type = type,
                .reg = -1,
                .msr = sim->st.msr,
                .sr00 = sim->st.sr[SR_RESET],
                .sr01 = sim->st.sr[SR_CLOCKING],
                .cr11 = sim->st.cr[CR_VRETRACE_END],
                .ar_index = sim->st.ar_index,
                .ar_flipflop_data = sim->ar_flipflop_data,
                .display_live = hw_sim_display_live(sim),
        };
        return a;
}

/* Logs an access and applies the forbid switch: returns -EPERM if forbidden. */
static int sim_begin(HwSim *sim, HwSimAccessType type, HwSimAccess **ret)
{
        HwSimAccess *a = sim_log_append(sim, type);

        *ret = a;
        if (sim->forbid) {
                sim->violations++;
                if (a)
                        a->forbidden = true;
                return -EPERM;
        }
        if (sim->fail_armed && type == sim->fail_type)
                return -EIO;
        return 0;
}

void hw_sim_fail_type(HwSim *sim, HwSimAccessType type, bool on)
{
        sim->fail_type = type;
        sim->fail_armed = on;
}

const char *hw_sim_access_type_to_string(HwSimAccessType t)
{
        static const char *const names[_HW_SIM_ACCESS_TYPE_MAX] = {
                [HW_SIM_IO_READ] = "io read",       [HW_SIM_IO_WRITE] = "io write",
                [HW_SIM_MEM_READ] = "mem read",     [HW_SIM_MEM_WRITE] = "mem write",
                [HW_SIM_CFG_READ] = "cfg read",     [HW_SIM_CFG_WRITE] = "cfg write",
                [HW_SIM_MMIO_READ] = "mmio read",   [HW_SIM_MMIO_WRITE] = "mmio write",
                [HW_SIM_ROM_READ] = "rom read",     [HW_SIM_VGA_LOCK] = "vga lock",
                [HW_SIM_VGA_UNLOCK] = "vga unlock", [HW_SIM_DELAY] = "delay",
                [HW_SIM_VT_GET_ACTIVE] = "vt get active",
                [HW_SIM_VT_FIND_FREE] = "vt find free",
                [HW_SIM_VT_ACTIVATE] = "vt activate",
                [HW_SIM_BACKLIGHT_LIST] = "backlight list",
                [HW_SIM_BACKLIGHT_READ] = "backlight read",
                [HW_SIM_BACKLIGHT_WRITE] = "backlight write",
                [HW_SIM_FIRMWARE_READ] = "firmware read",
                [HW_SIM_VT_GET_MODE] = "vt get mode",
        };
        if ((unsigned)t >= _HW_SIM_ACCESS_TYPE_MAX)
                return "?";
        return names[t];
}

const HwSimAccess *hw_sim_log(const HwSim *sim, size_t *ret_n)
{
        *ret_n = sim->n_log;
        return sim->log;
}

void hw_sim_log_clear(HwSim *sim)
{
        sim->n_log = 0;
        sim->export_mark = 0;
}

size_t hw_sim_access_count(const HwSim *sim)
{
        size_t n = 0;
        for (size_t i = 0; i < sim->n_log; i++)
                if (sim->log[i].type != HW_SIM_DELAY)
                        n++;
        return n;
}

size_t hw_sim_count_type(const HwSim *sim, HwSimAccessType type)
{
        size_t n = 0;
        for (size_t i = 0; i < sim->n_log; i++)
                if (sim->log[i].type == type)
                        n++;
        return n;
}

size_t hw_sim_count_port(const HwSim *sim, uint16_t port, bool write)
{
        HwSimAccessType type = write ? HW_SIM_IO_WRITE : HW_SIM_IO_READ;
        size_t n = 0;
        for (size_t i = 0; i < sim->n_log; i++)
                if (sim->log[i].type == type && sim->log[i].port == port)
                        n++;
        return n;
}

int hw_sim_log_format(const HwSim *sim, Buffer *out)
{
        int r = 0;

        for (size_t i = 0; r >= 0 && i < sim->n_log; i++) {
                const HwSimAccess *a = &sim->log[i];
                const char *type = hw_sim_access_type_to_string(a->type);

                switch (a->type) {
                case HW_SIM_IO_READ:
                case HW_SIM_IO_WRITE:
                        r = buffer_printf(out, "%zu: %s 0x%03x/%u = 0x%0*x", i, type, a->port, a->width,
                                          a->width * 2, a->value);
                        if (r >= 0 && a->reg >= 0)
                                r = buffer_printf(out, " [reg 0x%02x]", (unsigned)a->reg);
                        break;
                case HW_SIM_MEM_READ:
                case HW_SIM_MEM_WRITE:
                case HW_SIM_CFG_READ:
                case HW_SIM_CFG_WRITE:
                        r = buffer_printf(out, "%zu: %s 0x%05x +%u", i, type, a->offset, a->len);
                        break;
                case HW_SIM_MMIO_READ:
                case HW_SIM_MMIO_WRITE:
                        r = buffer_printf(out, "%zu: %s bar%u 0x%06x = 0x%08x", i, type, a->bar, a->offset,
                                          a->value);
                        break;
                case HW_SIM_ROM_READ:
                        r = buffer_printf(out, "%zu: %s +%u", i, type, a->len);
                        break;
                case HW_SIM_DELAY:
                        r = buffer_printf(out, "%zu: %s %u us", i, type, a->value);
                        break;
                case HW_SIM_VT_GET_ACTIVE:
                case HW_SIM_VT_FIND_FREE:
                case HW_SIM_VT_GET_MODE:
                        r = buffer_printf(out, "%zu: %s = %u", i, type, a->value);
                        break;
                case HW_SIM_VT_ACTIVATE:
                        r = buffer_printf(out, "%zu: %s %u (display %s)", i, type, a->value,
                                          a->display_live ? "live" : "off");
                        break;
                case HW_SIM_BACKLIGHT_READ:
                case HW_SIM_BACKLIGHT_WRITE:
                        r = buffer_printf(out, "%zu: %s #%d = %u", i, type, a->reg, a->value);
                        if (r >= 0 && a->reg >= 0 && a->reg < HW_SIM_BACKLIGHT_MAX)
                                r = buffer_printf(out, " [%s]", sim->sys.backlights[a->reg].name);
                        break;
                default:
                        r = buffer_printf(out, "%zu: %s", i, type);
                        break;
                }
                if (r >= 0 && a->forbidden)
                        r = buffer_printf(out, " FORBIDDEN");
                if (r >= 0)
                        r = buffer_append_u8(out, '\n');
        }
        return r < 0 ? r : 0;
}

void hw_sim_set_forbid(HwSim *sim, bool b)
{
        sim->forbid = b;
}

unsigned hw_sim_violations(const HwSim *sim)
{
        return sim->violations;
}

unsigned hw_sim_errors(const HwSim *sim)
{
        return sim->errors;
}

const char *hw_sim_last_error(const HwSim *sim)
{
        return sim->last_error;
}

void hw_sim_clear_errors(HwSim *sim)
{
        sim->errors = 0;
        sim->last_error[0] = '\0';
}

unsigned hw_sim_protected_writes(const HwSim *sim)
{
        return sim->protected_writes;
}

uint64_t hw_sim_delay_total_us(const HwSim *sim)
{
        return sim->delay_total_us;
}

/* ---- VGA ports ------------------------------------------------------------------- */

static bool sim_colour(const HwSim *sim)
{
        return sim->st.msr & 0x01;
}

static bool sim_dispi_enabled(const HwSim *sim)
{
        return sim->dispi_present && (sim->st.dispi[HW_SIM_DISPI_ENABLE] & HW_SIM_DISPI_ENABLED);
}

/* The CRTC/ST01 ports answer only at the address MSR bit 0 selects. */
static bool sim_crtc_port(const HwSim *sim, uint16_t port, uint16_t colour_port)
{
        uint16_t mono_port = (uint16_t)(colour_port - 0x20);
        return port == (sim_colour(sim) ? colour_port : mono_port);
}

static int16_t sim_port_reg(const HwSim *sim, uint16_t port, bool write)
{
        if (port == 0x3C5)
                return sim->st.sr_index;
        if (port == 0x3CF)
                return sim->st.gr_index;
        if (port == 0x3D5 || port == 0x3B5)
                return sim->st.cr_index;
        if ((port == 0x3C0 && write && sim->ar_flipflop_data) || (port == 0x3C1 && !write))
                return sim->st.ar_index & 0x1F;
        if (port == 0x3C9)
                return write ? sim->dac_write_index : sim->dac_read_index;
        if (port == 0x1CF)
                return (int16_t)sim->st.dispi_index;
        return -1;
}

static uint8_t sim_cr_read(const HwSim *sim)
{
        return sim->st.cr_index < HW_SIM_CR_COUNT ? sim->st.cr[sim->st.cr_index] : 0xFF;
}

static void sim_cr_write(HwSim *sim, uint8_t v)
{
        uint8_t i = sim->st.cr_index;

        if (i >= HW_SIM_CR_COUNT)
                return;
        if (i <= 0x07 && (sim->st.cr[CR_VRETRACE_END] & 0x80)) {
                sim->protected_writes++;
                return;
        }
        sim->st.cr[i] = v;
}

static uint8_t sim_ar_read(const HwSim *sim)
{
        uint8_t i = sim->st.ar_index & 0x1F;

        if (i >= HW_SIM_AR_COUNT)
                return 0xFF;
        /* The palette registers are reachable only while the display does not use them. */
        if (i < 0x10 && (sim->st.ar_index & HW_SIM_AR_PAS))
                return 0xFF;
        return sim->st.ar[i];
}

static void sim_ar_write(HwSim *sim, uint8_t v)
{
        if (!sim->ar_flipflop_data) {
                sim->st.ar_index = v & 0x3F;
                sim->ar_flipflop_data = true;
                return;
        }

        sim->ar_flipflop_data = false;
        uint8_t i = sim->st.ar_index & 0x1F;
        if (i >= HW_SIM_AR_COUNT)
                return;
        if (i < 0x10) {
                if (sim->st.ar_index & HW_SIM_AR_PAS)
                        return;
                v &= 0x3F;
        }
        sim->st.ar[i] = v;
}

static uint8_t sim_dac_read(HwSim *sim)
{
        uint8_t v = sim->st.palette[sim->dac_read_index][sim->dac_sub];

        if (++sim->dac_sub == 3) {
                sim->dac_sub = 0;
                sim->dac_read_index++;
        }
        return v;
}

static void sim_dac_write(HwSim *sim, uint8_t v)
{
        sim->dac_latch[sim->dac_sub] = v & 0x3F;
        if (++sim->dac_sub == 3) {
                memcpy(sim->st.palette[sim->dac_write_index], sim->dac_latch, 3);
                sim->dac_sub = 0;
                sim->dac_write_index++;
        }
}

static uint8_t sim_inb(HwSim *sim, uint16_t port)
{
        switch (port) {
        case 0x3C0:
                return sim->st.ar_index;
        case 0x3C1:
                return sim_ar_read(sim);
        case 0x3C2: /* input status 0: switch sense set, no interrupt */
                return 0x10;
        case 0x3C3:
                return sim->vga_enable;
        case 0x3C4:
                return sim->st.sr_index;
        case 0x3C5:
                return sim->st.sr_index < HW_SIM_SR_COUNT ? sim->st.sr[sim->st.sr_index] : 0xFF;
        case 0x3C6:
                return sim->dac_mask_reads_zero ? 0x00 : sim->st.dac_mask;
        case 0x3C7:
                return sim->dac_state;
        case 0x3C8:
                return sim->dac_write_index;
        case 0x3C9:
                return sim_dac_read(sim);
        case 0x3CA:
                return sim->feature_control;
        case 0x3CC:
                return sim->st.msr;
        case 0x3CE:
                return sim->st.gr_index;
        case 0x3CF:
                return sim->st.gr_index < HW_SIM_GR_COUNT ? sim->st.gr[sim->st.gr_index] : 0xFF;
        case 0x3B4:
        case 0x3D4:
                if (sim_crtc_port(sim, port, 0x3D4))
                        return sim->st.cr_index;
                break;
        case 0x3B5:
        case 0x3D5:
                if (sim_crtc_port(sim, port, 0x3D5))
                        return sim_cr_read(sim);
                break;
        case 0x3BA:
        case 0x3DA:
                if (sim_crtc_port(sim, port, 0x3DA)) {
                        /* Reading ST01 resets the attribute flip-flop; the display-enable and
                         * vertical-retrace bits toggle so that polling loops end. */
                        sim->ar_flipflop_data = false;
                        sim->st01 ^= 0x09;
                        return sim->st01;
                }
                break;
        default:
                break;
        }

        if (port == 0x3B4 || port == 0x3B5 || port == 0x3BA || port == 0x3D4 || port == 0x3D5 ||
            port == 0x3DA)
                sim_error(sim, "read of port 0x%03x, not decoded while MSR bit 0 is %u", port,
                          sim->st.msr & 1);
        else
                sim_error(sim, "read of port 0x%03x, not decoded by the simulated VGA", port);
        return 0xFF;
}

static void sim_outb(HwSim *sim, uint16_t port, uint8_t v)
{
        switch (port) {
        case 0x3C0:
                sim_ar_write(sim, v);
                return;
        case 0x3C2:
                sim->st.msr = v;
                return;
        case 0x3C3:
                sim->vga_enable = v;
                return;
        case 0x3C4:
                sim->st.sr_index = v;
                return;
        case 0x3C5:
                if (sim->st.sr_index < HW_SIM_SR_COUNT)
                        sim->st.sr[sim->st.sr_index] = v;
                return;
        case 0x3C6:
                sim->st.dac_mask = v;
                return;
        case 0x3C7:
                sim->dac_read_index = v;
                sim->dac_sub = 0;
                sim->dac_state = 0x03;
                return;
        case 0x3C8:
                sim->dac_write_index = v;
                sim->dac_sub = 0;
                sim->dac_state = 0x00;
                return;
        case 0x3C9:
                sim_dac_write(sim, v);
                return;
        case 0x3CE:
                sim->st.gr_index = v;
                return;
        case 0x3CF:
                if (sim->st.gr_index < HW_SIM_GR_COUNT)
                        sim->st.gr[sim->st.gr_index] = v;
                return;
        case 0x3B4:
        case 0x3D4:
                if (sim_crtc_port(sim, port, 0x3D4)) {
                        sim->st.cr_index = v;
                        return;
                }
                break;
        case 0x3B5:
        case 0x3D5:
                if (sim_crtc_port(sim, port, 0x3D5)) {
                        sim_cr_write(sim, v);
                        return;
                }
                break;
        case 0x3BA:
        case 0x3DA:
                if (sim_crtc_port(sim, port, 0x3DA)) {
                        sim->feature_control = v;
                        return;
                }
                break;
        default:
                break;
        }

        if (port == 0x3B4 || port == 0x3B5 || port == 0x3BA || port == 0x3D4 || port == 0x3D5 ||
            port == 0x3DA)
                sim_error(sim, "write of port 0x%03x, not decoded while MSR bit 0 is %u", port,
                          sim->st.msr & 1);
        else
                sim_error(sim, "write 0x%02x to port 0x%03x, not decoded by the simulated VGA", v, port);
}

static bool sim_is_dispi_port(const HwSim *sim, uint16_t port)
{
        return sim->dispi_present && (port == 0x1CE || port == 0x1CF);
}

static uint16_t sim_dispi_read(HwSim *sim, uint16_t port)
{
        const uint16_t *r = sim->st.dispi;

        if (port == 0x1CE)
                return sim->st.dispi_index;
        if (r[HW_SIM_DISPI_ENABLE] & HW_SIM_DISPI_GETCAPS) {
                /* QEMU: while GETCAPS is set the geometry registers read the maxima. */
                if (sim->st.dispi_index == HW_SIM_DISPI_XRES)
                        return 16000;
                if (sim->st.dispi_index == HW_SIM_DISPI_YRES)
                        return 12000;
                if (sim->st.dispi_index == HW_SIM_DISPI_BPP)
                        return 32;
        }
        if (sim->st.dispi_index < HW_SIM_DISPI_COUNT)
                return r[sim->st.dispi_index];
        if (sim->st.dispi_index == HW_SIM_DISPI_VIDEO_MEMORY_64K)
                return (uint16_t)(HW_SIM_DISPI_VRAM_SIZE / 0x10000u);
        return 0;
}

/* QEMU's vbe_fixup_regs(), while a mode is enabled: a valid depth (else 8), the width a
 * multiple of 8, a virtual width at least the width, VIRT_HEIGHT computed from the video
 * memory, offsets that keep the screen inside it. */
static void sim_dispi_fixup(HwSim *sim)
{
        uint16_t *r = sim->st.dispi;
        uint32_t bits, line, maxy;

        if (!(r[HW_SIM_DISPI_ENABLE] & HW_SIM_DISPI_ENABLED))
                return;
        switch (r[HW_SIM_DISPI_BPP]) {
        case 4: case 8: case 16: case 24: case 32:
                bits = r[HW_SIM_DISPI_BPP];
                break;
        case 15:
                bits = 16;
                break;
        default:
                bits = r[HW_SIM_DISPI_BPP] = 8;
                break;
        }
        r[HW_SIM_DISPI_XRES] &= (uint16_t)~7u;
        if (r[HW_SIM_DISPI_XRES] == 0)
                r[HW_SIM_DISPI_XRES] = 8;
        r[HW_SIM_DISPI_VIRT_WIDTH] &= (uint16_t)~7u;
        if (r[HW_SIM_DISPI_VIRT_WIDTH] < r[HW_SIM_DISPI_XRES])
                r[HW_SIM_DISPI_VIRT_WIDTH] = r[HW_SIM_DISPI_XRES];
        line = r[HW_SIM_DISPI_VIRT_WIDTH] * bits / 8;
        maxy = HW_SIM_DISPI_VRAM_SIZE / line;
        if (r[HW_SIM_DISPI_YRES] == 0)
                r[HW_SIM_DISPI_YRES] = 1;
        if (r[HW_SIM_DISPI_YRES] > maxy)
                r[HW_SIM_DISPI_YRES] = (uint16_t)maxy;
        if ((uint64_t)r[HW_SIM_DISPI_X_OFFSET] * bits / 8 + (uint64_t)r[HW_SIM_DISPI_Y_OFFSET] * line +
                    (uint64_t)r[HW_SIM_DISPI_YRES] * line > HW_SIM_DISPI_VRAM_SIZE)
                r[HW_SIM_DISPI_Y_OFFSET] = 0;
        r[HW_SIM_DISPI_VIRT_HEIGHT] = (uint16_t)MIN(maxy, 0xFFFFu);
}

/* QEMU's vbe_ioport_write_data(): ID takes only a valid interface version; VIRT_HEIGHT is
 * read-only; the enable transition resets VIRT_WIDTH and the offsets and clears the frame
 * buffer unless NOCLEARMEM is set. */
static void sim_dispi_write(HwSim *sim, uint16_t port, uint16_t v)
{
        uint16_t *r = sim->st.dispi;

        if (port == 0x1CE) {
                sim->st.dispi_index = v;
                return;
        }
        switch (sim->st.dispi_index) {
        case HW_SIM_DISPI_ID:
                if (v >= 0xB0C0 && v <= 0xB0C5)
                        r[HW_SIM_DISPI_ID] = v;
                break;
        case HW_SIM_DISPI_XRES:
        case HW_SIM_DISPI_YRES:
        case HW_SIM_DISPI_BPP:
        case HW_SIM_DISPI_VIRT_WIDTH:
        case HW_SIM_DISPI_X_OFFSET:
        case HW_SIM_DISPI_Y_OFFSET:
                r[sim->st.dispi_index] = v;
                sim_dispi_fixup(sim);
                break;
        case HW_SIM_DISPI_BANK:
                r[HW_SIM_DISPI_BANK] = (uint16_t)(v & (HW_SIM_DISPI_VRAM_SIZE / 0x10000u - 1));
                break;
        case HW_SIM_DISPI_ENABLE:
                if ((v & HW_SIM_DISPI_ENABLED) && !(r[HW_SIM_DISPI_ENABLE] & HW_SIM_DISPI_ENABLED)) {
                        r[HW_SIM_DISPI_VIRT_WIDTH] = 0;
                        r[HW_SIM_DISPI_X_OFFSET] = 0;
                        r[HW_SIM_DISPI_Y_OFFSET] = 0;
                        r[HW_SIM_DISPI_ENABLE] |= HW_SIM_DISPI_ENABLED;
                        sim_dispi_fixup(sim);
                        if (!(v & HW_SIM_DISPI_NOCLEARMEM)) {
                                memset(sim->dispi_fb, 0, HW_SIM_DISPI_FB_SIZE);
                                sim->dispi_fb_clears++;
                        }
                }
                r[HW_SIM_DISPI_ENABLE] = v;
                break;
        default:
                break; /* VIRT_HEIGHT and unknown registers: ignored */
        }
}

/* The ports the real backend reaches (hw-pciaccess.c): the VGA registers and the dispi pair;
 * anything else is -ERANGE there, and so here (logged, not counted as an error). */
static bool sim_port_reachable(uint16_t port, unsigned width)
{
        return (port >= 0x3B0 && (unsigned)port + width <= 0x3E0) || (port >= 0x1CE && (unsigned)port + width <= 0x1D1);
}

static int sim_io_read(Hw *hw, uint16_t port, unsigned width, uint32_t *ret)
{
        HwSim *sim = hw->userdata;
        HwSimAccess *a;
        uint32_t v = 0;
        int r;

        r = sim_begin(sim, HW_SIM_IO_READ, &a);
        if (a) {
                a->port = port;
                a->width = (uint8_t)width;
                a->reg = sim_port_reg(sim, port, false);
        }
        if (r < 0)
                return r;

        if (width != 1 && width != 2 && width != 4) {
                sim_error(sim, "read of port 0x%03x with width %u", port, width);
                return -EINVAL;
        }
        while (sim->hang_port != 0 && port == sim->hang_port)
                pause();
        if (!sim_port_reachable(port, width))
                return -ERANGE;

        if (sim_is_dispi_port(sim, port)) {
                if (width != 2)
                        sim_error(sim, "%u-byte read of dispi port 0x%03x (16-bit only)", width, port);
                v = sim_dispi_read(sim, port);
        } else {
                for (unsigned i = 0; i < width; i++)
                        v |= (uint32_t)sim_inb(sim, (uint16_t)(port + i)) << (8 * i);
        }

        if (a)
                a->value = v;
        *ret = v;
        return 0;
}

static int sim_io_write(Hw *hw, uint16_t port, unsigned width, uint32_t value)
{
        HwSim *sim = hw->userdata;
        HwSimAccess *a;
        int r;

        r = sim_begin(sim, HW_SIM_IO_WRITE, &a);
        if (a) {
                a->port = port;
                a->width = (uint8_t)width;
                a->value = value;
                a->reg = sim_port_reg(sim, port, true);
        }
        if (r < 0)
                return r;

        if (width != 1 && width != 2 && width != 4) {
                sim_error(sim, "write of port 0x%03x with width %u", port, width);
                return -EINVAL;
        }
        if (!sim_port_reachable(port, width))
                return -ERANGE;

        if (sim_is_dispi_port(sim, port)) {
                if (width != 2)
                        sim_error(sim, "%u-byte write of dispi port 0x%03x (16-bit only)", width, port);
                sim_dispi_write(sim, port, (uint16_t)value);
                return 0;
        }

        for (unsigned i = 0; i < width; i++)
                sim_outb(sim, (uint16_t)(port + i), (uint8_t)(value >> (8 * i)));
        return 0;
}

/* ---- VGA memory ------------------------------------------------------------------ */

/* Maps an offset from 0xA0000 through the GR06 memory map select into the window. */
static bool sim_window(const HwSim *sim, uint32_t offset, uint32_t *ret)
{
        switch ((sim->st.gr[GR_MISC] >> 2) & 0x03) {
        case 0: /* A0000-BFFFF */
                *ret = offset;
                return true;
        case 1: /* A0000-AFFFF */
                if (offset >= 0x10000)
                        return false;
                *ret = offset;
                return true;
        case 2: /* B0000-B7FFF */
                if (offset < 0x10000 || offset >= 0x18000)
                        return false;
                *ret = offset - 0x10000;
                return true;
        default: /* B8000-BFFFF */
                if (offset < 0x18000)
                        return false;
                *ret = offset - 0x18000;
                return true;
        }
}

static uint8_t rotate_right(uint8_t v, unsigned n)
{
        n &= 7;
        return n ? (uint8_t)((v >> n) | (v << (8 - n))) : v;
}

static uint8_t sim_mem_readb(HwSim *sim, uint32_t offset)
{
        const uint8_t *gr = sim->st.gr;
        uint32_t a, plane_offset;
        unsigned plane;

        if (!(sim->st.msr & 0x02)) /* RAM disabled for the CPU */
                return 0xFF;
        if (sim_dispi_enabled(sim))
                return sim->dispi_fb[offset];
        if (!sim_window(sim, offset, &a))
                return 0xFF;

        if (sim->st.sr[SR_MEMORY_MODE] & 0x08) { /* chain 4 */
                plane = a & 3;
                plane_offset = a >> 2;
        } else if (gr[GR_MODE] & 0x10) { /* odd/even */
                plane = (gr[GR_READ_MAP] & 0x02) | (a & 1);
                plane_offset = a >> 1;
        } else {
                plane = gr[GR_READ_MAP] & 0x03;
                plane_offset = a;
        }
        plane_offset &= HW_SIM_PLANE_SIZE - 1;

        for (unsigned i = 0; i < HW_SIM_PLANES; i++)
                sim->latch[i] = sim->st.planes[i][plane_offset];

        if (gr[GR_MODE] & 0x08) { /* read mode 1: colour compare */
                uint8_t differ = 0;
                for (unsigned i = 0; i < HW_SIM_PLANES; i++) {
                        if (!(gr[GR_COLOR_DONT_CARE] & (1u << i)))
                                continue;
                        uint8_t want = (gr[GR_COLOR_COMPARE] & (1u << i)) ? 0xFF : 0x00;
                        differ |= (uint8_t)(sim->latch[i] ^ want);
                }
                return (uint8_t)~differ;
        }
        return sim->latch[plane];
}

static void sim_mem_writeb(HwSim *sim, uint32_t offset, uint8_t v)
{
        const uint8_t *gr = sim->st.gr;
        uint8_t planes_enabled, out[HW_SIM_PLANES];
        uint32_t a, plane_offset;
        unsigned mode, func;

        if (!(sim->st.msr & 0x02))
                return;
        if (sim_dispi_enabled(sim)) {
                sim->dispi_fb[offset] = v;
                return;
        }
        if (!sim_window(sim, offset, &a))
                return;

        if (sim->st.sr[SR_MEMORY_MODE] & 0x08) { /* chain 4 */
                planes_enabled = (uint8_t)(1u << (a & 3));
                plane_offset = a >> 2;
        } else if (!(sim->st.sr[SR_MEMORY_MODE] & 0x04)) { /* odd/even */
                planes_enabled = (a & 1) ? 0x0A : 0x05;
                plane_offset = a >> 1;
        } else {
                planes_enabled = 0x0F;
                plane_offset = a;
        }
        planes_enabled &= sim->st.sr[SR_MAP_MASK] & 0x0F;
        plane_offset &= HW_SIM_PLANE_SIZE - 1;

        mode = gr[GR_MODE] & 0x03;
        func = (gr[GR_ROTATE] >> 3) & 0x03;
        for (unsigned i = 0; i < HW_SIM_PLANES; i++) {
                uint8_t latch = sim->latch[i], d, mask = gr[GR_BIT_MASK];
                uint8_t set_reset = (gr[GR_SET_RESET] & (1u << i)) ? 0xFF : 0x00;

                switch (mode) {
                case 0:
                        d = rotate_right(v, gr[GR_ROTATE]);
                        if (gr[GR_SET_RESET_ENABLE] & (1u << i))
                                d = set_reset;
                        break;
                case 1: /* the latches, unchanged */
                        out[i] = latch;
                        continue;
                case 2:
                        d = (v & (1u << i)) ? 0xFF : 0x00;
                        break;
                default: /* 3: set/reset data, masked by the rotated CPU data */
                        mask &= rotate_right(v, gr[GR_ROTATE]);
                        d = set_reset;
                        break;
                }

                switch (func) {
                case 1:
                        d &= latch;
                        break;
                case 2:
                        d |= latch;
                        break;
                case 3:
                        d ^= latch;
                        break;
                default:
                        break;
                }
                out[i] = (uint8_t)((d & mask) | (latch & ~mask));
        }

        for (unsigned i = 0; i < HW_SIM_PLANES; i++)
                if (planes_enabled & (1u << i))
                        sim->st.planes[i][plane_offset] = out[i];
}

static int sim_vga_mem_read(Hw *hw, uint32_t offset, void *buf, size_t len)
{
        HwSim *sim = hw->userdata;
        HwSimAccess *a;
        uint8_t *p = buf;
        int r;

        r = sim_begin(sim, HW_SIM_MEM_READ, &a);
        if (a) {
                a->offset = offset;
                a->len = (uint32_t)len;
        }
        if (r < 0)
                return r;
        if (offset > HW_VGA_MEM_SIZE || len > HW_VGA_MEM_SIZE - offset)
                return -ERANGE;

        for (size_t i = 0; i < len; i++)
                p[i] = sim_mem_readb(sim, offset + (uint32_t)i);
        return 0;
}

static int sim_vga_mem_write(Hw *hw, uint32_t offset, const void *buf, size_t len)
{
        HwSim *sim = hw->userdata;
        HwSimAccess *a;
        const uint8_t *p = buf;
        int r;

        r = sim_begin(sim, HW_SIM_MEM_WRITE, &a);
        if (a) {
                a->offset = offset;
                a->len = (uint32_t)len;
        }
        if (r < 0)
                return r;
        if (offset > HW_VGA_MEM_SIZE || len > HW_VGA_MEM_SIZE - offset)
                return -ERANGE;

        for (size_t i = 0; i < len; i++)
                sim_mem_writeb(sim, offset + (uint32_t)i, p[i]);
        return 0;
}

/* ---- PCI config, MMIO, ROM, arbiter, delays -------------------------------------- */

static int sim_cfg_read(Hw *hw, uint32_t offset, void *buf, size_t len)
{
        HwSim *sim = hw->userdata;
        HwSimAccess *a;
        int r;

        r = sim_begin(sim, HW_SIM_CFG_READ, &a);
        if (a) {
                a->offset = offset;
                a->len = (uint32_t)len;
        }
        if (r < 0)
                return r;
        if (offset > HW_SIM_CFG_SIZE || len > HW_SIM_CFG_SIZE - offset)
                return -EIO;

        memcpy(buf, sim->cfg + offset, len);
        return 0;
}

static int sim_cfg_write(Hw *hw, uint32_t offset, const void *buf, size_t len)
{
        HwSim *sim = hw->userdata;
        const uint8_t *p = buf;
        HwSimAccess *a;
        int r;

        r = sim_begin(sim, HW_SIM_CFG_WRITE, &a);
        if (a) {
                a->offset = offset;
                a->len = (uint32_t)len;
        }
        if (r < 0)
                return r;
        if (offset > HW_SIM_CFG_SIZE || len > HW_SIM_CFG_SIZE - offset)
                return -EIO;

        for (size_t i = 0; i < len; i++) {
                uint8_t m = sim->cfg_wmask[offset + i];
                sim->cfg[offset + i] = (uint8_t)((sim->cfg[offset + i] & ~m) | (p[i] & m));
        }
        return 0;
}

static int sim_mmio_check(const HwSim *sim, unsigned bar, uint32_t offset)
{
        if (bar != sim->mmio_bar)
                return -ENXIO;
        if (offset >= HW_SIM_MMIO_SIZE || offset % 4)
                return -ERANGE;
        return 0;
}

static int sim_mmio_read32(Hw *hw, unsigned bar, uint32_t offset, uint32_t *ret)
{
        HwSim *sim = hw->userdata;
        HwSimAccess *a;
        uint32_t v;
        int r;

        r = sim_begin(sim, HW_SIM_MMIO_READ, &a);
        if (a) {
                a->bar = (uint8_t)bar;
                a->offset = offset;
        }
        if (r < 0)
                return r;
        r = sim_mmio_check(sim, bar, offset);
        if (r < 0)
                return r;

        v = sim->mmio[offset / 4];
        if (sim->mmio_hook) {
                r = sim->mmio_hook(sim, false, offset, &v, sim->mmio_hook_userdata);
                if (r < 0)
                        return r;
                if (r == 0)
                        v = sim->mmio[offset / 4];
        }
        if (a)
                a->value = v;
        *ret = v;
        return 0;
}

static int sim_mmio_write32(Hw *hw, unsigned bar, uint32_t offset, uint32_t value)
{
        HwSim *sim = hw->userdata;
        HwSimAccess *a;
        int r;

        r = sim_begin(sim, HW_SIM_MMIO_WRITE, &a);
        if (a) {
                a->bar = (uint8_t)bar;
                a->offset = offset;
                a->value = value;
        }
        if (r < 0)
                return r;
        r = sim_mmio_check(sim, bar, offset);
        if (r < 0)
                return r;

        if (sim->mmio_hook) {
                uint32_t v = value;
                r = sim->mmio_hook(sim, true, offset, &v, sim->mmio_hook_userdata);
                if (r != 0)
                        return r < 0 ? r : 0;
        }
        sim->mmio[offset / 4] = value;
        return 0;
}

static int sim_rom_read(Hw *hw, void *buf, size_t len)
{
        HwSim *sim = hw->userdata;
        HwSimAccess *a;
        size_t n;
        int r;

        r = sim_begin(sim, HW_SIM_ROM_READ, &a);
        if (a)
                a->len = (uint32_t)MIN(len, (size_t)UINT32_MAX);
        if (r < 0)
                return r;
        if (!sim->rom)
                return -ENOENT;

        n = MIN(len, sim->rom_size);
        memcpy(buf, sim->rom, n);
        return (int)MIN(n, (size_t)INT32_MAX);
}

static int sim_firmware_read(Hw *hw, uint32_t addr, void *buf, size_t len)
{
        HwSim *sim = hw->userdata;
        HwSimAccess *a;
        int r;

        r = sim_begin(sim, HW_SIM_FIRMWARE_READ, &a);
        if (a) {
                a->offset = addr;
                a->len = (uint32_t)MIN(len, (size_t)UINT32_MAX);
        }
        if (r < 0)
                return r;
        if (addr > HW_FIRMWARE_END || len > HW_FIRMWARE_END - addr)
                return -ERANGE;
        memcpy(buf, sim->firmware + addr, len);
        return 0;
}

static uint32_t get_le32(const uint8_t *p)
{
        return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A BAR's size is what its writable mask leaves: the lowest writable address bit. */
static int sim_bar_info(Hw *hw, unsigned bar, HwBar *ret)
{
        HwSim *sim = hw->userdata;
        uint32_t value = get_le32(sim->cfg + 0x10 + 4 * bar), mask = get_le32(sim->cfg_wmask + 0x10 + 4 * bar);
        bool io = value & 1;

        mask &= io ? ~UINT32_C(0x3) : ~UINT32_C(0xF);
        if (mask == 0)
                return -ENXIO;
        *ret = (HwBar){
                .base = value & (io ? ~UINT32_C(0x3) : ~UINT32_C(0xF)),
                .size = (uint64_t)(mask & -mask),
                .is_io = io,
                .prefetchable = !io && (value & 0x8),
        };
        return 0;
}

/* The child_export blob: the fixed part, then the accesses the child logged. Host layout:
 * it only ever goes from a child to its parent. */
typedef struct SimExport {
        HwSimVgaState st;
        bool ar_flipflop_data;
        uint8_t dac_read_index, dac_write_index, dac_sub, dac_state;
        uint8_t dac_latch[3];
        uint8_t latch[HW_SIM_PLANES];
        uint8_t st01, feature_control, vga_enable;
        unsigned dispi_fb_clears, violations, errors, protected_writes;
        char last_error[256];
        uint64_t delay_total_us;
        uint8_t cfg[HW_SIM_CFG_SIZE];
        uint8_t dispi_fb[HW_SIM_DISPI_FB_SIZE];
        uint32_t mmio[HW_SIM_MMIO_SIZE / 4];
        uint64_t n_log;
} SimExport;

static int sim_child_export(Hw *hw, Buffer *out)
{
        HwSim *sim = hw->userdata;
        _cleanup_free_ SimExport *e = NULL;
        size_t n = sim->n_log - MIN(sim->export_mark, sim->n_log);
        int r;

        e = calloc(1, sizeof(*e));
        if (!e)
                return -ENOMEM;
        e->st = sim->st;
        e->ar_flipflop_data = sim->ar_flipflop_data;
        e->dac_read_index = sim->dac_read_index;
        e->dac_write_index = sim->dac_write_index;
        e->dac_sub = sim->dac_sub;
        e->dac_state = sim->dac_state;
        memcpy(e->dac_latch, sim->dac_latch, sizeof(e->dac_latch));
        memcpy(e->latch, sim->latch, sizeof(e->latch));
        e->st01 = sim->st01;
        e->feature_control = sim->feature_control;
        e->vga_enable = sim->vga_enable;
        e->dispi_fb_clears = sim->dispi_fb_clears;
        e->violations = sim->violations;
        e->errors = sim->errors;
        e->protected_writes = sim->protected_writes;
        memcpy(e->last_error, sim->last_error, sizeof(e->last_error));
        e->delay_total_us = sim->delay_total_us;
        memcpy(e->cfg, sim->cfg, sizeof(e->cfg));
        memcpy(e->dispi_fb, sim->dispi_fb, sizeof(e->dispi_fb));
        memcpy(e->mmio, sim->mmio, sizeof(e->mmio));
        e->n_log = n;
        r = buffer_append(out, e, sizeof(*e));
        if (r >= 0 && n > 0)
                r = buffer_append(out, sim->log + sim->export_mark, n * sizeof(HwSimAccess));
        if (r >= 0)
                sim->export_mark = sim->n_log;
        return r;
}

static int sim_child_import(Hw *hw, const void *data, size_t len)
{
        HwSim *sim = hw->userdata;
        const SimExport *e = data;
        const HwSimAccess *entries = (const HwSimAccess *)(e + 1);

        if (!data || len < sizeof(*e) || e->n_log > (len - sizeof(*e)) / sizeof(HwSimAccess) ||
            len != sizeof(*e) + e->n_log * sizeof(HwSimAccess))
                return -EBADMSG;
        sim->st = e->st;
        sim->ar_flipflop_data = e->ar_flipflop_data;
        sim->dac_read_index = e->dac_read_index;
        sim->dac_write_index = e->dac_write_index;
        sim->dac_sub = e->dac_sub;
        sim->dac_state = e->dac_state;
        memcpy(sim->dac_latch, e->dac_latch, sizeof(e->dac_latch));
        memcpy(sim->latch, e->latch, sizeof(e->latch));
        sim->st01 = e->st01;
        sim->feature_control = e->feature_control;
        sim->vga_enable = e->vga_enable;
        sim->dispi_fb_clears = e->dispi_fb_clears;
        sim->violations = e->violations;
        sim->errors = e->errors;
        sim->protected_writes = e->protected_writes;
        memcpy(sim->last_error, e->last_error, sizeof(e->last_error));
        sim->delay_total_us = e->delay_total_us;
        memcpy(sim->cfg, e->cfg, sizeof(e->cfg));
        memcpy(sim->dispi_fb, e->dispi_fb, sizeof(e->dispi_fb));
        memcpy(sim->mmio, e->mmio, sizeof(e->mmio));
        for (uint64_t i = 0; i < e->n_log; i++) {
                HwSimAccess *a = sim_log_append(sim, entries[i].type);
                if (a)
                        *a = entries[i];
        }
        sim->export_mark = sim->n_log;
        return 0;
}

static void sim_delay_us(Hw *hw, unsigned usec)
{
        HwSim *sim = hw->userdata;
        HwSimAccess *a = sim_log_append(sim, HW_SIM_DELAY);

        if (a)
                a->value = usec;
        sim->delay_total_us += usec;
}

static int sim_vga_lock(Hw *hw)
{
        HwSimAccess *a;
        return sim_begin(hw->userdata, HW_SIM_VGA_LOCK, &a);
}

static int sim_vga_unlock(Hw *hw)
{
        HwSimAccess *a;
        return sim_begin(hw->userdata, HW_SIM_VGA_UNLOCK, &a);
}

/* ---- the machine around the device: VTs and backlights -------------------------- */

static int sim_vt_begin(HwSim *sim, HwSimAccessType type, HwSimAccess **ret)
{
        int r = sim_begin(sim, type, ret);
        if (r < 0)
                return r;
        return sim->sys.vt_present ? 0 : -ENOENT;
}

/* A pending switch takes effect after its polls, like the kernel's once the old VT's
 * owner has let go. */
static void sim_vt_poll(HwSim *sim)
{
        if (sim->vt_pending == 0 || sim->vt_pending_polls == HW_SIM_VT_SWITCH_NEVER)
                return;
        if (sim->vt_pending_polls > 0)
                sim->vt_pending_polls--;
        if (sim->vt_pending_polls == 0) {
                sim->sys.vt_active = (uint8_t)sim->vt_pending;
                sim->vt_pending = 0;
                if (sim->vt_hook)
                        sim->vt_hook(sim, sim->vt_hook_userdata);
        }
}

void hw_sim_set_vt_hook(HwSim *sim, HwSimVtHook hook, void *userdata)
{
        sim->vt_hook = hook;
        sim->vt_hook_userdata = userdata;
}

static int sim_vt_get_active(Hw *hw, unsigned *ret)
{
        HwSim *sim = hw->userdata;
        HwSimAccess *a;
        int r;

        r = sim_vt_begin(sim, HW_SIM_VT_GET_ACTIVE, &a);
        if (r < 0)
                return r;
        sim_vt_poll(sim);
        if (a)
                a->value = sim->sys.vt_active;
        *ret = sim->sys.vt_active;
        return 0;
}

static int sim_vt_find_free(Hw *hw, unsigned *ret)
{
        HwSim *sim = hw->userdata;
        HwSimAccess *a;
        unsigned found = 0;
        int r;

        r = sim_vt_begin(sim, HW_SIM_VT_FIND_FREE, &a);
        if (r < 0)
                return r;
        /* As the system backend picks: the highest VT from 15 down to 2 that is neither open
         * nor active (VT_GETSTATE), else the lowest free one (VT_OPENQRY). */
        for (unsigned vt = 15; vt >= 2 && !found; vt--)
                if (vt != sim->sys.vt_active && !(sim->sys.vt_open & (UINT64_C(1) << vt)))
                        found = vt;
        for (unsigned vt = 1; vt <= HW_VT_MAX && !found; vt++)
                if (!(sim->sys.vt_open & (UINT64_C(1) << vt)))
                        found = vt;
        if (!found)
                return -EBUSY;
        if (a)
                a->value = found;
        *ret = found;
        return 0;
}

static int sim_vt_in_graphics(Hw *hw, bool *ret)
{
        HwSim *sim = hw->userdata;
        HwSimAccess *a;
        int r;

        r = sim_vt_begin(sim, HW_SIM_VT_GET_MODE, &a);
        if (r < 0)
                return r;
        if (a)
                a->value = sim->sys.vt_graphics;
        *ret = sim->sys.vt_graphics != 0;
        return 0;
}

static int sim_vt_activate(Hw *hw, unsigned vt)
{
        HwSim *sim = hw->userdata;
        HwSimAccess *a;
        int r;

        r = sim_vt_begin(sim, HW_SIM_VT_ACTIVATE, &a);
        if (a)
                a->value = vt;
        if (r < 0)
                return r;
        if (vt < 1 || vt > HW_VT_MAX)
                return -ENXIO;
        if (vt == sim->sys.vt_active) {
                sim->vt_pending = 0; /* a switch to the active VT does nothing */
                return 0;
        }
        /* Leaving a VT someone holds open waits for its owner; leaving a free one does not. */
        sim->vt_pending = vt;
        sim->vt_pending_polls =
                (sim->sys.vt_open & (UINT64_C(1) << sim->sys.vt_active)) ? sim->vt_switch_polls : 0;
        if (sim->vt_pending_polls == 0)
                sim_vt_poll(sim);
        return 0;
}

static int sim_backlight_slot(const HwSim *sim, const char *name)
{
        for (int i = 0; i < HW_SIM_BACKLIGHT_MAX; i++)
                if (sim->sys.backlights[i].name[0] && streq(sim->sys.backlights[i].name, name))
                        return i;
        return -1;
}

static int sim_backlight_list(Hw *hw, HwBacklightName *names, size_t max)
{
        HwSim *sim = hw->userdata;
        HwSimAccess *a;
        size_t n = 0;
        int r;

        r = sim_begin(sim, HW_SIM_BACKLIGHT_LIST, &a);
        if (r < 0)
                return r;
        for (size_t i = 0; i < HW_SIM_BACKLIGHT_MAX; i++) {
                const char *name = sim->sys.backlights[i].name;
                if (!hw_backlight_name_is_valid(name))
                        continue;
                if (n < max)
                        memcpy(names[n].name, name, strlen(name) + 1); /* valid: fits */
                n++;
        }
        if (a)
                a->value = (uint32_t)n;
        return (int)n;
}

static int sim_backlight_read(Hw *hw, const char *name, uint32_t *ret_brightness, uint32_t *ret_max)
{
        HwSim *sim = hw->userdata;
        HwSimAccess *a;
        int r, slot;

        r = sim_begin(sim, HW_SIM_BACKLIGHT_READ, &a);
        slot = sim_backlight_slot(sim, name);
        if (a)
                a->reg = (int16_t)slot;
        if (r < 0)
                return r;
        if (slot < 0)
                return -ENOENT;
        if (a)
                a->value = sim->sys.backlights[slot].brightness;
        *ret_brightness = sim->sys.backlights[slot].brightness;
        *ret_max = sim->sys.backlights[slot].max;
        return 0;
}

static int sim_backlight_write(Hw *hw, const char *name, uint32_t brightness)
{
        HwSim *sim = hw->userdata;
        HwSimAccess *a;
        int r, slot;

        r = sim_begin(sim, HW_SIM_BACKLIGHT_WRITE, &a);
        slot = sim_backlight_slot(sim, name);
        if (a) {
                a->reg = (int16_t)slot;
                a->value = brightness;
        }
        if (r < 0)
                return r;
        if (slot < 0)
                return -ENOENT;
        if (brightness > sim->sys.backlights[slot].max)
                return -EINVAL; /* as the kernel answers */
        sim->sys.backlights[slot].brightness = brightness;
        return 0;
}

static void sim_hw_free(Hw *hw)
{
        hw_sim_unref(hw->userdata);
        free(hw);
}

static const HwOps hw_sim_ops = {
        .name = "sim",
        .io_read = sim_io_read,
        .io_write = sim_io_write,
        .vga_mem_read = sim_vga_mem_read,
        .vga_mem_write = sim_vga_mem_write,
        .cfg_read = sim_cfg_read,
        .cfg_write = sim_cfg_write,
        .mmio_read32 = sim_mmio_read32,
        .mmio_write32 = sim_mmio_write32,
        .rom_read = sim_rom_read,
        .firmware_read = sim_firmware_read,
        .bar_info = sim_bar_info,
        .child_export = sim_child_export,
        .child_import = sim_child_import,
        .delay_us = sim_delay_us,
        .vga_lock = sim_vga_lock,
        .vga_unlock = sim_vga_unlock,
        .vt_get_active = sim_vt_get_active,
        .vt_find_free = sim_vt_find_free,
        .vt_in_graphics = sim_vt_in_graphics,
        .vt_activate = sim_vt_activate,
        .backlight_list = sim_backlight_list,
        .backlight_read = sim_backlight_read,
        .backlight_write = sim_backlight_write,
        .free = sim_hw_free,
};

/* ---- construction ---------------------------------------------------------------- */

static void put_le16(uint8_t *p, uint16_t v)
{
        p[0] = (uint8_t)v;
        p[1] = (uint8_t)(v >> 8);
}

static void put_le32(uint8_t *p, uint32_t v)
{
        put_le16(p, (uint16_t)v);
        put_le16(p + 2, (uint16_t)(v >> 16));
}

static void sim_cfg_init(HwSim *sim)
{
        const DisplayDevice *d = &sim->device;
        uint8_t *c = sim->cfg, *m = sim->cfg_wmask;

        memset(c, 0, HW_SIM_CFG_SIZE);
        memset(m, 0, HW_SIM_CFG_SIZE);

        put_le16(c + 0x00, d->vendor_id);
        put_le16(c + 0x02, d->device_id);
        put_le16(c + 0x04, 0x0003); /* I/O and memory decoding on */
        m[0x04] = 0x47;             /* I/O, memory, bus master, parity */
        m[0x05] = 0x05;             /* SERR, INTx disable */
        c[0x08] = d->revision;
        c[0x09] = (uint8_t)d->class_code;
        c[0x0A] = (uint8_t)(d->class_code >> 8);
        c[0x0B] = (uint8_t)(d->class_code >> 16);
        m[0x0C] = 0xFF; /* cache line size */
        m[0x0D] = 0xFF; /* latency timer */

        put_le32(c + 0x10, 0xFD000008); /* BAR0: 16 MiB, prefetchable memory */
        m[0x13] = 0xFF;
        put_le32(c + 0x18, 0xFEB80000); /* BAR2: 512 KiB memory */
        m[0x1A] = 0xF8;
        m[0x1B] = 0xFF;

        put_le16(c + 0x2C, d->subvendor_id);
        put_le16(c + 0x2E, d->subdevice_id);
        m[0x3C] = 0xFF; /* interrupt line */
        c[0x3D] = 0x01; /* interrupt pin INTA */
        memset(m + 0x40, 0xFF, HW_SIM_CFG_SIZE - 0x40);
}

static void sim_default_device(DisplayDevice *d)
{
        *d = (DisplayDevice){
                .slot = "0000:00:02.0",
                .dev = 2,
                .vendor_id = 0x1234,
                .device_id = 0x1111,
                .subvendor_id = 0x1af4,
                .subdevice_id = 0x1100,
                .revision = 0x02,
                .class_code = 0x030000,
                .boot_vga = true,
                .verdict = VERDICT_FIRMWARE,
        };
}

static void sim_reset_access_state(HwSim *sim)
{
        sim->ar_flipflop_data = false;
        sim->dac_read_index = 0;
        sim->dac_write_index = 0;
        sim->dac_sub = 0;
        sim->dac_state = 0;
        memset(sim->dac_latch, 0, sizeof(sim->dac_latch));
        memset(sim->latch, 0, sizeof(sim->latch));
        sim->st01 = 0;
}

void hw_sim_wake(HwSim *sim)
{
        HwSimVgaState *st = &sim->st;

        st->msr = 0xC3;
        st->sr_index = st->cr_index = st->gr_index = 0;
        memset(st->sr, 0, sizeof(st->sr));
        memset(st->cr, 0, sizeof(st->cr));
        memset(st->gr, 0, sizeof(st->gr));
        memset(st->ar, 0, sizeof(st->ar));
        st->ar_index = 0; /* PAS clear: display off */
        st->dispi_index = 0;
        memset(st->dispi, 0, sizeof(st->dispi));
        if (sim->dispi_present)
                st->dispi[HW_SIM_DISPI_ID] = HW_SIM_DISPI_ID_VALUE;
        sim->feature_control = 0;
        sim->vga_enable = 0x01;
        sim_reset_access_state(sim);

        /* The kernel switched to VT 63 for the suspend and back for the resume. */
        sim->vt_pending = 0;
        if (sim->wake_vt >= 1 && sim->wake_vt <= HW_VT_MAX)
                sim->sys.vt_active = (uint8_t)sim->wake_vt;
        for (size_t i = 0; i < HW_SIM_BACKLIGHT_MAX; i++) {
                HwSimBacklight *b = &sim->sys.backlights[i];
                if (!b->name[0])
                        continue;
                if (sim->backlight_wake == HW_SIM_BACKLIGHT_WAKE_MAX)
                        b->brightness = b->max;
                else if (sim->backlight_wake == HW_SIM_BACKLIGHT_WAKE_VALUE)
                        b->brightness = MIN(sim->backlight_wake_value, b->max);
        }
}

/* xorshift32: a fixed, seedable pattern generator (never returns to 0 from non-zero). */
static uint32_t xorshift32(uint32_t *s)
{
        uint32_t x = *s;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        *s = x;
        return x;
}

void hw_sim_wake_full(HwSim *sim)
{
        uint32_t s = 0xDEADBEEF;

        hw_sim_wake(sim);
        for (unsigned p = 0; p < HW_SIM_PLANES; p++)
                for (uint32_t i = 0; i < HW_SIM_PLANE_SIZE; i++)
                        sim->st.planes[p][i] = (uint8_t)xorshift32(&s);
        for (unsigned e = 0; e < HW_SIM_DAC_ENTRIES; e++)
                for (unsigned c = 0; c < 3; c++)
                        sim->st.palette[e][c] = (uint8_t)(xorshift32(&s) & 0x3F);
}

void hw_sim_fill_planes(HwSim *sim, uint32_t seed)
{
        for (unsigned p = 0; p < HW_SIM_PLANES; p++) {
                uint32_t s = (seed ^ (0x9E3779B9u * (p + 1))) | 1;
                for (uint32_t i = 0; i < HW_SIM_PLANE_SIZE; i++)
                        sim->st.planes[p][i] = (uint8_t)xorshift32(&s);
        }
}

int hw_sim_new(const DisplayDevice *d, HwSim **ret_sim, Hw **ret_hw)
{
        _cleanup_(hw_sim_unrefp) HwSim *sim = NULL;
        Hw *hw = NULL;
        int r;

        if (!ret_sim)
                return -EINVAL;

        sim = calloc(1, sizeof(HwSim));
        if (!sim)
                return -ENOMEM;
        sim->n_ref = 1;

        if (d)
                sim->device = *d;
        else
                sim_default_device(&sim->device);
        sim->dispi_present = (sim->device.vendor_id == 0x1234 && sim->device.device_id == 0x1111) ||
                             (sim->device.vendor_id == 0x80ee && sim->device.device_id == 0xbeef);

        sim->dispi_fb = calloc(1, HW_SIM_DISPI_FB_SIZE);
        sim->mmio = calloc(HW_SIM_MMIO_SIZE / 4, sizeof(uint32_t));
        sim->firmware = calloc(1, HW_FIRMWARE_END);
        if (!sim->dispi_fb || !sim->mmio || !sim->firmware)
                return -ENOMEM;
        sim->mmio_bar = sim->device.vendor_id == 0x1234 ? 2 : 0;

        sim_cfg_init(sim);
        sim->st.dac_mask = 0xFF;
        sim->sys.vt_present = 1;
        sim->sys.vt_active = 1;
        sim->sys.vt_open = UINT64_C(1) << 1;
        hw_sim_wake(sim);

        if (ret_hw) {
                r = hw_sim_open(sim, &hw);
                if (r < 0)
                        return r;
                *ret_hw = hw;
        }
        *ret_sim = TAKE_PTR(sim);
        return 0;
}

HwSim *hw_sim_ref(HwSim *sim)
{
        if (sim)
                sim->n_ref++;
        return sim;
}

HwSim *hw_sim_unref(HwSim *sim)
{
        if (!sim || --sim->n_ref > 0)
                return NULL;
        free(sim->log);
        free(sim->rom);
        free(sim->firmware);
        free(sim->mmio);
        free(sim->dispi_fb);
        free(sim);
        return NULL;
}

int hw_sim_open(HwSim *sim, Hw **ret)
{
        Hw *hw;

        if (!sim || !ret)
                return -EINVAL;
        hw = calloc(1, sizeof(Hw));
        if (!hw)
                return -ENOMEM;
        hw->ops = &hw_sim_ops;
        hw->device = &sim->device;
        hw->userdata = hw_sim_ref(sim);
        *ret = hw;
        return 0;
}

int hw_sim_open_func(const DisplayDevice *d, void *userdata, Hw **ret)
{
        HwSim *sim = userdata;

        if (!sim)
                return -EINVAL;
        if (d) {
                if (!verdict_is_managed(d->verdict))
                        return -EPERM;
                if (!streq(d->slot, sim->device.slot))
                        return -ENODEV;
        }
        return hw_sim_open(sim, ret);
}

HwSim *hw_sim_from_hw(Hw *hw)
{
        if (!hw || hw->ops != &hw_sim_ops)
                return NULL;
        return hw->userdata;
}

const DisplayDevice *hw_sim_device(const HwSim *sim)
{
        return &sim->device;
}

HwSimVgaState *hw_sim_state(HwSim *sim)
{
        return &sim->st;
}

void hw_sim_set_dac_mask_reads_zero(HwSim *sim, bool b)
{
        sim->dac_mask_reads_zero = b;
}

/* ---- standard modes -------------------------------------------------------------- */

typedef struct SimModeTable {
        uint8_t msr;
        uint8_t sr[HW_SIM_SR_COUNT];
        uint8_t cr[HW_SIM_CR_COUNT];
        uint8_t gr[HW_SIM_GR_COUNT];
        uint8_t ar[HW_SIM_AR_COUNT];
} SimModeTable;

/* Register values of the standard IBM VGA BIOS modes (public mode-table facts). */
static const SimModeTable sim_mode3 = {
        .msr = 0x67,
        .sr = { 0x03, 0x00, 0x03, 0x00, 0x02 },
        .cr = { 0x5F, 0x4F, 0x50, 0x82, 0x55, 0x81, 0xBF, 0x1F, 0x00, 0x4F, 0x0D, 0x0E, 0x00,
                0x00, 0x00, 0x00, 0x9C, 0x8E, 0x8F, 0x28, 0x1F, 0x96, 0xB9, 0xA3, 0xFF },
        .gr = { 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x0E, 0x00, 0xFF },
        .ar = { 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x14, 0x07, 0x38, 0x39, 0x3A,
                0x3B, 0x3C, 0x3D, 0x3E, 0x3F, 0x0C, 0x00, 0x0F, 0x08, 0x00 },
};

static const SimModeTable sim_mode12 = {
        .msr = 0xE3,
        .sr = { 0x03, 0x01, 0x0F, 0x00, 0x06 },
        .cr = { 0x5F, 0x4F, 0x50, 0x82, 0x54, 0x80, 0x0B, 0x3E, 0x00, 0x40, 0x00, 0x00, 0x00,
                0x00, 0x00, 0x00, 0xEA, 0x8C, 0xDF, 0x28, 0x00, 0xE7, 0x04, 0xE3, 0xFF },
        .gr = { 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x0F, 0xFF },
        .ar = { 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x14, 0x07, 0x38, 0x39, 0x3A,
                0x3B, 0x3C, 0x3D, 0x3E, 0x3F, 0x01, 0x00, 0x0F, 0x00, 0x00 },
};

static void sim_load_palette(HwSim *sim)
{
        /* The 16 EGA colours (6-bit), then a 64-level ramp per channel and grey. */
        static const uint8_t ega[16][3] = {
                { 0x00, 0x00, 0x00 }, { 0x00, 0x00, 0x2A }, { 0x00, 0x2A, 0x00 }, { 0x00, 0x2A, 0x2A },
                { 0x2A, 0x00, 0x00 }, { 0x2A, 0x00, 0x2A }, { 0x2A, 0x15, 0x00 }, { 0x2A, 0x2A, 0x2A },
                { 0x15, 0x15, 0x15 }, { 0x15, 0x15, 0x3F }, { 0x15, 0x3F, 0x15 }, { 0x15, 0x3F, 0x3F },
                { 0x3F, 0x15, 0x15 }, { 0x3F, 0x15, 0x3F }, { 0x3F, 0x3F, 0x15 }, { 0x3F, 0x3F, 0x3F },
        };

        for (unsigned e = 0; e < HW_SIM_DAC_ENTRIES; e++) {
                if (e < 16) {
                        memcpy(sim->st.palette[e], ega[e], 3);
                        continue;
                }
                uint8_t level = (uint8_t)(e & 0x3F);
                unsigned ramp = (e >> 6) & 3; /* 0: grey (after the EGA colours), 1 red, 2 green, 3 blue */
                sim->st.palette[e][0] = (ramp == 0 || ramp == 1) ? level : 0;
                sim->st.palette[e][1] = (ramp == 0 || ramp == 2) ? level : (uint8_t)(level / 2);
                sim->st.palette[e][2] = (ramp == 0 || ramp == 3) ? level : (uint8_t)(level / 4);
        }
}

static void sim_load_mode(HwSim *sim, const SimModeTable *t)
{
        HwSimVgaState *st = &sim->st;

        st->msr = t->msr;
        memcpy(st->sr, t->sr, sizeof(st->sr));
        memcpy(st->cr, t->cr, sizeof(st->cr));
        memcpy(st->gr, t->gr, sizeof(st->gr));
        memcpy(st->ar, t->ar, sizeof(st->ar));
        st->ar_index = HW_SIM_AR_PAS;
        st->sr_index = st->cr_index = st->gr_index = 0;
        st->dac_mask = 0xFF;
        st->dispi[HW_SIM_DISPI_ENABLE] = 0;
        sim_load_palette(sim);
        sim_reset_access_state(sim);
}

void hw_sim_load_mode3(HwSim *sim)
{
        sim_load_mode(sim, &sim_mode3);
}

void hw_sim_load_mode12(HwSim *sim)
{
        sim_load_mode(sim, &sim_mode12);
}

int hw_sim_set_dispi_mode(HwSim *sim, uint16_t xres, uint16_t yres, uint16_t bpp)
{
        uint16_t *r = sim->st.dispi;

        if (!sim->dispi_present)
                return -EOPNOTSUPP;
        /* As a firmware mode set leaves it (enable transition, fixup), without the clear. */
        r[HW_SIM_DISPI_ENABLE] = 0;
        r[HW_SIM_DISPI_XRES] = xres;
        r[HW_SIM_DISPI_YRES] = yres;
        r[HW_SIM_DISPI_BPP] = bpp;
        r[HW_SIM_DISPI_VIRT_WIDTH] = r[HW_SIM_DISPI_X_OFFSET] = r[HW_SIM_DISPI_Y_OFFSET] = 0;
        r[HW_SIM_DISPI_ENABLE] = HW_SIM_DISPI_ENABLED | HW_SIM_DISPI_LFB_ENABLED;
        sim_dispi_fixup(sim);
        return 0;
}

unsigned hw_sim_dispi_fb_clears(const HwSim *sim)
{
        return sim->dispi_fb_clears;
}

uint8_t *hw_sim_dispi_fb_mut(HwSim *sim)
{
        return sim->dispi_fb;
}

const uint8_t *hw_sim_dispi_fb(const HwSim *sim)
{
        return sim->dispi_fb;
}

bool hw_sim_display_live(const HwSim *sim)
{
        const HwSimVgaState *st = &sim->st;

        if (sim_dispi_enabled(sim))
                return st->dispi[HW_SIM_DISPI_XRES] != 0 && st->dispi[HW_SIM_DISPI_YRES] != 0 &&
                       st->dispi[HW_SIM_DISPI_BPP] != 0;

        return (st->ar_index & HW_SIM_AR_PAS) && st->cr[CR_HDISP_END] != 0 &&
               !(st->sr[SR_CLOCKING] & 0x20) && (st->sr[SR_RESET] & 0x03) == 0x03;
}

/* ---- snapshots ------------------------------------------------------------------- */

int hw_sim_snapshot(HwSim *sim, HwSimVgaState **ret)
{
        HwSimVgaState *s = malloc(sizeof(HwSimVgaState));

        if (!s)
                return -ENOMEM;
        memcpy(s, &sim->st, sizeof(HwSimVgaState));
        *ret = s;
        return 0;
}

#define DIFF_REPORT_MAX 16

typedef struct DiffCtx {
        size_t n;
        Buffer *report;
} DiffCtx;

_printf_(2, 3) static void diff_note(DiffCtx *c, const char *fmt, ...)
{
        va_list ap;
        char line[160];

        c->n++;
        if (!c->report || c->n > DIFF_REPORT_MAX)
                return;
        va_start(ap, fmt);
        vsnprintf(line, sizeof(line), fmt, ap);
        va_end(ap);
        (void)buffer_printf(c->report, "%s\n", line);
}

static void diff_regs(DiffCtx *c, const char *name, const uint8_t *a, const uint8_t *b, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (a[i] != b[i])
                        diff_note(c, "%s[0x%02zx]: 0x%02x != 0x%02x", name, i, a[i], b[i]);
}

size_t hw_sim_state_diff(const HwSimVgaState *a, const HwSimVgaState *b, unsigned flags, Buffer *report)
{
        DiffCtx c = { .report = report };

        if (a->msr != b->msr)
                diff_note(&c, "MISC: 0x%02x != 0x%02x", a->msr, b->msr);
        diff_regs(&c, "SEQ", a->sr, b->sr, HW_SIM_SR_COUNT);
        diff_regs(&c, "CRTC", a->cr, b->cr, HW_SIM_CR_COUNT);
        diff_regs(&c, "GC", a->gr, b->gr, HW_SIM_GR_COUNT);
        diff_regs(&c, "ATTR", a->ar, b->ar, HW_SIM_AR_COUNT);
        if (a->ar_index != b->ar_index)
                diff_note(&c, "ATTR index: 0x%02x != 0x%02x", a->ar_index, b->ar_index);
        if (a->dac_mask != b->dac_mask)
                diff_note(&c, "DAC mask: 0x%02x != 0x%02x", a->dac_mask, b->dac_mask);
        for (unsigned e = 0; e < HW_SIM_DAC_ENTRIES; e++)
                if (memcmp(a->palette[e], b->palette[e], 3) != 0)
                        diff_note(&c, "DAC[0x%02x]: (0x%02x,0x%02x,0x%02x) != (0x%02x,0x%02x,0x%02x)", e,
                                  a->palette[e][0], a->palette[e][1], a->palette[e][2], b->palette[e][0],
                                  b->palette[e][1], b->palette[e][2]);
        for (unsigned i = 0; i < HW_SIM_DISPI_COUNT; i++)
                if (a->dispi[i] != b->dispi[i])
                        diff_note(&c, "DISPI[%u]: 0x%04x != 0x%04x", i, a->dispi[i], b->dispi[i]);
        for (unsigned p = 0; p < HW_SIM_PLANES; p++)
                for (uint32_t i = 0; i < HW_SIM_PLANE_SIZE; i++)
                        if (a->planes[p][i] != b->planes[p][i])
                                diff_note(&c, "plane %u [0x%04x]: 0x%02x != 0x%02x", p, i, a->planes[p][i],
                                          b->planes[p][i]);

        if (flags & HW_SIM_DIFF_INDEXES) {
                if (a->sr_index != b->sr_index)
                        diff_note(&c, "SEQ index: 0x%02x != 0x%02x", a->sr_index, b->sr_index);
                if (a->cr_index != b->cr_index)
                        diff_note(&c, "CRTC index: 0x%02x != 0x%02x", a->cr_index, b->cr_index);
                if (a->gr_index != b->gr_index)
                        diff_note(&c, "GC index: 0x%02x != 0x%02x", a->gr_index, b->gr_index);
                if (a->dispi_index != b->dispi_index)
                        diff_note(&c, "DISPI index: 0x%04x != 0x%04x", a->dispi_index, b->dispi_index);
        }

        if (report && c.n > DIFF_REPORT_MAX)
                (void)buffer_printf(report, "... %zu differences in all\n", c.n);
        return c.n;
}

/* ---- config, MMIO and ROM setters ------------------------------------------------ */

uint8_t *hw_sim_cfg(HwSim *sim)
{
        return sim->cfg;
}

uint8_t *hw_sim_cfg_wmask(HwSim *sim)
{
        return sim->cfg_wmask;
}

uint32_t *hw_sim_mmio(HwSim *sim)
{
        return sim->mmio;
}

void hw_sim_set_mmio_bar(HwSim *sim, unsigned bar)
{
        sim->mmio_bar = bar;
}

void hw_sim_set_mmio_hook(HwSim *sim, HwSimMmioHook hook, void *userdata)
{
        sim->mmio_hook = hook;
        sim->mmio_hook_userdata = userdata;
}

int hw_sim_set_rom(HwSim *sim, const void *data, size_t len)
{
        uint8_t *p = NULL;

        if (len > 0) {
                p = malloc(len);
                if (!p)
                        return -ENOMEM;
                memcpy(p, data, len);
        }
        free(sim->rom);
        sim->rom = p;
        sim->rom_size = len;
        return 0;
}

/* ---- the machine around the device ------------------------------------------------ */

uint8_t *hw_sim_firmware(HwSim *sim)
{
        return sim->firmware;
}

void hw_sim_set_hang_port(HwSim *sim, uint16_t port)
{
        sim->hang_port = port;
}

HwSimSystemState *hw_sim_system_state(HwSim *sim)
{
        return &sim->sys;
}

unsigned hw_sim_vt_active(const HwSim *sim)
{
        return sim->sys.vt_active;
}

void hw_sim_set_vt_switch_polls(HwSim *sim, uint32_t polls)
{
        sim->vt_switch_polls = polls;
}

void hw_sim_set_wake_vt(HwSim *sim, unsigned vt)
{
        sim->wake_vt = vt;
}

int hw_sim_add_backlight(HwSim *sim, const char *name, uint32_t brightness, uint32_t max)
{
        size_t len;

        if (!name)
                return -EINVAL;
        len = strnlen(name, HW_SIM_BACKLIGHT_NAME_SIZE);
        if (len == 0 || len >= HW_SIM_BACKLIGHT_NAME_SIZE || strchr(name, '/'))
                return -EINVAL;
        if (sim_backlight_slot(sim, name) >= 0)
                return -EEXIST;
        for (size_t i = 0; i < HW_SIM_BACKLIGHT_MAX; i++) {
                HwSimBacklight *b = &sim->sys.backlights[i];
                if (b->name[0])
                        continue;
                memcpy(b->name, name, len + 1);
                b->brightness = brightness;
                b->max = max;
                return 0;
        }
        return -ENOSPC;
}

int hw_sim_remove_backlight(HwSim *sim, const char *name)
{
        int slot = sim_backlight_slot(sim, name);

        if (slot < 0)
                return -ENOENT;
        memset(&sim->sys.backlights[slot], 0, sizeof(HwSimBacklight));
        return 0;
}

HwSimBacklight *hw_sim_backlight(HwSim *sim, const char *name)
{
        int slot = name ? sim_backlight_slot(sim, name) : -1;
        return slot < 0 ? NULL : &sim->sys.backlights[slot];
}

void hw_sim_set_backlight_wake(HwSim *sim, HwSimBacklightWake mode, uint32_t value)
{
        sim->backlight_wake = mode;
        sim->backlight_wake_value = value;
}
