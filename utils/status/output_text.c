// SPDX-License-Identifier: GPL-2.0
#include "status/output_text.h"

#include <inttypes.h>
#include <libsmartcols.h>
#include <stdlib.h>
#include <string.h>

#include "lib/size.h"
#include "lib/util.h"
#include "status/compressed.h"

/* The member table of one array, indented by two spaces. */
static int print_members(FILE *f, const struct md_array *a)
{
	static const char *const hdr[] = { "MEMBER", "TYPE", "WRITE-MOSTLY", "ROLE", "STATE" };
	struct libscols_table *tb = scols_new_table();
	char *buf = NULL;
	int r = 0;

	if (!tb)
		oom();
	for (size_t c = 0; c < 5; c++)
		if (!scols_table_new_column(tb, hdr[c], 1, 0))
			oom();
	for (size_t i = 0; i < a->nmembers; i++) {
		const struct md_member *m = &a->members[i];
		const char *cells[] = { m->name, m->kind == MD_FAST_RAM ? "RAM" : md_kind_name(m->kind),
					m->write_mostly ? "yes" : "no", md_member_role(m), m->state };
		struct libscols_line *ln = scols_table_new_line(tb, NULL);

		if (!ln)
			oom();
		for (size_t c = 0; c < 5; c++)
			if (cells[c] && scols_line_set_data(ln, c, cells[c]) < 0)
				oom();
	}
	if (scols_print_table_to_string(tb, &buf) < 0 || !buf) {
		r = -1;
	} else {
		for (char *line = buf, *nl; r == 0 && *line; line = nl + 1) {
			nl = strchrnul(line, '\n');
			if (fprintf(f, "  %.*s\n", (int)(nl - line), line) < 0)
				r = -1;
			if (!*nl)
				break;
		}
	}
	free(buf);
	scols_unref_table(tb);
	return r;
}

static int print_array(FILE *f, const struct md_array *a)
{
	double pct = md_sync_percent(a);
	int r = 0;

	char *deg = a->degraded < 0 ? xstrdup("unknown") : xasprintf("%d", a->degraded);
	char *rdisks = a->raid_disks < 0 ? xstrdup("?") : xasprintf("%d", a->raid_disks);

	if (fprintf(f, "\n%s: %s, %s, degraded %s, raid disks %s\n", a->name,
		    a->level ? a->level : "unknown level",
		    a->array_state ? a->array_state : "unknown state", deg, rdisks) < 0)
		r = -1;
	free(deg);
	free(rdisks);
	if (pct >= 0) {
		char *eta = eta_str(md_sync_eta(a));
		char *speed = a->has_speed ? size_human(a->sync_speed * 1024) : xstrdup("unknown");

		if (fprintf(f, "  sync: %s %.1f%% at %s/s, ETA %s\n", a->sync_action, pct, speed, eta) < 0)
			r = -1;
		free(eta);
		free(speed);
	} else if (fprintf(f, "  sync: %s\n", a->sync_action ? a->sync_action : "unknown") < 0) {
		r = -1;
	}
	if (r == 0)
		r = print_members(f, a);
	return r;
}

/* "md0: in sync ...", "UUID=... = md127, line 3: missing: ...; fix: ..." */
static int print_mirror(FILE *f, const struct mirror *x)
{
	char *what, *line = x->configured ? xasprintf(", line %d", x->line) : xstrdup(", not configured");
	const char *bare = strncmp(x->spec, "/dev/", 5) ? x->spec : x->spec + 5;
	bool other = x->array && strcmp(bare, x->array);
	double share = mirror_ram_read_share(x);
	/* (member=PATH: the fast member is that disk, not RAM) */
	const char *from = x->member ? "the member disk" : "RAM";
	int r = 0;

	switch (x->state) {
	case MIRROR_IN_SYNC:
		if (share >= 0)
			what = xasprintf("in sync (%s): reads come from %s (%.1f%% of %" PRId64 " so far)",
					 x->rd, from, 100 * share, x->ram_reads + x->disk_reads);
		else
			what = xasprintf("in sync (%s): reads come from %s", x->rd, from);
		break;
	case MIRROR_RECOVERING:
		if (x->progress >= 0) {
			char *eta = eta_str(x->eta);

			what = xasprintf("warming up (%s): %.1f%%, ETA %s", x->rd, x->progress, eta);
			free(eta);
		} else {
			what = xasprintf("%s is not in sync", x->rd);
		}
		break;
	default:
		what = xasprintf("%s: %s; fix: %s", mirror_state_name(x->state), x->reason ? x->reason : "?",
				 x->fix ? x->fix : "?");
		break;
	}
	if (fprintf(f, "  %s%s%s%s: %s\n", x->spec, other ? " = " : "", other ? x->array : "", line, what) < 0)
		r = -1;
	free(what);
	free(line);
	return r;
}

/* The findings of one severity or more; returns how many were printed, -1 on a write error. */
static int print_findings(FILE *f, const struct warnings *w, bool above_ok)
{
	int n = 0;

	for (int sev = SEV_CRITICAL; sev >= SEV_OK; sev--) {
		if ((sev > SEV_OK) != above_ok)
			continue;
		for (size_t i = 0; i < w->n; i++) {
			if ((int)w->v[i].severity != sev)
				continue;
			if (fprintf(f, "  %s %-8s %s\n", sev > SEV_OK ? "!" : "-", severity_name(sev), w->v[i].message) < 0)
				return -1;
			n++;
		}
	}
	return n;
}

int text_status(FILE *f, const struct status *st)
{
	uint64_t held = 0, size = 0;
	char *s_total, *s_avail, *s_held, *s_size;
	const struct meminfo *mi = &st->mi;
	int r = 0, n;

	for (size_t i = 0; i < st->ndisks; i++) {
		held += st->disks[i].has_allocated ? st->disks[i].allocated : 0;
		size += st->disks[i].size;
	}
	if (st->mod.loaded)
		r |= fprintf(f, "module:  rdmirror %s loaded%s\n", st->mod.version ? st->mod.version : "(version unknown)",
			     st->mod.control_present ? "" : " (no control device)") < 0;
	else if (st->modstate == MODULE_NOT_INSTALLED)
		r |= fprintf(f, "module:  rdmirror not loaded, and not installed for the running kernel %s\n",
			     running_kernel()) < 0;
	else
		r |= fputs("module:  rdmirror not loaded (rdctl --attach loads it)\n", f) == EOF;
	s_total = mi->has_total ? size_human(mi->total) : xstrdup("unknown");
	s_avail = mi->has_available ? size_human(mi->available) : xstrdup("unknown");
	s_held = size_human(held);
	s_size = size_human(size);
	r |= fprintf(f, "memory:  total %s, available %s, held by rd disks %s (%zu disk%s, %s in size)\n",
		     s_total, s_avail, s_held, st->ndisks, st->ndisks == 1 ? "" : "s", s_size) < 0;
	free(s_total);
	free(s_avail);
	free(s_held);
	free(s_size);
	if (st->nmirrors == 0)
		r |= fprintf(f, "mirrors: none configured in %s, and no md array has an rd member\n", st->config_path) < 0;
	else
		r |= fprintf(f, "mirrors: (%s %s)\n", st->config_found ? "configured in" : "none configured, no",
			     st->config_path) < 0;
	for (size_t i = 0; i < st->nmirrors; i++)
		r |= print_mirror(f, &st->mirrors[i]) < 0;
	if (st->narrays == 0 && st->nmirrors)
		r |= fputs("arrays:  no md array has an rd member\n", f) == EOF;
	for (size_t i = 0; i < st->narrays; i++)
		r |= print_array(f, &st->arrays[i]) < 0;
	r |= compressed_text(f, st->disks, st->ndisks) < 0;
	if (warnings_worst(&st->w) == SEV_OK) {
		r |= fputs("\nwarnings: none\n", f) == EOF;
	} else {
		r |= fputs("\nwarnings:\n", f) == EOF;
		r |= print_findings(f, &st->w, true) < 0;
	}
	n = 0;
	for (size_t i = 0; i < st->w.n; i++)
		n += st->w.v[i].severity == SEV_OK;
	if (n) {
		r |= fputs("notes:\n", f) == EOF;
		r |= print_findings(f, &st->w, false) < 0;
	}
	return r ? -1 : 0;
}
