/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a command that changes disks or arrays does first: check for root,
 * then take the lock that keeps two such rdctl runs (a boot-time --restore
 * and an --attach typed at the same moment, two --convert) from
 * interleaving their steps.
 */
#ifndef RDCTL_LOCK_H
#define RDCTL_LOCK_H

/* Seconds a second rdctl waits for the lock before it gives up. */
#define LOCK_TIMEOUT	60

/*
 * Refuse to go on without root, before anything is read or run: without it
 * mdadm and the control device fail one by one, and the error that shows
 * is the last of them (a --restore looked for its arrays for 30 s, then
 * blamed mdadm.conf). verb: "restore". 0, or exit 1 with the error
 * "--restore needs root (run it with sudo)" (EPERM).
 */
int need_root(const char *verb);

/*
 * Take flock(LOCK_EX) on <run dir>/rdmirror.lock (RDCTL_RUN_DIR, default
 * /run; the file is made 0600 when missing), held until rdctl exits, and
 * write "PID COMMAND LINE" into it for the next one to say who holds it.
 * When another process holds it: say so once on stderr and wait, at most
 * LOCK_TIMEOUT seconds (RDCTL_LOCK_TIMEOUT, for the tests). 0, or exit 1
 * with the error recorded (EBUSY when the wait ran out).
 */
int lock_take(void);

/* lock_take()'s wait bound from now on: seconds (not 0), over LOCK_TIMEOUT. */
void lock_set_wait(unsigned seconds);

/*
 * Let the lock go before a long wait that changes nothing (--wait for a
 * sync): another rdctl need not wait for md's recovery, which can take
 * minutes, nor give up after LOCK_TIMEOUT.
 */
void lock_release(void);

/* need_root(verb), then lock_take(). 0 or an exit code. */
int change_begin(const char *verb);

#endif
