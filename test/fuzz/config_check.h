/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The invariants of a parsed /etc/rdmirror.conf (utils/lib/config.h), shared by
 * the config_text and config_read targets. buf[0..len) is the text parsed.
 */
#ifndef RDCTL_FUZZ_CONFIG_CHECK_H
#define RDCTL_FUZZ_CONFIG_CHECK_H

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "lib/config.h"
#include "fuzz.h"

/* Nothing but blanks before the first '#' (and no NUL byte)? */
static inline bool config_line_blank(const char *p, size_t n)
{
	for (size_t i = 0; i < n && p[i] != '#'; i++)
		if (!strchr(" \t\r\v\f", p[i]) || !p[i])
			return false;
	return true;
}

static inline bool config_same_array(const struct conf_mirror *a, const struct conf_mirror *b)
{
	if (a->kind != b->kind)
		return false;
	return a->kind == CONF_UUID ? !strcmp(a->uuid, b->uuid) : !strcmp(a->name, b->name);
}

static inline void config_check(const struct config *c, const char *buf, size_t len)
{
	int nlines = 1;
	size_t iv = 0, ie = 0;
	const char *p = buf, *end = buf + len;

	for (size_t i = 0; i < len; i++)
		nlines += buf[i] == '\n';
	FUZZ_CHECK(c->path != NULL, "no path");
	FUZZ_CHECK(c->n == 0 || c->v, "%zu mirrors without an array", c->n);
	FUZZ_CHECK(c->nerrs == 0 || c->errs, "%zu errors without an array", c->nerrs);
	for (size_t i = 0; i < c->n; i++) {
		const struct conf_mirror *m = &c->v[i];

		FUZZ_CHECK(m->line >= 1 && m->line <= nlines, "mirror %zu on line %d of %d", i, m->line, nlines);
		FUZZ_CHECK(i == 0 || m->line > c->v[i - 1].line, "mirror %zu (line %d) out of order", i, m->line);
		FUZZ_CHECK(m->spec && *m->spec, "mirror on line %d has no spec", m->line);
		switch (m->kind) {
		case CONF_UUID:
			FUZZ_CHECK(m->uuid && !m->name && config_uuid_valid(m->uuid),
				   "line %d: bad UUID mirror", m->line);
			for (const char *p = m->uuid; *p; p++)
				FUZZ_CHECK(!isupper((unsigned char)*p), "line %d: UUID %s not lower case", m->line, m->uuid);
			break;
		case CONF_DEVICE:
			FUZZ_CHECK(m->name && !m->uuid && !strncmp(m->name, "md", 2) && m->name[2] &&
				   strspn(m->name + 2, "0123456789") == strlen(m->name + 2),
				   "line %d: bad device name", m->line);
			break;
		case CONF_MDNAME:
			FUZZ_CHECK(m->name && *m->name && !m->uuid && !strchr(m->name, '/'),
				   "line %d: bad md name", m->line);
			break;
		default:
			FUZZ_CHECK(0, "line %d: kind %d", m->line, (int)m->kind);
		}
		if (!m->auto_size)
			FUZZ_CHECK(m->size > 0 && m->size % 4096 == 0, "line %d: size %llu", m->line,
				   (unsigned long long)m->size);
		for (size_t j = 0; j < i; j++)
			FUZZ_CHECK(!config_same_array(&c->v[j], m), "lines %d and %d name the same array %s",
				   c->v[j].line, m->line, m->spec);
	}
	for (size_t i = 0; i < c->nerrs; i++) {
		const struct conf_error *e = &c->errs[i];

		FUZZ_CHECK(e->line >= 1 && e->line <= nlines, "error %zu on line %d of %d", i, e->line, nlines);
		FUZZ_CHECK(i == 0 || e->line > c->errs[i - 1].line, "error %zu (line %d) out of order", i, e->line);
		FUZZ_CHECK(e->message && *e->message, "line %d: error without a message", e->line);
		FUZZ_CHECK(!strchr(e->message, '\n'), "line %d: message of more than one line: %s",
			   e->line, e->message);
	}
	FUZZ_CHECK(!c->reserve_line || c->reserve_line != c->speed_line,
		   "line %d sets both reserve and recovery_speed", c->reserve_line);
	/* every line: blank, or a mirror, or an error, or a setting (reserve,
	 * recovery_speed); never two of these */
	for (int l = 1; l <= nlines; l++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		bool is_m = iv < c->n && c->v[iv].line == l, is_e = ie < c->nerrs && c->errs[ie].line == l;
		bool is_s = c->reserve_line == l || c->speed_line == l;

		iv += is_m;
		ie += is_e;
		FUZZ_CHECK(!(is_m && is_e), "line %d is a mirror and an error", l);
		FUZZ_CHECK(!is_s || (!is_m && !is_e), "line %d is a setting and a mirror or an error", l);
		if (memchr(p, '\0', n))
			FUZZ_CHECK(is_e, "line %d holds a NUL byte but is no error", l);
		else if (config_line_blank(p, n))
			FUZZ_CHECK(!is_m && !is_e, "blank line %d counts", l);
		else
			FUZZ_CHECK(is_m || is_e || is_s, "line %d is neither a mirror nor an error nor a setting", l);
		p = nl ? nl + 1 : end;
	}
}

/*
 * config_drop_same_arrays() with names made up from the input (collisions
 * wanted): the lines left name distinct arrays, names[] stays parallel.
 */
static inline void config_check_drop(struct config *c)
{
	size_t n0 = c->n, e0 = c->nerrs, removed;
	char **names = calloc(c->n ? c->n : 1, sizeof(*names));

	if (!names)
		abort();
	for (size_t i = 0; i < c->n; i++) {
		const struct conf_mirror *m = &c->v[i];
		const char *key = m->kind == CONF_UUID ? m->uuid : m->name;
		unsigned h = (unsigned char)key[strlen(key) - 1];

		if (h % 5 == 0)
			continue;	/* does not resolve */
		names[i] = m->kind == CONF_DEVICE ? strdup(m->name) : malloc(8);
		if (!names[i])
			abort();
		if (m->kind != CONF_DEVICE)
			snprintf(names[i], 8, "md%u", h % 3);
	}
	removed = config_drop_same_arrays(c, names);
	FUZZ_CHECK(c->n + removed == n0, "%zu + %zu removed != %zu", c->n, removed, n0);
	FUZZ_CHECK(removed == 0 || c->nerrs > e0, "%zu removed without an error", removed);
	for (size_t i = e0; i < c->nerrs; i++)
		FUZZ_CHECK(c->errs[i].line == 0 && c->errs[i].message && *c->errs[i].message,
			   "bad drop error %zu", i);
	for (size_t i = 0; i < c->n; i++)
		for (size_t j = 0; names[i] && j < i; j++)
			FUZZ_CHECK(!names[j] || strcmp(names[i], names[j]),
				   "lines %d and %d both resolve to %s and stay", c->v[j].line, c->v[i].line, names[i]);
	for (size_t i = 0; i < c->n; i++)
		free(names[i]);
	free(names);
}

#endif
