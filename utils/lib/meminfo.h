/* SPDX-License-Identifier: GPL-2.0 */
/* Memory figures from /proc/meminfo. */
#ifndef RDCTL_MEMINFO_H
#define RDCTL_MEMINFO_H

#include <stdbool.h>
#include <stdint.h>

struct meminfo {
	uint64_t total;		/* bytes (MemTotal) */
	uint64_t available;	/* bytes (MemAvailable) */
	bool has_total, has_available;
};

/* Read <proc>/meminfo. 0 or -errno. Missing fields leave has_* false. */
int meminfo_read(struct meminfo *mi);

#endif
