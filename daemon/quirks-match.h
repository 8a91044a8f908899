/* SPDX-License-Identifier: MIT */
/* Which quirk sections apply to a display device of this machine, why (the value each Match*
 * line was tested on), and what they add up to. Pure logic over a QuirkDb, the DMI identity
 * and the device's identity. */
#pragma once

#include "devices.h"
#include "dmi.h"
#include "quirks.h"

/* Sections kept per device (more are counted, not kept). */
#define QUIRK_HITS_MAX 32
/* Method names one device's quirks may add or remove, implied ones included. */
#define QUIRK_RESULT_METHODS_MAX 16

typedef struct QuirkResult {
        size_t n_hits; /* sections that apply, in load order (at most QUIRK_HITS_MAX kept) */
        const QuirkSection *hits[QUIRK_HITS_MAX];
        size_t n_hits_dropped;
        /* A section with ResumesUnaided=yes: then no attribute that asks for BIOS help
         * (VBE*, ACPIVideoFlags, DPMS*, BacklightReset, RadeonLight) applies, from any section. */
        const QuirkSection *unaided_by;
        int values[_QUIRK_ATTR_MAX];                /* effective value; -1 = no section sets it */
        const QuirkSection *from[_QUIRK_ATTR_MAX];  /* the section it comes from */
        const char *add_methods[QUIRK_RESULT_METHODS_MAX]; /* explicit and implied (vbe, radeon) */
        size_t n_add_methods;
        const char *remove_methods[QUIRK_RESULT_METHODS_MAX];
        size_t n_remove_methods;
} QuirkResult;

/* Whether one Match* line holds for the machine (dmi) and device d. */
bool quirk_match_test(const QuirkMatch *m, const DmiInfo *dmi, const DisplayDevice *d);

/* What m was tested on, for a person: the modalias, the field's value, the device's ID or
 * driver ("" when the machine has none). */
void quirk_match_subject(const QuirkMatch *m, const DmiInfo *dmi, const DisplayDevice *d, char *buf, size_t size);

/* Whether section s has a Match* line about the device (MatchPCIID=, MatchDriver=). */
bool quirk_section_names_device(const QuirkSection *s);

/* Whether s applies to d: every Match* line holds; a section that names no device applies
 * only to the primary display device (the boot VGA one, whose video BIOS the firmware runs). */
bool quirk_section_applies(const QuirkSection *s, const DmiInfo *dmi, const DisplayDevice *d, bool primary);

/* Every section of db that applies to d, merged in load order: a later section's value wins,
 * but ACPIVideoFlags= s3_bios and s3_mode add up (none clears); AddMethods= and RemoveMethods=
 * accumulate (the later of the two wins for one method). */
void quirk_resolve(const QuirkDb *db, const DmiInfo *dmi, const DisplayDevice *d, bool primary, QuirkResult *ret);

/* The method a set attribute asks for by name ("vbe" for VBEPost=yes, ...), or NULL. */
const char *quirk_attr_implied_method(QuirkAttr a);
