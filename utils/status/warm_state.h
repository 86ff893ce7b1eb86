/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state of a warm-up (mirror/warmup.h), in <run dir>/warmup-<mdX>.state:
 * its daemon writes it, --status and --wait read it. Lines "KEY VALUE":
 * pid, rd, done, total, started, phase ("copy", "recover" once md has
 * the RAM disk back and recovers what was written during the copy, or
 * "full" when md refused it back and recovers it in full), and
 * while the daemon has md's limits raised, speed_min_was and
 * speed_max_was: what to write back ("system" or KiB per second).
 */
#ifndef RDCTL_WARM_STATE_H
#define RDCTL_WARM_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct warmup {
	pid_t pid;
	bool alive;		/* the daemon still runs */
	char *rd;		/* "rd0" */
	uint64_t done, total;	/* bytes copied, bytes to copy */
	int64_t started;	/* Unix seconds */
	bool recovering;	/* phase recover or full: md has the disk, recovering */
	bool full;		/* phase full: md refused the re-add, recovers it all */
	char *min_was, *max_was;	/* md's sync_speed_min/max to put back; NULL: not raised */
	char *depth_was;	/* md's sync_io_depth to put back (6.16+); NULL: not raised */
};

/* Write the state of mdname's warm-up atomically. 0 or -errno. */
int warm_state_write(const char *mdname, const struct warmup *w);
/* Remove it (the warm-up is over). */
void warm_state_remove(const char *mdname);
/*
 * Is pid still a warm-up's daemon? A state left by one that died may name
 * a PID given to another process since, which is not ours to signal.
 */
bool warmup_is_daemon(pid_t pid);

/* The warm-up of mdname: 0 with *w (alive or not), -ENOENT when none. */
int warmup_read(const char *mdname, struct warmup *w);
void warmup_clear(struct warmup *w);
/* How much of the copy is done, 0 to 100. */
double warmup_percent(const struct warmup *w);
/* The arrays with a warm-up state (NULL-terminated list, free each and it). */
char **warmup_arrays(void);

#endif
