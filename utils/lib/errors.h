/* SPDX-License-Identifier: GPL-2.0 */
/* One error per run: recorded where it happens, printed once by main. */
#ifndef RDCTL_ERRORS_H
#define RDCTL_ERRORS_H

#include <stdarg.h>
#include <stdbool.h>

#include "lib/util.h"

#define EXIT_RUNTIME	1
#define EXIT_USAGE	2
#define EXIT_WARNINGS	3	/* --status: shown, with at least one warning */

/*
 * Record the error (the first one wins) and return exit_code.
 * code: "EBUSY", "ENOMEM", ... or "USAGE"; message without "rdctl: ".
 */
int fail(int exit_code, const char *code, const char *fmt, ...) RDCTL_PRINTF(3, 4);
int vfail(int exit_code, const char *code, const char *fmt, va_list ap) RDCTL_PRINTF(3, 0);
/* Same, code taken from errno value e (positive). */
int fail_errno(int e, const char *fmt, ...) RDCTL_PRINTF(2, 3);

/* "EBUSY" for EBUSY; "E<number>" for values without a name here. */
const char *errno_code(int e);

/* Print the recorded error: "rdctl: msg" on stderr, and with json
 * {"error": {"code", "message"}} on stdout. No-op when none. */
void error_report(bool json);
/* Forget the recorded error (tests). */
void error_reset(void);
/* The recorded message or NULL (tests). */
const char *error_message(void);
const char *error_code(void);

#endif
