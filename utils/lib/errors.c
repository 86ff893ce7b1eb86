// SPDX-License-Identifier: GPL-2.0
#include "lib/errors.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

static struct {
	char *code;
	char *message;
} err;

static int vrecord(int exit_code, const char *code, const char *fmt, va_list ap) RDCTL_PRINTF(3, 0);
static int vrecord(int exit_code, const char *code, const char *fmt, va_list ap)
{
	char *msg = NULL;

	if (err.message)
		return exit_code;
	if (vasprintf(&msg, fmt, ap) < 0)
		oom();
	err.message = msg;
	err.code = xstrdup(code);
	return exit_code;
}

int vfail(int exit_code, const char *code, const char *fmt, va_list ap)
{
	return vrecord(exit_code, code, fmt, ap);
}

int fail(int exit_code, const char *code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	exit_code = vrecord(exit_code, code, fmt, ap);
	va_end(ap);
	return exit_code;
}

int fail_errno(int e, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vrecord(EXIT_RUNTIME, errno_code(e), fmt, ap);
	va_end(ap);
	return r;
}

/*
 * The errno's symbolic name ("EBUSY") for the JSON error code: glibc 2.32
 * and later know them all; elsewhere a number stands in.
 */
const char *errno_code(int e)
{
	static char buf[24];

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
	const char *name = strerrorname_np(e);

	if (name)
		return name;
#endif
	if (snprintf(buf, sizeof(buf), "E%d", e) >= (int)sizeof(buf))
		return "EUNKNOWN";
	return buf;
}

void error_report(bool json)
{
	if (!err.message)
		return;
	fprintf(stderr, "rdctl: %s\n", err.message);
	if (json) {
		json_t *root = json_pack("{s:{s:s,s:s}}", "error", "code", err.code,
					 "message", err.message);

		if (!root || json_dumpf(root, stdout, JSON_INDENT(2)) < 0 || fputc('\n', stdout) == EOF)
			fputs("rdctl: cannot write the JSON error document\n", stderr);
		json_decref(root);
	}
	error_reset();
}

void error_reset(void)
{
	free(err.code);
	free(err.message);
	err.code = NULL;
	err.message = NULL;
}

const char *error_message(void)
{
	return err.message;
}

const char *error_code(void)
{
	return err.code;
}
