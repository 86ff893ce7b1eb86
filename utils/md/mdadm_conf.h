/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mdadm.conf's ARRAY entries for an array --convert grows and --revert
 * shrinks (issue #20). An entry with "num-devices=2" (older Debian installs
 * carry one) makes "mdadm --assemble --scan" refuse the array once it has 3
 * slots ("requires wrong number of drives"), and it stays down at the next
 * boot. So the count in the file follows the array, and the initramfs,
 * which carries a copy of the file, is made again.
 *
 * The file is read as mdadm reads it (mdadm.conf(5), mdadm's config.c):
 * words separated by blanks; quotes ('...' or "...") protect blanks within a
 * line; a word that begins with '#' starts a comment to the end of the line
 * ("a#b" is one word); a line that begins with a space or a tab continues
 * the logical line before it, even across blank and comment lines; any
 * other line starts a new one, whose first word is the keyword: "ARRAY" in
 * any case, or a prefix of it of 3+ letters ("arr"). The entry's attributes
 * are case-insensitive: uuid= (the first one that parses), num-devices= and
 * its old form disks=, spares=; a word beginning with '/' is the device
 * name. A UUID is 32 hex digits in any case, separated by ':', '.', '-' or
 * ' ' anywhere, as mdadm's parse_uuid() takes it. CRLF: a '\r' right
 * before a '\n' ends the line like the '\n' (mdadm would keep it in the last
 * word). Only entries naming the array by UUID are found: one naming it by
 * name=, devices= or super-minor= alone is not.
 */
#ifndef RDCTL_MDADM_CONF_H
#define RDCTL_MDADM_CONF_H

#include <stdbool.h>

/* Where mdadm looks: Debian's mdadm reads the first, upstream's the second. */
#define MDADM_CONF_DEBIAN	"/etc/mdadm/mdadm.conf"
#define MDADM_CONF_OTHER	"/etc/mdadm.conf"

/*
 * The mdadm.conf to fix: RDCTL_MDADM_CONF when set (the tests; NULL when
 * that file does not exist, never a file in /etc), else the first of
 * MDADM_CONF_DEBIAN and MDADM_CONF_OTHER that exists, else NULL (no file:
 * nothing to keep in step). The string is the environment's or a constant.
 */
const char *mdadm_conf_path(void);

/*
 * What text says of the array uuid, for a status report: the number of
 * ARRAY entries naming it (0: not listed; more than 1: mdadm refuses to
 * choose between them), and from the first, the value of num-devices= (or
 * disks=) and of spares= as mdadm reads them (the last one of each in the
 * entry, read like atoi), -1 for one the entry lacks. num_devices and spares
 * may be NULL.
 */
int mdadm_conf_lookup(const char *text, const char *uuid, int *num_devices, int *spares);

/* raid_disks or spares for mdadm_conf_fix_text(): leave the attribute as it
 * is; or drop it from the entry, so that the entry fits the array whatever
 * its count (before and after a --grow: a reboot between them assembles). */
#define MDADM_CONF_KEEP		(-1)
#define MDADM_CONF_DROP		(-2)

/*
 * text with, in every ARRAY entry naming uuid (its continuation lines
 * included), the value of each num-devices= and disks= set to raid_disks,
 * and of each spares= to spares; malloc'd. A value is only rewritten when
 * present and different (as mdadm reads it: "02" is 2 already); nothing is
 * added. MDADM_CONF_KEEP (any negative but MDADM_CONF_DROP) leaves that
 * attribute alone; MDADM_CONF_DROP removes its words with the blanks before
 * them (after them when the word opens a continuation line, whose indent
 * stays). Every other byte is kept: other entries, comments, blanks, CRLF,
 * a missing final newline, the case of keywords and attribute names. A
 * quoted attribute ("num-devices='2'") is rewritten without its quotes.
 * *nchanged (when not NULL): the number of words rewritten or dropped; 0
 * means the result is text, byte for byte.
 */
char *mdadm_conf_fix_text(const char *text, const char *uuid, int raid_disks, int spares, int *nchanged);

/*
 * Fix the file path (NULL: mdadm_conf_path(); none there: nothing to do)
 * with mdadm_conf_fix_text() and replace it atomically with
 * config_write_atomic() (mode, owner and a symlink kept), only when a value
 * changed; with dry_run nothing is written. *changed: a value changed (or
 * would, with dry_run). 0; -EINVAL with *msg when uuid is not a UUID (it
 * would match nothing and say nothing); -errno with *msg (malloc'd, naming
 * the file) when the file cannot be read or written, and the file is then
 * as it was. *msg is NULL on success.
 */
int mdadm_conf_update(const char *path, const char *uuid, int raid_disks, int spares, bool dry_run,
		      bool *changed, char **msg);

/* Seconds update-initramfs may run (RDCTL_INITRAMFS_TIMEOUT, for the tests). */
#define INITRAMFS_TIMEOUT	300

/* What the administrator runs by hand. */
#define INITRAMFS_CMD_DEBIAN	"update-initramfs -u -k all"
#define INITRAMFS_CMD_DRACUT	"dracut -f --regenerate-all"

/*
 * Make the initramfs again after mdadm.conf changed, so that the copy in it
 * says what the file says: the initramfs assembles the root array with it.
 * - update-initramfs (RDCTL_UPDATE_INITRAMFS, else found in /usr/sbin, /sbin,
 *   /usr/bin, /bin) with Debian's mdadm hook (RDCTL_INITRAMFS_HOOK, else
 *   /usr/share/initramfs-tools/hooks/mdadm): INITRAMFS_CMD_DEBIAN is run
 *   (every kernel's image: the next boot may be a newer kernel's), at most
 *   INITRAMFS_TIMEOUT seconds; not with dry_run. 0 with *cmd set to it.
 *   Failing, not starting or running out of time: -EIO, -errno or
 *   -ETIMEDOUT, *cmd set too, and *msg "<cmd> failed (exit N): <its last
 *   line>; the initramfs still has the old mdadm.conf: run <cmd>".
 * - else dracut (RDCTL_DRACUT, else found as above): not run, as rdctl
 *   cannot tell whether the image carries mdadm.conf (hostonly, mdadmconf)
 *   nor take 300 s of the admin's time unasked. 1 (> 0: the administrator
 *   must run *cmd) with *cmd INITRAMFS_CMD_DRACUT.
 * - else no initramfs carries mdadm.conf: 0 with *cmd NULL.
 * *cmd and *msg are malloc'd or NULL.
 */
int initramfs_refresh(bool dry_run, char **cmd, char **msg);

/*
 * Before the device count of the array with this UUID changes outside a
 * command that plans its own steps (the restore finishing an interrupted
 * --convert): the ARRAY line that names it loses num-devices=, so that it
 * fits the array before and after the change and a reboot at any moment
 * assembles it, and the initramfs is made again when the file changed.
 * 0 when nothing needed a change or all of it was done; > 0 when the file
 * changed but the administrator must still run the initramfs command
 * (*note says which); -errno with *note when mdadm.conf could not be
 * changed (the count must not change then). *note is malloc'd or NULL.
 */
int mdadm_conf_fit_count(const char *uuid, char **note);

#endif
