/* SPDX-License-Identifier: GPL-2.0 */
/* Run a child process (mdadm) and collect what it prints. */
#ifndef RDCTL_PROC_H
#define RDCTL_PROC_H

struct proc_result {
	int status;	/* exit status 0..255, or 128+signal, or -1 when it could not run */
	char *out;	/* standard output, NUL-terminated, never NULL */
	char *err;	/* standard error, NUL-terminated, never NULL */
};

/*
 * Run argv (argv[0] looked up in PATH, then in /usr/sbin and /sbin, so
 * that a boot-time PATH without sbin still finds mdadm), stdin from
 * /dev/null, and wait for it. 0 when it ran (whatever its exit status),
 * or -errno when it could not be started (res->status is then -1 and
 * res->err names the cause). The caller frees with proc_result_clear().
 */
int proc_run(char *const argv[], struct proc_result *res);
void proc_result_clear(struct proc_result *res);

/* The last non-empty line of s (malloc'd), or NULL when none. */
char *last_line(const char *s);

#endif
