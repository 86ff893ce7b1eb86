/* SPDX-License-Identifier: GPL-2.0 */
/* The findings --status shows: what a user of a RAM mirror must know. */
#ifndef RDCTL_WARNINGS_H
#define RDCTL_WARNINGS_H

#include <stddef.h>

#include "lib/meminfo.h"
#include "lib/sysfs.h"
#include "md/md.h"

/*
 * How bad a finding is, in the monitoring plugins' terms (their exit
 * status is the value): OK is information (a routine warm-up), WARNING
 * needs a look, CRITICAL means data may be lost at the next power cut.
 */
enum severity {
	SEV_OK = 0,
	SEV_WARNING = 1,
	SEV_CRITICAL = 2,
};

struct warning {
	const char *code;	/* stable identifier, see rdctl.8 */
	enum severity severity;
	char *array;		/* "md0" or NULL */
	char *device;		/* "sdc", "rd0" or NULL */
	char *message;		/* one line for people */
};

struct warnings {
	struct warning *v;
	size_t n;
};

/*
 * Compute the findings of the arrays and disks, with their severity:
 *   OK when the array's RAM member is only warming up (recovering, not
 *   faulty, and nothing else wrong with the array's layout):
 *     sync_running       the recovery onto the RAM member, with progress,
 *                        rate and ETA (any other resync/reshape: WARNING)
 *     ram_not_in_sync    the RAM member is rebuilding (faulty: WARNING)
 *     degraded           degraded by the RAM slot only (beyond it: WARNING,
 *                        a persistent member is missing)
 *     not_write_mostly   a persistent member is not write-mostly while the
 *                        RAM member is in sync, and the RAM member's warm-up
 *                        daemon is alive: it makes the disks write-mostly
 *                        again in a moment (warm_state.h; dead: WARNING)
 *   OK, always:
 *     ram_reads_uncounted  a RAM member keeps no I/O statistics (its reads,
 *                        and so the RAM read share, count 0)
 *     kernel_md_bug_unknown  the running kernel's upstream release, and so
 *                        its md bugs, cannot be told (kernel_bugs.h)
 *   WARNING:
 *     not_write_mostly   a persistent member is not write-mostly
 *     one_persistent     only one persistent member
 *     ram_over_available an rd disk still needs more memory than is available
 *     kernel_md_bug      the running kernel has a known md bug (kernel_bugs.h)
 *     want_replacement   a persistent member had write errors (md will replace it)
 *     ram_write_error    the RAM member failed a write and md kept it (bad blocks)
 *     write_behind       md acknowledges writes before the disks have them
 *                        (CRITICAL on a kernel whose md loses such writes)
 *     bad_blocks         a member has recorded bad blocks (one per member)
 *     ram_slot_low       the RAM member's slot is below a persistent member's:
 *                        md's repair would copy RAM over the disks
 *   CRITICAL:
 *     no_persistent      no persistent member in sync (data lives in RAM only)
 *     ram_only_data      ranges every persistent member has recorded bad: the
 *                        RAM member holds their only good copy
 * The configuration-aware findings (not_restored, array_missing,
 * module_missing, config_error, mdadm_conf_mismatch) are added by status.c,
 * all WARNING.
 */
void warnings_compute(const struct md_array *arrays, size_t narrays,
		      const struct rd_disk *disks, size_t ndisks,
		      const struct meminfo *mi, struct warnings *w);
/* Add one finding; message is taken (freed with w). */
void warnings_add(struct warnings *w, enum severity sev, const char *code, const char *array,
		  const char *device, char *message);
/* The highest severity of the findings, SEV_OK when there is none. */
enum severity warnings_worst(const struct warnings *w);
/* "OK", "WARNING", "CRITICAL" (and 3: "UNKNOWN"), as the plugins print them. */
const char *severity_name(int sev);
void warnings_free(struct warnings *w);

#endif
