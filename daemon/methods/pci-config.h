/* SPDX-License-Identifier: MIT */
/* The "pci-config" method: the device's standard PCI config header, plus the legacy
 * backlight brightness byte (LBB, config 0xF4) on Intel Gen2-Gen5 display devices. */
#pragma once

#include "methods/method.h"

/* Payload, version 1:
 *   u8   flags          PCI_CONFIG_FLAG_* (no other bits)
 *   u8   header[64]     config space 0x00-0x3F as read at save time
 *   u8   lbb            config 0xF4, only with PCI_CONFIG_FLAG_LBB
 * Restore writes only the command register, BAR0-5, the ROM BAR, cache line size,
 * latency timer, interrupt line and LBB, and only those that differ from the device;
 * the command register goes last so that decoding is enabled after the BARs are back. */
#define PCI_CONFIG_HEADER_SIZE 64u
#define PCI_CONFIG_FLAG_LBB 0x01u
#define PCI_CONFIG_LBB_OFFSET 0xF4u

extern const MethodOps method_pci_config;

/* Whether a device has the Intel LBB byte: vendor 0x8086 and one of the Gen2-Gen5
 * integrated display device IDs. */
bool pci_config_has_lbb(uint16_t vendor_id, uint16_t device_id);
