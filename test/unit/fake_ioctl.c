// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD shim for host tests: answers the rdmirror control ioctls
 * without a kernel module, so that rdctl --attach/--detach/--resize/--flush
 * run end to end against a fake tree with a regular file standing in for
 * /dev/rdmirror-control.
 *   RDCTL_FAKE_IOCTL_ERRNO=EBUSY   fail every control ioctl with that errno
 *   RDCTL_FAKE_INDEX=N             index returned by ADD (default 3)
 *   RDCTL_FAKE_LOG=FILE            append one line per answered ioctl
 *                                  ("ioctl ADD <size> <flags>", "ioctl REMOVE <index>", ...)
 *   RDCTL_FAKE_SYSLOG=FILE         syslog(3) lines go to FILE instead, as
 *                                  "info MESSAGE" or "err MESSAGE" (lib/journal.h)
 *   RDCTL_FAKE_BLKDEV="PATH=MAJ:MIN ..."  stat(2) of each PATH (a regular
 *                                  file) answers a block device MAJ:MIN, so
 *                                  that --create's disk checks pass on the
 *                                  fake tree (in rdctl only: wipefs and the
 *                                  fake mdadm see the regular file)
 *   RDCTL_FAKE_IOCTL_ONLY=ADD      RDCTL_FAKE_IOCTL_ERRNO fails only that
 *                                  ioctl (ADD, REMOVE, RESIZE or FREE_PAGES)
 *   RDCTL_FAKE_WRITE_FAIL=SUFFIX[:N]  rdctl's Nth (default: every) open(2)
 *                                  for writing of a path ending in SUFFIX
 *                                  fails with EIO (a sysfs write md refuses)
 *   RDCTL_FAKE_COMPRESS=1          ADD takes RDMIRROR_ADD_COMPRESS (comp lz4
 *                                  or zstd, not with PREALLOC) as a module
 *                                  with compression does, and logs
 *                                  "ioctl ADD_COMPRESS <comp> <mem_limit>"
 *                                  after the ADD line; without it, ADD
 *                                  refuses the flag as a module without
 *                                  compression does (EINVAL)
 * The shim checks what the kernel checks about the structs: the ABI
 * version, and that reserved and "out" fields are zero (else EINVAL).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <syslog.h>

#include <rdmirror.h>

int ioctl(int fd, unsigned long req, ...);

static int errno_by_name(const char *s)
{
	static const struct { const char *name; int e; } t[] = {
		{ "EPERM", EPERM }, { "ENOMEM", ENOMEM }, { "ENOSPC", ENOSPC }, { "ENODEV", ENODEV },
		{ "EINVAL", EINVAL }, { "EBUSY", EBUSY }, { "EINTR", EINTR }, { "ENOTTY", ENOTTY },
		{ "EIO", EIO },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(s, t[i].name))
			return t[i].e;
	return EIO;
}

static int zero(const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		if (c[i])
			return 0;
	return 1;
}

static void log_line(const char *what, unsigned long long a, unsigned long long b)
{
	const char *path = getenv("RDCTL_FAKE_LOG");
	FILE *f;

	if (!path || !*path)
		return;
	f = fopen(path, "ae");
	if (!f)
		return;
	fprintf(f, "ioctl %s %llu %llu\n", what, a, b);
	fclose(f);
}

/* Does RDCTL_FAKE_IOCTL_ERRNO apply to req (RDCTL_FAKE_IOCTL_ONLY)? */
static int fails_only(unsigned long req)
{
	const char *only = getenv("RDCTL_FAKE_IOCTL_ONLY");

	if (!only || !*only)
		return 1;
	return (req == RDMIRROR_CTL_ADD && !strcmp(only, "ADD")) ||
	       (req == RDMIRROR_CTL_REMOVE && !strcmp(only, "REMOVE")) ||
	       (req == RDMIRROR_CTL_RESIZE && !strcmp(only, "RESIZE")) ||
	       (req == RDMIRROR_CTL_FREE_PAGES && !strcmp(only, "FREE_PAGES"));
}

int ioctl(int fd, unsigned long req, ...)
{
	int (*real)(int, unsigned long, ...);
	const char *e = getenv("RDCTL_FAKE_IOCTL_ERRNO");
	const char *idx = getenv("RDCTL_FAKE_INDEX");
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (req != RDMIRROR_CTL_ADD && req != RDMIRROR_CTL_REMOVE &&
	    req != RDMIRROR_CTL_RESIZE && req != RDMIRROR_CTL_FREE_PAGES) {
		real = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
		return real ? real(fd, req, arg) : (errno = ENOSYS, -1);
	}
	if (e && *e && fails_only(req)) {
		errno = errno_by_name(e);
		return -1;
	}
	if (req == RDMIRROR_CTL_ADD) {
		struct rdmirror_add *a = arg;
		const char *cz = getenv("RDCTL_FAKE_COMPRESS");
		unsigned flags = cz && *cz ? RDMIRROR_ADD_ALL_FLAGS | RDMIRROR_ADD_COMPRESS :
					    RDMIRROR_ADD_ALL_FLAGS & ~RDMIRROR_ADD_COMPRESS;
		int comp = (a->flags & RDMIRROR_ADD_COMPRESS) != 0;

		if (a->version != RDMIRROR_ABI_VERSION || a->index || (!comp && (a->comp || a->mem_limit)) ||
		    (comp && ((a->comp != RDMIRROR_COMP_LZ4 && a->comp != RDMIRROR_COMP_ZSTD) ||
			      (a->flags & RDMIRROR_ADD_PREALLOC))) ||
		    !zero(a->reserved, sizeof(a->reserved)) || (a->flags & ~flags)) {
			errno = EINVAL;
			return -1;
		}
		a->index = idx ? (unsigned)atoi(idx) : 3;
		log_line("ADD", a->size, a->flags);
		if (comp)
			log_line("ADD_COMPRESS", a->comp, a->mem_limit);
	} else if (req == RDMIRROR_CTL_RESIZE) {
		struct rdmirror_resize *r = arg;

		if (r->version != RDMIRROR_ABI_VERSION || !zero(r->reserved, sizeof(r->reserved))) {
			errno = EINVAL;
			return -1;
		}
		log_line("RESIZE", r->index, r->size);
	} else {
		struct rdmirror_disk *d = arg;

		if (d->version != RDMIRROR_ABI_VERSION || !zero(d->reserved, sizeof(d->reserved))) {
			errno = EINVAL;
			return -1;
		}
		log_line(req == RDMIRROR_CTL_REMOVE ? "REMOVE" : "FREE_PAGES", d->index, 0);
	}
	return 0;
}

/* ---- syslog(3), for RDCTL_FAKE_SYSLOG (with _FORTIFY_SOURCE the program calls the _chk forms) ---- */

static int fake_vsyslog(int pri, const char *fmt, va_list ap)
{
	const char *path = getenv("RDCTL_FAKE_SYSLOG");
	FILE *f;

	if (!path || !*path)
		return 0;
	f = fopen(path, "a");
	if (!f)
		return 1;
	fprintf(f, "%s ", (pri & 7) <= LOG_ERR ? "err" : (pri & 7) <= LOG_NOTICE ? "notice" : "info");
	vfprintf(f, fmt, ap);
	fputc('\n', f);
	fclose(f);
	return 1;
}

void vsyslog(int pri, const char *fmt, va_list ap)
{
	static void (*real)(int, const char *, va_list);

	if (fake_vsyslog(pri, fmt, ap))
		return;
	if (!real)
		real = (void (*)(int, const char *, va_list))dlsym(RTLD_NEXT, "vsyslog");
	if (real)
		real(pri, fmt, ap);
}

void __vsyslog_chk(int pri, int flag, const char *fmt, va_list ap);
void __vsyslog_chk(int pri, int flag, const char *fmt, va_list ap)
{
	(void)flag;
	vsyslog(pri, fmt, ap);
}

void syslog(int pri, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsyslog(pri, fmt, ap);
	va_end(ap);
}

void __syslog_chk(int pri, int flag, const char *fmt, ...);
void __syslog_chk(int pri, int flag, const char *fmt, ...)
{
	va_list ap;

	(void)flag;
	va_start(ap, fmt);
	vsyslog(pri, fmt, ap);
	va_end(ap);
}

/* ---- stat(2), for RDCTL_FAKE_BLKDEV ---- */

/* Is path one of RDCTL_FAKE_BLKDEV's? Then 1 with *dev its number. */
static int fake_blkdev(const char *path, dev_t *dev)
{
	const char *e = getenv("RDCTL_FAKE_BLKDEV");
	size_t n = strlen(path);
	unsigned maj, min;

	for (const char *p = e; p && *p;) {
		const char *sp = strchr(p, ' ');
		size_t len = sp ? (size_t)(sp - p) : strlen(p);

		if (len > n && !strncmp(p, path, n) && p[n] == '=' && sscanf(p + n + 1, "%u:%u", &maj, &min) == 2) {
			*dev = makedev(maj, min);
			return 1;
		}
		p = sp ? sp + 1 : p + len;
	}
	return 0;
}

int stat(const char *restrict path, struct stat *restrict st)
{
	static int (*real)(const char *restrict, struct stat *restrict);
	dev_t dev;
	int r;

	if (!real)
		real = (int (*)(const char *restrict, struct stat *restrict))dlsym(RTLD_NEXT, "stat");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	r = real(path, st);
	if (!r && !strcmp(program_invocation_short_name, "rdctl") && S_ISREG(st->st_mode) && fake_blkdev(path, &dev)) {
		st->st_mode = S_IFBLK | (st->st_mode & 07777);
		st->st_rdev = dev;
	}
	return r;
}

/* ---- open(2), for RDCTL_FAKE_WRITE_FAIL ---- */

/* Is this open for writing of path the one RDCTL_FAKE_WRITE_FAIL fails? */
static int write_fails(const char *path)
{
	static unsigned seen;
	const char *e = getenv("RDCTL_FAKE_WRITE_FAIL"), *colon;
	size_t n = strlen(path), k;

	if (!e || !*e || strcmp(program_invocation_short_name, "rdctl"))
		return 0;
	colon = strrchr(e, ':');
	k = colon ? (size_t)(colon - e) : strlen(e);
	if (n < k || strncmp(path + n - k, e, k))
		return 0;
	return !colon || ++seen == (unsigned)atoi(colon + 1);
}

int open(const char *path, int flags, ...)
{
	static int (*real)(const char *, int, ...);
	mode_t mode = 0;
	va_list ap;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	if ((flags & O_ACCMODE) != O_RDONLY && write_fails(path)) {
		errno = EIO;
		return -1;
	}
	if (!real)
		real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	return real(path, flags, mode);
}
