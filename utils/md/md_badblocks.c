// SPDX-License-Identifier: GPL-2.0
#include "md/md_badblocks.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

static void recount(struct md_ranges *r)
{
	r->sectors = 0;
	for (size_t i = 0; i < r->n; i++)
		r->sectors += r->v[i].len;
}

void md_ranges_add(struct md_ranges *r, uint64_t start, uint64_t len)
{
	uint64_t end;
	size_t i = 0, j;

	if (len == 0 || start > UINT64_MAX - len)
		return;
	end = start + len;
	/* the first range that ends at or after start */
	while (i < r->n && r->v[i].start + r->v[i].len < start)
		i++;
	/* merge every range that touches [start, end) */
	for (j = i; j < r->n && r->v[j].start <= end; j++) {
		if (r->v[j].start < start)
			start = r->v[j].start;
		if (r->v[j].start + r->v[j].len > end)
			end = r->v[j].start + r->v[j].len;
	}
	if (j == i) {
		r->v = xrealloc(r->v, r->n + 1, sizeof(*r->v));
		memmove(&r->v[i + 1], &r->v[i], (r->n - i) * sizeof(*r->v));
		r->n++;
	} else if (j > i + 1) {
		memmove(&r->v[i + 1], &r->v[j], (r->n - j) * sizeof(*r->v));
		r->n -= j - i - 1;
	}
	r->v[i].start = start;
	r->v[i].len = end - start;
	recount(r);
}

void md_ranges_parse(struct md_ranges *r, const char *text)
{
	for (const char *l = text; l && *l; ) {
		const char *nl = strchr(l, '\n');
		unsigned long long s, n;
		char tail;

		/* md prints "%llu %d\n"; a line cut short by the page's end is skipped */
		if (sscanf(l, "%llu %llu%c", &s, &n, &tail) == 3 && tail == '\n')
			md_ranges_add(r, s, n);
		else if (!nl && sscanf(l, "%llu %llu", &s, &n) == 2)
			md_ranges_add(r, s, n);
		l = nl ? nl + 1 : NULL;
	}
}

void md_ranges_intersect(struct md_ranges *r, const struct md_ranges *other)
{
	struct md_ranges out = { 0 };

	for (size_t i = 0; i < r->n; i++) {
		uint64_t a0 = r->v[i].start, a1 = a0 + r->v[i].len;

		for (size_t j = 0; j < other->n; j++) {
			uint64_t b0 = other->v[j].start, b1 = b0 + other->v[j].len;
			uint64_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;

			if (lo < hi)
				md_ranges_add(&out, lo, hi - lo);
		}
	}
	md_ranges_clear(r);
	*r = out;
}

char *md_ranges_str(const struct md_ranges *r, size_t max)
{
	char *s = xstrdup("");

	for (size_t i = 0; i < r->n && i < max; i++) {
		char *t = xasprintf("%s%s%" PRIu64 "+%" PRIu64, s, i ? " " : "", r->v[i].start, r->v[i].len);

		free(s);
		s = t;
	}
	if (r->n > max) {
		char *t = xasprintf("%s ...", s);

		free(s);
		s = t;
	}
	return s;
}

void md_ranges_clear(struct md_ranges *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}
