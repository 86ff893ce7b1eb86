/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernels rdmirror builds on (6.1 to the
 * newest mainline) lives here, so the rest of the module is written
 * against one API; and nothing else: it includes kernel headers only and
 * calls nothing of the module's (test/check-module-layers).
 */
#ifndef RD_COMPAT_H
#define RD_COMPAT_H

#include <linux/badblocks.h>
#include <linux/blkdev.h>
#include <linux/mm.h>
#include <linux/version.h>

/*
 * Write-zeroes bios at most 4 GiB long: up to 6.10,
 * __blkdev_issue_write_zeroes() put the whole request in one bio's 32-bit
 * byte count without a clamp (fixed by 73a768d5f955 in 6.11), and a
 * longer request was silently cut short. Discard always clamped.
 */
#define RD_MAX_WRITE_ZEROES_SECTORS \
	round_down(UINT_MAX >> SECTOR_SHIFT, PAGE_SECTORS)

/*
 * A gendisk for a bio-based RAM disk: 512-byte logical and page-sized
 * physical blocks, discard and write-zeroes in whole pages, no rotation,
 * no entropy contribution, NOWAIT (md keeps NOWAIT only if every member
 * has it), I/O statistics only if asked for (the iostats parameter).
 * No bound on a bio's size (max_hw_sectors UINT_MAX, as pmem): a copy in
 * memory has no transfer limit, and md stacks the smallest of its
 * members' limits, so the block layer's default (BLK_SAFE_MAX_SECTORS,
 * 127 KiB) would split every bio of the array, its disks' writes too.
 * A compressed disk (@stable) asks for stable pages, as zram: a page
 * under write is not changed until the write ends, so that what was
 * compressed and checksummed is what was written. (BLK_FEAT_STABLE_WRITES
 * since 6.11, QUEUE_FLAG_STABLE_WRITES before.)
 * Returns an ERR_PTR on failure.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 11, 0)
static inline void rd_compat_set_queue_flags(struct request_queue *q,
					     bool iostats, bool stable)
{
	if (stable)
		blk_queue_flag_set(QUEUE_FLAG_STABLE_WRITES, q);
	blk_queue_flag_set(QUEUE_FLAG_NONROT, q);
#ifdef QUEUE_FLAG_SYNCHRONOUS	/* a hint, new in 6.7 */
	blk_queue_flag_set(QUEUE_FLAG_SYNCHRONOUS, q);
#endif
	blk_queue_flag_set(QUEUE_FLAG_NOWAIT, q);
	if (iostats)
		blk_queue_flag_set(QUEUE_FLAG_IO_STAT, q);
	else
		blk_queue_flag_clear(QUEUE_FLAG_IO_STAT, q);
	blk_queue_flag_clear(QUEUE_FLAG_ADD_RANDOM, q);
}
#endif

static inline struct gendisk *rd_compat_alloc_disk(bool iostats, bool stable)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
	struct queue_limits lim = {
		.logical_block_size	= SECTOR_SIZE,
		.physical_block_size	= PAGE_SIZE,
		.io_min			= PAGE_SIZE,
		.max_hw_sectors		= UINT_MAX,
		.max_hw_discard_sectors	= UINT_MAX,
		.discard_granularity	= PAGE_SIZE,
		.max_write_zeroes_sectors = RD_MAX_WRITE_ZEROES_SECTORS,
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
		.features		= BLK_FEAT_SYNCHRONOUS | BLK_FEAT_NOWAIT |
					  (iostats ? BLK_FEAT_IO_STAT : 0) |
					  (stable ? BLK_FEAT_STABLE_WRITES : 0),
#endif
	};
	struct gendisk *disk = blk_alloc_disk(&lim, NUMA_NO_NODE);

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 11, 0)
	if (!IS_ERR(disk))
		rd_compat_set_queue_flags(disk->queue, iostats, stable);
#endif
	return disk;
#else
	struct gendisk *disk = blk_alloc_disk(NUMA_NO_NODE);
	struct request_queue *q;

	if (!disk)
		return ERR_PTR(-ENOMEM);
	q = disk->queue;
	blk_queue_logical_block_size(q, SECTOR_SIZE);
	blk_queue_physical_block_size(q, PAGE_SIZE);
	blk_queue_io_min(q, PAGE_SIZE);
	blk_queue_max_hw_sectors(q, UINT_MAX);
	blk_queue_max_discard_sectors(q, UINT_MAX);
	q->limits.discard_granularity = PAGE_SIZE;
	blk_queue_max_write_zeroes_sectors(q, RD_MAX_WRITE_ZEROES_SECTORS);
	rd_compat_set_queue_flags(q, iostats, stable);
	return disk;
#endif
}

/*
 * ->open lost its block_device argument in 6.5: an open method is
 * declared with RD_COMPAT_OPEN_ARGS and finds its disk with
 * RD_COMPAT_OPEN_DISK.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
#define RD_COMPAT_OPEN_ARGS	struct gendisk *disk, blk_mode_t mode
#define RD_COMPAT_OPEN_DISK	(disk)
#else
#define RD_COMPAT_OPEN_ARGS	struct block_device *bdev, fmode_t mode
#define RD_COMPAT_OPEN_DISK	(bdev->bd_disk)
#endif

/*
 * The KUnit tests (module/kunit/, rdmirror_kunit.ko) open disks with
 * bdev_file_open_by_dev(), new in 6.9: older kernels get no hooks for
 * them (rd_kunit_hooks.h).
 */
#define RD_COMPAT_KUNIT_CAN_RUN \
	(LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0))

/*
 * memory_failure_queue(pfn) where the kernel has memory_failure(), and
 * nothing where it has not: 6.1.0 to about 6.1.36 declare it without a
 * stub for CONFIG_MEMORY_FAILURE=n (the stub came with a later stable
 * release), and a module calling it would not link there.
 */
static inline void rd_compat_memory_failure_queue(unsigned long pfn)
{
#ifdef CONFIG_MEMORY_FAILURE
	memory_failure_queue(pfn, 0);
#endif
}

/* Module namespaces became strings in 6.13. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define RD_IMPORT_KUNIT_NS() MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING")
#else
#define RD_IMPORT_KUNIT_NS() MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING)
#endif

/*
 * The block layer's bad-block table (struct badblocks), which rd_store.c
 * keeps of the sectors lost to memory errors: newer kernels changed
 * badblocks_set() and badblocks_clear() to return true when done (0 was
 * "done" before) and badblocks_check()'s lengths to sector_t (int
 * before). Both are told apart by type at compile time, not by version,
 * so that a kernel between the two cannot get the meaning backwards.
 */
#define RD_BB_BOOL \
	__builtin_types_compatible_p(typeof(badblocks_set(NULL, 0, 0, 0)), bool)
#define RD_BB_SECTOR_LENGTHS \
	__builtin_types_compatible_p(typeof(badblocks_check), \
				     int (struct badblocks *, sector_t, sector_t, \
					  sector_t *, sector_t *))

/* Record [s, s + n) (acknowledged): 0, or -ENOSPC if the table is full. */
static inline int rd_bb_set(struct badblocks *bb, sector_t s, sector_t n)
{
	int done = badblocks_set(bb, s, n, 1);

	return (RD_BB_BOOL ? done : !done) ? 0 : -ENOSPC;
}

/* Forget [s, s + n): 0, or -ENOSPC if a split did not fit. */
static inline int rd_bb_clear(struct badblocks *bb, sector_t s, sector_t n)
{
	int done = badblocks_clear(bb, s, n);

	return (RD_BB_BOOL ? done : !done) ? 0 : -ENOSPC;
}

/*
 * Whether any sector of [s, s + n) is recorded. Not against a change of
 * the table: badblocks_check() is lockless (a seqlock) and retries when a
 * change raced it, but from the 6.7 rewrite of badblocks until upstream
 * 5236f041fa6c (6.15) the retry started from the range already consumed
 * and reported nothing. Debian's 6.1 has the old code; its 6.12
 * (6.12.118-1~deb12u1, bookworm-backports and trixie) lacks the fix. The
 * caller holds the lock under which the table changes.
 */
static inline bool rd_bb_any(struct badblocks *bb, sector_t s, sector_t n)
{
	typeof(__builtin_choose_expr(RD_BB_SECTOR_LENGTHS, (sector_t)0, 0)) len;
	sector_t first;

	return badblocks_check(bb, s, n, &first, &len) != 0;
}

#endif /* RD_COMPAT_H */
