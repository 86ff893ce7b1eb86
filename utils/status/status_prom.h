/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdctl --status --prometheus: the status as Prometheus metrics, in the
 * text exposition format (version 0.0.4), for node_exporter's textfile
 * collector (scripts/rdmirror-metrics.service writes them every minute).
 * Alert rules over them: scripts/rdmirror-alerts.yml.
 */
#ifndef RDCTL_STATUS_PROM_H
#define RDCTL_STATUS_PROM_H

#include <stdio.h>

#include "status/status.h"

/* The metrics of st. 0, or -1 on a write error. */
int prom_print(FILE *f, const struct status *st);
/* Only rdmirror_status 3: the status could not be read, and an alert must see that. */
int prom_print_unknown(FILE *f);

#endif
