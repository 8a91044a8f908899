/* SPDX-License-Identifier: MIT */
/* Discovery of PCI display devices: identity through a PciSource (libpciaccess or a
 * sysfs-like directory tree), then bound driver, DRM cards and connectors from ROOT/sys. */
#include <dirent.h>

#include "devices.h"
#include "sysfs.h"

static const char *const verdict_names[_VERDICT_MAX] = {
        [VERDICT_UNKNOWN] = "unknown",   [VERDICT_KMS] = "kms",         [VERDICT_UMS] = "ums",
        [VERDICT_FIRMWARE] = "firmware", [VERDICT_FOREIGN] = "foreign", [VERDICT_UNUSABLE] = "unusable",
};

const char *verdict_to_string(Verdict v)
{
        if ((unsigned)v >= _VERDICT_MAX)
                return "invalid";
        return verdict_names[v];
}

void pci_format_slot(char buf[static SLOT_MAX], uint16_t domain, uint8_t bus, uint8_t dev, uint8_t func)
{
        snprintf(buf, SLOT_MAX, "%04x:%02x:%02x.%u", domain, bus, dev & 0x1f, func & 0x7);
}

/* Strict, for every slot a user or sysfs gives: exactly "DDDD:BB:DD.F" or "BB:DD.F" (domain
 * 0), each field of fixed width in hex, upper- or lower-case digits accepted (sysfs and lspci
 * print lower case); device at most 0x1f, function 0 to 7. No sign, "0x", padding, short
 * field or trailing text: "0:0:2.0", "00:2.0" and " 00:02.0" are refused. */
int pci_parse_slot(const char *s, uint16_t *ret_domain, uint8_t *ret_bus, uint8_t *ret_dev, uint8_t *ret_func)
{
        static const char long_form[] = "xxxx:xx:xx.x"; /* 'x': one hex digit, others literal */
        unsigned field[4] = { 0 };                      /* domain, bus, device, function */
        const char *form;
        size_t len, k;

        if (!s)
                return -EINVAL;
        len = strlen(s);
        if (len == strlen(long_form)) {
                form = long_form;
                k = 0;
        } else if (len == strlen(long_form) - 5) {
                form = long_form + 5;
                k = 1;
        } else
                return -EINVAL;
        for (size_t i = 0; i < len; i++) {
                unsigned char c = (unsigned char)s[i];

                if (form[i] != 'x') {
                        if (c != (unsigned char)form[i])
                                return -EINVAL;
                        k++;
                } else if (c >= '0' && c <= '9')
                        field[k] = field[k] * 16 + (c - '0');
                else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
                        field[k] = field[k] * 16 + ((c | 0x20) - 'a' + 10);
                else
                        return -EINVAL;
        }
        if (field[2] > 0x1f || field[3] > 7)
                return -EINVAL;
        *ret_domain = (uint16_t)field[0];
        *ret_bus = (uint8_t)field[1];
        *ret_dev = (uint8_t)field[2];
        *ret_func = (uint8_t)field[3];
        return 0;
}

DeviceList *device_list_free(DeviceList *l)
{
        if (!l)
                return NULL;
        free(l->devices);
        free(l);
        return NULL;
}

DisplayDevice *device_list_find(DeviceList *l, const char *slot)
{
        uint16_t domain;
        uint8_t bus, dev, func;

        if (!l || pci_parse_slot(slot, &domain, &bus, &dev, &func) < 0)
                return NULL;
        for (size_t i = 0; i < l->n; i++) {
                DisplayDevice *d = &l->devices[i];
                if (d->domain == domain && d->bus == bus && d->dev == dev && d->func == func)
                        return d;
        }
        return NULL;
}

static int read_hex(const char *root, const char *slot, const char *attr, uint32_t *ret)
{
        char path[512];
        snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", slot, attr);
        return sysfs_read_u32(root, path, ret);
}

int pci_source_sysfs(const char *root, PciIdentity **ret)
{
        _cleanup_free_ PciIdentity *ids = NULL;
        _cleanup_free_ char *dir = NULL;
        struct dirent *de;
        DIR *d;
        size_t n = 0;
        int r;

        r = sysfs_path(root, "/sys/bus/pci/devices", &dir);
        if (r < 0)
                return r;
        d = opendir(dir);
        if (!d) {
                if (errno != ENOENT)
                        return negative_errno();
                *ret = NULL; /* no PCI bus at all */
                return 0;
        }

        r = 0;
        while ((de = readdir(d))) {
                PciIdentity id = { 0 };
                uint32_t class_code, v;

                if (de->d_name[0] == '.')
                        continue;
                if (pci_parse_slot(de->d_name, &id.domain, &id.bus, &id.dev, &id.func) < 0)
                        continue;
                if (read_hex(root, de->d_name, "class", &class_code) < 0 || (class_code >> 16) != 0x03)
                        continue;
                id.class_code = class_code & 0xffffff;
                if (read_hex(root, de->d_name, "vendor", &v) >= 0)
                        id.vendor_id = (uint16_t)v;
                if (read_hex(root, de->d_name, "device", &v) >= 0)
                        id.device_id = (uint16_t)v;
                if (read_hex(root, de->d_name, "subsystem_vendor", &v) >= 0)
                        id.subvendor_id = (uint16_t)v;
                if (read_hex(root, de->d_name, "subsystem_device", &v) >= 0)
                        id.subdevice_id = (uint16_t)v;
                if (read_hex(root, de->d_name, "revision", &v) >= 0)
                        id.revision = (uint8_t)v;
                if (read_hex(root, de->d_name, "boot_vga", &v) >= 0)
                        id.boot_vga = v != 0;

                PciIdentity *p = realloc(ids, (n + 1) * sizeof(*ids));
                if (!p) {
                        r = -ENOMEM;
                        break;
                }
                ids = p;
                ids[n++] = id;
        }
        closedir(d);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(ids);
        return (int)n;
}

static int compare_devices(const void *a, const void *b)
{
        return strcmp(((const DisplayDevice *)a)->slot, ((const DisplayDevice *)b)->slot);
}

/* Fills driver, DRM cards and connector count for one device from ROOT/sys. */
static void device_read_sysfs(const char *root, DisplayDevice *d)
{
        _cleanup_free_ char *driver = NULL, *drmdir = NULL;
        char path[512];
        struct dirent *de;
        DIR *dir;

        snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", d->slot);
        if (sysfs_readlink_basename(root, path, &driver) >= 0)
                snprintf(d->driver, sizeof(d->driver), "%s", driver);

        snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/drm", d->slot);
        if (sysfs_path(root, path, &drmdir) < 0)
                return;
        dir = opendir(drmdir);
        if (!dir)
                return;
        while ((de = readdir(dir))) {
                unsigned card;
                int n = -1;

                if (strncmp(de->d_name, "controlD", 8) == 0) {
                        d->has_control_node = true;
                        continue;
                }
                if (sscanf(de->d_name, "card%u%n", &card, &n) != 1 || n != (int)strlen(de->d_name))
                        continue;
                if (d->n_drm_cards < DRM_CARDS_MAX &&
                    snprintf(d->drm_cards[d->n_drm_cards], sizeof(d->drm_cards[0]), "%s", de->d_name) <
                            (int)sizeof(d->drm_cards[0]))
                        d->n_drm_cards++;

                /* Connectors are children named "cardN-<type>-<n>". */
                _cleanup_free_ char *carddir = NULL;
                char sub[640];
                if (snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name) >= (int)sizeof(sub))
                        continue;
                if (sysfs_path(root, sub, &carddir) < 0)
                        continue;
                DIR *cd = opendir(carddir);
                if (!cd)
                        continue;
                struct dirent *ce;
                size_t len = strlen(de->d_name);
                while ((ce = readdir(cd)))
                        if (strncmp(ce->d_name, de->d_name, len) == 0 && ce->d_name[len] == '-')
                                d->n_connectors++;
                closedir(cd);
        }
        closedir(dir);
}

int devices_discover(const char *root, PciSourceFunc source, DeviceList **ret)
{
        _cleanup_(device_list_freep) DeviceList *l = NULL;
        _cleanup_free_ PciIdentity *ids = NULL;
        int n;

        n = source(root, &ids);
        if (n < 0)
                return n;

        l = calloc(1, sizeof(*l));
        if (!l)
                return -ENOMEM;
        if (n > 0) {
                l->devices = calloc((size_t)n, sizeof(DisplayDevice));
                if (!l->devices)
                        return -ENOMEM;
        }
        for (int i = 0; i < n; i++) {
                DisplayDevice *d = &l->devices[l->n++];
                const PciIdentity *id = &ids[i];

                d->domain = id->domain;
                d->bus = id->bus;
                d->dev = id->dev;
                d->func = id->func;
                pci_format_slot(d->slot, id->domain, id->bus, id->dev, id->func);
                d->vendor_id = id->vendor_id;
                d->device_id = id->device_id;
                d->subvendor_id = id->subvendor_id;
                d->subdevice_id = id->subdevice_id;
                d->revision = id->revision;
                d->class_code = id->class_code;
                d->boot_vga = id->boot_vga;
                device_read_sysfs(root, d);
        }
        if (l->n > 1)
                qsort(l->devices, l->n, sizeof(DisplayDevice), compare_devices);
        *ret = TAKE_PTR(l);
        return (int)(*ret)->n;
}
