// SPDX-License-Identifier: GPL-2.0
#include "lib/journal.h"

#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

#include "lib/config_edit.h"
#include "lib/util.h"

void journal(int priority, const char *fmt, ...)
{
	static bool opened;
	va_list ap;

	/* (the warm-up daemon opens it the same way: one ident for both) */
	if (!opened) {
		openlog("rdctl", LOG_PID, LOG_DAEMON);
		opened = true;
	}
	va_start(ap, fmt);
	vsyslog(priority, fmt, ap);
	va_end(ap);
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
