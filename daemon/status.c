/* SPDX-License-Identifier: MIT */
/* Owns the two --status formats: a table for a person and a JSON object for programs
 * (every list an array; "version" bumps when a field changes meaning). */
#include <time.h>

#include "methods/vbe-emu.h"
#include "status.h"

#define STATUS_JSON_VERSION 2

static const char *dash_if_empty(const char *s)
{
        return s && s[0] ? s : "-";
}

static void format_last_text(Buffer *out, const char *what, bool has, const EngineLast *l, bool per_method)
{
        char ts[32];
        struct tm tm;
        time_t t;

        if (!has) {
                buffer_printf(out, "%-13s last %s: never\n", "", what);
                return;
        }
        t = (time_t)(l->time_usec / 1000000u);
        gmtime_r(&t, &tm);
        strftime(ts, sizeof(ts), "%Y-%m-%d %H:%M:%S UTC", &tm);
        buffer_printf(out, "%-13s last %s: %s at %s (%.1f ms): %s\n", "", what, l->error == 0 ? "ok" : "FAILED", ts,
                      (double)l->duration_usec / 1000.0, l->message);
        for (size_t i = 0; per_method && i < l->n_methods; i++) {
                const MethodResult *m = &l->methods[i];

                buffer_printf(out, "%-13s   %-12s save %.2f ms, restore %.2f ms: %s", "", m->name,
                              (double)m->save_usec / 1000.0, (double)m->restore_usec / 1000.0,
                              m->r < 0 ? "failed (" : m->mismatches > 0 ? "verification failed, " : "ok");
                if (m->r < 0)
                        buffer_printf(out, "%s)", strerror(-m->r));
                else if (m->mismatches > 0)
                        buffer_printf(out, "%u %s", m->mismatches, m->mismatches == 1 ? "register differs" : "registers differ");
                buffer_printf(out, "\n");
        }
}

int status_format_text(const StatusInfo *s, Buffer *out)
{
        if (s->n_devices == 0)
                buffer_printf(out, "No display device found (no PCI device of class 0x03): nothing to manage.\n");
        else
                buffer_printf(out, "%-13s %-9s %-4s %-10s %-9s %s\n", "DEVICE", "ID", "BOOT", "DRIVER", "VERDICT",
                              "REASON");

        for (size_t i = 0; i < s->n_devices; i++) {
                const StatusDevice *sdev = &s->devices[i];
                const SurveyDevice *sd = sdev->device;
                const DisplayDevice *d = &sd->device;
                char id[16], methods[256];

                snprintf(id, sizeof(id), "%04x:%04x", d->vendor_id, d->device_id);
                buffer_printf(out, "%-13s %-9s %-4s %-10s %-9s %s\n", d->slot, id, d->boot_vga ? "yes" : "no",
                              dash_if_empty(d->driver), verdict_to_string(d->verdict), d->reason);
                buffer_printf(out, "%-13s subsystem %04x:%04x, revision %02x, class %06x%s\n", "", d->subvendor_id,
                              d->subdevice_id, d->revision, d->class_code,
                              d->needs_vga_arbiter ? ", legacy VGA through the VGA arbiter" : "");
                switch (sd->role) {
                case SURVEY_EXCLUDED:
                        buffer_printf(out, "%-13s excluded by the configuration (Include=, Exclude= or Manage=): not "
                                           "touched\n", "");
                        break;
                case SURVEY_HANDS_OFF:
                        buffer_printf(out, "%-13s hands off: umsrestore does not touch this device\n", "");
                        break;
                case SURVEY_MANAGED:
                case SURVEY_NOT_CHOSEN:
                        survey_plan_names(sd, methods, sizeof(methods));
                        buffer_printf(out, "%-13s methods: %s\n", "", methods[0] ? methods : "(none built in)");
                        if (sd->mode_unrestored)
                                buffer_printf(out, "%-13s WARNING: %s\n", "", sd->mode_note);
                        format_last_text(out, "save", sdev->has_last_save, &sdev->last_save, s->per_method);
                        format_last_text(out, "restore", sdev->has_last_restore, &sdev->last_restore,
                                         s->per_method);
                        if (sdev->has_last_test || s->per_method)
                                format_last_text(out, "test-restore", sdev->has_last_test, &sdev->last_test,
                                                 s->per_method);
                        break;
                }
        }
        if (s->console && s->console[0])
                buffer_printf(out, "Console: %s\n", s->console);
        buffer_printf(out, "Video BIOS method (vbe): %s\n",
                      vbe_emu_available() ? "available (libx86emu)"
                                          : "unavailable (built without libx86emu, or not an x86 machine)");
        if (s->blocker)
                buffer_printf(out, "Cannot save or restore on this machine: %s.\n", s->blocker);
        return 0;
}

static void json_string_or_null(Buffer *out, const char *s)
{
        if (s && s[0])
                buffer_append_json_string(out, s);
        else
                buffer_printf(out, "null");
}

static void format_last_json(Buffer *out, bool has, const EngineLast *l)
{
        if (!has) {
                buffer_printf(out, "null");
                return;
        }
        buffer_printf(out, "{\"ok\":%s,\"errno\":%d,\"time_usec\":%llu,\"duration_usec\":%llu,\"message\":",
                      l->error == 0 ? "true" : "false", -l->error, (unsigned long long)l->time_usec,
                      (unsigned long long)l->duration_usec);
        buffer_append_json_string(out, l->message);
        buffer_printf(out, ",\"methods\":[");
        for (size_t i = 0; i < l->n_methods; i++) {
                const MethodResult *m = &l->methods[i];

                buffer_printf(out, "%s{\"name\":", i ? "," : "");
                buffer_append_json_string(out, m->name);
                buffer_printf(out, ",\"ok\":%s,\"errno\":%d,\"save_usec\":%llu,\"restore_usec\":%llu,\"mismatches\":%u}",
                              m->r == 0 && m->mismatches == 0 ? "true" : "false", -m->r,
                              (unsigned long long)m->save_usec, (unsigned long long)m->restore_usec, m->mismatches);
        }
        buffer_printf(out, "]}");
}

int status_format_json(const StatusInfo *s, Buffer *out)
{
        buffer_printf(out, "{\"version\":%d,\"console\":", STATUS_JSON_VERSION);
        json_string_or_null(out, s->console);
        buffer_printf(out, ",\"blocker\":");
        json_string_or_null(out, s->blocker);
        buffer_printf(out, ",\"daemon_running\":%s,\"vbe_available\":%s,\"devices\":[",
                      s->daemon_running ? "true" : "false", vbe_emu_available() ? "true" : "false");

        for (size_t i = 0; i < s->n_devices; i++) {
                const StatusDevice *sdev = &s->devices[i];
                const SurveyDevice *sd = sdev->device;
                const DisplayDevice *d = &sd->device;

                buffer_printf(out, "%s{\"slot\":\"%s\",\"vendor\":\"%04x\",\"device\":\"%04x\",\"subvendor\":\"%04x\","
                                   "\"subdevice\":\"%04x\",\"revision\":%u,\"class\":\"%06x\",\"boot_vga\":%s,"
                                   "\"driver\":",
                              i ? "," : "", d->slot, d->vendor_id, d->device_id, d->subvendor_id, d->subdevice_id,
                              d->revision, d->class_code, d->boot_vga ? "true" : "false");
                json_string_or_null(out, d->driver);
                buffer_printf(out, ",\"drm_cards\":[");
                for (unsigned j = 0; j < d->n_drm_cards && j < DRM_CARDS_MAX; j++) {
                        buffer_printf(out, "%s", j ? "," : "");
                        buffer_append_json_string(out, d->drm_cards[j]);
                }
                buffer_printf(out, "],\"connectors\":%u,\"verdict\":\"%s\",\"reason\":", d->n_connectors,
                              verdict_to_string(d->verdict));
                buffer_append_json_string(out, d->reason);
                buffer_printf(out, ",\"engine_of\":");
                json_string_or_null(out, d->engine_slot);
                buffer_printf(out, ",\"role\":\"%s\",\"managed\":%s,\"vga_arbiter\":%s,\"methods\":[",
                              survey_role_to_string(sd->role),
                              sd->role == SURVEY_MANAGED || sd->role == SURVEY_NOT_CHOSEN ? "true" : "false",
                              d->needs_vga_arbiter ? "true" : "false");
                for (size_t j = 0; j < sd->n_plan; j++) {
                        buffer_printf(out, "%s", j ? "," : "");
                        buffer_append_json_string(out, sd->plan[j]->name);
                }
                buffer_printf(out, "],\"mode\":");
                json_string_or_null(out, survey_mode_to_string(sd->mode));
                buffer_printf(out, ",\"mode_restorable\":%s,\"mode_warning\":",
                              sd->role != SURVEY_MANAGED || !sd->mode ? "null"
                              : sd->mode_unrestored                    ? "false"
                                                                       : "true");
                json_string_or_null(out, sd->mode_unrestored ? sd->mode_note : NULL);
                buffer_printf(out, ",\"last_save\":");
                format_last_json(out, sdev->has_last_save, &sdev->last_save);
                buffer_printf(out, ",\"last_restore\":");
                format_last_json(out, sdev->has_last_restore, &sdev->last_restore);
                buffer_printf(out, ",\"last_test\":");
                format_last_json(out, sdev->has_last_test, &sdev->last_test);
                buffer_printf(out, "}");
        }
        buffer_printf(out, "]}\n");
        return 0;
}
