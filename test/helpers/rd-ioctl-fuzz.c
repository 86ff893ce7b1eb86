// SPDX-License-Identifier: GPL-2.0
/*
 * rd-ioctl-fuzz: hostile input for /dev/rdmirror-control (issue #14).
 *
 *   rd-ioctl-fuzz [-t THREADS] [-d DISKS] [-p PREALLOC_MIB] [-v] CALLS [SEED]
 *
 * THREADS threads (default 4) share CALLS control ioctls. They send ioctl
 * numbers at and near the real ones (rdmirror's magic with a wrong number,
 * size or direction; the real numbers with junk in the upper 32 bits of
 * the request, which the kernel drops) and unrelated ones; requests built
 * valid and then broken (wrong version, non-zero reserved or "out" fields,
 * unknown flags, random bit flips); sizes of 0, unaligned, huge, just under
 * and over RAM; indexes out of range and of existing disks; pointers that
 * are NULL, unmapped, PROT_NONE, straddling into a PROT_NONE page, in the
 * kernel's half, past the user address space, or read-only for the one
 * request the kernel writes back (add: EFAULT, and no disk left behind).
 * Among these they add, resize, empty and remove disks of their own, all
 * threads on the same disks, and hold some open (with I/O) meanwhile.
 *
 * Every answer is judged against what module/rd_control.c and rd_disk.c
 * can return for that request (see expect_*() below):
 *   - a number that is none of the four requests: ENOTTY, whoever asks
 *     (the VFS's own ioctls are never sent: their magic bytes are
 *     skipped);
 *   - without CAP_SYS_ADMIN: EPERM, for the four requests;
 *   - a pointer the kernel cannot read: EFAULT;
 *   - a wrong version, unknown flag, non-zero reserved or out field:
 *     EINVAL, never success; then size 0 or unaligned: EINVAL; above RAM:
 *     ENOMEM (a resize: above 8 x RAM, the most a compressed disk may be,
 *     before the index is looked at; above RAM, once our plain disk is
 *     found: ENOMEM or, while it is being grown or emptied, EBUSY);
 *   - add: the index (also the return value) of a disk /sys/block/rdN
 *     shows with the asked size, preallocated flag and allocated bytes;
 *     or ENOMEM, ENOSPC (max_disks), EINTR, EDQUOT (a preallocation past
 *     the module's mem_limit); EFAULT when the answer cannot
 *     be written back; a preallocation of all of RAM never succeeds;
 *   - remove, free-pages: 0 or EBUSY on a disk that exists; resize also
 *     ENOMEM, EDQUOT and EINTR when it preallocates a grow, and EBUSY only for a
 *     shrink; ENODEV only for an index no disk has (never for one of ours);
 *     under an exclusive lock, the size and allocated bytes are what the
 *     request says after success and unchanged after failure;
 *   - an add whose answer cannot be written back (EFAULT) leaves no disk:
 *     it runs while no other add does, and any rd disk then in sysfs that
 *     no add of ours returned is one it left;
 *   - at the end, every disk it made removes (EBUSY retried), and no other
 *     rd disk exists (one would be a disk the kernel leaked).
 * Nothing else is allowed: in particular no ENXIO (only a block open of a
 * disk being removed gives it) and no EEXIST. Prints a summary (calls,
 * answers per request and errno, violations) and exits 1 on any violation,
 * 2 on a usage or setup error. The seed is printed first, with the command
 * that runs the same again: each thread's choices follow from it and from
 * the answers it gets (which udev's probes, the other threads and the
 * interleaving change: a replay is the same fuzz, not the same calls).
 *
 * It runs only where no rd disk exists, and keeps preallocation small:
 * PREALLOC_MIB (default 8) per disk, DISKS (default 8) disks of its own at
 * once; a preallocation larger than that is only ever asked for sizes the
 * module must refuse before taking a page (above RAM or above the memory
 * available).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <linux/fs.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include "../../module/uapi/rdmirror.h"

#define PAGE		4096UL
#define ALIGN		RDMIRROR_SIZE_ALIGN
#define MiB		(1ULL << 20)
/* errno e's bit in a set: its own below 63; EDQUOT (122) takes bit 63 */
#define E(e)		(1ULL << ((e) == EDQUOT ? 63 : (e)))
#define E_IN_SET(e)	((e) > 0 && ((e) < 63 || (e) == EDQUOT))
#define MAX_ERRNO	160	/* counters: [0] success, [e] errno e */
#define MAX_SHOWN	40	/* violations printed in full */

enum kind { K_ADD, K_REMOVE, K_RESIZE, K_FREE, K_NEAR, K_OTHER, K_NR };
static const char *const kind_name[K_NR] = {
	"add", "remove", "resize", "free-pages", "near-miss nr", "other nr",
};
static const unsigned int kind_cmd[4] = {
	RDMIRROR_CTL_ADD, RDMIRROR_CTL_REMOVE, RDMIRROR_CTL_RESIZE,
	RDMIRROR_CTL_FREE_PAGES,
};
static const size_t kind_len[4] = {
	sizeof(struct rdmirror_add), sizeof(struct rdmirror_disk),
	sizeof(struct rdmirror_resize), sizeof(struct rdmirror_disk),
};

enum ptrclass {
	P_GOOD, P_RDONLY, P_NULL, P_LOW, P_NONE, P_STRADDLE, P_KERNEL,
	P_NONCANON, P_TOP, P_NR
};
static const char *const ptr_name[P_NR] = {
	"good", "read-only", "NULL", "unmapped-low", "PROT_NONE",
	"straddling-PROT_NONE", "kernel", "non-canonical", "top-of-user",
};

union rq {
	struct rdmirror_add add;
	struct rdmirror_resize resize;
	struct rdmirror_disk disk;
	unsigned char b[64];
};

/* What a call may answer: success or not, and the errnos allowed. */
struct expect {
	bool ok;
	uint64_t errs;
	const char *why;
};

/* One disk index: ours when live. */
struct slot {
	pthread_rwlock_t lock;	/* read: use the disk; write: remove or verify */
	atomic_bool live;
	bool prealloc;		/* under lock */
};

struct rng {
	uint64_t s;
};

struct thr {
	int id;
	pthread_t th;
	int fd;
	struct rng r;
	unsigned char *rw;	/* two pages, read-write */
	unsigned char *ro;	/* one page, read-only while the kernel reads */
	unsigned long share;	/* calls to make */
	unsigned long calls;	/* made so far */
};

/* Settings and facts, fixed before the threads start. */
static unsigned int nthreads = 4, live_cap = 8;
static uint64_t prealloc_cap = 8 * MiB;
static bool verbose, capable;
static uint64_t totalram;	/* bytes, as the module's totalram_pages() */
static uint32_t max_disks;
static unsigned char *guard;	/* one read-write page, then one PROT_NONE */
static struct slot *slots;
/*
 * Free-pages requests begun and ended, by any thread on any disk (a flipped
 * bit may aim one at another disk than its slot's): the disk a free-pages
 * empties refuses opens (EBUSY) until it is empty, so an open may be
 * refused only if a free-pages overlapped it.
 */
static atomic_ulong frees_begun, frees_ended;
static const char *ctl_path;

/*
 * Every add holds this from its call until its disk is published: shared,
 * but exclusive for an add whose answer cannot be written back, so that
 * any rd disk sysfs shows then and nobody published is one that add left.
 */
static pthread_rwlock_t add_lock;
static atomic_uint live_count;
static atomic_ulong counts[K_NR][MAX_ERRNO];
static atomic_ulong violations, n_added, n_removed, n_resized, n_freed,
	n_opened, n_open_busy, n_verified;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t rnd(struct rng *r)
{
	/* splitmix64 */
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t below(struct rng *r, uint64_t n)
{
	return n ? rnd(r) % n : 0;
}

static bool chance(struct rng *r, unsigned int one_in)
{
	return below(r, one_in) == 0;
}

static const char *ename(int e)
{
	static _Thread_local char buf[16];
	const char *n = e ? strerrorname_np(e) : "ok";

	if (n)
		return n;
	snprintf(buf, sizeof(buf), "E%d", e);
	return buf;
}

static void describe_set(const struct expect *ex, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = 0;
	if (ex->ok)
		at += snprintf(buf + at, len - at, "success");
	for (int e = 1; e <= EDQUOT && at < len; e++)
		if (E_IN_SET(e) && (ex->errs & E(e)))
			at += snprintf(buf + at, len - at, "%s%s", at ? " " : "",
				       ename(e));
}

static void describe_req(int kind, unsigned long cmd, const union rq *q,
			 char *buf, size_t len)
{
	int n = snprintf(buf, len, "cmd %#lx", cmd);

	if (n < 0 || (size_t)n >= len)
		return;
	buf += n;
	len -= n;
	switch (kind) {
	case K_ADD:
		snprintf(buf, len,
			 " version %u flags %#x size %" PRIu64 " index %u comp %#x mem_limit %#" PRIx64 " reserved %#" PRIx64 " %#" PRIx64 " %#" PRIx64,
			 q->add.version, q->add.flags, (uint64_t)q->add.size,
			 q->add.index, q->add.comp, (uint64_t)q->add.mem_limit,
			 (uint64_t)q->add.reserved[0], (uint64_t)q->add.reserved[1],
			 (uint64_t)q->add.reserved[2]);
		break;
	case K_RESIZE:
		snprintf(buf, len,
			 " version %u index %u size %" PRIu64 " reserved %#" PRIx64 " %#" PRIx64 " %#" PRIx64 " %#" PRIx64,
			 q->resize.version, q->resize.index, (uint64_t)q->resize.size,
			 (uint64_t)q->resize.reserved[0], (uint64_t)q->resize.reserved[1],
			 (uint64_t)q->resize.reserved[2], (uint64_t)q->resize.reserved[3]);
		break;
	case K_REMOVE:
	case K_FREE:
		snprintf(buf, len,
			 " version %u index %u reserved %#" PRIx64 " %#" PRIx64 " %#" PRIx64 " %#" PRIx64,
			 q->disk.version, q->disk.index,
			 (uint64_t)q->disk.reserved[0], (uint64_t)q->disk.reserved[1],
			 (uint64_t)q->disk.reserved[2], (uint64_t)q->disk.reserved[3]);
		break;
	default:
		break;
	}
}

static void violation(const struct thr *t, const char *fmt, ...)
{
	unsigned long n = atomic_fetch_add(&violations, 1) + 1;
	va_list ap;

	if (n > MAX_SHOWN)
		return;
	pthread_mutex_lock(&out_lock);
	if (t)
		fprintf(stderr, "rd-ioctl-fuzz: VIOLATION (thread %d, call %lu): ",
			t->id, t->calls);
	else
		fprintf(stderr, "rd-ioctl-fuzz: VIOLATION (at the end): ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (n == MAX_SHOWN)
		fprintf(stderr, "rd-ioctl-fuzz: (further violations counted, not shown)\n");
	pthread_mutex_unlock(&out_lock);
}

/* --- sysfs ---------------------------------------------------------------- */

static bool read_u64(const char *path, uint64_t *v)
{
	char buf[64];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	*v = strtoull(buf, NULL, 10);
	return true;
}

/* Size in bytes and allocated bytes of rdN; false if it is not there. */
static bool disk_state(uint32_t index, uint64_t *size, uint64_t *alloc,
		       uint64_t *prealloc)
{
	char p[96];
	uint64_t sectors;

	snprintf(p, sizeof(p), "/sys/block/rd%u/size", index);
	if (!read_u64(p, &sectors))
		return false;
	*size = sectors * 512;
	snprintf(p, sizeof(p), "/sys/block/rd%u/rdmirror/allocated_bytes", index);
	if (!read_u64(p, alloc))
		return false;
	snprintf(p, sizeof(p), "/sys/block/rd%u/rdmirror/preallocated", index);
	return read_u64(p, prealloc);
}

/* --- requests ------------------------------------------------------------- */

/* What rd_ctl_check_size() answers. */
static int size_check(uint64_t size)
{
	if (!size || size % ALIGN || size % PAGE)
		return EINVAL;
	if (size > totalram)
		return ENOMEM;
	return 0;
}

/* Above 8 x RAM, the most a compressed disk may be (rd_control.c). */
static bool above_compressed(uint64_t size)
{
	return size / 8 > totalram || (size / 8 == totalram && size % 8);
}

static bool zero(const void *p, size_t len)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < len; i++)
		if (c[i])
			return false;
	return true;
}

/* What rd_ctl_check_*() answer for a request read in full: 0 if it passes. */
static int classify(int kind, const union rq *q)
{
	switch (kind) {
	case K_ADD:
		if (q->add.version != RDMIRROR_ABI_VERSION ||
		    q->add.flags & ~RDMIRROR_ADD_ALL_FLAGS || q->add.index ||
		    !zero(q->add.reserved, sizeof(q->add.reserved)))
			return EINVAL;
		if (q->add.flags & RDMIRROR_ADD_COMPRESS) {
			/* up to 8 x RAM, its own bound up to RAM (rd_control.c) */
			if (q->add.flags & RDMIRROR_ADD_PREALLOC ||
			    (q->add.comp != RDMIRROR_COMP_LZ4 &&
			     q->add.comp != RDMIRROR_COMP_ZSTD) ||
			    !q->add.size || q->add.size % ALIGN)
				return EINVAL;
			if (above_compressed(q->add.size) ||
			    q->add.mem_limit > totalram)
				return ENOMEM;
			return 0;
		}
		if (q->add.comp || q->add.mem_limit)
			return EINVAL;
		return size_check(q->add.size);
	case K_RESIZE:
		if (q->resize.version != RDMIRROR_ABI_VERSION ||
		    !zero(q->resize.reserved, sizeof(q->resize.reserved)))
			return EINVAL;
		/*
		 * The bound of a compressed disk; a plain one's (RAM) is
		 * checked once the disk is found (resize_expect()).
		 */
		if (!q->resize.size || q->resize.size % ALIGN || q->resize.size % PAGE)
			return EINVAL;
		return above_compressed(q->resize.size) ? ENOMEM : 0;
	default:
		if (q->disk.version != RDMIRROR_ABI_VERSION ||
		    !zero(q->disk.reserved, sizeof(q->disk.reserved)))
			return EINVAL;
		return 0;
	}
}

static uint32_t *index_field(int kind, union rq *q)
{
	return kind == K_RESIZE ? &q->resize.index : &q->disk.index;
}

static uint64_t *size_field(int kind, union rq *q)
{
	return kind == K_ADD ? (uint64_t *)&q->add.size :
	       kind == K_RESIZE ? (uint64_t *)&q->resize.size : NULL;
}

/* An aligned size in [ALIGN, max]. */
static uint64_t aligned_upto(struct rng *r, uint64_t max)
{
	return (1 + below(r, max / ALIGN)) * ALIGN;
}

/* A size a disk may have: small mostly, now and then huge (sparse). */
static uint64_t good_size(struct rng *r, bool prealloc)
{
	if (prealloc)
		return aligned_upto(r, prealloc_cap);
	switch (below(r, 8)) {
	case 0:
		return totalram;		/* exactly RAM: allowed */
	case 1:
		return aligned_upto(r, totalram);
	case 2:
		return ALIGN;
	default:
		return aligned_upto(r, 64 * MiB);
	}
}

/* The sizes at the edges: 0, unaligned, just under and over RAM, huge. */
static uint64_t edge_size(struct rng *r)
{
	switch (below(r, 12)) {
	case 0:
		return 0;
	case 1:
		return 1 + below(r, ALIGN - 1);
	case 2:
		return 512;
	case 3:
		return aligned_upto(r, 64 * MiB) + 1 + below(r, ALIGN - 1);
	case 4:
		return totalram - ALIGN * (1 + below(r, 16));	/* just under */
	case 5:
		return totalram + ALIGN * (1 + below(r, 16));	/* just over */
	case 6:
		return totalram + 1;
	case 7:
		return UINT64_MAX;
	case 8:
		return UINT64_MAX & ~(ALIGN - 1);
	case 9:
		return 1ULL << (33 + below(r, 31));
	case 10:
		return rnd(r);
	default:
		return rnd(r) & ~(ALIGN - 1);
	}
}

/*
 * A size that would make the kernel preallocate more than the cap: passes
 * rd_ctl_check_size() and is not above every page the module may take.
 * Sizes within 64 KiB of RAM stay in: MemAvailable is always far below,
 * and the module must refuse them before taking a page.
 */
static bool prealloc_danger(uint64_t size)
{
	return !size_check(size) && size > prealloc_cap &&
	       size <= totalram - 16 * ALIGN;
}

static uint32_t oob_index(struct rng *r)
{
	switch (below(r, 5)) {
	case 0:
		return max_disks;
	case 1:
		return UINT32_MAX;
	case 2:
		return 0x80000000U;
	case 3:
		return max_disks + 1 + below(r, 1024);
	default:
		return max_disks + below(r, (uint64_t)UINT32_MAX - max_disks + 1);
	}
}

static void build(struct rng *r, int kind, union rq *q, uint32_t index,
		  bool prealloc)
{
	memset(q, 0, sizeof(*q));
	switch (kind) {
	case K_ADD:
		q->add.version = RDMIRROR_ABI_VERSION;
		q->add.flags = prealloc ? RDMIRROR_ADD_PREALLOC : 0;
		q->add.size = good_size(r, prealloc);
		break;
	case K_RESIZE:
		q->resize.version = RDMIRROR_ABI_VERSION;
		q->resize.index = index;
		q->resize.size = good_size(r, prealloc);
		break;
	default:
		q->disk.version = RDMIRROR_ABI_VERSION;
		q->disk.index = index;
		break;
	}
}

/* Make @q wrong in a way the module must refuse with EINVAL. */
static void malform(struct rng *r, int kind, union rq *q)
{
	uint32_t *version = &q->disk.version;	/* first field of all three */
	unsigned int bit = below(r, 64);
	uint64_t *res;

	res = kind == K_ADD ? (uint64_t *)q->add.reserved :
	      kind == K_RESIZE ? (uint64_t *)q->resize.reserved :
				 (uint64_t *)q->disk.reserved;
	switch (below(r, kind == K_ADD ? 6 : 3)) {
	case 0:
		switch (below(r, 4)) {
		case 0:
			*version = 0;
			break;
		case 1:
			*version = RDMIRROR_ABI_VERSION + 1;
			break;
		case 2:
			*version = UINT32_MAX;
			break;
		default:
			*version ^= 1U << (1 + below(r, 31));
			break;
		}
		break;
	case 1:
	case 2:
		res[below(r, kind == K_ADD ? 3 : 4)] |= 1ULL << bit;
		break;
	case 3:
		if (below(r, 2))
			q->add.comp |= 1U << (bit % 32);
		else
			q->add.mem_limit |= 1ULL << bit;
		break;
	case 4:
		q->add.index |= 1U << (bit % 32);	/* an "out" field */
		break;
	default:
		q->add.flags |= ~RDMIRROR_ADD_ALL_FLAGS & (1U << (1 + bit % 31));
		break;
	}
}

/*
 * Keep the fuzzer's own promises before a request goes out: preallocation
 * stays under the cap (unless the module must refuse the size anyway),
 * and a request that passes the checks names no in-range index but the
 * disk the caller holds (@slot, -1 for none): another index in range may
 * be a disk a thread has just made and not yet looked at.
 */
static void sanitize(struct rng *r, int kind, union rq *q, int slot)
{
	uint64_t *size = size_field(kind, q);
	uint32_t *index;

	if (kind == K_ADD) {
		if ((q->add.flags & RDMIRROR_ADD_PREALLOC) &&
		    prealloc_danger(q->add.size))
			q->add.size = aligned_upto(r, prealloc_cap);
		return;
	}
	index = index_field(kind, q);
	if (kind == K_RESIZE && prealloc_danger(*size) && *index < max_disks &&
	    !(slot >= 0 && *index == (uint32_t)slot && !slots[slot].prealloc))
		*size = aligned_upto(r, prealloc_cap);
	if (!classify(kind, q) && *index < max_disks &&
	    (slot < 0 || *index != (uint32_t)slot))
		*index = slot >= 0 ? (uint32_t)slot : oob_index(r);
}

/* --- expectations --------------------------------------------------------- */

/*
 * Old size of the held disk for a resize under the write lock, or
 * UINT64_MAX when others may change it meanwhile.
 */
static struct expect expect_req(int kind, const union rq *q, int pc, int slot,
				bool wlock, uint64_t old_size)
{
	struct expect ex = { 0 };
	int chk;
	uint32_t index;

	if (kind >= K_NEAR)
		return (struct expect){ false, E(ENOTTY), "not a request of rdmirror" };
	if (!capable)
		return (struct expect){ false, E(EPERM), "no CAP_SYS_ADMIN" };
	if (pc != P_GOOD && pc != P_RDONLY)
		return (struct expect){ false, E(EFAULT), "unreadable pointer" };
	chk = classify(kind, q);
	if (chk == EINVAL)
		return (struct expect){ false, E(EINVAL), "malformed request" };
	if (chk == ENOMEM)
		return (struct expect){ false, E(ENOMEM), "size above RAM" };
	if (kind == K_ADD) {
		bool pre = q->add.flags & RDMIRROR_ADD_PREALLOC;

		/* (the index is taken first: at max_disks, ENOSPC) */
		if (pre && q->add.size > totalram - 16 * ALIGN)
			return (struct expect){ false, E(ENOMEM) | E(ENOSPC) | E(EDQUOT),
				"preallocation above available memory" };
		ex.errs = E(ENOMEM) | E(ENOSPC) | E(EINTR);
		if (pre)
			ex.errs |= E(EDQUOT);
		ex.ok = pc != P_RDONLY;
		if (pc == P_RDONLY)
			ex.errs |= E(EFAULT);
		ex.why = pc == P_RDONLY ? "add, answer not writable" : "add";
		return ex;
	}
	index = kind == K_RESIZE ? q->resize.index : q->disk.index;
	if (index >= max_disks)
		return (struct expect){ false, E(ENODEV), "index out of range" };
	if (slot < 0 || index != (uint32_t)slot) {
		/* sanitize() rules this out: say so if it ever happens */
		return (struct expect){ false, 0, "fuzzer bug: unheld in-range index" };
	}
	ex.ok = true;
	switch (kind) {
	case K_REMOVE:
		ex.errs = E(EBUSY);
		ex.why = wlock ? "remove of our disk" : "fuzzer bug: remove without write lock";
		break;
	case K_FREE:
		ex.errs = E(EBUSY);
		ex.why = "free-pages of our disk";
		break;
	default:
		ex.why = "resize of our disk";
		/* our disks are plain: above RAM, refused once found */
		if (q->resize.size > totalram)
			return (struct expect){ false, E(ENOMEM) | E(EBUSY),
				"resize of our disk above RAM" };
		if (old_size == UINT64_MAX) {
			ex.errs = E(EBUSY);
		} else if (q->resize.size < old_size) {
			ex.errs = E(EBUSY);
			ex.why = "shrink of our disk";
		} else if (q->resize.size > old_size) {
			ex.why = "grow of our disk";
		} else {
			ex.why = "resize of our disk to its size";
		}
		if (slots[slot].prealloc &&
		    (old_size == UINT64_MAX || q->resize.size > old_size))
			ex.errs |= E(ENOMEM) | E(EDQUOT) | E(EINTR);
		break;
	}
	return ex;
}

/* --- calls ---------------------------------------------------------------- */

/* Where the request goes for pointer class @pc; copies it there if readable. */
static void *place(struct thr *t, int pc, const union rq *q, size_t len)
{
	size_t off;

	switch (pc) {
	case P_GOOD:
		/* anywhere in the page, odd addresses too */
		off = chance(&t->r, 4) ? below(&t->r, PAGE - 64) :
					 below(&t->r, (PAGE - 64) / 8) * 8;
		memcpy(t->rw + off, q, len);
		return t->rw + off;
	case P_RDONLY:
		off = below(&t->r, (PAGE - 64) / 8) * 8;
		if (mprotect(t->ro, PAGE, PROT_READ | PROT_WRITE)) {
			perror("rd-ioctl-fuzz: mprotect");
			exit(2);
		}
		memcpy(t->ro + off, q, len);
		if (mprotect(t->ro, PAGE, PROT_READ)) {
			perror("rd-ioctl-fuzz: mprotect");
			exit(2);
		}
		return t->ro + off;
	case P_NULL:
		return NULL;
	case P_LOW:
		/* below vm.mmap_min_addr: nothing can be mapped there */
		return (void *)(uintptr_t)(1 + below(&t->r, 4095));
	case P_NONE:
		return guard + PAGE + below(&t->r, PAGE - len);
	case P_STRADDLE:
		return guard + PAGE - 1 - below(&t->r, len - 1);
	case P_KERNEL:
		return chance(&t->r, 3) ? (void *)(uintptr_t)0xffffffffff600000ULL :
		       (void *)(uintptr_t)(0xffff888000000000ULL +
					   (below(&t->r, 1ULL << 30) << 12));
	case P_NONCANON:
		return (void *)(uintptr_t)(0x0800000000000000ULL +
					   (rnd(&t->r) & 0x0fffffffffffff00ULL) / 2);
	default:
		/* straddles the end of the (4-level) user address space */
		return (void *)(uintptr_t)(0x00007ffffffff000ULL - 1 -
					   below(&t->r, len - 1));
	}
}

/*
 * Send one ioctl, count it, judge the answer against @ex. Returns what
 * ioctl() returned; *err is its errno (0 on success).
 */
static long issue(struct thr *t, int kind, unsigned long cmd, void *ptr,
		  int pc, const union rq *q, const struct expect *ex, int *err)
{
	char set[160], req[320];
	long ret;
	int e = 0;

	errno = 0;
	if (kind == K_FREE)
		atomic_fetch_add(&frees_begun, 1);
	ret = ioctl(t->fd, cmd, ptr);
	if (ret < 0)
		e = errno;
	if (kind == K_FREE)
		atomic_fetch_add(&frees_ended, 1);
	t->calls++;
	atomic_fetch_add(&counts[kind][ret < 0 ? (e < MAX_ERRNO ? e : MAX_ERRNO - 1) : 0], 1);
	if (verbose) {
		describe_req(kind, cmd, q, req, sizeof(req));
		pthread_mutex_lock(&out_lock);
		fprintf(stderr, "[%d.%lu] %s %s ptr %s -> %ld %s\n", t->id,
			t->calls, kind_name[kind], req, ptr_name[pc], ret,
			ename(e));
		pthread_mutex_unlock(&out_lock);
	}
	*err = e;
	if (ret == -1 ? !(E_IN_SET(e) && (ex->errs & E(e))) :
	    ret < -1 || !ex->ok || (kind != K_ADD && ret != 0)) {
		describe_set(ex, set, sizeof(set));
		describe_req(kind, cmd, q, req, sizeof(req));
		violation(t, "%s (%s), pointer %s: %s -> %ld %s; allowed: %s",
			  kind_name[kind], ex->why, ptr_name[pc], req, ret,
			  ename(e), set);
	}
	return ret;
}

/* Remove disk @index, retrying EBUSY (udev probes hold it open a moment). */
static int remove_retrying(struct thr *t, int fd, uint32_t index)
{
	struct rdmirror_disk d = { .version = RDMIRROR_ABI_VERSION, .index = index };
	int i;

	for (i = 0; i < 300; i++) {
		if (!ioctl(fd, RDMIRROR_CTL_REMOVE, &d))
			return 0;
		if (errno != EBUSY)
			return errno;
		usleep(i < 20 ? 10000 : 50000);
	}
	(void)t;
	return EBUSY;
}

/* The ioctl number of @kind, now and then with junk the kernel drops. */
static unsigned long real_cmd(struct rng *r, int kind)
{
	unsigned long cmd = kind_cmd[kind];

	/* ioctl(2)'s request is an unsigned int in the kernel */
	if (sizeof(unsigned long) > 4 && chance(r, 16))
		cmd |= (unsigned long)(rnd(r) | 1) << 16 << 16;
	return cmd;
}

/* A slot we hold: a live disk, locked for reading or writing; -1 if none. */
static int hold_live(struct thr *t, bool wlock)
{
	uint32_t start = below(&t->r, max_disks);

	for (uint32_t i = 0; i < max_disks; i++) {
		uint32_t s = (start + i) % max_disks;

		if (!atomic_load(&slots[s].live))
			continue;
		if (wlock)
			pthread_rwlock_wrlock(&slots[s].lock);
		else
			pthread_rwlock_rdlock(&slots[s].lock);
		if (atomic_load(&slots[s].live))
			return (int)s;
		pthread_rwlock_unlock(&slots[s].lock);
	}
	return -1;
}

static void release(int slot)
{
	pthread_rwlock_unlock(&slots[slot].lock);
}

/*
 * An add answered with @ret: the disk must be there as asked. Publishes it
 * to the other threads; an add that should not have succeeded is undone.
 */
static void added(struct thr *t, long ret, const union rq *sent, int pc,
		  const union rq *back, bool expected)
{
	uint64_t size, alloc, pre;
	uint32_t index = (uint32_t)ret;
	bool want_pre = sent->add.flags & RDMIRROR_ADD_PREALLOC;

	if (pc == P_GOOD && back->add.index != index)
		violation(t, "add returned %ld but wrote index %u back", ret,
			  back->add.index);
	if (ret < 0 || index >= max_disks) {
		violation(t, "add returned index %ld, max_disks is %u", ret, max_disks);
		return;
	}
	pthread_rwlock_wrlock(&slots[index].lock);
	if (atomic_load(&slots[index].live)) {
		violation(t, "add gave index %u, which a live disk of ours has", index);
		release(index);
		return;
	}
	if (!disk_state(index, &size, &alloc, &pre)) {
		violation(t, "add gave index %u but /sys/block/rd%u is not there",
			  index, index);
	} else {
		atomic_fetch_add(&n_verified, 1);
		if (size != sent->add.size)
			violation(t, "rd%u: size %" PRIu64 ", asked %" PRIu64, index,
				  size, (uint64_t)sent->add.size);
		if (pre != want_pre)
			violation(t, "rd%u: preallocated %" PRIu64 ", asked %d",
				  index, pre, want_pre);
		if (alloc != (want_pre ? (uint64_t)sent->add.size : 0))
			violation(t, "rd%u: new disk holds %" PRIu64 " bytes (preallocated %d, size %" PRIu64 ")",
				  index, alloc, want_pre, (uint64_t)sent->add.size);
	}
	if (!expected) {
		/* a disk that should not exist: do not build on it */
		int e = remove_retrying(t, t->fd, index);

		if (e)
			violation(t, "rd%u (added against the rules) does not remove: %s",
				  index, ename(e));
		release(index);
		return;
	}
	slots[index].prealloc = want_pre;
	atomic_store(&slots[index].live, true);
	atomic_fetch_add(&live_count, 1);
	atomic_fetch_add(&n_added, 1);
	release(index);
}

static int rd_disks(uint32_t *out, int max);

static void add_begin(bool exclusive)
{
	if (exclusive)
		pthread_rwlock_wrlock(&add_lock);
	else
		pthread_rwlock_rdlock(&add_lock);
}

static void add_end(void)
{
	pthread_rwlock_unlock(&add_lock);
}

/*
 * With add_lock held exclusive: the rd disks that exist and that no add of
 * ours published are violations (@what says when they were found); each
 * is removed, so that the run goes on from a known state.
 */
static void unpublished_disks(struct thr *t, const char *what)
{
	uint32_t found[1024];
	int n = rd_disks(found, 1024);

	for (int i = 0; i < n; i++) {
		char path[32];
		int e;

		if (found[i] < max_disks && atomic_load(&slots[found[i]].live))
			continue;
		/*
		 * Not ours now; but it may have been listed while a remove of
		 * ours ran, which unpublishes it once the kernel is done: only
		 * if it is still there now is it nobody's.
		 */
		snprintf(path, sizeof(path), "/sys/block/rd%u", found[i]);
		if (access(path, F_OK))
			continue;
		e = remove_retrying(t, t->fd, found[i]);
		violation(t, "rd%u exists, and no add of ours returned it: %s (removed: %s)",
			  found[i], what, e ? ename(e) : "yes");
	}
}

/* After an add that was meant to fail succeeded anyway. */
static void stray_add(struct thr *t, long ret, const union rq *sent, int pc,
		      const union rq *back)
{
	if (ret >= 0)
		added(t, ret, sent, pc, back, false);
}

/* --- actions --------------------------------------------------------------- */

/* A random number, none of rdmirror's and none the VFS answers itself. */
static void act_other(struct thr *t)
{
	/* 0x00 FIGETBSZ, 0x15 FS_IOC_GETFSUUID, 'T' FIONBIO..., 'X' FIFREEZE...,
	 * 'f' FS_IOC_GETFLAGS..., 0x94 FICLONE... (fs/ioctl.c) */
	static const unsigned char vfs[] = { 0x00, 0x15, 'T', 'X', 'f', 0x94 };
	union rq q;
	unsigned long cmd;
	unsigned int type;
	bool again;
	int pc, e;
	struct expect ex;

	do {
		cmd = (unsigned int)rnd(&t->r);
		type = _IOC_TYPE(cmd);
		again = type == RDMIRROR_IOCTL_MAGIC;
		for (size_t i = 0; i < sizeof(vfs); i++)
			again |= type == vfs[i];
	} while (again);
	for (size_t i = 0; i < sizeof(q); i++)
		q.b[i] = rnd(&t->r);
	pc = below(&t->r, P_NR);
	ex = expect_req(K_OTHER, &q, pc, -1, false, 0);
	issue(t, K_OTHER, cmd, place(t, pc, &q, sizeof(q)), pc, &q, &ex, &e);
}

/* rdmirror's magic, but a number, size or direction of no request. */
static void act_near(struct thr *t)
{
	static const unsigned int sizes[] = {
		0, 8, 39, 40, 41, 47, 48, 49, 55, 56, 57, 64, 80, 112, 0x3fff,
	};
	union rq q;
	unsigned long cmd;
	int kind, pc, e;
	struct expect ex;

	do {
		unsigned int dir, nr, size;

		kind = below(&t->r, 4);
		cmd = kind_cmd[kind];
		dir = _IOC_DIR(cmd);
		nr = _IOC_NR(cmd);
		size = _IOC_SIZE(cmd);
		switch (below(&t->r, 5)) {
		case 0:
			dir = below(&t->r, 4);
			break;
		case 1:
			nr = chance(&t->r, 2) ? nr + 1 + below(&t->r, 8) :
						below(&t->r, 256);
			break;
		case 2:
			size = sizes[below(&t->r, sizeof(sizes) / sizeof(sizes[0]))];
			break;
		case 3:
			size += chance(&t->r, 2) ? 1 : -1;
			break;
		default:
			dir = below(&t->r, 4);
			nr = below(&t->r, 256);
			size = below(&t->r, 1U << 14);
			break;
		}
		cmd = _IOC(dir, RDMIRROR_IOCTL_MAGIC, nr & 0xff, size & 0x3fff);
	} while (cmd == RDMIRROR_CTL_ADD || cmd == RDMIRROR_CTL_REMOVE ||
		 cmd == RDMIRROR_CTL_RESIZE || cmd == RDMIRROR_CTL_FREE_PAGES);
	/* a request that would be valid, to see that it is not taken anyway */
	build(&t->r, kind, &q, oob_index(&t->r), false);
	pc = chance(&t->r, 4) ? (int)below(&t->r, P_NR) : P_GOOD;
	ex = expect_req(K_NEAR, &q, pc, -1, false, 0);
	issue(t, K_NEAR, cmd, place(t, pc, &q, sizeof(q)), pc, &q, &ex, &e);
}

/* An index for a request that must fail anyway: any at all. */
static uint32_t any_index(struct thr *t)
{
	switch (below(&t->r, 4)) {
	case 0:
		return oob_index(&t->r);
	case 1:
		return rnd(&t->r);
	default: {
		/* a live disk's, unlocked */
		uint32_t start = below(&t->r, max_disks);

		for (uint32_t i = 0; i < max_disks; i++)
			if (atomic_load(&slots[(start + i) % max_disks].live))
				return (start + i) % max_disks;
		return below(&t->r, max_disks);
	}
	}
}

/* A request broken on purpose; now and then with junk elsewhere too. */
static void act_malformed(struct thr *t)
{
	int kind = below(&t->r, 4), pc, e;
	union rq q, back;
	struct expect ex;
	void *ptr;
	long ret;

	build(&t->r, kind, &q, any_index(t), chance(&t->r, 4));
	if (kind == K_ADD || kind == K_RESIZE) {
		if (chance(&t->r, 3))
			*size_field(kind, &q) = edge_size(&t->r);
	}
	if (chance(&t->r, 4))
		malform(&t->r, kind, &q);
	malform(&t->r, kind, &q);
	sanitize(&t->r, kind, &q, -1);
	pc = chance(&t->r, 5) ? P_RDONLY : P_GOOD;
	ex = expect_req(kind, &q, pc, -1, false, 0);
	ptr = place(t, pc, &q, kind_len[kind]);
	if (kind == K_ADD)
		add_begin(false);
	ret = issue(t, kind, real_cmd(&t->r, kind), ptr, pc, &q, &ex, &e);
	if (kind == K_ADD) {
		memcpy(&back, ptr, kind_len[kind]);
		stray_add(t, ret, &q, pc, &back);
		add_end();
	}
}

/* A real request the kernel cannot read (or, add, cannot answer). */
static void act_badptr(struct thr *t)
{
	int kind = below(&t->r, 4), pc = P_NULL + below(&t->r, P_NR - P_NULL), e;
	union rq q;
	struct expect ex;

	build(&t->r, kind, &q, oob_index(&t->r), false);
	ex = expect_req(kind, &q, pc, -1, false, 0);
	if (kind == K_ADD)
		add_begin(false);
	issue(t, kind, real_cmd(&t->r, kind), place(t, pc, &q, kind_len[kind]),
	      pc, &q, &ex, &e);
	if (kind == K_ADD)
		add_end();
}

static void act_remove(struct thr *t);

/* A valid add: into good memory (a disk of ours) or read-only (EFAULT). */
static void act_add(struct thr *t, bool edge, bool rdonly)
{
	int pc = rdonly ? P_RDONLY : P_GOOD, e;
	union rq q, back;
	struct expect ex;
	void *ptr;
	long ret;

	if (!rdonly && atomic_load(&live_count) >= live_cap) {
		act_remove(t);
		return;
	}
	build(&t->r, K_ADD, &q, 0, chance(&t->r, 4));
	if (edge)
		q.add.size = edge_size(&t->r);
	sanitize(&t->r, K_ADD, &q, -1);
	ex = expect_req(K_ADD, &q, pc, -1, false, 0);
	ptr = place(t, pc, &q, sizeof(q.add));
	/*
	 * The kernel makes the disk, then cannot write its index back: it must
	 * remove it again. Alone among the adds, any disk nobody published
	 * after the call is one it left.
	 */
	add_begin(rdonly);
	if (rdonly)
		unpublished_disks(t, "found before an add with a read-only answer");
	ret = issue(t, K_ADD, real_cmd(&t->r, K_ADD), ptr, pc, &q, &ex, &e);
	memcpy(&back, ptr, sizeof(q.add));
	if (ret >= 0)
		added(t, ret, &q, pc, &back, ex.ok);
	if (rdonly) {
		char what[96];

		snprintf(what, sizeof(what),
			 "left by an add answered %s, its answer read-only",
			 ret >= 0 ? "with success" : ename(e));
		unpublished_disks(t, what);
	}
	add_end();
}

static void act_remove(struct thr *t)
{
	int slot = hold_live(t, true), pc = chance(&t->r, 5) ? P_RDONLY : P_GOOD, e;
	union rq q;
	struct expect ex;
	long ret;

	if (slot < 0)
		return;	/* (not act_add(): that may come here at the cap) */
	build(&t->r, K_REMOVE, &q, slot, false);
	ex = expect_req(K_REMOVE, &q, pc, slot, true, 0);
	ret = issue(t, K_REMOVE, real_cmd(&t->r, K_REMOVE),
		    place(t, pc, &q, sizeof(q.disk)), pc, &q, &ex, &e);
	if (ret == 0 || (ret == -1 && e == ENODEV)) {
		atomic_store(&slots[slot].live, false);
		atomic_fetch_sub(&live_count, 1);
		if (ret == 0)
			atomic_fetch_add(&n_removed, 1);
	}
	release(slot);
}

/*
 * Resize or free-pages on a disk of ours. @verify: alone on it (write
 * lock), and its size and allocated bytes are checked before and after.
 */
static void act_change(struct thr *t, int kind, bool verify)
{
	int slot = hold_live(t, verify), pc = chance(&t->r, 5) ? P_RDONLY : P_GOOD, e;
	uint64_t size0 = UINT64_MAX, alloc0 = 0, pre = 0, size1, alloc1;
	union rq q;
	struct expect ex;
	long ret;

	if (slot < 0) {
		act_add(t, false, false);
		return;
	}
	build(&t->r, kind, &q, slot, slots[slot].prealloc);
	if (kind == K_RESIZE && chance(&t->r, 8))
		q.resize.size = edge_size(&t->r);
	if (verify) {
		if (!disk_state(slot, &size0, &alloc0, &pre)) {
			violation(t, "rd%d, a disk of ours, is not in sysfs", slot);
			release(slot);
			return;
		}
		if (kind == K_RESIZE && chance(&t->r, 8))
			q.resize.size = size0;
	}
	if (chance(&t->r, 8)) {
		/* a bit flipped anywhere: often malformed, sometimes not */
		q.b[below(&t->r, kind_len[kind])] ^= 1U << below(&t->r, 8);
	}
	sanitize(&t->r, kind, &q, slot);
	ex = expect_req(kind, &q, pc, slot, verify, size0);
	ret = issue(t, kind, real_cmd(&t->r, kind),
		    place(t, pc, &q, kind_len[kind]), pc, &q, &ex, &e);
	if (ret == 0)
		atomic_fetch_add(kind == K_RESIZE ? &n_resized : &n_freed, 1);
	if (ret == 0 && kind == K_RESIZE && *index_field(kind, &q) != (uint32_t)slot)
		goto out;	/* out of range by a flipped bit: nothing to see */
	if (verify && (ret == 0 || ret == -1)) {
		uint64_t want = kind == K_RESIZE && ret == 0 ? q.resize.size : size0;

		if (!disk_state(slot, &size1, &alloc1, &pre)) {
			violation(t, "rd%d gone after %s -> %s", slot,
				  kind_name[kind], ename(e));
			goto out;
		}
		if (size1 != want)
			violation(t, "rd%d: size %" PRIu64 " after %s -> %s, expected %" PRIu64,
				  slot, size1, kind_name[kind], ename(e), want);
		if (ret == -1 && alloc1 != alloc0)
			violation(t, "rd%d: failed %s (%s) changed allocated bytes %" PRIu64 " -> %" PRIu64,
				  slot, kind_name[kind], ename(e), alloc0, alloc1);
		if (ret == 0 && slots[slot].prealloc && alloc1 != size1)
			violation(t, "rd%d (preallocated): %" PRIu64 " bytes allocated after %s, size %" PRIu64,
				  slot, alloc1, kind_name[kind], size1);
		if (ret == 0 && !slots[slot].prealloc &&
		    alloc1 > (kind == K_FREE ? 0 : size1))
			violation(t, "rd%d: %" PRIu64 " bytes allocated after %s, size %" PRIu64,
				  slot, alloc1, kind_name[kind], size1);
	}
out:
	release(slot);
}

/* A valid request for an index no disk can have: ENODEV (or the checks'). */
static void act_oob(struct thr *t)
{
	int kind = K_REMOVE + below(&t->r, 3), pc = chance(&t->r, 5) ? P_RDONLY : P_GOOD, e;
	union rq q;
	struct expect ex;

	build(&t->r, kind, &q, oob_index(&t->r), chance(&t->r, 2));
	if (kind == K_RESIZE && chance(&t->r, 4))
		q.resize.size = edge_size(&t->r);
	sanitize(&t->r, kind, &q, -1);
	ex = expect_req(kind, &q, pc, -1, false, 0);
	issue(t, kind, real_cmd(&t->r, kind), place(t, pc, &q, kind_len[kind]),
	      pc, &q, &ex, &e);
}

/* A valid request with a few bits flipped; the answer follows the result. */
static void act_bitflip(struct thr *t)
{
	int kind = below(&t->r, 4), slot = -1, pc = P_GOOD, e;
	uint64_t size0 = UINT64_MAX;
	union rq q, back;
	struct expect ex;
	void *ptr;
	long ret;

	if (kind != K_ADD && chance(&t->r, 3) == false)
		slot = hold_live(t, kind == K_REMOVE);
	build(&t->r, kind, &q, slot >= 0 ? (uint32_t)slot : oob_index(&t->r),
	      kind == K_ADD ? chance(&t->r, 4) : slot >= 0 && slots[slot].prealloc);
	for (int n = 1 + below(&t->r, 3); n; n--)
		q.b[below(&t->r, kind_len[kind])] ^= 1U << below(&t->r, 8);
	sanitize(&t->r, kind, &q, slot);
	ex = expect_req(kind, &q, pc, slot, kind == K_REMOVE, size0);
	ptr = place(t, pc, &q, kind_len[kind]);
	if (kind == K_ADD)
		add_begin(false);
	ret = issue(t, kind, real_cmd(&t->r, kind), ptr, pc, &q, &ex, &e);
	if (kind == K_ADD) {
		memcpy(&back, ptr, sizeof(q.add));
		if (ret >= 0)
			added(t, ret, &q, pc, &back, ex.ok);
		add_end();
	} else if (kind == K_REMOVE && slot >= 0 && ret == 0 &&
		   *index_field(kind, &q) == (uint32_t)slot) {
		atomic_store(&slots[slot].live, false);
		atomic_fetch_sub(&live_count, 1);
		atomic_fetch_add(&n_removed, 1);
	}
	if (slot >= 0)
		release(slot);
}

/* Hold a disk of ours open a moment, with a read and maybe a write. */
static void act_open(struct thr *t)
{
	static _Thread_local unsigned char *buf;
	int slot = hold_live(t, false), fd;
	uint64_t size = 0, off;
	unsigned long ended;
	char path[32];

	if (slot < 0)
		return;
	if (!buf && posix_memalign((void **)&buf, PAGE, PAGE)) {
		release(slot);
		return;
	}
	snprintf(path, sizeof(path), "/dev/rd%d", slot);
	ended = atomic_load(&frees_ended);
	fd = open(path, O_RDWR | O_DIRECT | O_CLOEXEC);
	if (fd < 0 && errno == EBUSY && atomic_load(&frees_begun) > ended) {
		atomic_fetch_add(&n_open_busy, 1);
		release(slot);
		return;
	}
	if (fd < 0) {
		violation(t, "open %s (a disk of ours): %s", path, ename(errno));
		release(slot);
		return;
	}
	atomic_fetch_add(&n_opened, 1);
	if (ioctl(fd, BLKGETSIZE64, &size) || size < PAGE) {
		violation(t, "%s: BLKGETSIZE64 %" PRIu64 ": %s", path, size, ename(errno));
	} else {
		off = below(&t->r, size / PAGE) * PAGE;
		if (pread(fd, buf, PAGE, off) != (ssize_t)PAGE)
			violation(t, "%s: read at %" PRIu64 ": %s", path, off, ename(errno));
		if (chance(&t->r, 3)) {
			memset(buf, t->id + 1, PAGE);
			if (pwrite(fd, buf, PAGE, off) != (ssize_t)PAGE)
				violation(t, "%s: write at %" PRIu64 ": %s", path, off,
					  ename(errno));
		}
	}
	usleep(below(&t->r, 3000));
	close(fd);
	release(slot);
}

static void *run(void *arg)
{
	struct thr *t = arg;

	while (t->calls < t->share) {
		unsigned int a = below(&t->r, 1000);

		/*
		 * Per mille. Refusals cost the kernel little; what creates,
		 * changes or removes a disk costs it (and udev) much more, and
		 * sets how long a run takes.
		 */
		if (a < 150)
			act_other(t);
		else if (a < 300)
			act_near(t);
		else if (a < 550)
			act_malformed(t);
		else if (a < 680)
			act_badptr(t);
		else if (a < 750)
			act_bitflip(t);
		else if (a < 860)
			act_oob(t);
		else if (a < 880)
			act_add(t, true, false);	/* edge sizes */
		else if (a < 890)
			act_add(t, false, true);	/* read-only: EFAULT */
		else if (a < 905)
			act_add(t, false, false);
		else if (a < 920)
			act_remove(t);
		else if (a < 945)
			act_change(t, K_RESIZE, false);
		else if (a < 955)
			act_change(t, K_RESIZE, true);
		else if (a < 970)
			act_change(t, K_FREE, false);
		else if (a < 978)
			act_change(t, K_FREE, true);
		else
			act_open(t);
	}
	return NULL;
}

/* --- setup and the end ---------------------------------------------------- */

static bool has_cap_sys_admin(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return false;
	return d[CAP_SYS_ADMIN / 32].effective & (1U << (CAP_SYS_ADMIN % 32));
}

/* Indexes of the rd disks in sysfs; returns how many (at most @max). */
static int rd_disks(uint32_t *out, int max)
{
	DIR *d = opendir("/sys/block");
	struct dirent *de;
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char *end;
		unsigned long i;

		if (strncmp(de->d_name, RDMIRROR_DISK_PREFIX, 2) ||
		    de->d_name[2] < '0' || de->d_name[2] > '9')
			continue;
		i = strtoul(de->d_name + 2, &end, 10);
		if (*end || n >= max)
			continue;
		out[n++] = i;
	}
	closedir(d);
	return n;
}

static int usage(void)
{
	fputs("usage: rd-ioctl-fuzz [-t THREADS] [-d DISKS] [-p PREALLOC_MIB] [-v] CALLS [SEED]\n",
	      stderr);
	return 2;
}

static void summary(unsigned long calls, uint64_t seed, double secs)
{
	bool used[MAX_ERRNO] = { false };
	unsigned long col[MAX_ERRNO] = { 0 }, total = 0;

	for (int k = 0; k < K_NR; k++)
		for (int e = 0; e < MAX_ERRNO; e++)
			if (atomic_load(&counts[k][e]))
				used[e] = true;
	used[0] = true;
	printf("rd-ioctl-fuzz: %lu calls, %u threads, seed %" PRIu64 ", %.1f s\n",
	       calls, nthreads, seed, secs);
	printf("%-13s %7s", "request", "calls");
	for (int e = 0; e < MAX_ERRNO; e++)
		if (used[e])
			printf(" %7s", ename(e));
	putchar('\n');
	for (int k = 0; k < K_NR; k++) {
		unsigned long row = 0;

		for (int e = 0; e < MAX_ERRNO; e++)
			row += atomic_load(&counts[k][e]);
		printf("%-13s %7lu", kind_name[k], row);
		for (int e = 0; e < MAX_ERRNO; e++) {
			if (!used[e])
				continue;
			printf(" %7lu", (unsigned long)atomic_load(&counts[k][e]));
			col[e] += atomic_load(&counts[k][e]);
		}
		putchar('\n');
		total += row;
	}
	printf("%-13s %7lu", "total", total);
	for (int e = 0; e < MAX_ERRNO; e++)
		if (used[e])
			printf(" %7lu", col[e]);
	putchar('\n');
	printf("disks: %lu added (%lu checked in sysfs), %lu removed by the threads, %lu resizes, %lu free-pages, %lu opens (%lu refused during a free-pages)\n",
	       (unsigned long)n_added, (unsigned long)n_verified,
	       (unsigned long)n_removed, (unsigned long)n_resized,
	       (unsigned long)n_freed, (unsigned long)n_opened, (unsigned long)n_open_busy);
	printf("invariant violations: %lu\n", (unsigned long)violations);
}

int main(int argc, char **argv)
{
	unsigned long calls;
	uint64_t seed;
	struct thr *thr;
	struct sysinfo si;
	struct timespec t0, t1;
	pthread_rwlockattr_t attr;
	uint32_t found[1024];
	uint64_t v;
	int opt, n, fd;
	char *end;

	while ((opt = getopt(argc, argv, "t:d:p:v")) != -1) {
		switch (opt) {
		case 't':
			nthreads = strtoul(optarg, &end, 0);
			if (*end || !nthreads || nthreads > 64)
				return usage();
			break;
		case 'd':
			live_cap = strtoul(optarg, &end, 0);
			if (*end || !live_cap)
				return usage();
			break;
		case 'p':
			prealloc_cap = strtoull(optarg, &end, 0) * MiB;
			if (*end || !prealloc_cap)
				return usage();
			break;
		case 'v':
			verbose = true;
			break;
		default:
			return usage();
		}
	}
	if (optind >= argc || argc - optind > 2)
		return usage();
	calls = strtoul(argv[optind], &end, 0);
	if (*end || !calls)
		return usage();
	if (optind + 1 < argc) {
		seed = strtoull(argv[optind + 1], &end, 0);
		if (*end)
			return usage();
	} else {
		clock_gettime(CLOCK_REALTIME, &t0);
		seed = (uint64_t)t0.tv_sec * 1000000007ULL ^ t0.tv_nsec ^ getpid();
	}
	printf("rd-ioctl-fuzz: seed %" PRIu64 " (replay: rd-ioctl-fuzz -t %u -d %u -p %" PRIu64 " %lu %" PRIu64 ")\n",
	       seed, nthreads, live_cap, (uint64_t)(prealloc_cap / MiB), calls, seed);
	fflush(stdout);

	ctl_path = getenv("RD_CONTROL") ? getenv("RD_CONTROL") :
		   "/dev/" RDMIRROR_CONTROL_NAME;
	capable = has_cap_sys_admin();
	if (sysinfo(&si)) {
		perror("rd-ioctl-fuzz: sysinfo");
		return 2;
	}
	totalram = (uint64_t)si.totalram * si.mem_unit;
	max_disks = read_u64("/sys/module/rdmirror/parameters/max_disks", &v) ? v : 64;
	if (!max_disks || max_disks > 1024) {
		fprintf(stderr, "rd-ioctl-fuzz: max_disks %u?\n", max_disks);
		return 2;
	}
	n = rd_disks(found, 1024);
	if (n) {
		fprintf(stderr, "rd-ioctl-fuzz: rd%u exists: it runs only where there is no rd disk\n",
			found[0]);
		return 2;
	}
	guard = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (guard == MAP_FAILED || mprotect(guard + PAGE, PAGE, PROT_NONE)) {
		perror("rd-ioctl-fuzz: mmap");
		return 2;
	}
	slots = calloc(max_disks, sizeof(*slots));
	thr = calloc(nthreads, sizeof(*thr));
	if (!slots || !thr) {
		perror("rd-ioctl-fuzz: calloc");
		return 2;
	}
	/* writers first: a remove must not wait behind a stream of readers */
	pthread_rwlockattr_init(&attr);
	pthread_rwlockattr_setkind_np(&attr,
				      PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	for (uint32_t i = 0; i < max_disks; i++)
		pthread_rwlock_init(&slots[i].lock, &attr);
	pthread_rwlock_init(&add_lock, &attr);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned int i = 0; i < nthreads; i++) {
		struct thr *t = &thr[i];

		t->id = i;
		t->r.s = seed + 0x632be59bd9b4e019ULL * (i + 1);
		t->share = calls / nthreads + (i < calls % nthreads);
		/* the mode the control device is opened with does not matter */
		t->fd = open(ctl_path, (i % 2 ? O_RDONLY : O_RDWR) | O_CLOEXEC);
		if (t->fd < 0) {
			fprintf(stderr, "rd-ioctl-fuzz: %s: %s\n", ctl_path,
				strerror(errno));
			return 2;
		}
		t->rw = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		t->ro = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (t->rw == MAP_FAILED || t->ro == MAP_FAILED) {
			perror("rd-ioctl-fuzz: mmap");
			return 2;
		}
	}
	for (unsigned int i = 0; i < nthreads; i++) {
		if (pthread_create(&thr[i].th, NULL, run, &thr[i])) {
			perror("rd-ioctl-fuzz: pthread_create");
			return 2;
		}
	}
	calls = 0;
	for (unsigned int i = 0; i < nthreads; i++) {
		pthread_join(thr[i].th, NULL);
		calls += thr[i].calls;
	}

	/* Every disk of ours goes; then no rd disk may be left at all. */
	fd = thr[0].fd;
	for (uint32_t i = 0; i < max_disks; i++) {
		if (!atomic_load(&slots[i].live))
			continue;
		n = remove_retrying(NULL, fd, i);
		if (n)
			violation(NULL, "rd%u, a disk of ours, does not remove: %s",
				  i, ename(n));
		atomic_store(&slots[i].live, false);
	}
	n = rd_disks(found, 1024);
	for (int i = 0; i < n; i++) {
		int e = remove_retrying(NULL, fd, found[i]);

		violation(NULL, "rd%u is left, a disk no add of ours returned (removed: %s)",
			  found[i], e ? ename(e) : "yes");
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	for (unsigned int i = 0; i < nthreads; i++)
		close(thr[i].fd);
	summary(calls, seed, (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	return atomic_load(&violations) ? 1 : 0;
}
