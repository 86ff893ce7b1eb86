// SPDX-License-Identifier: GPL-2.0
#include "status/status_prom.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/build_id.h"
#include "lib/util.h"
#include "status/compressed.h"

static int family(FILE *f, const char *name, const char *type, const char *help)
{
	return fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type) < 0;
}

/* {array="md0",uuid="..."} of a mirror, malloc'd */
static char *mirror_labels(const struct mirror *x)
{
	char *a = prom_label_esc(x->array ? x->array : x->spec), *u = prom_label_esc(x->uuid), *s;

	s = xasprintf("array=\"%s\",uuid=\"%s\"", a, u);
	free(a);
	free(u);
	return s;
}

typedef int64_t (*mirror_value)(const struct status *st, const struct mirror *x);

static int64_t v_configured(const struct status *st, const struct mirror *x)
{
	(void)st;
	return x->configured;
}

static int64_t v_converted(const struct status *st, const struct mirror *x)
{
	(void)st;
	return x->converted;
}

static int64_t v_present(const struct status *st, const struct mirror *x)
{
	(void)st;
	return x->rd != NULL && x->state != MIRROR_FAILED;
}

static int64_t v_in_sync(const struct status *st, const struct mirror *x)
{
	(void)st;
	return x->state == MIRROR_IN_SYNC;
}

static int64_t v_eta(const struct status *st, const struct mirror *x)
{
	(void)st;
	return x->state == MIRROR_RECOVERING ? x->eta : -1;
}

static int64_t v_ram(const struct status *st, const struct mirror *x)
{
	(void)st;
	return x->has_ram ? (int64_t)(x->ram_bytes > INT64_MAX ? INT64_MAX : x->ram_bytes) : -1;
}

static int64_t v_memory_errors(const struct status *st, const struct mirror *x)
{
	(void)st;
	return x->rd ? x->ram_memory_errors : -1;
}

/* One gauge a mirror; a value of -1 (unknown) is left out. */
static int per_mirror_typed(FILE *f, const struct status *st, const char *type, const char *name, const char *help,
			    mirror_value v)
{
	int r = family(f, name, type, help);

	for (size_t i = 0; i < st->nmirrors; i++) {
		int64_t val = v(st, &st->mirrors[i]);
		char *l;

		if (val < 0)
			continue;
		l = mirror_labels(&st->mirrors[i]);
		r |= fprintf(f, "%s{%s} %" PRId64 "\n", name, l, val) < 0;
		free(l);
	}
	return r;
}

static int per_mirror(FILE *f, const struct status *st, const char *name, const char *help, mirror_value v)
{
	return per_mirror_typed(f, st, "gauge", name, help, v);
}

static int ratio(FILE *f, const struct status *st)
{
	int r = family(f, "rdmirror_mirror_recovery_ratio", "gauge",
		       "How much of the RAM member md has recovered, 0 to 1 (1 in sync, 0 no RAM member).");

	for (size_t i = 0; i < st->nmirrors; i++) {
		const struct mirror *x = &st->mirrors[i];
		char *l;

		if (x->progress < 0)
			continue;
		l = mirror_labels(x);
		r |= fprintf(f, "rdmirror_mirror_recovery_ratio{%s} %.4f\n", l, x->progress / 100.0) < 0;
		free(l);
	}
	return r;
}

static int reads(FILE *f, const struct status *st)
{
	int r = family(f, "rdmirror_mirror_reads_total", "counter",
		       "Reads completed by each working member of a mirror (/sys/block/*/stat): RAM against the disks.");

	for (size_t i = 0; i < st->nmirrors; i++) {
		const struct mirror *x = &st->mirrors[i];
		const struct md_array *a;
		char *l;

		if (x->ai < 0)
			continue;
		a = &st->arrays[x->ai];
		l = mirror_labels(x);
		for (size_t j = 0; j < a->nmembers; j++) {
			const struct md_member *m = &a->members[j];
			int64_t n = m->faulty ? -1 : block_reads(m->name);
			char *d;

			if (n < 0)
				continue;
			d = prom_label_esc(m->name);
			r |= fprintf(f, "rdmirror_mirror_reads_total{%s,device=\"%s\",kind=\"%s\"} %" PRId64 "\n",
				     l, d, md_kind_name(m->kind), n) < 0;
			free(d);
		}
		free(l);
	}
	return r;
}

/*
 * The array a finding is about: its kernel name, or for an array that is
 * not running (array_missing, which has none) the configuration's ARRAY
 * its message names; "" for a finding about no array.
 */
static const char *finding_array(const struct status *st, const struct warning *w)
{
	if (w->array)
		return w->array;
	if (strcmp(w->code, "array_missing"))
		return "";
	for (size_t i = 0; i < st->nmirrors; i++)
		if (st->mirrors[i].state == MIRROR_NOT_ASSEMBLED && st->mirrors[i].configured &&
		    strstr(w->message, st->mirrors[i].spec))
			return st->mirrors[i].spec;
	return "";
}

static bool same_finding(const struct status *st, const struct warning *a, const struct warning *b)
{
	return !strcmp(a->code, b->code) && a->severity == b->severity &&
	       !strcmp(finding_array(st, a), finding_array(st, b)) &&
	       !strcmp(a->device ? a->device : "", b->device ? b->device : "");
}

static int findings(FILE *f, const struct status *st)
{
	static const char *const sev[] = { "ok", "warning", "critical" };
	size_t n[3] = { 0 };
	int r = family(f, "rdmirror_findings", "gauge", "Findings of rdctl --status by severity.");

	for (size_t i = 0; i < st->w.n; i++)
		n[st->w.v[i].severity]++;
	for (size_t s = 0; s < 3; s++)
		r |= fprintf(f, "rdmirror_findings{severity=\"%s\"} %zu\n", sev[s], n[s]) < 0;
	r |= family(f, "rdmirror_finding", "gauge",
		    "The findings of rdctl --status by code (see rdctl(8), WARNINGS), array and device.");
	for (size_t i = 0; i < st->w.n; i++) {
		const struct warning *w = &st->w.v[i];
		size_t count = 0;
		bool first = true;
		char *c, *a, *d;

		for (size_t j = 0; j < st->w.n; j++) {
			if (!same_finding(st, w, &st->w.v[j]))
				continue;
			first &= j >= i;
			count++;
		}
		if (!first)
			continue;	/* counted with the first of its kind */
		c = prom_label_esc(w->code);
		a = prom_label_esc(finding_array(st, w));
		d = prom_label_esc(w->device);
		r |= fprintf(f, "rdmirror_finding{code=\"%s\",array=\"%s\",device=\"%s\",severity=\"%s\"} %zu\n",
			     c, a, d, sev[w->severity], count) < 0;
		free(c);
		free(a);
		free(d);
	}
	return r;
}

/* The module's memory bound and what it refused; nothing when not said. */
static int module_mem(FILE *f, const struct module_info *m)
{
	int r = 0;

	if (!m->loaded)
		return 0;
	if (m->mem_limit >= 0)
		r |= family(f, "rdmirror_module_mem_limit_bytes", "gauge",
			    "The most memory all rd disks may hold together (parameter mem_limit), 0 for no limit.") |
		     (fprintf(f, "rdmirror_module_mem_limit_bytes %" PRId64 "\n", m->mem_limit) < 0);
	if (m->mem_used >= 0)
		r |= family(f, "rdmirror_module_mem_used_bytes", "gauge",
			    "The memory all rd disks hold together.") |
		     (fprintf(f, "rdmirror_module_mem_used_bytes %" PRId64 "\n", m->mem_used) < 0);
	if (m->mem_refused_writes >= 0)
		r |= family(f, "rdmirror_module_mem_refused_writes_total", "counter",
			    "Writes to rd disks refused for mem_limit since the module was loaded.") |
		     (fprintf(f, "rdmirror_module_mem_refused_writes_total %" PRId64 "\n",
			      m->mem_refused_writes) < 0);
	return r;
}

/* Writes each rd disk refused for mem_limit. */
static int disk_refused(FILE *f, const struct status *st)
{
	bool any = false;
	int r = 0;

	for (size_t i = 0; i < st->ndisks; i++)
		any |= st->disks[i].refused_writes >= 0;
	if (!any)
		return 0;
	r |= family(f, "rdmirror_disk_refused_writes_total", "counter",
		    "Writes to the rd disk refused for the module's mem_limit since it was attached.");
	for (size_t i = 0; i < st->ndisks; i++) {
		const struct rd_disk *d = &st->disks[i];
		char *name;

		if (d->refused_writes < 0)
			continue;
		name = prom_label_esc(d->name);
		r |= fprintf(f, "rdmirror_disk_refused_writes_total{disk=\"%s\"} %" PRId64 "\n", name,
			     d->refused_writes) < 0;
		free(name);
	}
	return r;
}

static int status_line(FILE *f, int value)
{
	return family(f, "rdmirror_status", "gauge",
		      "The worst finding of rdctl --status: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN (status unreadable).") |
	       (fprintf(f, "rdmirror_status %d\n", value) < 0);
}

/* rdctl's build identity and the module's in memory ("" when not loaded) */
static int build_info(FILE *f, const struct status *st)
{
	char *v = prom_label_esc(rdctl_build_id()), *m = prom_label_esc(st->mod.loaded ? st->mod.version : NULL);
	int r = family(f, "rdmirror_build_info", "gauge",
		       "Always 1: rdctl's build identity (version) and the module's in memory (module_version), as rdctl --version prints them.");

	r |= fprintf(f, "rdmirror_build_info{version=\"%s\",module_version=\"%s\"} 1\n", v, m) < 0;
	free(v);
	free(m);
	return r;
}

int prom_print(FILE *f, const struct status *st)
{
	int r = status_line(f, (int)warnings_worst(&st->w));

	r |= findings(f, st);
	r |= build_info(f, st);
	r |= family(f, "rdmirror_module_loaded", "gauge", "1 when the rdmirror module is loaded.");
	r |= fprintf(f, "rdmirror_module_loaded %d\n", st->mod.loaded) < 0;
	r |= module_mem(f, &st->mod);
	r |= disk_refused(f, st);
	r |= compressed_prom(f, st->disks, st->ndisks);
	r |= per_mirror(f, st, "rdmirror_mirror_configured",
			"1 when the mirror is in the configuration (rdmirror.conf), 0 when it only has an rd member.",
			v_configured);
	r |= per_mirror(f, st, "rdmirror_mirror_converted",
			"1 while the array is set up for a RAM member (one, a slot for one, or write-mostly disks), also after rdctl --release: rdctl --revert takes it back to its disks.",
			v_converted);
	r |= per_mirror(f, st, "rdmirror_mirror_ram_member_present",
			"1 when the array has a working RAM member (in sync or recovering).", v_present);
	r |= per_mirror(f, st, "rdmirror_mirror_ram_in_sync", "1 when the RAM member is in sync: reads come from RAM.",
			v_in_sync);
	r |= ratio(f, st);
	r |= per_mirror(f, st, "rdmirror_mirror_recovery_eta_seconds",
			"Seconds md expects the recovery of the RAM member to take yet, at its current speed.", v_eta);
	r |= per_mirror(f, st, "rdmirror_mirror_ram_allocated_bytes", "Bytes of RAM the RAM member holds.", v_ram);
	r |= per_mirror_typed(f, st, "counter", "rdmirror_mirror_ram_memory_errors_total",
			      "Pages of the RAM member found broken by memory errors since it was attached (md re-read their blocks from the disks).",
			      v_memory_errors);
	r |= reads(f, st);
	return r ? -1 : 0;
}

int prom_print_unknown(FILE *f)
{
	return status_line(f, 3) ? -1 : 0;
}
