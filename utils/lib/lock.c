// SPDX-License-Identifier: GPL-2.0
#include "lib/lock.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "lib/errors.h"
#include "lib/proc.h"
#include "lib/seams.h"
#include "lib/util.h"

#define LOCK_NAME	"rdmirror.lock"
#define POLL_MS		100
#define CMDLINE_MAX	4096

static int lock_fd = -1;

int need_root(const char *verb)
{
	if (geteuid() == 0)
		return 0;
	return fail(EXIT_RUNTIME, "EPERM", "--%s needs root (run it with sudo)", verb);
}

static const char *lock_dir(void)
{
	const char *d = seam("RDCTL_RUN_DIR");

	return d && *d ? d : "/run";
}

/* lock_set_wait()'s bound; 0: none set */
static unsigned wait_set;

void lock_set_wait(unsigned seconds)
{
	wait_set = seconds;
}

static double lock_timeout(void)
{
	const char *s = seam("RDCTL_LOCK_TIMEOUT");
	uint64_t v;

	if (wait_set)
		return (double)wait_set;
	if (s && parse_u64(s, &v) && v <= 86400)
		return (double)v;
	return LOCK_TIMEOUT;
}

/*
 * This run's command line for the lock file: "rdctl --restore --wait",
 * from /proc/self/cmdline (the kernel's, not a test tree's), argv[0]
 * without its directory; "rdctl" when it cannot be read.
 */
static char *own_command_line(void)
{
	char buf[CMDLINE_MAX];
	const char *argv[64], *base;
	size_t len = 0, n = 0;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return xstrdup("rdctl");
	while (len < sizeof(buf) - 1) {
		ssize_t r = read(fd, buf + len, sizeof(buf) - 1 - len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	if (close(fd) < 0 || len == 0)
		return xstrdup("rdctl");
	buf[len] = '\0';
	for (size_t i = 0; i < len && n < sizeof(argv) / sizeof(argv[0]) - 1; i += strlen(buf + i) + 1)
		argv[n++] = buf + i;
	argv[n] = NULL;
	base = strrchr(argv[0], '/');
	argv[0] = base ? base + 1 : argv[0];
	return command_line(argv);
}

/*
 * Who holds the lock, from what the holder wrote: "PID 1234 (rdctl
 * --restore)". A PID that is gone, or an empty file, means the holder
 * did not write it (flock(1), or an rdctl between its lock and its write).
 */
static char *holder_of(int fd, const char *path)
{
	char buf[CMDLINE_MAX + 32], *end, *nl;
	ssize_t n;
	long pid;

	do
		n = pread(fd, buf, sizeof(buf) - 1, 0);
	while (n < 0 && errno == EINTR);
	if (n > 0) {
		buf[n] = '\0';
		nl = strchr(buf, '\n');
		if (nl)
			*nl = '\0';
		errno = 0;
		pid = strtol(buf, &end, 10);
		if (!errno && end != buf && *end == ' ' && pid > 0 &&
		    (kill((pid_t)pid, 0) == 0 || errno == EPERM))
			return xasprintf("PID %ld (%s)", pid, end + 1);
	}
	return xasprintf("another process (fuser -v %s names it)", path);
}

/* Wait for the lock, at most lock_timeout(). 0 or an exit code. */
static int wait_lock(int fd, const char *path)
{
	double start = mono_now(), bound = lock_timeout();
	bool told = false;

	for (;;) {
		char *who;
		int rc;

		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return 0;
		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK)
			return fail_errno(errno, "cannot lock %s: %s", path, strerror(errno));
		if (!told || mono_now() - start >= bound)
			who = holder_of(fd, path);
		else
			who = NULL;
		if (!told) {
			fprintf(stderr, "rdctl: waiting for the lock on %s held by %s\n", path, who);
			told = true;
		}
		if (mono_now() - start >= bound) {
			rc = fail_errno(EBUSY, "%s is still held by %s after %.0f s: another rdctl is changing the disks or arrays; try again when it has finished",
					path, who, bound);
			free(who);
			return rc;
		}
		free(who);
		util_sleep_ms(POLL_MS);
	}
}

/* "PID COMMAND LINE\n" into the lock file, for the next one to read. */
static int write_holder(int fd, const char *path)
{
	char *cmd = own_command_line(), *line = xasprintf("%ld %s\n", (long)getpid(), cmd);
	size_t len = strlen(line);
	ssize_t n;
	int rc = 0;

	if (ftruncate(fd, 0) < 0) {
		rc = fail_errno(errno, "cannot write %s: %s", path, strerror(errno));
	} else {
		do
			n = pwrite(fd, line, len, 0);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			rc = fail_errno(errno, "cannot write %s: %s", path, strerror(errno));
		else if ((size_t)n != len)
			rc = fail_errno(ENOSPC, "cannot write %s: short write", path);
	}
	free(line);
	free(cmd);
	return rc;
}

int lock_take(void)
{
	char *path;
	int fd, rc;

	if (lock_fd >= 0)
		return 0;
	path = xasprintf("%s/%s", lock_dir(), LOCK_NAME);
	/* O_CLOEXEC: mdadm and what it leaves running must not keep the lock */
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		rc = fail_errno(errno, "cannot open the lock file %s: %s", path, strerror(errno));
		free(path);
		return rc;
	}
	rc = wait_lock(fd, path);
	if (!rc)
		rc = write_holder(fd, path);
	if (rc) {
		/* the first error recorded is the one shown: this one only if none is */
		if (close(fd) < 0)
			fail_errno(errno, "closing %s failed: %s", path, strerror(errno));
		free(path);
		return rc;
	}
	free(path);
	lock_fd = fd;	/* left open: the lock goes with the process */
	return 0;
}

void lock_release(void)
{
	if (lock_fd < 0)
		return;
	/* closing the only descriptor of the open file drops the flock */
	close(lock_fd);
	lock_fd = -1;
}

int change_begin(const char *verb)
{
	int rc = need_root(verb);

	return rc ? rc : lock_take();
}
