// SPDX-License-Identifier: GPL-2.0
#include "status/output_json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/errors.h"
#include "status/compressed.h"
#include "status/list_table.h"

json_t *json_disk(const struct rd_disk *d, const struct disk_view *v)
{
	json_t *o = jobj(), *holders = jcheck(json_array());

	jset(o, "name", json_string(d->name));
	jset(o, "kind", json_string(list_disk_kind(d)));
	jset(o, "size", ju64(d->size));
	jset(o, "allocated", d->has_allocated ? ju64(d->allocated) : json_null());
	jset(o, "preallocated", jtri(d->preallocated));
	jset(o, "memory_errors", d->memory_errors < 0 ? json_null() : json_integer(d->memory_errors));
	jset(o, "replaced_pages", d->replaced_pages < 0 ? json_null() : json_integer(d->replaced_pages));
	jset(o, "refused_writes", d->refused_writes < 0 ? json_null() : json_integer(d->refused_writes));
	jset(o, "compressed", compressed_json(d));
	jset(o, "mirror", jstr_or_null(v->mirror));
	jset(o, "role", jstr_or_null(v->role));
	jset(o, "array_state", jstr_or_null(v->array_state));
	jset(o, "sync_action", jstr_or_null(v->sync_action));
	jset(o, "sync_percent", v->sync_percent >= 0 ? json_real(v->sync_percent) : json_null());
	jset(o, "mountpoint", jstr_or_null(d->mountpoint));
	for (size_t i = 0; i < d->nholders; i++)
		jappend(holders, json_string(d->holders[i]));
	jset(o, "holders", holders);
	return o;
}

json_t *json_md_array(const struct md_array *a)
{
	json_t *o = jobj(), *sync = jobj(), *members = jcheck(json_array());
	double pct = md_sync_percent(a);
	int64_t eta = md_sync_eta(a);

	jset(o, "name", json_string(a->name));
	jset(o, "level", jstr_or_null(a->level));
	jset(o, "state", jstr_or_null(a->array_state));
	jset(o, "raid_disks", a->raid_disks < 0 ? json_null() : json_integer(a->raid_disks));
	jset(o, "degraded", a->degraded < 0 ? json_null() : json_integer(a->degraded));
	jset(sync, "action", jstr_or_null(a->sync_action));
	jset(sync, "running", json_boolean(md_sync_running(a)));
	jset(sync, "progress_percent", pct < 0 ? json_null() : json_real(pct));
	jset(sync, "eta_seconds", eta < 0 ? json_null() : json_integer(eta));
	jset(sync, "speed_bytes_per_second",
	     a->has_speed && pct >= 0 ? ju64(a->sync_speed * 1024) : json_null());
	jset(o, "sync", sync);
	for (size_t i = 0; i < a->nmembers; i++) {
		const struct md_member *m = &a->members[i];
		json_t *mo = jobj();

		jset(mo, "name", json_string(m->name));
		jset(mo, "kind", json_string(md_kind_name(m->kind)));
		jset(mo, "write_mostly", json_boolean(m->write_mostly));
		jset(mo, "in_sync", json_boolean(m->in_sync));
		jset(mo, "role", json_string(md_member_role(m)));
		jset(mo, "state", jstr_or_null(m->state));
		jset(mo, "slot", m->slot < 0 ? json_null() : json_integer(m->slot));
		jappend(members, mo);
	}
	jset(o, "members", members);
	return o;
}

json_t *json_warning(const struct warning *w)
{
	json_t *o = jobj();

	jset(o, "code", json_string(w->code));
	jset(o, "severity", json_string(severity_name(w->severity)));
	jset(o, "array", jstr_or_null(w->array));
	jset(o, "device", jstr_or_null(w->device));
	jset(o, "message", json_string(w->message));
	return o;
}

json_t *json_mirror(const struct mirror *x)
{
	json_t *o = jobj();
	double share = mirror_ram_read_share(x);

	jset(o, "spec", json_string(x->spec));
	jset(o, "line", x->line > 0 ? json_integer(x->line) : json_null());
	jset(o, "array", jstr_or_null(x->array));
	jset(o, "uuid", jstr_or_null(x->uuid));
	jset(o, "configured", json_boolean(x->configured));
	jset(o, "converted", json_boolean(x->converted));
	jset(o, "rd", jstr_or_null(x->rd));
	jset(o, "state", json_string(mirror_state_name(x->state)));
	jset(o, "progress", x->progress < 0 ? json_null() : json_real(x->progress));
	jset(o, "rate", x->rate < 0 ? json_null() : json_integer(x->rate));
	jset(o, "eta_seconds", x->eta < 0 ? json_null() : json_integer(x->eta));
	jset(o, "ram_allocated", x->has_ram ? ju64(x->ram_bytes) : json_null());
	jset(o, "ram_reads", x->ram_reads < 0 ? json_null() : json_integer(x->ram_reads));
	jset(o, "disk_reads", x->disk_reads < 0 ? json_null() : json_integer(x->disk_reads));
	jset(o, "ram_read_share", share < 0 ? json_null() : json_real(share));
	jset(o, "reason", jstr_or_null(x->reason));
	jset(o, "fix", jstr_or_null(x->fix));
	return o;
}

json_t *json_module(const struct module_info *m)
{
	json_t *o = jobj();

	jset(o, "loaded", json_boolean(m->loaded));
	jset(o, "version", jstr_or_null(m->version));
	jset(o, "control_device", json_boolean(m->control_present));
	jset(o, "mem_limit", m->loaded && m->mem_limit >= 0 ? json_integer(m->mem_limit) : json_null());
	jset(o, "mem_used", m->loaded && m->mem_used >= 0 ? json_integer(m->mem_used) : json_null());
	jset(o, "mem_refused_writes",
	     m->loaded && m->mem_refused_writes >= 0 ? json_integer(m->mem_refused_writes) : json_null());
	return o;
}

json_t *json_memory(const struct meminfo *mi, const struct rd_disk *disks, size_t n)
{
	json_t *o = jobj();
	uint64_t held = 0, size = 0;

	for (size_t i = 0; i < n; i++) {
		held += disks[i].has_allocated ? disks[i].allocated : 0;
		size += disks[i].size;
	}
	jset(o, "total", mi && mi->has_total ? ju64(mi->total) : json_null());
	jset(o, "available", mi && mi->has_available ? ju64(mi->available) : json_null());
	jset(o, "rd_allocated", ju64(held));
	jset(o, "rd_size", ju64(size));
	jset(o, "rd_disks", ju64(n));
	return o;
}
