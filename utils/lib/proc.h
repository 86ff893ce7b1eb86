/* SPDX-License-Identifier: GPL-2.0 */
/* Run a child process (mdadm) and collect what it prints. */
#ifndef RDCTL_PROC_H
#define RDCTL_PROC_H

#include <stdbool.h>

struct proc_result {
	int status;	/* exit status 0..255, or 128+signal, or -1 when it could not
			 * run or did not finish in time */
	bool timed_out;	/* it did not finish in time and was stopped (see err) */
	char *out;	/* standard output, NUL-terminated, never NULL */
	char *err;	/* standard error, NUL-terminated, never NULL */
};

/* Seconds proc_run() lets a program run. */
#define PROC_TIMEOUT	30

/*
 * The program name in the system's directories, /usr/sbin, /sbin, /usr/bin
 * and /bin, in that order (malloc'd), or NULL. Never the caller's PATH:
 * rdctl runs as root (through sudo, a boot service), and a PATH that puts
 * the caller's directories first must not choose the mdadm it runs.
 */
char *proc_find(const char *name);

/*
 * Run argv, stdin from /dev/null, and wait for it, at most seconds (0: no
 * bound). path is the program; NULL: argv[0] found with proc_find(). A
 * program still running at the bound gets SIGTERM, and SIGKILL 2 s later;
 * then res->timed_out is set, res->status is -1, res->err says "did not
 * finish in N s (stopped with SIGTERM)" and -ETIMEDOUT is returned. Otherwise 0 when it ran
 * (whatever its exit status), or -errno when it could not be started
 * (res->status is then -1 and res->err names the cause). The caller frees
 * with proc_result_clear().
 */
int proc_run_bounded(const char *path, char *const argv[], unsigned seconds, struct proc_result *res);
/* proc_run_bounded(NULL, argv, PROC_TIMEOUT, res) */
int proc_run(char *const argv[], struct proc_result *res);
void proc_result_clear(struct proc_result *res);

/* The last non-empty line of s (malloc'd), or NULL when none. */
char *last_line(const char *s);

/* argv as one line a shell reads back the same (words quoted where needed), malloc'd. */
char *command_line(const char *const argv[]);

#endif
