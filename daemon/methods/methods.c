/* SPDX-License-Identifier: MIT */
/* The table of built-in methods in default plan order, and lookups by name and id.
 * Save runs in table order; restore runs in reverse. */
#include "methods/method.h"
#include "methods/pci-config.h"
#include "methods/vga.h"

/* Save order. Restore runs backwards, so pci-config (decoding, BARs) comes back first
 * and vga (registers, palette, planes) after it. */
const MethodOps *const method_table[] = {
        &method_vga,
        &method_pci_config,
};
const size_t method_table_size = ELEMENTSOF(method_table);

const MethodOps *method_by_name(const char *name)
{
        for (size_t i = 0; i < method_table_size; i++)
                if (method_table[i] && streq(method_table[i]->name, name))
                        return method_table[i];
        return NULL;
}

const MethodOps *method_by_id(uint16_t id)
{
        for (size_t i = 0; i < method_table_size; i++)
                if (method_table[i] && method_table[i]->id == id)
                        return method_table[i];
        return NULL;
}
