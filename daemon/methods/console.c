/* SPDX-License-Identifier: MIT */
/* The "console" method: the VT switch around sleep. Save picks a free spare VT, commit moves
 * there and waits for it; restore (after every hardware method) moves back, bounded. */
#include "log.h"
#include "methods/console.h"

/* The VTs belong to the display the kernel console runs on: the boot VGA device, or the
 * only display device there is. */
static bool console_device_is_primary(const DisplayDevice *d)
{
        return d->boot_vga || !d->needs_vga_arbiter;
}

static bool console_no_vts(int r)
{
        return r == -ENOENT || r == -ENOTTY || r == -ENODEV || r == -ENXIO;
}

static bool console_vt_valid(unsigned vt)
{
        return vt >= 1 && vt <= HW_VT_MAX;
}

static int console_check(const uint8_t *payload, size_t len)
{
        if (!payload || len != CONSOLE_PAYLOAD_SIZE)
                return -EBADMSG;
        if (!console_vt_valid(payload[CONSOLE_OFF_ORIGINAL]) ||
            !console_vt_valid(payload[CONSOLE_OFF_SPARE]))
                return -EBADMSG;
        if (payload[CONSOLE_OFF_ORIGINAL] == payload[CONSOLE_OFF_SPARE])
                return -EBADMSG;
        return 0;
}

/* The active VT and a free one that differs from it. */
static int console_find_vts(Hw *hw, unsigned *ret_active, unsigned *ret_spare)
{
        unsigned active, spare;
        int r;

        r = hw_vt_get_active(hw, &active);
        if (r < 0)
                return r;
        r = hw_vt_find_free(hw, &spare);
        if (r < 0)
                return r;
        /* The active VT is free when nobody holds it open (no getty on it): then the kernel
         * names no other, and a switch to it would redraw nothing. */
        if (spare == active)
                return -EBUSY;
        *ret_active = active;
        *ret_spare = spare;
        return 0;
}

static int console_probe(Hw *hw, const DisplayDevice *d)
{
        unsigned active, spare;
        int r;

        if (!d)
                return -EINVAL;
        if (!console_device_is_primary(d))
                return 0;
        r = console_find_vts(hw, &active, &spare);
        if (console_no_vts(r)) {
                log_debug("%s: no virtual terminals (%s), no VT switch.", d->slot, STRERROR(r));
                return 0;
        }
        if (r == -EBUSY) {
                log_debug("%s: no free VT to move to, no VT switch.", d->slot);
                return 0;
        }
        return r < 0 ? r : 1;
}

/* Picks the VTs: the active one and a free spare. The switch itself is console_commit(). */
static int console_save(Hw *hw, const DisplayDevice *d, Buffer *out)
{
        unsigned original, spare;
        int r;

        if (!out)
                return -EINVAL;
        r = console_find_vts(hw, &original, &spare);
        if (r < 0)
                return r;
        r = buffer_append_u8(out, (uint8_t)original);
        if (r < 0)
                return r;
        return buffer_append_u8(out, (uint8_t)spare);
}

/* A second save before any restore (--save-now twice, or a sleep hook's save after a
 * manual one) finds the console on the first save's spare VT: a save of its own would take
 * that spare for the VT to return to (or find no other free VT and leave the console out),
 * and the restore would leave the user there. Still on old's spare: keep old's VT to return
 * to. */
static int console_save_again(Hw *hw, const DisplayDevice *d, const uint8_t *old, size_t old_len,
                              Buffer *out)
{
        unsigned active;
        int r;

        if (!d || !out)
                return -EINVAL;
        if (!console_device_is_primary(d) || console_check(old, old_len) < 0)
                return 0;
        r = hw_vt_get_active(hw, &active);
        if (r < 0)
                return console_no_vts(r) ? 0 : r;
        if (active != old[CONSOLE_OFF_SPARE])
                return 0; /* the user moved on since: a save of its own */
        log_debug(
                "%s: still on spare VT %u from a save that was never restored; returning to VT %u after the "
                "restore.",
                d->slot, active, old[CONSOLE_OFF_ORIGINAL]);
        r = buffer_append_u8(out, old[CONSOLE_OFF_ORIGINAL]);
        if (r < 0)
                return r;
        r = buffer_append_u8(out, (uint8_t)active);
        return r < 0 ? r : 1;
}

/* Moves to the spare VT for the sleep. */
static int console_commit(Hw *hw, const DisplayDevice *d, const uint8_t *payload, size_t len)
{
        unsigned original, spare, active;
        int r;

        r = console_check(payload, len);
        if (r < 0)
                return r;
        original = payload[CONSOLE_OFF_ORIGINAL];
        spare = payload[CONSOLE_OFF_SPARE];
        r = hw_vt_switch(hw, spare, HW_VT_SWITCH_TIMEOUT_USEC);
        if (r < 0) {
                /* Not there (in time): do not leave the machine on the spare VT should the
                 * switch still happen, since no restore will bring it back. */
                if (hw_vt_get_active(hw, &active) >= 0 && active != original)
                        (void)hw_vt_switch(hw, original, HW_VT_SWITCH_TIMEOUT_USEC);
                return r;
        }
        log_debug("%s: moved from VT %u to spare VT %u for the sleep.", d ? d->slot : "?", original, spare);
        return 0;
}

static int console_restore(Hw *hw, const DisplayDevice *d, const uint8_t *payload, size_t len)
{
        unsigned original, active;
        int r;

        r = console_check(payload, len);
        if (r < 0)
                return r;
        original = payload[CONSOLE_OFF_ORIGINAL];

        r = hw_vt_get_active(hw, &active);
        if (r < 0)
                return r;
        if (active == original)
                return 0; /* someone moved back already: nothing to switch */
        return hw_vt_switch(hw, original, HW_VT_SWITCH_TIMEOUT_USEC);
}

static int console_verify(Hw *hw, const DisplayDevice *d, const uint8_t *payload, size_t len, Buffer *report)
{
        unsigned original, active;
        int r;

        r = console_check(payload, len);
        if (r < 0)
                return r;
        original = payload[CONSOLE_OFF_ORIGINAL];
        r = hw_vt_get_active(hw, &active);
        if (r < 0)
                return r;
        if (active == original)
                return 0;
        if (report)
                (void)buffer_printf(report, "active VT = %u, expected %u (the VT before sleep)\n", active,
                                    original);
        return 1;
}

static int console_dump(const uint8_t *payload, size_t len, bool json, Buffer *out)
{
        int r;

        if (!out)
                return -EINVAL;
        r = console_check(payload, len);
        if (r < 0)
                return r;
        if (json)
                return buffer_printf(out, "{\"original_vt\":%u,\"spare_vt\":%u}",
                                     payload[CONSOLE_OFF_ORIGINAL], payload[CONSOLE_OFF_SPARE]);
        return buffer_printf(out,
                             "console: VT %u was active before sleep; moved to spare VT %u, back to VT %u "
                             "after the restore\n",
                             payload[CONSOLE_OFF_ORIGINAL], payload[CONSOLE_OFF_SPARE],
                             payload[CONSOLE_OFF_ORIGINAL]);
}

const MethodOps method_console = {
        .name = "console",
        .id = CONSOLE_METHOD_ID,
        .version = CONSOLE_METHOD_VERSION,
        .probe = console_probe,
        .save = console_save,
        .save_again = console_save_again,
        .commit = console_commit,
        .check = console_check,
        .restore = console_restore,
        .verify = console_verify,
        .dump = console_dump,
};
