// SPDX-License-Identifier: GPL-2.0
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "size.h"
#include "util.h"

static void add_error(struct config *c, int line, char *message)
{
	c->errs = xrealloc(c->errs, c->nerrs + 1, sizeof(*c->errs));
	c->errs[c->nerrs].line = line;
	c->errs[c->nerrs].message = message;
	c->nerrs++;
}

bool config_uuid_valid(const char *s)
{
	for (int group = 0; group < 4; group++) {
		for (int i = 0; i < 8; i++, s++)
			if (!isxdigit((unsigned char)*s))
				return false;
		if (group < 3 && *s++ != ':')
			return false;
	}
	return *s == '\0';
}

/* "0" or a decimal number without leading zeros */
static bool md_number(const char *s)
{
	if (!*s || (s[0] == '0' && s[1]))
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static bool md_name_ok(const char *s)
{
	if (!*s || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (; *s; s++)
		if (*s == '/' || isspace((unsigned char)*s) || !isprint((unsigned char)*s))
			return false;
	return true;
}

/* Parse ARRAY into m. NULL or a malloc'd error message. */
static char *parse_array(const char *w, struct conf_mirror *m)
{
	m->spec = xstrdup(w);
	if (!strncasecmp(w, "UUID=", 5)) {
		if (!config_uuid_valid(w + 5))
			return xasprintf("invalid UUID '%s': expected 4 groups of 8 hex digits separated by ':', as mdadm --detail prints it",
					 w + 5);
		m->kind = CONF_UUID;
		m->uuid = xstrdup(w + 5);
		for (char *p = m->uuid; *p; p++)
			*p = (char)tolower((unsigned char)*p);
		return NULL;
	}
	if (!strncmp(w, "/dev/md/", 8)) {
		if (!md_name_ok(w + 8))
			return xasprintf("invalid array '%s': expected /dev/md/NAME", w);
		m->kind = CONF_MDNAME;
		m->name = xstrdup(w + 8);
		return NULL;
	}
	if (!strncmp(w, "/dev/", 5))
		w += 5;
	if (!strncmp(w, "md", 2) && md_number(w + 2)) {
		m->kind = CONF_DEVICE;
		m->name = xstrdup(w);
		return NULL;
	}
	return xasprintf("invalid array '%s': expected /dev/mdN, mdN, /dev/md/NAME or UUID=xxxxxxxx:xxxxxxxx:xxxxxxxx:xxxxxxxx",
			 m->spec);
}

static void mirror_clear(struct conf_mirror *m)
{
	free(m->spec);
	free(m->name);
	free(m->uuid);
	memset(m, 0, sizeof(*m));
}

static bool same_array(const struct conf_mirror *a, const struct conf_mirror *b)
{
	if (a->kind != b->kind)
		return false;
	if (a->kind == CONF_UUID)
		return !strcmp(a->uuid, b->uuid);
	return !strcmp(a->name, b->name);
}

/* Parse one line (comment already cut). NULL, or a malloc'd error message. */
static char *parse_line(struct config *c, char *text, int line, bool *empty)
{
	char *save = NULL, *words[16];
	size_t n = 0;
	struct conf_mirror m = { 0 };
	char *msg = NULL;

	for (char *w = strtok_r(text, " \t\r\v\f", &save); w; w = strtok_r(NULL, " \t\r\v\f", &save)) {
		if (n == sizeof(words) / sizeof(words[0]))
			return xstrdup("too many words: expected ARRAY SIZE [prealloc]");
		words[n++] = w;
	}
	*empty = n == 0;
	if (n == 0)
		return NULL;
	if (n == 1)
		return xasprintf("'%s' has no size: expected ARRAY SIZE [prealloc], SIZE 'auto' or a size such as 2G",
				 words[0]);
	m.line = line;
	msg = parse_array(words[0], &m);
	if (msg)
		goto bad;
	if (!strcasecmp(words[1], "auto")) {
		m.auto_size = true;
	} else if (size_parse(words[1], &m.size, &msg) < 0) {
		char *inner = msg;

		msg = xasprintf("%s (or 'auto')", inner);
		free(inner);
		goto bad;
	}
	for (size_t i = 2; i < n; i++) {
		if (!strcasecmp(words[i], "prealloc")) {
			m.prealloc = true;
			continue;
		}
		msg = xasprintf("unknown option '%s': the only option is prealloc", words[i]);
		goto bad;
	}
	for (size_t i = 0; i < c->n; i++)
		if (same_array(&c->v[i], &m)) {
			msg = xasprintf("%s is already configured on line %d", m.spec, c->v[i].line);
			goto bad;
		}
	c->v = xrealloc(c->v, c->n + 1, sizeof(*c->v));
	c->v[c->n++] = m;
	return NULL;
bad:
	mirror_clear(&m);
	return msg;
}

void config_parse_text(const char *path, const char *text, struct config *c)
{
	char *copy = xstrdup(text), *line = copy;
	int lineno = 0;

	memset(c, 0, sizeof(*c));
	c->path = xstrdup(path);
	while (line) {
		char *nl = strchr(line, '\n'), *hash;
		bool empty;
		char *msg;

		if (nl)
			*nl = '\0';
		lineno++;
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		msg = parse_line(c, line, lineno, &empty);
		if (msg)
			add_error(c, lineno, msg);
		line = nl ? nl + 1 : NULL;
	}
	free(copy);
}

int config_read(const char *path, struct config *c)
{
	char *text;
	int r = read_text_file(path, &text);

	if (r < 0) {
		memset(c, 0, sizeof(*c));
		c->path = xstrdup(path);
		return r;
	}
	config_parse_text(path, text, c);
	free(text);
	return 0;
}

void config_free(struct config *c)
{
	for (size_t i = 0; i < c->n; i++)
		mirror_clear(&c->v[i]);
	for (size_t i = 0; i < c->nerrs; i++)
		free(c->errs[i].message);
	free(c->v);
	free(c->errs);
	free(c->path);
	memset(c, 0, sizeof(*c));
}
