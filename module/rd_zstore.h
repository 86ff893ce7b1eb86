/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The store of a compressed rd disk (rd_zstore.c): what its xarray
 * (rd_device.pages) holds, and its state and counters.
 */
#ifndef RD_ZSTORE_H
#define RD_ZSTORE_H

#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/stddef.h>
#include <linux/types.h>

#include "rd_zcomp.h"

/*
 * A page that is neither all zeros (no entry: a hole) nor one repeated
 * 32-bit word (a value entry holding the word; on 64-bit kernels every
 * such word fits) is one of these, allocated whole from rd's own size
 * classes (rd_zstore.c): its
 * @len compressed bytes in @data, or, where it did not compress to
 * RD_ZCOMP_MAX_LEN, @len == PAGE_SIZE and the page as it is in @page.
 * @csum, xxh32 of those @len bytes, is checked on every read: lz4 and
 * zstd turn flipped bits in literals into wrong data without an error.
 * An object is never changed once in the store: a write puts a new one
 * in its place and frees the old one after an RCU grace period, for the
 * readers that copy it out under RCU without a lock.
 */
struct rd_zobj {
	struct rcu_head rcu;
	u32 csum;
	u32 len;
	union {
		struct page *page;
		DECLARE_FLEX_ARRAY(u8, data);
	};
};

/* Writers of one page serialise on one of these, by page index. */
#define RD_ZLOCKS	256

struct rd_zstore {
	struct rd_zcomp *comp;
	/* the disk's bound on @bytes, 0 for none: root may change it */
	u64 mem_limit;
	/*
	 * Under @acct_lock: the bytes the disk's objects take (what the
	 * allocator gave for each, and whole pages), and the pages charged
	 * for them against the module's bound (@bytes rounded up).
	 */
	spinlock_t acct_lock;
	u64 bytes;
	unsigned long charged;
	atomic_long_t same_pages;	/* value entries */
	atomic_long_t huge_pages;	/* objects holding a whole page */
	atomic_long_t comp_pages;	/* objects holding a compressed page */
	atomic_long_t csum_errors;	/* reads failed on an object */
	struct mutex locks[RD_ZLOCKS];
};

/* The xxh32 an object carries over @len bytes at @data. */
u32 rd_zobj_csum(const void *data, unsigned int len);

#endif /* RD_ZSTORE_H */
