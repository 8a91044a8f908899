/* SPDX-License-Identifier: MIT */
/* The table of built-in methods in default plan order, lookups by name and id, and the
 * method names for messages ("did you mean"). Save runs in table order; restore in reverse. */
#include "methods/backlight.h"
#include "methods/bochs.h"
#include "methods/console.h"
#include "methods/dpms.h"
#include "methods/intel.h"
#include "methods/method.h"
#include "methods/pci-config.h"
#include "methods/radeon.h"
#include "methods/vbe.h"
#include "methods/vga.h"
#include "suggest.h"

/* Save order; restore runs it backwards and stops at the first failure:
 *   - pci-config comes back first: decoding and BARs, without which no register is reached;
 *   - intel next, on the Intel Gen2-Gen4 engines it applies to: the MMIO BAR that
 *     pci-config just brought back reaches the PLLs, pipes, planes, ports and the panel,
 *     and the VGA control register that lets the VGA plane scan out. It comes before vga
 *     (it is saved after it, on the spare VT): the VGA registers and planes are only seen
 *     once a pipe clocked by a running PLL scans them out, as the UMS driver restored the
 *     engine first and the VGA state after ([K], [D] in reference/intel-ums-registers.md);
 *   - bochs next (it and intel never apply to the same device): the Bochs dispi mode (QEMU's std VGA, VirtualBox) that a firmware GOP driver
 *     or a VBE mode set programmed. It comes back before vga because enabling a dispi mode
 *     rewrites VGA registers of its own (QEMU's vbe_update_vgaregs(): graphics mode, CRTC
 *     offset, display end, line compare...): vga then writes the values saved in that mode
 *     over them, so both read back as saved. Saved disabled, it disables a mode a firmware
 *     may have set on wake, so that the vga method's text mode is what shows;
 *   - vbe before bochs (after intel, which it does not apply with unless named): the video
 *     BIOS sets the saved VESA mode and puts back its saved state (after a POST, where one is
 *     allowed), then the native methods write their registers over what the BIOS set. It
 *     joins a default plan only for a console mode nothing native brings back (vesafb on
 *     a chip without a native method);
 *   - radeon after vbe (it applies only to pre-AVIVO ATI chips, never with intel or bochs):
 *     the CRTC enable and sync bits, the DAC's power and the LVDS panel's PLL, power and
 *     backlight. The video BIOS (where planned) sets the mode first and may switch outputs
 *     as it likes; radeon then writes the saved power state over it, panel light last, and
 *     comes before vga because the VGA registers are only seen through a running CRTC and a
 *     powered DAC or panel;
 *   - vga next: registers, palette and planes (saved after the console switch below, so
 *     they hold the spare VT's text console, the state the kernel expects to find);
 *   - dpms then makes sure the screen is on, whatever vga wrote or the BIOS left;
 *   - console: the switch back to the VT of before the sleep happens only once the
 *     hardware is programmed, so the kernel redraws the text console (and an X server in
 *     UMS mode re-programs its mode on EnterVT) onto working hardware. The kernel's own
 *     resume switch ran before user space, onto still-reset hardware (vm-notes, "The VT
 *     switch trap"). Switching back over hardware that failed to restore is worse than
 *     staying: vgacon would copy the text through the dead VGA memory (measured in QEMU),
 *     hence the stop at the first failure. On save, console goes first among the display
 *     methods: they save the spare VT.
 *   - backlight last: the brightness does not need the VT, and a failure to set it must not
 *     keep the console from coming back. */
const MethodOps *const method_table[] = {
        &method_backlight,
        &method_console,
        &method_dpms,
        &method_vga,
        &method_bochs,
        &method_radeon,
        &method_vbe,
        &method_intel,
        &method_pci_config,
};
const size_t method_table_size = ELEMENTSOF(method_table);

const MethodOps *method_by_name(const char *name)
{
        return name ? method_by_name_len(name, strlen(name)) : NULL;
}

const MethodOps *method_by_name_len(const char *name, size_t n)
{
        for (size_t i = 0; i < method_table_size; i++) {
                const MethodOps *ops = method_table[i];

                if (ops && strlen(ops->name) == n && memcmp(ops->name, name, n) == 0)
                        return ops;
        }
        return NULL;
}

const char *method_closest_name(const char *word, size_t n)
{
        const char *names[ELEMENTSOF(method_table)];

        for (size_t i = 0; i < method_table_size; i++)
                names[i] = method_table[i] ? method_table[i]->name : NULL;
        return suggest_closest(word, n, names, method_table_size);
}

void method_names_join(char *buf, size_t size)
{
        size_t len = 0;

        if (size == 0)
                return;
        buf[0] = '\0';
        for (size_t i = 0; i < method_table_size && len < size; i++) {
                int k;

                if (!method_table[i])
                        continue;
                k = snprintf(buf + len, size - len, "%s%s", len ? ", " : "", method_table[i]->name);
                if (k < 0)
                        break;
                len += (size_t)k;
        }
}

const MethodOps *method_by_id(uint16_t id)
{
        for (size_t i = 0; i < method_table_size; i++)
                if (method_table[i] && method_table[i]->id == id)
                        return method_table[i];
        return NULL;
}
