// SPDX-License-Identifier: GPL-2.0
#include "status/status_nagios.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

/* items beyond this are counted, not named: the line must stay readable in a dashboard */
#define MAX_ITEMS	4

struct line {
	char *s;
	size_t items, more;
};

static void item(struct line *l, char *text)
{
	char *t;

	if (l->items >= MAX_ITEMS) {
		l->more++;
		free(text);
		return;
	}
	t = xasprintf("%s%s%s", l->s, l->items ? ", " : "", text);
	free(l->s);
	free(text);
	l->s = t;
	l->items++;
}

static const struct mirror *mirror_of(const struct status *st, const char *array)
{
	for (size_t i = 0; array && i < st->nmirrors; i++)
		if (st->mirrors[i].array && !strcmp(st->mirrors[i].array, array))
			return &st->mirrors[i];
	return NULL;
}

static const char *mirror_name(const struct mirror *x)
{
	return x->array ? x->array : x->spec;
}

static char *warm_words(const struct mirror *x)
{
	char *eta, *s;

	if (x->progress < 0)
		return xasprintf("%s warming up", mirror_name(x));
	eta = eta_str(x->eta);
	s = xasprintf("%s warming up %.0f%% ETA %s", mirror_name(x), x->progress, eta);
	free(eta);
	return s;
}

/* A finding in a few words: "md0 not restored (too little memory)", "md0/sdb bad_blocks". */
static char *finding_words(const struct status *st, const struct warning *w)
{
	const struct mirror *x = mirror_of(st, w->array);

	if (!strcmp(w->code, "not_restored") || !strcmp(w->code, "array_missing")) {
		/* array_missing has no kernel name: find the line by its message */
		for (size_t i = 0; !x && i < st->nmirrors; i++)
			if (st->mirrors[i].state == MIRROR_NOT_ASSEMBLED && st->mirrors[i].configured &&
			    strstr(w->message, st->mirrors[i].spec))
				x = &st->mirrors[i];
		if (x)
			return xasprintf("%s %s (%s)", mirror_name(x),
					 x->state == MIRROR_MISSING ? "not restored" : "not running",
					 x->brief ? x->brief : "?");
	}
	if (w->array && w->device)
		return xasprintf("%s/%s %s", w->array, w->device, w->code);
	if (w->array || w->device)
		return xasprintf("%s %s", w->array ? w->array : w->device, w->code);
	return xstrdup(w->code);
}

static int perfdata(FILE *f, const struct status *st)
{
	size_t nsev[3] = { 0 };
	int r = 0;

	for (size_t i = 0; i < st->w.n; i++)
		nsev[st->w.v[i].severity]++;
	r |= fprintf(f, " | warnings=%zu;;;0 criticals=%zu;;;0", nsev[SEV_WARNING], nsev[SEV_CRITICAL]) < 0;
	for (size_t i = 0; i < st->nmirrors; i++) {
		const struct mirror *x = &st->mirrors[i];

		if (!x->array)
			continue;
		r |= fprintf(f, " %s_sync=%.1f%%;;;0;100", x->array, x->progress < 0 ? 0.0 : x->progress) < 0;
		if (x->has_ram)
			r |= fprintf(f, " %s_ram_bytes=%" PRIu64 "B;;;0;%" PRIu64, x->array, x->ram_bytes, x->ram_size) < 0;
	}
	return r;
}

int nagios_print(FILE *f, const struct status *st)
{
	enum severity worst = warnings_worst(&st->w);
	struct line l = { xstrdup(""), 0, 0 };
	int r;

	if (worst > SEV_OK)
		for (size_t i = 0; i < st->w.n; i++)
			if (st->w.v[i].severity == worst)
				item(&l, finding_words(st, &st->w.v[i]));
	/* then the mirrors, so that an OK line still says what is there */
	for (size_t i = 0; i < st->nmirrors; i++) {
		const struct mirror *x = &st->mirrors[i];

		if (x->state == MIRROR_RECOVERING)
			item(&l, warm_words(x));
		else if (x->state == MIRROR_IN_SYNC && worst == SEV_OK)
			item(&l, xasprintf("%s in sync", mirror_name(x)));
	}
	if (!l.items)
		item(&l, xstrdup(st->nmirrors ? "no finding" : "no RAM mirror configured"));
	r = fprintf(f, "RDMIRROR %s - %s", severity_name(worst), l.s) < 0;
	if (l.more)
		r |= fprintf(f, " and %zu more", l.more) < 0;
	r |= perfdata(f, st);
	r |= fputc('\n', f) == EOF;
	free(l.s);
	return r ? -1 : (int)worst;
}

int nagios_unknown(FILE *f, const char *why)
{
	if (fprintf(f, "RDMIRROR UNKNOWN - %s\n", why && *why ? why : "the status cannot be read") < 0)
		return -1;
	return 3;
}
