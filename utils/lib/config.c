// SPDX-License-Identifier: GPL-2.0
#include "lib/config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <rdmirror.h>

#include "lib/seams.h"
#include "lib/size.h"
#include "lib/util.h"

/* no configuration is that big; /dev/zero must not eat the memory */
#define CONFIG_MAX_BYTES	(16U << 20)

static void add_error(struct config *c, int line, char *message)
{
	c->errs = xrealloc(c->errs, c->nerrs + 1, sizeof(*c->errs));
	c->errs[c->nerrs].line = line;
	c->errs[c->nerrs].message = message;
	c->nerrs++;
}

const char *config_path(const char *given)
{
	const char *p = given ? given : seam("RDCTL_CONFIG");

	return p && *p ? p : CONFIG_DEFAULT_PATH;
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
			return xasprintf("invalid UUID '%s': " CONFIG_UUID_FORM,
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
	free(m->member);
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

/* "reserve SIZE" or "reserve N%" (N from 0 to 90). NULL or a malloc'd error. */
static char *parse_reserve(struct config *c, char **words, size_t n, int line)
{
	uint64_t v;
	char *msg = NULL, *pct;

	if (n != 2)
		return xstrdup("expected 'reserve SIZE' or 'reserve N%', for example reserve 1G or reserve 5%");
	if (c->reserve_line)
		return xasprintf("reserve is set already on line %d", c->reserve_line);
	pct = strchr(words[1], '%');
	if (pct) {
		*pct = '\0';
		if (pct[1] || !parse_u64(words[1], &v) || v > 90)
			return xasprintf("invalid reserve '%s%%': expected a whole percentage from 0 to 90", words[1]);
		c->reserve_pct = (unsigned)v;
		c->reserve_bytes = 0;
	} else if (!strcmp(words[1], "0")) {
		c->reserve_pct = 0;
		c->reserve_bytes = 0;
	} else if (size_parse(words[1], &c->reserve_bytes, &msg) < 0) {
		char *inner = msg;

		msg = xasprintf("invalid reserve: %s", inner);
		free(inner);
		return msg;
	}
	c->reserve_line = line;
	return NULL;
}

/* "recovery_speed MIN MAX" (sizes per second) or "recovery_speed off". NULL or a malloc'd error. */
static char *parse_speed(struct config *c, char **words, size_t n, int line)
{
	char *msg = NULL, *inner;
	uint64_t v[2];

	if (c->speed_line)
		return xasprintf("recovery_speed is set already on line %d", c->speed_line);
	if (n == 2 && !strcasecmp(words[1], "off")) {
		c->speed_off = true;
		c->speed_line = line;
		return NULL;
	}
	if (n != 3)
		return xstrdup("expected 'recovery_speed MIN MAX' (per second) or 'recovery_speed off', for example recovery_speed 100M 4G");
	for (int i = 0; i < 2; i++) {
		if (size_parse(words[1 + i], &v[i], &inner) < 0) {
			msg = xasprintf("invalid recovery_speed %s: %s", i ? "MAX" : "MIN", inner);
			free(inner);
			return msg;
		}
		/* md takes KiB per second, in an int */
		if (v[i] / 1024 > INT32_MAX)
			return xasprintf("invalid recovery_speed %s '%s': at most 2T per second", i ? "MAX" : "MIN",
					 words[1 + i]);
	}
	if (v[0] > v[1])
		return xasprintf("recovery_speed MIN %s is above MAX %s", words[1], words[2]);
	c->speed_min = v[0];
	c->speed_max = v[1];
	c->speed_line = line;
	return NULL;
}

bool config_recovery_speed(const struct config *c, uint64_t *min, uint64_t *max)
{
	*min = CONFIG_SPEED_MIN;
	*max = CONFIG_SPEED_MAX;
	if (!c || !c->speed_line)
		return true;
	if (c->speed_off)
		return false;
	*min = c->speed_min;
	*max = c->speed_max;
	return true;
}

uint64_t config_reserve_bytes(const struct config *c, uint64_t mem_total)
{
	uint64_t r;

	if (c && c->reserve_line)
		return c->reserve_bytes ? c->reserve_bytes : mem_total / 100 * c->reserve_pct;
	r = mem_total / 20;
	if (r < CONFIG_RESERVE_MIN)
		r = CONFIG_RESERVE_MIN;
	return r > CONFIG_RESERVE_MAX ? CONFIG_RESERVE_MAX : r;
}

/*
 * member=PATH: the fast member is the local disk at PATH, an absolute path
 * (whether it is a stable name is rdctl --convert's and --create's check).
 */
static char *parse_member(const char *path, struct conf_mirror *m)
{
	if (path[0] != '/')
		return xasprintf("member=%s: expected an absolute path such as /dev/disk/by-id/nvme-...", path);
	if (m->member)
		return xasprintf("member= given twice (%s and %s)", m->member, path);
	m->member = xstrdup(path);
	return NULL;
}

unsigned config_comp_parse(const char *name)
{
	if (!strcasecmp(name, "lz4"))
		return RDMIRROR_COMP_LZ4;
	if (!strcasecmp(name, "zstd"))
		return RDMIRROR_COMP_ZSTD;
	return RDMIRROR_COMP_NONE;
}

const char *config_comp_name(unsigned comp)
{
	switch (comp) {
	case RDMIRROR_COMP_NONE:
		return "none";
	case RDMIRROR_COMP_LZ4:
		return "lz4";
	case RDMIRROR_COMP_ZSTD:
		return "zstd";
	default:
		return "unknown";
	}
}

/* compress=NAME: the RAM member stores its pages compressed with NAME. */
static char *parse_compress(const char *name, struct conf_mirror *m)
{
	if (m->comp)
		return xasprintf("compress= given twice (%s and %s)", config_comp_name(m->comp), name);
	m->comp = config_comp_parse(name);
	if (!m->comp)
		return xasprintf("compress=%s: unknown compressor, expected lz4 or zstd", name);
	return NULL;
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
	if (!strcasecmp(words[0], "reserve"))
		return parse_reserve(c, words, n, line);
	if (!strcasecmp(words[0], "recovery_speed"))
		return parse_speed(c, words, n, line);
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

		msg = xasprintf("%s; SIZE may also be 'auto'", inner);
		free(inner);
		goto bad;
	}
	for (size_t i = 2; i < n; i++) {
		if (!strcasecmp(words[i], "prealloc")) {
			m.prealloc = true;
			continue;
		}
		if (!strncasecmp(words[i], "member=", 7)) {
			msg = parse_member(words[i] + 7, &m);
			if (msg)
				goto bad;
			continue;
		}
		if (!strncasecmp(words[i], "compress=", 9)) {
			msg = parse_compress(words[i] + 9, &m);
			if (msg)
				goto bad;
			continue;
		}
		msg = xasprintf("unknown option '%s': the options are prealloc, member=PATH and compress=lz4|zstd", words[i]);
		goto bad;
	}
	if (m.comp && (m.prealloc || m.member)) {
		msg = xasprintf("compress=%s is for a RAM member: not with %s", config_comp_name(m.comp),
				m.member ? "member=" : "prealloc (a compressed disk's memory is what its data takes)");
		goto bad;
	}
	if (m.member && (m.prealloc || !m.auto_size)) {
		msg = xasprintf("member=%s is a disk: its size is its own (SIZE auto) and prealloc is for RAM", m.member);
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

/* One line of len bytes (NULs included), without its '\n'. */
static void parse_numbered(struct config *c, const char *line, size_t len, int lineno)
{
	char *text, *hash, *msg;
	bool empty;

	/* as a C string the line would end at the NUL, the rest of it lost */
	if (memchr(line, '\0', len)) {
		add_error(c, lineno, xstrdup("contains a NUL byte: this is not a text file, or it is damaged"));
		return;
	}
	text = xmalloc(len + 1);
	memcpy(text, line, len);
	text[len] = '\0';
	hash = strchr(text, '#');
	if (hash)
		*hash = '\0';
	msg = parse_line(c, text, lineno, &empty);
	if (msg)
		add_error(c, lineno, msg);
	free(text);
}

/* The lines are what '\n' ends, and the piece after the last '\n'. */
static void parse_bytes(const char *path, const char *buf, size_t len, struct config *c)
{
	size_t pos = 0;
	int lineno = 0;

	memset(c, 0, sizeof(*c));
	c->path = xstrdup(path);
	for (;;) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - buf) : len;

		parse_numbered(c, buf + pos, end - pos, ++lineno);
		if (!nl)
			break;
		pos = end + 1;
	}
}

void config_parse_text(const char *path, const char *text, struct config *c)
{
	parse_bytes(path, text, strlen(text), c);
}

/* The whole file with its length, NUL bytes and all. 0 or -errno. */
static int read_bytes(const char *path, char **out, size_t *outlen)
{
	size_t cap = 4096, len = 0;
	char *buf;
	int fd, e;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	buf = xmalloc(cap);
	for (;;) {
		ssize_t n;

		if (len == cap) {
			if (cap >= CONFIG_MAX_BYTES) {
				e = EFBIG;
				goto fail;
			}
			cap *= 2;
			buf = xrealloc(buf, cap, 1);
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = errno;
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (close(fd) < 0) {
		e = errno;
		free(buf);
		return -e;
	}
	*out = buf;
	*outlen = len;
	return 0;
fail:
	free(buf);
	close(fd);
	return -e;
}

int config_read(const char *path, struct config *c)
{
	char *buf = NULL;
	size_t len = 0;
	int r = read_bytes(path, &buf, &len);

	if (r < 0) {
		memset(c, 0, sizeof(*c));
		c->path = xstrdup(path);
		return r;
	}
	/* not read_text_file() and a C string: a NUL would end the file there */
	parse_bytes(path, buf, len, c);
	free(buf);
	return 0;
}

/* "lines 1 and 4 both name /dev/md0 (md0, UUID=...): ..." for the count lines from first on */
static char *same_array_message(const struct config *c, char *const *names, size_t first, size_t count)
{
	char *lines = xstrdup(""), *specs = xstrdup(""), *t, *msg;
	size_t seen = 0;

	for (size_t j = first; j < c->n; j++) {
		if (!names[j] || strcmp(names[j], names[first]))
			continue;
		seen++;
		t = xasprintf("%s%s%d", lines, seen == 1 ? "" : seen == count ? " and " : ", ", c->v[j].line);
		free(lines);
		lines = t;
		t = xasprintf("%s%s%s", specs, seen == 1 ? "" : ", ", c->v[j].spec);
		free(specs);
		specs = t;
	}
	msg = xasprintf("lines %s %s name /dev/%s (%s): %s is used; keep one of them", lines,
			count == 2 ? "both" : "all", names[first], specs, count == 2 ? "neither" : "none");
	free(lines);
	free(specs);
	return msg;
}

size_t config_drop_same_arrays(struct config *c, char **names)
{
	bool *drop = xcalloc(c->n ? c->n : 1, sizeof(*drop));
	size_t kept = 0, removed;

	for (size_t i = 0; i < c->n; i++) {
		size_t count = 1;

		if (!names[i] || drop[i])
			continue;
		for (size_t j = i + 1; j < c->n; j++) {
			if (names[j] && !strcmp(names[j], names[i])) {
				drop[j] = true;
				count++;
			}
		}
		if (count == 1)
			continue;
		drop[i] = true;
		add_error(c, 0, same_array_message(c, names, i, count));
	}
	for (size_t i = 0; i < c->n; i++) {
		if (drop[i]) {
			mirror_clear(&c->v[i]);
			free(names[i]);
			continue;
		}
		c->v[kept] = c->v[i];
		names[kept++] = names[i];
	}
	removed = c->n - kept;
	c->n = kept;
	free(drop);
	return removed;
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
