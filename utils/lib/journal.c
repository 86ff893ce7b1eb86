// SPDX-License-Identifier: GPL-2.0
#include "lib/journal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/config_edit.h"
#include "lib/util.h"

/* The longest command line a line repeats: the rest is cut ("..."). */
#define CAUSE_MAX 400

/*
 * This process's command line, "rdctl ARGS" (argv[0] by its base name),
 * from /proc/self/cmdline: the kernel's copy of argv, whatever layer asks.
 */
static char *read_cause(void)
{
	char buf[CAUSE_MAX + 1], *s, *base;
	size_t n = 0;
	ssize_t r;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return xstrdup("rdctl");
	while (n < CAUSE_MAX) {
		r = read(fd, buf + n, CAUSE_MAX - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	while (n > 0 && buf[n - 1] == '\0')
		n--;
	buf[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if (buf[i] == '\0' || buf[i] == '\n')
			buf[i] = ' ';
	/* argv[0] by its base name: "rdctl", not the path it ran from */
	s = strchr(buf, ' ');
	if (s)
		*s = '\0';
	base = strrchr(buf, '/');
	base = base ? base + 1 : buf;
	s = xasprintf("%s%s%s%s", *base ? base : "rdctl", s ? " " : "", s ? s + 1 : "",
		      n == CAUSE_MAX ? "..." : "");
	return s;
}

const char *journal_cause(void)
{
	static char *cause;

	if (!cause)
		cause = read_cause();
	return cause;
}

void journal(int priority, const char *fmt, ...)
{
	static bool opened;
	va_list ap;
	char *msg = NULL;
	int n;

	/* (the warm-up daemon opens it the same way: one ident for both) */
	if (!opened) {
		openlog("rdctl", LOG_PID, LOG_DAEMON);
		opened = true;
	}
	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0) {
		syslog(priority, "%s (by %s)", fmt, journal_cause());
		return;
	}
	syslog(priority, "%s (by %s)", msg, journal_cause());
	free(msg);
}

int journal_sysfs_write(const char *path, const char *value)
{
	int r = write_text_file(path, value);

	if (r < 0)
		journal(LOG_ERR, "echo %s > %s failed: %s", value, path, strerror(-r));
	else
		journal(LOG_INFO, "echo %s > %s", value, path);
	return r;
}

int journal_conf_write(const char *path, const char *text, const char *what, char **msg)
{
	int r = config_write_atomic(path, text, msg);

	if (r < 0)
		journal(LOG_ERR, "%s failed: %s", what, *msg ? *msg : strerror(-r));
	else
		journal(LOG_INFO, "%s", what);
	return r;
}
