/* SPDX-License-Identifier: MIT */
/* The survey: discover → classify → plan, done once for every caller (the engine's passes,
 * the daemon's rescans, --status). Pure logic over sysfs and the configuration. */
#pragma once

#include "classify.h"
#include "conf.h"
#include "devices.h"
#include "methods/method.h"
#include "quirks-match.h"

#define PLAN_MAX 8

/* What the survey needs to know of the machine and of the administrator. */
typedef struct SurveyConfig {
        const char *root;         /* sysfs/procfs prefix; NULL = real root */
        PciSourceFunc pci_source; /* how PCI devices are listed */
        ClassifyEnv classify_env;
        const Config *config;     /* umsrestore.conf: methods, include/exclude; NULL = defaults */
        const char *only_device;  /* --device SLOT or NULL */
        bool console_switch;      /* false: the console method is left out of every plan */
        const QuirkDb *quirks;    /* the quirk database; NULL = none */
} SurveyConfig;

typedef enum SurveyRole {
        SURVEY_MANAGED,     /* umsrestore acts on it */
        SURVEY_HANDS_OFF,   /* kms, foreign or unusable: never touched */
        SURVEY_EXCLUDED,    /* could be managed, the configuration says no */
        SURVEY_NOT_CHOSEN,  /* another device was asked for with --device */
} SurveyRole;

typedef struct SurveyDevice {
        DisplayDevice device; /* identity, driver, verdict and its reason */
        SurveyRole role;
        size_t n_plan;        /* the methods that run for it, in save order (0 unless managed) */
        const MethodOps *plan[PLAN_MAX];
        /* The kind of mode it runs now as the console says (METHOD_MODE_*; 0 = not known), and,
         * for a managed device, whether a mode is known that no planned method brings back:
         * then mode_note says so for a person (before sleep: --status, the save's warning). */
        unsigned mode;
        bool mode_unrestored;
        char mode_note[320];
        /* The quirk sections that apply to it and what they add up to (managed devices and
         * hands-off ones alike: --quirks shows both), and the methods they ask for by name that
         * this build does not have ("vbe, radeon" or ""). */
        bool primary;
        QuirkResult quirks;
        char quirk_methods_missing[128];
} SurveyDevice;

typedef struct Survey {
        char console[128]; /* classify_console(): "vgacon", "efifb", ... or "" */
        DmiInfo dmi;       /* the machine's DMI identity, ROOT/sys/class/dmi/id */
        /* kernel.acpi_video_flags to set around sleep (QUIRK_ACPI_*): the quirks of the primary
         * managed device, 0 when none asks; acpi_from is the section that set it. */
        unsigned acpi_video_flags;
        const QuirkSection *acpi_from;
        SurveyDevice *devices;
        size_t n;
        size_t n_managed;
        size_t n_kms;
        size_t n_unusable;
} Survey;

Survey *survey_free(Survey *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(Survey *, survey_free);

/* Lists, classifies and plans every PCI display device. -ENODEV if only_device is set and
 * names no display device; other negative errnos when the devices cannot be listed. */
int survey_run(const SurveyConfig *c, Survey **ret);

/* Whether the configuration lets umsrestore manage d (Include=/Exclude=/Manage=). */
bool survey_device_allowed(const SurveyConfig *c, const DisplayDevice *d);

/* Fills d->settings: all off, then what the quirks q set (q may be NULL), then what the
 * configuration sets (it wins), and the machine's (UEFI). */
void survey_device_settings(const SurveyConfig *c, const QuirkResult *q, DisplayDevice *d);

/* The methods that will run for d, in save order (the method table's order). A configured
 * Methods= list selects from the table; without one, the methods that apply by default, with
 * the quirks' AddMethods= (and the methods their attributes need) added and RemoveMethods=
 * taken out (q may be NULL); an on-demand method joins a default plan when a quirk names it,
 * or for a mode, METHOD_MODE_*, that nothing else in it brings back. Returns the count; 0 for
 * a device not managed. */
size_t survey_plan(const SurveyConfig *c, const QuirkResult *q, const DisplayDevice *d, unsigned mode,
                   const MethodOps *ret[static PLAN_MAX]);

/* The method table's names (for quirk_db_load()). */
QuirkMethodNames survey_method_names(void);

/* The plan as text, "console, dpms, vga, pci-config" ("" when nothing runs). */
void survey_plan_names(const SurveyDevice *d, char *buf, size_t size);

const char *survey_role_to_string(SurveyRole r);

/* The kind of mode (METHOD_MODE_*) d runs as the console says: a firmware linear frame buffer
 * console (vesafb, efifb, simpledrm) means a linear mode, vgacon and vga16fb a VGA mode, on
 * the boot VGA device (or the only display device); 0 when the console says nothing of d. */
unsigned survey_console_mode(const char *console, const DisplayDevice *d, size_t n_devices);
const char *survey_mode_to_string(unsigned mode);

/* The note for sd, whose mode (sd->mode) no method that runs for it brings back; names the
 * built-in method that would, if one does. */
void survey_mode_note(const SurveyDevice *sd, const char *console, char *buf, size_t size);
