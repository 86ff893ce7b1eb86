/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Array changes through mdadm (run as a child process, never by writing
 * md superblocks ourselves), and finding arrays by name or UUID.
 * Device paths given to mdadm are <dev root>/NAME (RDCTL_DEV_ROOT, /dev).
 */
#ifndef RDCTL_MD_OPS_H
#define RDCTL_MD_OPS_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Run "mdadm ARGS..." (NULL-terminated). 0 when mdadm exits 0; otherwise
 * -EIO (-ETIMEDOUT when it ran out of time, see below) and
 * *msg = "mdadm ARGS failed: <mdadm's last line on stderr>"
 * (malloc'd). With out, mdadm's standard output is returned there (malloc'd).
 * mdadm is the system's (proc_find(): /usr/sbin, /sbin, /usr/bin, /bin;
 * RDCTL_MDADM names another, for the tests), and it gets a time bound:
 * MDADM_TIMEOUT_LONG seconds for --create, --grow and --assemble,
 * MDADM_TIMEOUT for the rest (RDCTL_MDADM_TIMEOUT overrides both, for the
 * tests). One that does not finish in time is stopped, and *msg is
 * "mdadm ARGS did not finish in N s (stopped with SIGTERM): ...".
 */
#define MDADM_TIMEOUT		30
#define MDADM_TIMEOUT_LONG	120
int mdadm_call(char **out, char **msg, const char *arg, ...) __attribute__((sentinel));
/* The same with the arguments (after "mdadm") in a NULL-terminated array. */
int mdadm_callv(char **out, char **msg, const char *const args[]);

/* <dev root>/name, malloc'd: the path mdadm is given for a kernel name ("sdb",
 * "md0"; a '!' in a kernel name, as in cciss!c0d0, becomes '/'). */
char *md_dev_path(const char *kname);

/*
 * The array UUID of mdX as mdadm prints it (lower case, 4 groups of 8 hex
 * digits separated by ':'), malloc'd, or NULL when it cannot be told.
 * From /sys/block/mdX/md/uuid when md shows it there (see md_ops.c); else
 * from "mdadm --detail --export /dev/mdX" (MD_UUID=), and for an array that
 * is not running, from "mdadm --examine --export" of its first member (the
 * md superblock's array UUID).
 */
char *md_uuid_of(const char *mdname);
/* The 32 hex digits of a UUID in any of its printed forms (mdadm's ':',
 * md's and blkid's '-', and the '.' and ' ' mdadm's parse_uuid() takes too),
 * lower case, into hex[33]. false when s is not a UUID. */
bool md_uuid_hex(const char *s, char hex[33]);
/* Do two UUIDs name the same array? Compared as 32 hex digits, whatever
 * the case and the separators (mdadm's ':' or md's and blkid's '-'). */
bool md_uuid_same(const char *a, const char *b);

/* The kernel name ("md127") that /dev/md/NAME points to, malloc'd, or NULL. */
char *md_resolve_name(const char *name);
/*
 * The number of devices the array is made of, as its members' superblocks
 * record it ("mdadm --examine --export": MD_DEVICES): what sysfs does not
 * say of an array that is assembled but not started. -1 when unknown.
 */
long md_raid_disks_on_disk(const char *mdname);

struct conf_mirror;
/*
 * The kernel name ("md127") of the array a configuration line names, when
 * it exists with members, else NULL; malloc'd. A UUID is looked for in
 * every md array (the number may change at each boot).
 */
char *md_array_of_config(const struct conf_mirror *m);

/* The kernel name ("md127") of the array with that UUID and members, malloc'd, or NULL. */
char *md_array_with_uuid(const char *uuid);

/*
 * The kernel name ("md0") of the running array whose UUID the md
 * version-1 superblock on block device name (of size bytes) names, when
 * there is one (1.2, 1.1 or 1.0, each at its own place), else NULL;
 * malloc'd. What links a RAM member md failed and took out of its array
 * (after a failed recovery) to that array: md leaves the superblock on
 * it. Reading it needs root: NULL for others.
 */
char *md_array_of_super(const char *name, uint64_t size);

/* Does /sys/block/<name>/md exist with at least one member (dev-*)? */
bool md_has_members(const char *mdname);

/*
 * The size a member of mdname needs (bytes, a multiple of 4 KiB): the
 * array's component_size plus the space the md metadata takes on a member,
 * read from sysfs (see md_ops.c). 0, or -errno with *msg set (malloc'd).
 */
int md_member_size(const char *mdname, uint64_t *bytes, char **msg);

/*
 * Wait until member of mdname is in sync and no sync runs, at most timeout
 * seconds (0: as long as it takes); with progress, a line on stderr that
 * is rewritten every second. 0; -ETIMEDOUT with *msg (malloc'd) saying how
 * far the sync got; -EIO with *msg when the member leaves the array or
 * turns faulty; -errno with *msg when the array cannot be read.
 */
int md_wait_in_sync(const char *mdname, const char *member, bool progress, unsigned timeout, char **msg);
/*
 * Make every working persistent member of mdname (neither RAM nor faulty)
 * write-mostly (on) or not, through /sys/block/mdX/md/dev-Y/state
 * ("writemostly", "-writemostly"): md applies it at once and records it in
 * the member's superblock. changed(name, arg), when given, is called for
 * each member changed. A member that refuses does not stop the others.
 * The number of members changed, or the first failure's -errno with *msg
 * (malloc'd).
 */
int md_disks_write_mostly(const char *mdname, bool on, void (*changed)(const char *name, void *arg), void *arg,
			  char **msg);

#endif
