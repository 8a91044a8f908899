/* SPDX-License-Identifier: MIT */
/* Owns the two --status formats: a table for a person and a JSON object for programs
 * (every list an array; "version" bumps when a field changes meaning). */
#include <time.h>

#include "methods/vbe-emu.h"
#include "status.h"

#define STATUS_JSON_VERSION 2
#define QUIRKS_JSON_VERSION 1

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
                        if (sd->quirks.n_hits > 0 || s->per_method) {
                                buffer_printf(out, "%-13s quirks:", "");
                                for (size_t j = 0; j < sd->quirks.n_hits; j++)
                                        buffer_printf(out, "%s [%s] %s:%u", j ? "," : "", sd->quirks.hits[j]->name,
                                                      sd->quirks.hits[j]->file, sd->quirks.hits[j]->line);
                                buffer_printf(out, "%s\n", sd->quirks.n_hits ? "" : " none (built-in defaults)");
                        }
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

/* A Match* line's value as written: "regex ^U-100$", "8086:27ae". */
static void match_value(const QuirkMatch *m, char *buf, size_t size)
{
        if (m->kind == QUIRK_MATCH_DMI)
                snprintf(buf, size, "%s %s", quirk_op_to_string(m->op), m->pattern);
        else
                snprintf(buf, size, "%s", m->pattern);
}

static void format_section_ref_json(Buffer *out, const QuirkSection *q)
{
        if (!q) {
                buffer_printf(out, "null");
                return;
        }
        buffer_printf(out, "{\"name\":");
        buffer_append_json_string(out, q->name);
        buffer_printf(out, ",\"file\":");
        buffer_append_json_string(out, q->file);
        buffer_printf(out, ",\"line\":%u,\"local\":%s}", q->line, q->local ? "true" : "false");
}

/* The sections that apply to sd: where, which Match* lines on which values, what they set. */
static void format_hits_json(Buffer *out, const SurveyDevice *sd, const DmiInfo *dmi)
{
        const DmiInfo none = { 0 };

        buffer_printf(out, "[");
        for (size_t i = 0; i < sd->quirks.n_hits; i++) {
                const QuirkSection *q = sd->quirks.hits[i];

                buffer_printf(out, "%s{\"name\":", i ? "," : "");
                buffer_append_json_string(out, q->name);
                buffer_printf(out, ",\"file\":");
                buffer_append_json_string(out, q->file);
                buffer_printf(out, ",\"line\":%u,\"local\":%s,\"matches\":[", q->line, q->local ? "true" : "false");
                for (size_t j = 0; j < q->n_matches; j++) {
                        char subject[DMI_MODALIAS_MAX];
                        char value[QUIRK_LINE_MAX + 1];

                        quirk_match_subject(&q->matches[j], dmi ? dmi : &none, &sd->device, subject, sizeof(subject));
                        match_value(&q->matches[j], value, sizeof(value));
                        buffer_printf(out, "%s{\"key\":\"%s\",\"line\":%u,\"value\":", j ? "," : "",
                                      q->matches[j].key, q->matches[j].line);
                        buffer_append_json_string(out, value);
                        buffer_printf(out, ",\"matched\":");
                        buffer_append_json_string(out, subject);
                        buffer_printf(out, "}");
                }
                buffer_printf(out, "],\"attributes\":{");
                for (QuirkAttr a = 0, n = 0; a < _QUIRK_ATTR_MAX; a++) {
                        char value[256];

                        if (!q->attr_lines[a])
                                continue;
                        quirk_section_format_attr(q, a, value, sizeof(value));
                        buffer_printf(out, "%s\"%s\":", n++ ? "," : "", quirk_attr_to_string(a));
                        buffer_append_json_string(out, value);
                }
                buffer_printf(out, "}}");
        }
        buffer_printf(out, "]");
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
                buffer_printf(out, ",\"quirks\":");
                format_hits_json(out, sd, s->survey ? &s->survey->dmi : NULL);
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

static void format_settings(Buffer *out, const DisplayDevice *d, bool json)
{
        const struct DeviceSettings *st = &d->settings;
        const struct {
                const char *name;
                bool on;
        } flags[] = {
                { "vbe_post", st->vbe_post },         { "vbe_named", st->vbe_named },
                { "vbe_mode", st->vbe_mode },         { "vbe_state", st->vbe_state },
                { "dpms_on", st->dpms_on },           { "dpms_suspend", st->dpms_suspend },
                { "backlight_reset", st->backlight_reset }, { "radeon_light", st->radeon_light },
        };
        size_t n = 0;

        buffer_printf(out, json ? "{" : "");
        for (size_t i = 0; i < ELEMENTSOF(flags); i++) {
                if (json)
                        buffer_printf(out, "%s\"%s\":%s", i ? "," : "", flags[i].name, flags[i].on ? "true" : "false");
                else if (flags[i].on)
                        buffer_printf(out, "%s%s", n++ ? ", " : "", flags[i].name);
        }
        if (json)
                buffer_printf(out, ",\"acpi_video_flags\":\"%s\"}",
                              quirk_acpi_flags_to_string(st->acpi_video_flags & 3));
        else if (n == 0)
                buffer_printf(out, "none");
}

static void format_dmi_text(Buffer *out, const DmiInfo *dmi)
{
        if (!dmi->present) {
                buffer_printf(out, "Machine: no DMI identity (no /sys/class/dmi/id): only MatchPCIID= and MatchDriver= "
                                   "sections can apply.\n");
                return;
        }
        buffer_printf(out, "Machine: %s %s (%s), board %s %s, BIOS %s %s %s\n", dmi->fields[DMI_SYS_VENDOR],
                      dmi->fields[DMI_PRODUCT_NAME], dmi->fields[DMI_PRODUCT_VERSION], dmi->fields[DMI_BOARD_VENDOR],
                      dmi->fields[DMI_BOARD_NAME], dmi->fields[DMI_BIOS_VENDOR], dmi->fields[DMI_BIOS_VERSION],
                      dmi->fields[DMI_BIOS_DATE]);
        buffer_printf(out, "DMI modalias: %s\n", dmi->modalias);
}

int status_format_quirks_text(const QuirksInfo *q, Buffer *out)
{
        const Survey *s = q->survey;

        buffer_printf(out, "Quirk files: %zu shipped in '%s', %zu local in '%s'\n",
                      q->db ? q->db->n_files - q->db->n_local_files : 0, q->shipped_dir,
                      q->db ? q->db->n_local_files : 0, q->local_dir);
        if (q->shipped_error)
                buffer_printf(out, "ERROR: the shipped quirk database was not used: %s\n", q->shipped_error);
        if (q->local_error)
                buffer_printf(out, "ERROR: local overrides ignored, running with the shipped set: %s\n", q->local_error);
        format_dmi_text(out, &s->dmi);

        for (size_t i = 0; i < s->n; i++) {
                const SurveyDevice *sd = &s->devices[i];
                const DisplayDevice *d = &sd->device;
                char plan[256];

                buffer_printf(out, "\n%s %04x:%04x (subsystem %04x:%04x) %s, %s, %s%s\n", d->slot, d->vendor_id,
                              d->device_id, d->subvendor_id, d->subdevice_id, d->driver[0] ? d->driver : "no driver",
                              verdict_to_string(d->verdict), survey_role_to_string(sd->role),
                              sd->primary ? ", primary display" : "");
                if (sd->quirks.n_hits == 0)
                        buffer_printf(out, "  no quirk section applies: built-in defaults\n");
                for (size_t j = 0; j < sd->quirks.n_hits; j++) {
                        const QuirkSection *h = sd->quirks.hits[j];

                        buffer_printf(out, "  [%s] %s:%u%s\n", h->name, h->file, h->line, h->local ? " (local)" : "");
                        for (size_t k = 0; k < h->n_matches; k++) {
                                char subject[DMI_MODALIAS_MAX], value[QUIRK_LINE_MAX + 1];

                                quirk_match_subject(&h->matches[k], &s->dmi, d, subject, sizeof(subject));
                                match_value(&h->matches[k], value, sizeof(value));
                                buffer_printf(out, "    line %u: %s=%s matched '%s'\n", h->matches[k].line,
                                              h->matches[k].key, value, subject);
                        }
                        for (QuirkAttr a = 0; a < _QUIRK_ATTR_MAX; a++) {
                                char value[256];

                                if (!h->attr_lines[a])
                                        continue;
                                quirk_section_format_attr(h, a, value, sizeof(value));
                                buffer_printf(out, "    line %u: sets %s=%s\n", h->attr_lines[a], quirk_attr_to_string(a),
                                              value);
                        }
                }
                if (sd->quirks.n_hits_dropped)
                        buffer_printf(out, "  ... and %zu more sections (not shown)\n", sd->quirks.n_hits_dropped);
                if (sd->quirks.unaided_by)
                        buffer_printf(out, "  ResumesUnaided=yes of [%s] (%s:%u): no BIOS help from any section\n",
                                      sd->quirks.unaided_by->name, sd->quirks.unaided_by->file,
                                      sd->quirks.unaided_by->line);
                if (sd->quirk_methods_missing[0])
                        buffer_printf(out, "  asked for but not built in: %s (those parts of the quirks do nothing)\n",
                                      sd->quirk_methods_missing);
                if (sd->role != SURVEY_MANAGED) {
                        buffer_printf(out, "  plan: none (%s)\n", survey_role_to_string(sd->role));
                        continue;
                }
                survey_plan_names(sd, plan, sizeof(plan));
                buffer_printf(out, "  plan: %s\n  settings: ", plan[0] ? plan : "(none built in)");
                format_settings(out, d, false);
                buffer_printf(out, "\n");
        }
        buffer_printf(out, "\nkernel.acpi_video_flags around sleep: %s", s->acpi_video_flags
                                                                                ? quirk_acpi_flags_to_string(s->acpi_video_flags)
                                                                                : "not touched");
        if (s->acpi_from)
                buffer_printf(out, " (ACPIVideoFlags= of [%s], %s:%u)", s->acpi_from->name, s->acpi_from->file,
                              s->acpi_from->attr_lines[QUIRK_ACPI_VIDEO_FLAGS]);
        buffer_printf(out, "\n");
        return 0;
}

int status_format_quirks_json(const QuirksInfo *q, Buffer *out)
{
        const Survey *s = q->survey;

        buffer_printf(out, "{\"version\":%d,\"shipped_dir\":", QUIRKS_JSON_VERSION);
        buffer_append_json_string(out, q->shipped_dir);
        buffer_printf(out, ",\"local_dir\":");
        buffer_append_json_string(out, q->local_dir);
        buffer_printf(out, ",\"files\":%zu,\"local_files\":%zu,\"sections\":%zu,\"shipped_error\":",
                      q->db ? q->db->n_files : 0, q->db ? q->db->n_local_files : 0, q->db ? q->db->n_sections : 0);
        json_string_or_null(out, q->shipped_error);
        buffer_printf(out, ",\"local_error\":");
        json_string_or_null(out, q->local_error);
        buffer_printf(out, ",\"dmi\":{\"present\":%s,\"modalias\":", s->dmi.present ? "true" : "false");
        buffer_append_json_string(out, s->dmi.modalias);
        for (DmiField f = 0; f < _DMI_FIELD_MAX; f++) {
                buffer_printf(out, ",\"%s\":", dmi_field_file(f));
                buffer_append_json_string(out, s->dmi.fields[f]);
        }
        buffer_printf(out, "},\"acpi_video_flags\":");
        json_string_or_null(out, s->acpi_video_flags ? quirk_acpi_flags_to_string(s->acpi_video_flags) : NULL);
        buffer_printf(out, ",\"acpi_video_flags_from\":");
        format_section_ref_json(out, s->acpi_from);
        buffer_printf(out, ",\"devices\":[");
        for (size_t i = 0; i < s->n; i++) {
                const SurveyDevice *sd = &s->devices[i];
                const DisplayDevice *d = &sd->device;

                buffer_printf(out, "%s{\"slot\":\"%s\",\"vendor\":\"%04x\",\"device\":\"%04x\",\"driver\":", i ? "," : "",
                              d->slot, d->vendor_id, d->device_id);
                json_string_or_null(out, d->driver);
                buffer_printf(out, ",\"verdict\":\"%s\",\"role\":\"%s\",\"primary\":%s,\"quirks\":",
                              verdict_to_string(d->verdict), survey_role_to_string(sd->role),
                              sd->primary ? "true" : "false");
                format_hits_json(out, sd, &s->dmi);
                buffer_printf(out, ",\"unaided_by\":");
                format_section_ref_json(out, sd->quirks.unaided_by);
                buffer_printf(out, ",\"methods_missing\":");
                json_string_or_null(out, sd->quirk_methods_missing);
                buffer_printf(out, ",\"plan\":[");
                for (size_t j = 0; j < sd->n_plan; j++) {
                        buffer_printf(out, "%s", j ? "," : "");
                        buffer_append_json_string(out, sd->plan[j]->name);
                }
                buffer_printf(out, "],\"settings\":");
                format_settings(out, d, true);
                buffer_printf(out, "}");
        }
        buffer_printf(out, "]}\n");
        return 0;
}
