// SPDX-License-Identifier: GPL-2.0
#include "status/compressed.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/size.h"
#include "lib/util.h"

double compressed_ratio(const struct rd_disk *d)
{
	if (!d->compressor || d->data_bytes <= 0 || !d->has_allocated || !d->allocated)
		return -1;
	return (double)d->data_bytes / (double)d->allocated;
}

/* "ratio 3.02:1, RAM used 340 MiB, data held 1.0 GiB, limit 3.5 GiB" (malloc'd) */
static char *figures(const struct rd_disk *d)
{
	double ratio = compressed_ratio(d);
	char *used = d->has_allocated ? size_human(d->allocated) : xstrdup("unknown");
	char *data = d->data_bytes >= 0 ? size_human((uint64_t)d->data_bytes) : xstrdup("unknown");
	char *lim = d->mem_limit > 0 ? size_human((uint64_t)d->mem_limit) : xstrdup(d->mem_limit == 0 ? "none" : "unknown");
	char *r = ratio >= 0 ? xasprintf("%.2f:1", ratio) : xstrdup("unknown (no data yet)");
	char *s = xasprintf("ratio %s, RAM used %s, data held %s, limit %s", r, used, data, lim);

	free(used);
	free(data);
	free(lim);
	free(r);
	return s;
}

char *compressed_limit_words(const char *md, bool left, const struct rd_disk *d)
{
	char *fig = figures(d), *s;
	/* (--restore replaces a member md keeps; one it took out stays attached) */
	char *detach = left ? xasprintf("rdctl --detach %s (md no longer uses it: its memory stays held until then), ",
					d->name)
			    : xstrdup("");

	s = xasprintf("compressed RAM member %s reached its memory limit (%s): %" PRId64 " write%s refused, so %s %s%s runs from its disks; its data compresses worse than the limit allows: fix: %sfree memory or lower the reserve in rdmirror.conf, then rdctl --restore (a new member, a new limit), or rdctl --revert /dev/%s and rdctl --convert /dev/%s --compress=zstd for a better ratio",
			    d->name, fig, d->refused_writes, d->refused_writes == 1 ? "" : "s",
			    left ? "it is out of" : "md failed it and", md, left ? ", which" : "", detach, md, md);

	free(detach);
	free(fig);
	return s;
}

char *compressed_left_why(const char *md, const char *rd)
{
	struct rd_disk d;
	unsigned index;
	char *s = NULL;

	if (!rd_parse_name(rd, &index) || rd_disk_read(index, &d) < 0)
		return NULL;
	if (d.compressor && d.refused_writes > 0)
		s = compressed_limit_words(md, d.nholders == 0, &d);
	rd_disk_clear(&d);
	return s;
}

void compressed_warnings(const struct md_array *a, bool left, const struct rd_disk *d, struct warnings *w)
{
	const char *md = a ? a->name : NULL;
	char *fig;

	if (!d->compressor)
		return;
	fig = figures(d);
	if (d->refused_writes > 0 && md) {
		char *words = compressed_limit_words(md, left, d);

		warnings_add(w, SEV_CRITICAL, "compressed_limit", md, d->name, xasprintf("%s: %s", md, words));
		free(words);
	} else if (d->refused_writes > 0)
		warnings_add(w, SEV_CRITICAL, "compressed_limit", md, d->name,
			     xasprintf("compressed disk %s reached its memory limit (%s): %" PRId64 " write%s refused with ENOSPC; fix: free what it holds (rdctl --flush %s) or attach a larger limit",
					    d->name, fig, d->refused_writes, d->refused_writes == 1 ? "" : "s", d->name));
	else if (d->mem_limit > 0 && d->has_allocated &&
		 d->allocated >= (uint64_t)d->mem_limit / 100 * COMPRESSED_NEAR_LIMIT_PCT)
		warnings_add(w, SEV_WARNING, "compressed_near_limit", md, d->name,
			     xasprintf("%s%scompressed RAM member %s uses %.0f%% of its memory limit (%s): past it md fails the member and %s runs from its disks; fix: free memory, then rdctl --refresh%s%s gives it a new limit",
				       md ? md : "", md ? ": " : "", d->name,
				       100.0 * (double)d->allocated / (double)d->mem_limit, fig,
				       md ? md : "the array", md ? " /dev/" : "", md ? md : ""));
	if (d->checksum_errors > 0)
		warnings_add(w, SEV_WARNING, "compressed_checksum", md, d->name,
			     xasprintf("%s%scompressed RAM member %s had %" PRId64 " read%s fail%s its checksum or decompression: md read those blocks from the disks and wrote them back; the machine's RAM may be failing: check its error log (journalctl -k --grep 'memory failure|Hardware Error')",
				       md ? md : "", md ? ": " : "", d->name, d->checksum_errors,
				       d->checksum_errors == 1 ? "" : "s", d->checksum_errors == 1 ? "s" : ""));
	free(fig);
}

int compressed_text(FILE *f, const struct rd_disk *disks, size_t n)
{
	bool head = false;
	int r = 0;

	for (size_t i = 0; i < n; i++) {
		const struct rd_disk *d = &disks[i];
		char *fig;

		if (!d->compressor)
			continue;
		if (!head)
			r |= fputs("\ncompressed:\n", f) == EOF;
		head = true;
		fig = figures(d);
		r |= fprintf(f, "  %s: %s, %s, checksum errors %" PRId64 "\n", d->name, d->compressor, fig,
			     d->checksum_errors < 0 ? 0 : d->checksum_errors) < 0;
		free(fig);
	}
	return r ? -1 : 0;
}

static json_t *count_or_null(int64_t v)
{
	return v < 0 ? json_null() : json_integer(v);
}

json_t *compressed_json(const struct rd_disk *d)
{
	json_t *o;
	double ratio = compressed_ratio(d);

	if (!d->compressor)
		return json_null();
	o = jobj();
	jset(o, "compressor", json_string(d->compressor));
	jset(o, "ratio", ratio < 0 ? json_null() : json_real(ratio));
	jset(o, "data_bytes", count_or_null(d->data_bytes));
	jset(o, "allocated_bytes", d->has_allocated ? ju64(d->allocated) : json_null());
	jset(o, "mem_limit", count_or_null(d->mem_limit));
	jset(o, "same_pages", count_or_null(d->same_pages));
	jset(o, "huge_pages", count_or_null(d->huge_pages));
	jset(o, "checksum_errors", count_or_null(d->checksum_errors));
	return o;
}

/* One family: a gauge or counter of each compressed disk, from field (-1: left out). */
static int family_of(FILE *f, const struct rd_disk *disks, size_t n, const char *name, const char *type,
		     const char *help, int64_t (*field)(const struct rd_disk *d))
{
	int r = fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type) < 0;

	for (size_t i = 0; i < n; i++) {
		const struct rd_disk *d = &disks[i];
		int64_t v = d->compressor ? field(d) : -1;
		char *disk, *comp;

		if (v < 0)
			continue;
		/* sysfs names, but written into the metric text: escaped as every label is */
		disk = prom_label_esc(d->name);
		comp = prom_label_esc(d->compressor);
		r |= fprintf(f, "%s{disk=\"%s\",compressor=\"%s\"} %" PRId64 "\n", name, disk, comp, v) < 0;
		free(disk);
		free(comp);
	}
	return r;
}

static int64_t f_data(const struct rd_disk *d)
{
	return d->data_bytes;
}

static int64_t f_alloc(const struct rd_disk *d)
{
	return d->has_allocated ? (int64_t)(d->allocated > INT64_MAX ? INT64_MAX : d->allocated) : -1;
}

static int64_t f_limit(const struct rd_disk *d)
{
	return d->mem_limit;
}

static int64_t f_checksum(const struct rd_disk *d)
{
	return d->checksum_errors;
}

int compressed_prom(FILE *f, const struct rd_disk *disks, size_t n)
{
	bool any = false;
	int r = 0;

	for (size_t i = 0; i < n; i++)
		any |= disks[i].compressor != NULL;
	if (!any)
		return 0;
	r |= family_of(f, disks, n, "rdmirror_compressed_data_bytes", "gauge",
		       "Bytes of data the compressed rd disk holds, before compression.", f_data);
	r |= family_of(f, disks, n, "rdmirror_compressed_allocated_bytes", "gauge",
		       "Bytes of RAM the compressed rd disk's objects take (the ratio is data over this).", f_alloc);
	r |= family_of(f, disks, n, "rdmirror_compressed_mem_limit_bytes", "gauge",
		       "The compressed rd disk's memory limit (0: none): past it writes fail and md fails the member.",
		       f_limit);
	r |= family_of(f, disks, n, "rdmirror_compressed_checksum_errors_total", "counter",
		       "Reads of the compressed rd disk that failed their checksum or decompression (md mended them from a disk).",
		       f_checksum);
	return r;
}
