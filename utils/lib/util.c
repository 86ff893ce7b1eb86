// SPDX-License-Identifier: GPL-2.0
#include "lib/seams.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void oom(void)
{
	fputs("rdctl: out of memory\n", stderr);
	exit(1);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t nmemb, size_t size)
{
	void *q;

	if (size && nmemb > SIZE_MAX / size)
		oom();
	q = realloc(p, (nmemb * size) != 0 ? nmemb * size : 1);
	if (!q)
		oom();
	return q;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		oom();
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0)
		oom();
	return s;
}

static const char *root_from_env(const char *var, const char *def)
{
	const char *v = seam(var);

	return (v && *v) ? v : def;
}

const char *sysfs_root(void)
{
	return root_from_env("RDCTL_SYSFS_ROOT", "/sys");
}

const char *proc_root(void)
{
	return root_from_env("RDCTL_PROC_ROOT", "/proc");
}

const char *dev_root(void)
{
	return root_from_env("RDCTL_DEV_ROOT", "/dev");
}

const char *run_dir(void)
{
	const char *d = seam("RDCTL_RUN_DIR");

	return d && *d ? d : "/run/rdmirror";
}

int read_text_file(const char *path, char **out)
{
	size_t cap = 256, len = 0;
	char *buf;
	int fd;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = xmalloc(cap);
	for (;;) {
		ssize_t n;

		if (len + 1 >= cap) {
			if (cap > (1U << 24)) {	/* 16 MiB: no sysfs file is that big */
				free(buf);
				close(fd);
				return -EFBIG;
			}
			cap *= 2;
			buf = xrealloc(buf, cap, 1);
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			free(buf);
			close(fd);
			return -e;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (close(fd) < 0) {
		int e = errno;

		free(buf);
		return -e;
	}
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		len--;
	buf[len] = '\0';
	*out = buf;
	return 0;
}

int write_text_file(const char *path, const char *text)
{
	size_t len = strlen(text);
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	do {
		n = write(fd, text, len);
	} while (n < 0 && errno == EINTR);
	if (n < 0 || (size_t)n != len) {
		int e = n < 0 ? errno : EIO;

		close(fd);
		return -e;
	}
	if (close(fd) < 0)
		return -errno;
	return 0;
}

bool parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!s || !*s)
		return false;
	for (; *s; s++) {
		unsigned d;

		if (*s < '0' || *s > '9')
			return false;
		d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

int read_u64_file(const char *path, uint64_t *out)
{
	char *s;
	int r = read_text_file(path, &s);

	if (r < 0)
		return r;
	r = parse_u64(s, out) ? 0 : -EINVAL;
	free(s);
	return r;
}

bool path_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

double mono_now(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void util_sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

char *eta_str(int64_t s)
{
	if (s < 0)
		return xstrdup("unknown");
	if (s >= 3600)
		return xasprintf("%lldh%02lldm", (long long)(s / 3600), (long long)(s % 3600 / 60));
	if (s >= 60)
		return xasprintf("%lldm%02llds", (long long)(s / 60), (long long)(s % 60));
	return xasprintf("%llds", (long long)s);
}

char *strv_join(char **v, size_t n, const char *sep)
{
	char *s = xstrdup("");

	for (size_t i = 0; i < n; i++) {
		char *t = xasprintf("%s%s%s", s, i ? sep : "", v[i]);

		free(s);
		s = t;
	}
	return s;
}

char *prom_label_esc(const char *s)
{
	char *out = xmalloc(2 * strlen(s ? s : "") + 1), *o = out;

	for (; s && *s; s++) {
		if (*s == '\\' || *s == '"' || *s == '\n')
			*o++ = '\\';
		*o++ = *s == '\n' ? 'n' : *s;
	}
	*o = '\0';
	return out;
}
