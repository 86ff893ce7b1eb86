/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Step 2 of the warm start (warmup.h): the array's data into the RAM
 * disk's data area, by one reader a disk, each reading its own member
 * past md (warm_copy.c says why that returns what md would).
 *
 * Through /dev/mdX, raid1's read_balance() would pick the disk by head
 * distance at each stream's first read and keep a sequential stream there:
 * two readers can start on one disk and stay there (seen on 6.1), which
 * halves the copy's rate. The order of the reads does not matter to what
 * md recovers afterwards: every read starts after the copy began, and md's
 * bitmap holds a bit for every chunk written since (the RAM slot is
 * missing throughout).
 */
#ifndef RDCTL_WARM_COPY_H
#define RDCTL_WARM_COPY_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status/warm_state.h"

/*
 * Copy w->total bytes of the array (md: an O_DIRECT descriptor of
 * /dev/mdname, read where a member cannot be) to rd
 * (of /dev/rd_name) at byte base, updating w->done and mdname's state file
 * every second. Stops early once *stop is set (-EINTR). 0 or -errno. One
 * copy at a time in a process.
 */
int warm_copy(const char *mdname, const char *rd_name, int md, int rd, uint64_t base, struct warmup *w,
	      const volatile sig_atomic_t *stop);

/* All of n bytes read from (wr false) or written to fd at off. 0 or -errno. */
int warm_full_io(bool wr, int fd, void *buf, size_t n, uint64_t off);

#endif
