/* SPDX-License-Identifier: MIT */
/* The method interface: one save/restore technique (vga, pci-config, console, ...).
 * A method writes only the registers its own code names; a state file supplies values. */
#pragma once

#include "buffer.h"
#include "hw/hw.h"

/* Kinds of display mode (MethodOps.modes). */
#define METHOD_MODE_VGA 0x1u    /* text and VGA graphics modes: the VGA registers define them */
#define METHOD_MODE_LINEAR 0x2u /* a linear frame buffer mode: VESA, Bochs dispi, a UEFI GOP mode */

typedef struct MethodOps {
        const char *name; /* stable, used in config and state dumps: "vga", "pci-config" */
        uint16_t id;      /* stable id stored in state files */
        uint16_t version; /* payload format version */

        /* Optional, pure: whether the method belongs in d's plan at all, from its identity
         * alone (no hardware access), for --status and the passes alike. NULL: every managed
         * device that is a display of its own. */
        bool (*applies)(const DisplayDevice *d);
        /* The method's state belongs to the PCI function itself (its config space), so it
         * also runs on a function that is part of another function's display engine
         * (DisplayDevice.engine_slot); every other method runs only on the engine's own. */
        bool function_local;
        /* Not in a default plan (no Methods=) unless the device's console runs a mode
         * (METHOD_MODE_*) that no other planned method brings back and this one's modes()
         * does: the video BIOS is called only where the screen would stay dark without it,
         * or where the configuration names the method. */
        bool on_demand;
        /* > 0 applies to this device, 0 does not, < 0 error. May read, never writes. */
        int (*probe)(Hw *hw, const DisplayDevice *d);
        /* Appends the payload to out. Changes nothing on the machine. */
        int (*save)(Hw *hw, const DisplayDevice *d, Buffer *out);
        /* Optional: the save while this device's previous save was never restored (old is
         * that state file's section of this method, checked): > 0 with a payload appended to
         * out that still leads back where old did (the console, still on the spare VT old
         * moved to, keeps old's VT to return to), 0 when old does not apply (probe and save
         * then run as usual; nothing appended), < 0 error. Changes nothing on the machine. */
        int (*save_again)(Hw *hw, const DisplayDevice *d, const uint8_t *old, size_t old_len, Buffer *out);
        /* Optional: the change a save makes to the machine (the console's move to a spare
         * VT), from the payload save() just produced. The engine first records that payload
         * as the device's undo file, so a pass killed during or after the change can be
         * rolled back with restore(). On failure it leaves nothing changed if it can. */
        int (*commit)(Hw *hw, const DisplayDevice *d, const uint8_t *payload, size_t len);
        /* Validates a payload without any hardware access: exact length, sane values.
         * Called for every section before the first restore write. */
        int (*check)(const uint8_t *payload, size_t len);
        /* Writes the payload back. Only called after check() accepted it. A failure it can
         * name (register, expected, seen) is also noted on the handle (hw_note_failure()). */
        int (*restore)(Hw *hw, const DisplayDevice *d, const uint8_t *payload, size_t len);
        /* Reads back and compares; returns the number of mismatches (>= 0) or < 0 error.
         * Mismatch descriptions are appended to report (may be NULL). */
        int (*verify)(Hw *hw, const DisplayDevice *d, const uint8_t *payload, size_t len, Buffer *report);
        /* Optional, for --test-restore: puts the device in the state a wake from S3 leaves it
         * in, as far as that is safe without sleeping (the screen off, palette and DAC mask
         * lost), writing only registers its saved state holds. The restore follows at once. */
        int (*disturb)(Hw *hw, const DisplayDevice *d);
        /* Optional: the kinds of display mode (METHOD_MODE_*) this method brings back on d,
         * from the device's identity alone, without hardware access. A device whose current
         * mode no planned method brings back is named before sleep (survey.h). */
        unsigned (*modes)(const DisplayDevice *d);
        /* Human (json = false) or JSON object (json = true) description of a payload. */
        int (*dump)(const uint8_t *payload, size_t len, bool json, Buffer *out);
} MethodOps;

/* All methods built in, in default plan order (save order; restore runs in reverse). */
extern const MethodOps *const method_table[];
extern const size_t method_table_size;

const MethodOps *method_by_name(const char *name);
/* The same for the n bytes at name (a word inside a longer string). Exact, case-sensitive. */
const MethodOps *method_by_name_len(const char *name, size_t n);
/* For "did you mean": the built-in method name closest to the n bytes at word if it is
 * a likely typo (see suggest.h), else NULL. */
const char *method_closest_name(const char *word, size_t n);
/* Writes the built-in method names in table order, separated by ", ", to buf (truncated
 * to size, always terminated). */
void method_names_join(char *buf, size_t size);
const MethodOps *method_by_id(uint16_t id);
