/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The system journal's record of what rdctl changes: one syslog line
 * (facility daemon, ident "rdctl", with its PID) for every change it makes
 * to an array (an mdadm command, a member's sysfs attribute), to mdadm.conf
 * or /etc/rdmirror.conf, and for every initramfs rebuild, whether the
 * change worked or not; and for every change to a RAM disk (attach,
 * detach, resize, flush: rd/control.c), alone or as a step of a bigger
 * command. Each line ends with the command that asked for the change,
 * " (by rdctl --convert /dev/md0)". Reading commands (mdadm --detail,
 * --examine) and a dry run leave no line.
 */
#ifndef RDCTL_JOURNAL_H
#define RDCTL_JOURNAL_H

#include <syslog.h>

/* rdctl's command line, "rdctl --convert /dev/md0": why a change was made */
const char *journal_cause(void);

/*
 * One line, LOG_INFO for a change made, LOG_ERR for one that failed, with
 * " (by COMMAND)" (journal_cause()) added.
 */
void journal(int priority, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Write value to the md sysfs attribute at path (write_text_file()) and
 * journal it as "echo VALUE > PATH". 0 or -errno.
 */
int journal_sysfs_write(const char *path, const char *value);

/*
 * Replace the configuration file at path with text (config_write_atomic())
 * and journal what (which names the file). 0 or -errno with *msg.
 */
int journal_conf_write(const char *path, const char *text, const char *what, char **msg);

#endif
