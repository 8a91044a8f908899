/* SPDX-License-Identifier: MIT */
/* Owns reading the DMI identity from ROOT/sys/class/dmi/id: which files, and how a value is
 * trimmed. Pure file access, no hardware. */
#include <ctype.h>

#include "dmi.h"
#include "sysfs.h"

#define DMI_DIR "sys/class/dmi/id"

static const char *const field_files[_DMI_FIELD_MAX] = {
        [DMI_SYS_VENDOR] = "sys_vendor",       [DMI_PRODUCT_NAME] = "product_name",
        [DMI_PRODUCT_VERSION] = "product_version", [DMI_BOARD_VENDOR] = "board_vendor",
        [DMI_BOARD_NAME] = "board_name",       [DMI_BOARD_VERSION] = "board_version",
        [DMI_BIOS_VENDOR] = "bios_vendor",     [DMI_BIOS_VERSION] = "bios_version",
        [DMI_BIOS_DATE] = "bios_date",
};

const char *dmi_field_file(DmiField f)
{
        return f >= 0 && f < _DMI_FIELD_MAX ? field_files[f] : NULL;
}

/* Copies the first line of DMI_DIR/name into buf without surrounding whitespace; "" when it
 * cannot be read. */
static int read_trimmed(const char *root, const char *name, char *buf, size_t size)
{
        _cleanup_free_ char *path = NULL, *line = NULL;
        const char *s;
        size_t n;
        int r;

        buf[0] = '\0';
        if (asprintf(&path, DMI_DIR "/%s", name) < 0)
                return -ENOMEM;
        r = sysfs_read_line(root, path, &line);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 0;
        s = line;
        while (isspace((unsigned char)*s))
                s++;
        n = strlen(s);
        while (n > 0 && isspace((unsigned char)s[n - 1]))
                n--;
        snprintf(buf, size, "%.*s", (int)MIN(n, size - 1), s);
        return 0;
}

int dmi_read(const char *root, DmiInfo *ret)
{
        int r;

        *ret = (DmiInfo){ .present = sysfs_exists(root, DMI_DIR) };
        if (!ret->present)
                return 0;
        r = read_trimmed(root, "modalias", ret->modalias, sizeof(ret->modalias));
        for (DmiField f = 0; f < _DMI_FIELD_MAX && r >= 0; f++)
                r = read_trimmed(root, field_files[f], ret->fields[f], sizeof(ret->fields[f]));
        return r;
}
