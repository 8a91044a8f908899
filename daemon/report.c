/* SPDX-License-Identifier: MIT */
/* Owns --report: what of the machine goes into it (and what never does: DMI serials and
 * UUIDs), and its text and JSON forms around the --status formats. */
#include <sys/utsname.h>

#include "report.h"
#include "sysfs.h"
#include "version.h"

#define REPORT_JSON_VERSION 1

bool report_flag_matters(const char *w)
{
        static const char *const prefixes[] = {
                "vga=", "video=", "acpi_sleep=", "acpi_video_flags=", "fbcon=", "vesafb", "efifb", "nofb",
                "initcall_blacklist=", "module_blacklist=",
        };

        if (streq(w, "nomodeset") || strstr(w, "modeset="))
                return true;
        for (size_t i = 0; i < ELEMENTSOF(prefixes); i++)
                if (strncmp(w, prefixes[i], strlen(prefixes[i])) == 0)
                        return true;
        return false;
}

static void collect_flags(const char *root, ReportSystem *r)
{
        _cleanup_free_ char *cmdline = NULL;
        char *save = NULL;

        if (sysfs_read_line(root, "/proc/cmdline", &cmdline) < 0)
                return;
        for (char *w = strtok_r(cmdline, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
                if (r->n_flags < REPORT_FLAGS_MAX && report_flag_matters(w))
                        snprintf(r->flags[r->n_flags++], sizeof(r->flags[0]), "%s", w);
}

void report_collect_system(const char *root, ReportSystem *r)
{
        _cleanup_free_ char *release = NULL, *modalias = NULL;
        struct utsname u;

        *r = (ReportSystem){ 0 };
        if (sysfs_read_line(root, "/proc/sys/kernel/osrelease", &release) >= 0)
                snprintf(r->kernel, sizeof(r->kernel), "%s", release);
        else if (root_is_real(root) && uname(&u) >= 0)
                snprintf(r->kernel, sizeof(r->kernel), "%s", u.release);
        collect_flags(root, r);
        /* The modalias holds vendor, product, version and chassis type; no serial numbers or
         * UUIDs, which live in other (root-only) files this report never reads. */
        if (sysfs_read_line(root, "/sys/class/dmi/id/modalias", &modalias) >= 0)
                snprintf(r->dmi_modalias, sizeof(r->dmi_modalias), "%s", modalias);
}

int report_format_text(const ReportSystem *sys, const StatusInfo *s, Buffer *out)
{
        StatusInfo detailed = *s;

        buffer_printf(out, "umsrestore report (umsrestored %s); serial numbers and UUIDs are not included.\n",
                      UMSRESTORE_VERSION);
        buffer_printf(out, "Kernel: %s\n", sys->kernel[0] ? sys->kernel : "unknown");
        buffer_printf(out, "Kernel command line, what matters to the display:");
        for (size_t i = 0; i < sys->n_flags; i++)
                buffer_printf(out, " %s", sys->flags[i]);
        buffer_printf(out, "%s\n", sys->n_flags ? "" : " (none of nomodeset, modeset=, vga=, video=, acpi_sleep=)");
        buffer_printf(out, "DMI modalias: %s\n\n", sys->dmi_modalias[0] ? sys->dmi_modalias : "(none)");
        detailed.per_method = true;
        return status_format_text(&detailed, out);
}

int report_format_json(const ReportSystem *sys, const StatusInfo *s, Buffer *out)
{
        _cleanup_(buffer_done) Buffer status = { 0 };
        const char *st;
        size_t n;
        int r;

        r = status_format_json(s, &status);
        if (r < 0)
                return r;
        st = buffer_str(&status);
        n = strlen(st);
        while (n > 0 && st[n - 1] == '\n')
                n--;

        buffer_printf(out, "{\"version\":%d,\"umsrestore\":", REPORT_JSON_VERSION);
        buffer_append_json_string(out, UMSRESTORE_VERSION);
        buffer_printf(out, ",\"kernel\":");
        if (sys->kernel[0])
                buffer_append_json_string(out, sys->kernel);
        else
                buffer_printf(out, "null");
        buffer_printf(out, ",\"cmdline_flags\":[");
        for (size_t i = 0; i < sys->n_flags; i++) {
                buffer_printf(out, "%s", i ? "," : "");
                buffer_append_json_string(out, sys->flags[i]);
        }
        buffer_printf(out, "],\"dmi_modalias\":");
        if (sys->dmi_modalias[0])
                buffer_append_json_string(out, sys->dmi_modalias);
        else
                buffer_printf(out, "null");
        buffer_printf(out, ",\"status\":%.*s}\n", (int)n, st);
        return 0;
}
