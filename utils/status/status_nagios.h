/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdctl --status --nagios: one line as the monitoring plugins print it
 * (Nagios, Icinga, Naemon, Sensu), "RDMIRROR OK - summary | perfdata",
 * for a plugin's exit status: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN.
 */
#ifndef RDCTL_STATUS_NAGIOS_H
#define RDCTL_STATUS_NAGIOS_H

#include <stdio.h>

#include "status/status.h"

/* The line of st; its exit status (0..2), or -1 on a write error. */
int nagios_print(FILE *f, const struct status *st);
/* "RDMIRROR UNKNOWN - why": the status could not be read. 3, or -1 on a write error. */
int nagios_unknown(FILE *f, const char *why);

#endif
