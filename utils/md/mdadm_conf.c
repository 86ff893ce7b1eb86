// SPDX-License-Identifier: GPL-2.0
#include "md/mdadm_conf.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "lib/config_edit.h"
#include "lib/journal.h"
#include "lib/proc.h"
#include "lib/seams.h"
#include "lib/util.h"
#include "md/md_ops.h"

/* One word of the file, as written and as mdadm reads it. */
struct conf_word {
	size_t off, len;	/* in the text, quotes and all */
	char *val;		/* quotes removed */
	size_t line;		/* the logical line it belongs to */
	bool key;		/* the first word of its logical line */
};

struct conf_words {
	struct conf_word *v;
	size_t n, cap;
};

/* A '\r' that ends a line (CRLF) counts as the end of the line. */
static bool crlf(const char *p)
{
	return p[0] == '\r' && (p[1] == '\n' || p[1] == '\0');
}

static bool blank(const char *p)
{
	return *p == ' ' || *p == '\t' || crlf(p);
}

/* Where the word at p ends, as mdadm's conf_word() reads it: quotes protect
 * blanks, never past the end of the line. With out, the word without its
 * quotes is copied there (NUL-terminated). */
static const char *word_end(const char *p, char *out)
{
	char quote = 0;

	for (; *p && *p != '\n' && (quote || !blank(p)); p++) {
		if (quote && *p == quote)
			quote = 0;
		else if (!quote && (*p == '\'' || *p == '"'))
			quote = *p;
		else if (out)
			*out++ = *p;
	}
	if (out)
		*out = '\0';
	return p;
}

/* Add the word at *pp (not blank, not '#'); *pp moves past it. */
static void read_word(const char *text, const char **pp, size_t line, bool key, struct conf_words *w)
{
	const char *end = word_end(*pp, NULL);
	struct conf_word *cw;

	if (w->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 32;
		w->v = xrealloc(w->v, w->cap, sizeof(*w->v));
	}
	cw = &w->v[w->n++];
	cw->off = (size_t)(*pp - text);
	cw->len = (size_t)(end - *pp);
	cw->line = line;
	cw->key = key;
	cw->val = xmalloc(cw->len + 1);
	word_end(*pp, cw->val);
	*pp = end;
}

static void split_words(const char *text, struct conf_words *w)
{
	const char *p = text;
	size_t line = 0;	/* 0: the indented lines before any other, one logical line */

	while (*p) {
		/* a physical line: does it start a logical one? (mdadm takes the
		 * first word of the file as a keyword, indented or not) */
		bool key = line == 0 && w->n == 0;

		if (*p != ' ' && *p != '\t' && *p != '#' && *p != '\n') {
			line++;
			key = true;
		}
		for (;;) {
			while (blank(p))
				p++;
			if (!*p || *p == '\n')
				break;
			if (*p == '#') {
				p += strcspn(p, "\n");
				break;
			}
			read_word(text, &p, line, key, w);
			key = false;
		}
		if (*p == '\n')
			p++;
	}
}

static void free_words(struct conf_words *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->v[i].val);
	free(w->v);
}

/* The value of attribute key ("uuid=") in word val, or NULL. */
static const char *attr(const char *val, const char *key)
{
	return strncasecmp(val, key, strlen(key)) ? NULL : val + strlen(key);
}

static bool is_array_key(const char *w)
{
	size_t n = strlen(w);

	/* "arrays" does not match: strncasecmp() meets array's NUL first */
	return n >= 3 && !strncasecmp(w, "array", n);
}

/* A value as mdadm's atoi() reads it, clamped to int. */
static int conf_int(const char *s)
{
	long v = strtol(s, NULL, 10);

	return v > INT_MAX ? INT_MAX : v < INT_MIN ? INT_MIN : (int)v;
}

/*
 * The words [i, *end) of the logical line at i; true when it is an ARRAY
 * entry naming the array hex.
 */
static bool entry_names(const struct conf_words *w, size_t i, size_t *end, const char *hex)
{
	bool array = w->v[i].key && is_array_key(w->v[i].val), found = false;
	size_t j;

	for (j = i + 1; j < w->n && w->v[j].line == w->v[i].line; j++) {
		const char *u = attr(w->v[j].val, "uuid=");
		char h[33];

		/* the first uuid= that parses counts; mdadm ignores the later ones */
		if (array && u && !found && md_uuid_hex(u, h)) {
			found = true;
			array = !strcmp(h, hex);
		}
	}
	*end = j;
	return array && found;
}

int mdadm_conf_lookup(const char *text, const char *uuid, int *num_devices, int *spares)
{
	struct conf_words w = { 0 };
	char hex[33];
	int n = 0;

	if (num_devices)
		*num_devices = -1;
	if (spares)
		*spares = -1;
	if (!md_uuid_hex(uuid, hex))
		return 0;
	split_words(text, &w);
	for (size_t i = 0, end; i < w.n; i = end) {
		if (!entry_names(&w, i, &end, hex) || n++)
			continue;
		for (size_t j = i + 1; j < end; j++) {
			const char *v = w.v[j].val, *d = attr(v, "num-devices=");
			const char *s = attr(v, "spares=");

			if (!d)
				d = attr(v, "disks=");
			if (d && num_devices)
				*num_devices = conf_int(d);
			if (s && spares)
				*spares = conf_int(s);
		}
	}
	free_words(&w);
	return n;
}

struct edit {
	size_t off, len;	/* the bytes replaced */
	char *text;
};

struct edits {
	struct edit *v;
	size_t n, cap;
};

/*
 * The bytes MDADM_CONF_DROP removes for the word [*off, *off + *len): with
 * the blanks before it, down to min (where the edit before ends); when the
 * word opens its line, the blanks after it instead: the indent stays, or the
 * next word would start a logical line of its own.
 */
static void drop_span(const char *text, size_t min, size_t *off, size_t *len)
{
	size_t b = *off, e = *off + *len;

	while (b > min && (text[b - 1] == ' ' || text[b - 1] == '\t'))
		b--;
	if (b == 0 || text[b - 1] == '\n') {
		b = *off;
		while (text[e] == ' ' || text[e] == '\t')
			e++;
	}
	*off = b;
	*len = e - b;
}

/* Set word cw's value (after key) to want, when it says something else. */
static void set_value(struct edits *e, const char *text, const struct conf_word *cw, const char *key, int want)
{
	const char *v = attr(cw->val, key);
	size_t min = e->n ? e->v[e->n - 1].off + e->v[e->n - 1].len : 0;
	struct edit *ed;

	/* "num-devices=" reads as 0 too */
	if (!v || (want < 0 && want != MDADM_CONF_DROP) || (want >= 0 && conf_int(v) == want))
		return;
	if (e->n == e->cap) {
		e->cap = e->cap ? e->cap * 2 : 8;
		e->v = xrealloc(e->v, e->cap, sizeof(*e->v));
	}
	ed = &e->v[e->n++];
	ed->off = cw->off;
	ed->len = cw->len;
	if (want == MDADM_CONF_DROP) {
		drop_span(text, min, &ed->off, &ed->len);
		ed->text = xstrdup("");
	} else if (!memchr(text + cw->off, '\'', cw->len) && !memchr(text + cw->off, '"', cw->len)) {
		/* as written: only the digits change */
		ed->off = cw->off + (size_t)(v - cw->val);
		ed->len = cw->len - (size_t)(v - cw->val);
		ed->text = xasprintf("%d", want);
	} else {
		/* quoted: the whole word, the name as written, no quotes */
		ed->text = xasprintf("%.*s%d", (int)(v - cw->val), cw->val, want);
	}
}

/* text with the edits (in order, not overlapping) made; malloc'd. */
static char *apply_edits(const char *text, const struct edits *e)
{
	size_t len = strlen(text), at = 0;
	char *out, *o;

	for (size_t i = 0; i < e->n; i++)
		len = len - e->v[i].len + strlen(e->v[i].text);
	o = out = xmalloc(len + 1);
	for (size_t i = 0; i < e->n; i++) {
		size_t t = strlen(e->v[i].text);

		memcpy(o, text + at, e->v[i].off - at);
		o += e->v[i].off - at;
		memcpy(o, e->v[i].text, t);
		o += t;
		at = e->v[i].off + e->v[i].len;
	}
	memcpy(o, text + at, strlen(text + at) + 1);
	return out;
}

char *mdadm_conf_fix_text(const char *text, const char *uuid, int raid_disks, int spares, int *nchanged)
{
	struct conf_words w = { 0 };
	struct edits e = { 0 };
	char hex[33], *out;

	if (md_uuid_hex(uuid, hex))
		split_words(text, &w);
	for (size_t i = 0, end; i < w.n; i = end) {
		if (!entry_names(&w, i, &end, hex))
			continue;
		for (size_t j = i + 1; j < end; j++) {
			set_value(&e, text, &w.v[j], "num-devices=", raid_disks);
			set_value(&e, text, &w.v[j], "disks=", raid_disks);
			set_value(&e, text, &w.v[j], "spares=", spares);
		}
	}
	out = apply_edits(text, &e);
	if (nchanged)
		*nchanged = (int)e.n;
	for (size_t i = 0; i < e.n; i++)
		free(e.v[i].text);
	free(e.v);
	free_words(&w);
	return out;
}

const char *mdadm_conf_path(void)
{
	const char *env = seam("RDCTL_MDADM_CONF");

	if (env && *env)
		return path_exists(env) ? env : NULL;
	if (path_exists(MDADM_CONF_DEBIAN))
		return MDADM_CONF_DEBIAN;
	if (path_exists(MDADM_CONF_OTHER))
		return MDADM_CONF_OTHER;
	return NULL;
}

int mdadm_conf_update(const char *path, const char *uuid, int raid_disks, int spares, bool dry_run,
		      bool *changed, char **msg)
{
	char hex[33], *text = NULL, *fixed;
	int n = 0, r;

	*changed = false;
	*msg = NULL;
	if (!md_uuid_hex(uuid, hex)) {
		*msg = xasprintf("cannot fix mdadm.conf: %s is not an array UUID", uuid);
		return -EINVAL;
	}
	if (!path)
		path = mdadm_conf_path();
	if (!path)
		return 0;
	r = config_file_load(path, &text, msg);
	if (r < 0)
		return r;
	fixed = mdadm_conf_fix_text(text, uuid, raid_disks, spares, &n);
	*changed = n > 0;
	if (n > 0 && !dry_run) {
		char *what = xasprintf("%s: the ARRAY line of %s made to match the array (num-devices=, spares=)",
				       path, uuid);

		r = journal_conf_write(path, fixed, what, msg);
		free(what);
	}
	free(fixed);
	free(text);
	return r;
}

/* A program's path: the environment's (the tests) or the system's; malloc'd or NULL. */
static char *tool_path(const char *var, const char *name)
{
	const char *env = seam(var);

	if (env && *env)
		return access(env, X_OK) == 0 ? xstrdup(env) : NULL;
	return proc_find(name);
}

static unsigned initramfs_timeout(void)
{
	const char *s = seam("RDCTL_INITRAMFS_TIMEOUT");
	uint64_t v;

	if (s && parse_u64(s, &v) && v >= 1 && v <= 86400)
		return (unsigned)v;
	return INITRAMFS_TIMEOUT;
}

static int run_update_initramfs(const char *path, char **msg)
{
	char a0[] = "update-initramfs", a1[] = "-u", a2[] = "-k", a3[] = "all";
	char *argv[] = { a0, a1, a2, a3, NULL };
	struct proc_result res;
	char *why = NULL;
	int r = proc_run_bounded(path, argv, initramfs_timeout(), &res);

	if (r < 0) {
		why = xstrdup(res.err);
	} else if (res.status != 0) {
		char *line = last_line(res.err);

		if (!line)
			line = last_line(res.out);
		why = xasprintf("failed (exit %d): %s", res.status, line ? line : "no message");
		free(line);
		r = -EIO;
	}
	if (why) {
		*msg = xasprintf("%s %s; the initramfs still has the old mdadm.conf: run %s",
				 INITRAMFS_CMD_DEBIAN, why, INITRAMFS_CMD_DEBIAN);
		journal(LOG_ERR, "%s", *msg);
	} else {
		journal(LOG_INFO, "%s: the initramfs made again with the new mdadm.conf", INITRAMFS_CMD_DEBIAN);
	}
	free(why);
	proc_result_clear(&res);
	return r;
}

int initramfs_refresh(bool dry_run, char **cmd, char **msg)
{
	const char *hook = seam("RDCTL_INITRAMFS_HOOK");
	char *upd, *dracut;
	int r = 0;

	*cmd = NULL;
	*msg = NULL;
	if (!hook || !*hook)
		hook = "/usr/share/initramfs-tools/hooks/mdadm";
	upd = tool_path("RDCTL_UPDATE_INITRAMFS", "update-initramfs");
	if (upd && path_exists(hook)) {
		*cmd = xstrdup(INITRAMFS_CMD_DEBIAN);
		if (!dry_run)
			r = run_update_initramfs(upd, msg);
		free(upd);
		return r;
	}
	free(upd);
	dracut = tool_path("RDCTL_DRACUT", "dracut");
	if (dracut) {
		*cmd = xstrdup(INITRAMFS_CMD_DRACUT);
		r = 1;
	}
	free(dracut);
	return r;
}

int mdadm_conf_fit_count(const char *uuid, char **note)
{
	char *cmd = NULL, *msg = NULL;
	bool changed = false;
	int r;

	*note = NULL;
	r = mdadm_conf_update(NULL, uuid, MDADM_CONF_DROP, -1, false, &changed, &msg);
	if (r < 0) {
		*note = msg;
		return r;
	}
	if (!changed)
		return 0;
	r = initramfs_refresh(false, &cmd, &msg);
	if (r > 0) {
		*note = xasprintf("the initramfs may carry the old mdadm.conf: run %s", cmd);
	} else if (r < 0) {
		*note = msg;
		msg = NULL;
		r = 1;
	}
	free(cmd);
	free(msg);
	return r;
}
