/* SPDX-License-Identifier: MIT */
/* The video BIOS session: a sequence of BIOS calls (INT 10h, or the POST entry) run in
 * libx86emu inside a child process that the caller kills at a wall deadline, every call
 * with its own instruction budget; all port, memory and config access goes through hw/. */
#pragma once

#include "hw/hw.h"

/* The emulated machine. Low memory (interrupt vectors, BIOS data area) and the video BIOS
 * are private copies of the real ones: what the BIOS writes there never reaches the machine.
 * The VGA window (0xA0000-0xBFFFF), the legacy ports and the device's BARs are the real
 * device, through hw/. */
#define VBE_EMU_STUB_ADDR 0x7C00u  /* INT 10h / far call, then HLT: where a call starts */
#define VBE_EMU_STACK_SEG 0x1000u  /* SS:SP = 1000:FFFE */
#define VBE_EMU_BUF_SEG 0x2000u    /* the buffer calls pass in ES:DI or ES:BX */
#define VBE_EMU_BUF_SIZE 0x10000u
#define VBE_EMU_ROM_BASE 0xC0000u
#define VBE_EMU_ROM_MAX 0x30000u   /* up to 0xEFFFF */
#define VBE_EMU_SYS_BASE 0xF0000u  /* the system BIOS, up to HW_FIRMWARE_END */

/* Per call, unless the caller says otherwise. A VBE call on the BIOSes measured here takes
 * well under a million instructions; a POST a few million. */
#define VBE_EMU_DEFAULT_INSTRUCTIONS 50000000ULL
#define VBE_EMU_DEFAULT_CALL_USEC (2u * 1000u * 1000u)

typedef struct VbeEmuRegs {
        uint32_t eax, ebx, ecx, edx, esi, edi;
        uint16_t es;
        uint32_t eflags; /* out only */
} VbeEmuRegs;

typedef enum VbeEmuKind {
        VBE_EMU_INT10, /* INT 10h with the given registers */
        VBE_EMU_POST,  /* far call to C000:0003 with the given registers (AX = bus/devfn, DL = 0x80) */
} VbeEmuKind;

typedef struct VbeEmuCall {
        VbeEmuKind kind;
        VbeEmuRegs in;
        const uint8_t *buf_in; /* copied to VBE_EMU_BUF_SEG:0 before the call; may be NULL */
        uint32_t buf_in_len;
        uint32_t buf_out_len; /* bytes of the buffer handed back after the call */
        /* If not 0: the AX the call must return (0x004F for a VBE call that succeeded); the
         * session stops after a call that returns another (-EPROTO). */
        uint16_t expect_ax;
} VbeEmuCall;

typedef struct VbeEmuResult {
        VbeEmuRegs out;
        uint8_t *buf; /* buf_out_len bytes (malloc'ed), NULL if none were asked for */
        uint64_t instructions;
        uint64_t usec;
} VbeEmuResult;

typedef struct VbeEmuOptions {
        uint64_t instructions; /* budget per call; 0 = VBE_EMU_DEFAULT_INSTRUCTIONS */
        uint64_t call_usec;    /* wall deadline per call (and for the set-up); 0 = the default */
        /* Hand back the emulated first MiB as the session left it (HW_FIRMWARE_END bytes in
         * *ret_memory; the VGA window part is zeros). Tests use it to make the shadow image
         * a POSTed BIOS leaves; nothing of it is ever written to the machine. */
        uint8_t **ret_memory;
} VbeEmuOptions;

/* What the session learned about the BIOS and what it did around the calls. */
typedef struct VbeEmuStats {
        uint32_t rom_size;
        unsigned dropped_ports; /* accesses to ports hw/ does not reach (dropped, reads all ones) */
        uint16_t first_dropped_port;
        unsigned filtered_ports; /* POST codes (0x80-0x87) and the SMI command port (0xB2-0xB3) */
        unsigned other_interrupts; /* software interrupts other than the video ones, answered "unsupported" */
} VbeEmuStats;

/* Runs calls[0..n) in order in one emulated machine, stopping at the first call that does not
 * return normally. results[i] is filled for every call that returned (*ret_done of them).
 * Returns 0 when all returned, else a negative errno, with what happened noted on hw
 * (hw_note_failure(): the call, its registers, where it stopped):
 *   -ENOEXEC   no video BIOS in the shadow at 0xC0000 (no 55 AA signature)
 *   -ETIMEDOUT a call (or the set-up) ran past its wall deadline; the child was killed
 *   -E2BIG     a call used up its instruction budget
 *   -EFAULT    the BIOS reached memory the emulated machine does not have
 *   -EILSEQ    a CPU exception, or the BIOS stopped somewhere else than at the return stub
 *   -EPROTO    a call returned another AX than its expect_ax (its result is filled)
 *   -EIO       the child died, or a hardware access failed
 * Only on x86 with libx86emu (-EOPNOTSUPP otherwise). The caller holds the VGA arbiter. */
int vbe_emu_run(Hw *hw, const DisplayDevice *d, const VbeEmuCall *calls, size_t n, const VbeEmuOptions *opts,
                VbeEmuResult *results, size_t *ret_done, VbeEmuStats *ret_stats);

void vbe_emu_results_done(VbeEmuResult *results, size_t n);

/* Whether this build can run a video BIOS at all. */
bool vbe_emu_available(void);
