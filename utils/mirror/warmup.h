/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The warm start's copy: how a released RAM member comes back without a
 * full md recovery.
 *
 * md's recovery of a RAM member copies in 64 KiB requests, each behind a
 * barrier that waits for every regular request in flight in its 64 MiB
 * region (raise_barrier(), drivers/md/raid1.c): on an array busy with
 * random reads it crawls (measured in docs/BENCHMARKS.md), and raising
 * sync_speed_min does not help. A process that reads the array itself, in
 * large requests, competes with the load as one more reader and needs no
 * barrier. So, when the array has a write-intent bitmap, with the
 * superblock --release kept of the member (warm_record.h) or, when none
 * was kept, one made from the array's (warm_super.h):
 *   1. --restore attaches the RAM disk and starts this copy in the
 *      background (a daemon, as mdadm starts mdmon), and returns;
 *   2. the daemon copies the array's data, read through /dev/mdX (md picks
 *      a good disk; bad blocks and read errors are md's to handle), into
 *      the RAM disk's data area;
 *   3. it writes that superblock and "mdadm --re-add"s the disk: md
 *      accepts it as the member that left (super_1_validate(): its event
 *      count is not older than the bitmap's events_cleared) and recovers
 *      only the regions the bitmap marks as written since it left, which
 *      covers everything written during the copy: the array was degraded
 *      all along, so no bit was cleared (md_bitmap_endwrite());
 *   4. when md refuses the re-add, the disk is blanked and added as a new
 *      member: a full recovery, as without a record;
 *   5. it waits until md has the disk in sync, then makes the disks
 *      write-mostly again: from before the copy until then they are not,
 *      so that reads spread over all of them (warmup.c, spread_reads());
 *      md's sync_speed_min/max of the array are raised from the re-add
 *      until then and put back after (by warmup_cancel() when the daemon
 *      died in between).
 * Progress is in <run dir>/warmup-<mdX>.state for --status and --wait.
 */
#ifndef RDCTL_WARMUP_H
#define RDCTL_WARMUP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "md/md_super.h"
#include "status/warm_state.h"


/*
 * md's sync_speed_min and sync_speed_max for the RAM member's recovery
 * (lib/config.h, recovery_speed), bytes per second; raise false leaves
 * md's limits as they are.
 */
struct warm_speed {
	bool raise;
	uint64_t min, max;
};
/* The recovery speeds the configuration file at path sets (its defaults when it cannot be read). */
void warm_speed_of(const char *path, struct warm_speed *s);

/*
 * Start the copy of mdname into rd (attached, prepared, not in the array)
 * and return once the daemon has written its state. 0, or -errno with *why.
 */
int warmup_start(const char *mdname, const char *rd, const struct md_super *sb, const struct warm_speed *speed,
		 char **why);


/*
 * Stop the warm-up of mdname, if any (SIGTERM, then wait for it), and
 * detach its RAM disk unless md has it. 0 (also when there was none), or
 * -errno with *why.
 */
int warmup_cancel(const char *mdname, char **why);


/*
 * Wait until the warm-up of mdname is over (its daemon gone), or when
 * copy_only until its copy is (md recovers the rest meanwhile), at most
 * until mono_now() reaches deadline (0: no bound), with progress on
 * stderr when progress. 0, or -ETIMEDOUT.
 */
int warmup_wait(const char *mdname, double deadline, bool progress, bool copy_only);

/*
 * --wait for a RAM member rd of mdname that may be warming up: the copy
 * first (its daemon re-adds the disk when it is done), then md's recovery,
 * both within timeout seconds in all (0: as long as they take); progress on
 * a terminal. 0, or -errno with *msg; when the member is not in the
 * array or failed (-EIO), *msg says why if its compressed limit refused
 * writes.
 */
int warmup_wait_in_sync(const char *mdname, const char *rd, unsigned timeout, char **msg);

#endif
