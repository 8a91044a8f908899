/* SPDX-License-Identifier: MIT */
/* The display devices of a machine (PCI class 0x03) and how they are discovered.
 * Discovery goes through a PciSource: libpciaccess for real, a directory tree in tests. */
#pragma once

#include "macro.h"

#define SLOT_MAX 16 /* "dddd:bb:dd.f" + NUL */
#define DRIVER_NAME_MAX 64
#define DRM_CARDS_MAX 4

typedef enum Verdict {
        VERDICT_UNKNOWN = 0,
        VERDICT_KMS,      /* a DRM driver with modesetting owns it: hand off, no I/O */
        VERDICT_UMS,      /* DRM driver bound without modesetting: managed */
        VERDICT_FIRMWARE, /* no driver, or only a firmware console: managed */
        VERDICT_FOREIGN,  /* a driver that does its own suspend (nvidia, vfio-pci): left alone */
        VERDICT_UNUSABLE, /* would be managed, but cannot be (no root, lockdown, ...) */
        _VERDICT_MAX,
} Verdict;

const char *verdict_to_string(Verdict v);
/* Managed = umsrestore saves and restores it. */
static inline bool verdict_is_managed(Verdict v)
{
        return v == VERDICT_UMS || v == VERDICT_FIRMWARE;
}

typedef struct DisplayDevice {
        char slot[SLOT_MAX]; /* "0000:00:02.0" */
        uint16_t domain;
        uint8_t bus, dev, func;
        uint16_t vendor_id, device_id;
        uint16_t subvendor_id, subdevice_id;
        uint8_t revision;
        uint32_t class_code; /* 24 bits: class, subclass, prog-if */
        bool boot_vga;
        char driver[DRIVER_NAME_MAX]; /* bound kernel driver, "" if none */
        unsigned n_drm_cards;
        char drm_cards[DRM_CARDS_MAX][16]; /* "card0" */
        unsigned n_connectors;              /* DRM connectors over all cards */
        bool has_control_node;              /* a "controlD*" node: only modesetting drivers had one */

        /* Filled by classify. */
        Verdict verdict;
        char reason[256];
        bool needs_vga_arbiter; /* more than one display device: route legacy VGA through the arbiter */
        /* A function that is part of another function's display engine (the second function
         * of an Intel IGD, class 0x0380, at 00:02.1): the slot of that function 0, else "". */
        char engine_slot[SLOT_MAX];

        /* Filled by the survey from the configuration (and, where it applies, the quirk
         * database): what is asked of the methods for this device beyond its plan. Methods
         * read these; no method reads the configuration itself. */
        struct DeviceSettings {
                bool vbe_post;  /* VBEPost=: the vbe method may POST the video BIOS on restore */
                bool vbe_named; /* the vbe method was asked for by name (Methods=), so it runs
                                 * whatever mode the device is in */
                bool uefi_boot; /* the machine booted through UEFI (/sys/firmware/efi): the
                                 * shadow at 0xC0000 holds no video BIOS unless a
                                 * compatibility module put one there */
                /* From the quirk database only (quirks-match.h); all off on a machine no quirk
                 * names. */
                bool vbe_mode;        /* VBEMode=: save the VBE mode, set it back on restore */
                bool vbe_state;       /* VBEState=: the video BIOS's own state save/restore */
                bool dpms_on;         /* DPMSOn=: force the display on after resume */
                bool dpms_suspend;    /* DPMSSuspend=: DPMS suspend before sleep */
                bool backlight_reset; /* BacklightReset=: write the brightness back after resume */
                bool radeon_light;    /* RadeonLight=: panel light and DAC off before sleep, on after */
                unsigned acpi_video_flags; /* ACPIVideoFlags= (QUIRK_ACPI_*); the survey applies it
                                            * machine-wide from the primary device's quirks */
        } settings;
} DisplayDevice;

typedef struct DeviceList {
        DisplayDevice *devices;
        size_t n;
} DeviceList;

DeviceList *device_list_free(DeviceList *l);
DEFINE_TRIVIAL_CLEANUP_FUNC(DeviceList *, device_list_free);

/* Identity of one PCI function as a PciSource reports it (no sysfs details yet). */
typedef struct PciIdentity {
        uint16_t domain;
        uint8_t bus, dev, func;
        uint16_t vendor_id, device_id, subvendor_id, subdevice_id;
        uint8_t revision;
        uint32_t class_code;
        bool boot_vga;
} PciIdentity;

/* Lists display-class (0x03xxxx) PCI functions. Returns the number found (>= 0) and a
 * malloc'ed array in *ret, or a negative errno. */
typedef int (*PciSourceFunc)(const char *root, PciIdentity **ret);

/* Enumeration from ROOT/sys/bus/pci/devices/<slot>/{class,vendor,device,...} files. */
int pci_source_sysfs(const char *root, PciIdentity **ret);

/* Discovers display devices: identity from the source, then driver, DRM cards and
 * connectors from ROOT/sys. Devices are sorted by slot. */
int devices_discover(const char *root, PciSourceFunc source, DeviceList **ret);

/* Finds a device by slot; accepts "00:02.0" as short for "0000:00:02.0". */
DisplayDevice *device_list_find(DeviceList *l, const char *slot);

/* "0000:00:02.0" */
void pci_format_slot(char buf[static SLOT_MAX], uint16_t domain, uint8_t bus, uint8_t dev, uint8_t func);
/* "0000:00:02.0" or "00:02.0", strictly (fixed-width hex fields, either case; see devices.c).
 * -EINVAL for anything else; the outputs are written only on success. */
int pci_parse_slot(const char *s, uint16_t *ret_domain, uint8_t *ret_bus, uint8_t *ret_dev, uint8_t *ret_func);
