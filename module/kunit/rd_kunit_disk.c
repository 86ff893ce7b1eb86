// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of whole disks (rd_disk.c, rd_io.c): add and remove, the
 * refusals while a disk is open, bios whose segments straddle store pages,
 * discard and write-zeroes through the block layer, resize, free-all, and
 * preallocation that fails at creation or on growth.
 *
 * They use the disks of the loaded rdmirror module: each test removes
 * what it added, even when it fails.
 */
#include <kunit/test.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/delay.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/jiffies.h>
#include <linux/sizes.h>

#include "uapi/rdmirror.h"
#include "compat.h"
#include "rd_control.h"
#include "rd_device.h"
#include "rd_kunit.h"

/*
 * udev may hold a new disk open for a moment to probe it, as it does for
 * any disk: an operation that needs the disk closed waits that out.
 */
/* More than any max_disks the module accepts. */
#define RD_KUNIT_MAX_ADDS	1025

static int rd_kunit_when_closed(int (*op)(u32 index), u32 index)
{
	unsigned long deadline = jiffies + 5 * HZ;
	int err;

	while ((err = op(index)) == -EBUSY && time_before(jiffies, deadline))
		msleep(20);
	return err;
}

static int rd_kunit_shrink_when_closed(u32 index, u64 size)
{
	unsigned long deadline = jiffies + 5 * HZ;
	int err;

	while ((err = rd_disk_resize(index, size)) == -EBUSY &&
	       time_before(jiffies, deadline))
		msleep(20);
	return err;
}

static void rd_kunit_remove_action(void *index)
{
	/* Gone already if the test removed it. */
	rd_kunit_when_closed(rd_disk_remove, (u32)(uintptr_t)index);
}

/* Add a disk that is removed when the test ends. */
static u32 rd_kunit_add(struct kunit *test, u64 size, u32 flags)
{
	u32 index;

	KUNIT_ASSERT_EQ(test, rd_disk_add(size, flags, 0, 0, NULL, NULL, &index), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rd_kunit_remove_action,
							(void *)(uintptr_t)index), 0);
	return index;
}

static void rd_kunit_close_action(void *file)
{
	/* Synchronously: the tests then check that the disk is free. */
	__fput_sync(file);
}

/* Open disk @index read-write, as a user would; closed at the end. */
static struct file *rd_kunit_open(struct kunit *test, u32 index)
{
	struct file *file;

	file = bdev_file_open_by_dev(MKDEV(rd_major, index),
				     BLK_OPEN_READ | BLK_OPEN_WRITE, NULL, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, file);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rd_kunit_close_action,
							file), 0);
	return file;
}

static void rd_kunit_close(struct kunit *test, struct file *file)
{
	kunit_release_action(test, rd_kunit_close_action, file);
}

/* Disk @index cannot be opened: it does not exist. */
static void rd_kunit_expect_gone(struct kunit *test, u32 index)
{
	struct file *file = bdev_file_open_by_dev(MKDEV(rd_major, index),
						  BLK_OPEN_READ, NULL, NULL);

	KUNIT_EXPECT_TRUE_MSG(test, IS_ERR(file), "rd%u can still be opened", index);
	if (!IS_ERR(file))
		__fput_sync(file);
}

static struct rd_device *rd_kunit_rd(struct file *file)
{
	return file_bdev(file)->bd_disk->private_data;
}

static unsigned long rd_kunit_pages(struct file *file)
{
	return atomic_long_read(&rd_kunit_rd(file)->nr_pages);
}

/* The byte at disk offset @pos in what the tests write. */
static u8 rd_kunit_byte(u64 pos)
{
	return (u8)(pos * 11 + (pos >> SECTOR_SHIFT) * 5 + 3);
}

struct rd_kunit_seg {
	unsigned int off;	/* in its memory page */
	unsigned int len;
};

/*
 * One bio from @sector, one memory page per segment: a write sends the
 * pattern, a read checks that the pattern (@written) or zeros come back.
 * Segment lengths are multiples of 512 bytes.
 */
static void rd_kunit_bio(struct kunit *test, struct file *file, bool write,
			 sector_t sector, const struct rd_kunit_seg *segs,
			 unsigned int n, bool written)
{
	struct block_device *bdev = file_bdev(file);
	struct page *pages[4];
	u64 pos = (u64)sector << SECTOR_SHIFT;
	unsigned int i, j, bad = 0;
	struct bio *bio;
	int err;
	u8 *p;

	KUNIT_ASSERT_LE(test, n, ARRAY_SIZE(pages));
	bio = bio_alloc(bdev, n, write ? REQ_OP_WRITE : REQ_OP_READ, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, bio);
	bio->bi_iter.bi_sector = sector;
	for (i = 0; i < n; i++) {
		pages[i] = alloc_page(GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, pages[i]);
		p = kmap_local_page(pages[i]);
		for (j = 0; j < PAGE_SIZE; j++)
			p[j] = 0x5a;
		for (j = 0; write && j < segs[i].len; j++)
			p[segs[i].off + j] = rd_kunit_byte(pos + j);
		kunmap_local(p);
		__bio_add_page(bio, pages[i], segs[i].len, segs[i].off);
		pos += segs[i].len;
	}
	err = submit_bio_wait(bio);
	bio_put(bio);
	KUNIT_EXPECT_EQ(test, err, 0);

	pos = (u64)sector << SECTOR_SHIFT;
	for (i = 0; i < n; i++) {
		p = kmap_local_page(pages[i]);
		for (j = 0; !write && j < segs[i].len; j++) {
			u8 want = written ? rd_kunit_byte(pos + j) : 0;

			if (p[segs[i].off + j] != want && !bad++)
				KUNIT_FAIL(test, "byte at %llu is %#x, want %#x",
					   pos + j, p[segs[i].off + j], want);
		}
		kunmap_local(p);
		__free_page(pages[i]);
		pos += segs[i].len;
	}
	KUNIT_EXPECT_EQ(test, bad, 0U);
}

/* Read @nr_pages whole pages from page @first: pattern or zeros. */
static void rd_kunit_expect_pages(struct kunit *test, struct file *file,
				  pgoff_t first, unsigned int nr, bool written)
{
	static const struct rd_kunit_seg whole = { 0, PAGE_SIZE };
	unsigned int i;

	for (i = 0; i < nr; i++)
		rd_kunit_bio(test, file, false,
			     rd_page_sector(first + i),
			     &whole, 1, written);
}

static void rd_kunit_write_pages(struct kunit *test, struct file *file,
				 pgoff_t first, unsigned int nr)
{
	static const struct rd_kunit_seg whole = { 0, PAGE_SIZE };
	unsigned int i;

	for (i = 0; i < nr; i++)
		rd_kunit_bio(test, file, true,
			     rd_page_sector(first + i),
			     &whole, 1, true);
}

static void rd_kunit_disk_lifecycle(struct kunit *test)
{
	char name[DISK_NAME_LEN];
	struct file *file;
	u32 index;

	index = rd_kunit_add(test, 1024 * SZ_1K, 0);
	file = rd_kunit_open(test, index);
	snprintf(name, sizeof(name), "rd%u", index);
	KUNIT_EXPECT_STREQ(test, file_bdev(file)->bd_disk->disk_name, name);
	KUNIT_EXPECT_EQ(test, get_capacity(file_bdev(file)->bd_disk), 2048ULL);
	KUNIT_EXPECT_FALSE(test, rd_kunit_rd(file)->prealloc);
	KUNIT_EXPECT_EQ(test, rd_kunit_pages(file), 0UL);
	rd_kunit_close(test, file);

	KUNIT_EXPECT_EQ(test, rd_kunit_when_closed(rd_disk_remove, index), 0);
	/* Gone: every operation on it says so. */
	KUNIT_EXPECT_EQ(test, rd_disk_remove(index), -ENODEV);
	KUNIT_EXPECT_EQ(test, rd_disk_resize(index, 2048 * SZ_1K), -ENODEV);
	KUNIT_EXPECT_EQ(test, rd_disk_free_pages(index), -ENODEV);
	rd_kunit_expect_gone(test, index);
	/* The index is free again: the next disk takes it. */
	KUNIT_EXPECT_EQ(test, rd_kunit_add(test, 64 * SZ_1K, 0), index);
}

static void rd_kunit_disk_remove_while_open(struct kunit *test)
{
	u32 index = rd_kunit_add(test, 64 * SZ_1K, 0);
	struct file *file = rd_kunit_open(test, index);

	rd_kunit_write_pages(test, file, 0, 2);
	KUNIT_EXPECT_EQ(test, rd_disk_remove(index), -EBUSY);
	KUNIT_EXPECT_EQ(test, rd_disk_free_pages(index), -EBUSY);
	KUNIT_EXPECT_EQ(test, rd_disk_resize(index, 32 * SZ_1K), -EBUSY);
	/* Refused means untouched. */
	KUNIT_EXPECT_EQ(test, get_capacity(file_bdev(file)->bd_disk), 128ULL);
	KUNIT_EXPECT_EQ(test, rd_kunit_pages(file), 2UL);
	rd_kunit_expect_pages(test, file, 0, 2, true);

	rd_kunit_close(test, file);
	KUNIT_EXPECT_EQ(test, rd_kunit_when_closed(rd_disk_remove, index), 0);
}

/*
 * Segments that straddle store pages, written with one memory layout and
 * read back with another.
 */
static void rd_kunit_disk_io_crosses_pages(struct kunit *test)
{
	/* From sector 3: disk bytes [1536, 8192) on 4 KiB pages. */
	static const struct rd_kunit_seg wsegs[] = {
		{ 0, PAGE_SIZE }, { 1024, 2048 }, { 512, PAGE_SIZE - 3584 },
	};
	static const struct rd_kunit_seg rsegs[] = {
		{ 512, SECTOR_SIZE }, { 0, PAGE_SIZE }, { 0, PAGE_SIZE - 2048 },
	};
	u32 index = rd_kunit_add(test, 64 * SZ_1K, 0);
	struct file *file = rd_kunit_open(test, index);
	unsigned int wlen = 0, rlen = 0, i;

	for (i = 0; i < ARRAY_SIZE(wsegs); i++) {
		wlen += wsegs[i].len;
		rlen += rsegs[i].len;
	}
	/* Both cover the rest of page 0 and all of page 1. */
	KUNIT_ASSERT_EQ(test, wlen, 2 * (unsigned int)PAGE_SIZE - 3 * SECTOR_SIZE);
	KUNIT_ASSERT_EQ(test, rlen, wlen);

	rd_kunit_bio(test, file, true, 3, wsegs, ARRAY_SIZE(wsegs), true);
	KUNIT_EXPECT_EQ(test, rd_kunit_pages(file), 2UL);
	rd_kunit_bio(test, file, false, 3, rsegs, ARRAY_SIZE(rsegs), true);
	/* Around it: zeros, and no page was allocated by reading. */
	rd_kunit_bio(test, file, false, 0,
		     &(struct rd_kunit_seg){ 0, 3 * SECTOR_SIZE }, 1, false);
	rd_kunit_expect_pages(test, file, 2, 2, false);
	KUNIT_EXPECT_EQ(test, rd_kunit_pages(file), 2UL);
	KUNIT_EXPECT_EQ(test, rd_store_bytes(rd_kunit_rd(file)), 2ULL * PAGE_SIZE);
}

/* Page @idx of what rd_kunit_disk_long_read() writes: every 5th is a hole. */
static bool rd_kunit_long_written(u64 idx)
{
	return idx % 5 != 2;
}

/*
 * Read @len bytes from @sector in one bio of 16 KiB multi-page segments
 * and check them against what rd_kunit_disk_long_read() wrote: through
 * the block layer, or (@per_page) straight into the store with a batch
 * of 1, the path the bench compares against.
 */
static void rd_kunit_long_read(struct kunit *test, struct file *file,
			       sector_t sector, unsigned int len, bool per_page)
{
	const unsigned int order = 2, seg = PAGE_SIZE << order;
	unsigned int nseg = DIV_ROUND_UP(len, seg), i, j, bad = 0;
	struct block_device *bdev = file_bdev(file);
	u64 pos = (u64)sector << SECTOR_SHIFT;
	struct page **pages;
	struct bio *bio;
	u8 *p;

	pages = kunit_kcalloc(test, nseg, sizeof(*pages), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	bio = bio_alloc(bdev, nseg, REQ_OP_READ, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, bio);
	bio->bi_iter.bi_sector = sector;
	for (i = 0; i < nseg; i++) {
		pages[i] = alloc_pages(GFP_KERNEL, order);
		KUNIT_ASSERT_NOT_NULL(test, pages[i]);
		__bio_add_page(bio, pages[i], min(seg, len - i * seg), 0);
	}
	if (per_page)
		KUNIT_EXPECT_EQ(test, rd_store_read_bio_batch(rd_kunit_rd(file), bio, 1), 0);
	else
		KUNIT_EXPECT_EQ(test, submit_bio_wait(bio), 0);
	bio_put(bio);

	for (i = 0; i < nseg; i++) {
		for (j = 0; j < min(seg, len - i * seg); j++, pos++) {
			u8 want = rd_kunit_long_written(pos >> PAGE_SHIFT) ?
				  rd_kunit_byte(pos) : 0;

			p = kmap_local_page(pages[i] + j / PAGE_SIZE);
			if (p[j % PAGE_SIZE] != want && !bad++)
				KUNIT_FAIL(test, "byte at %llu is %#x, want %#x",
					   pos, p[j % PAGE_SIZE], want);
			kunmap_local(p);
		}
		__free_pages(pages[i], order);
	}
	KUNIT_EXPECT_EQ(test, bad, 0U);
}

/*
 * A read of many pages in one bio, as rd_store_read_bio() walks them
 * (each page found from the one before): written pages, holes and a
 * reserved entry among them, across the xarray's 64-slot nodes and the
 * read's RCU batches, from a page boundary and from inside a page (every
 * store page then read in two pieces), in both read paths.
 */
static void rd_kunit_disk_long_read(struct kunit *test)
{
	const unsigned int nr = 300;
	u32 index = rd_kunit_add(test, 2 * SZ_1M, 0);
	struct file *file = rd_kunit_open(test, index);
	struct xarray *xa = &rd_kunit_rd(file)->pages;
	unsigned int i;

	for (i = 0; i <= nr + 1; i++)
		if (rd_kunit_long_written(i))
			rd_kunit_write_pages(test, file, i, 1);
	/* A reserved entry in a hole: a hole to readers, as in xa_load(). */
	KUNIT_ASSERT_FALSE(test, rd_kunit_long_written(67));
	KUNIT_ASSERT_EQ(test, xa_reserve(xa, 67, GFP_KERNEL), 0);

	rd_kunit_long_read(test, file, RD_PAGE_SECTORS, nr * PAGE_SIZE, false);
	rd_kunit_long_read(test, file, RD_PAGE_SECTORS + 3, nr * PAGE_SIZE, false);
	rd_kunit_long_read(test, file, RD_PAGE_SECTORS, nr * PAGE_SIZE, true);
	rd_kunit_long_read(test, file, RD_PAGE_SECTORS + 3, nr * PAGE_SIZE, true);
	xa_release(xa, 67);
}

/*
 * Discard and write-zeroes as the block layer sends them: from the last
 * sector of page 0 to the first of page 3.
 */
static void rd_kunit_disk_discard_write_zeroes(struct kunit *test)
{
	u32 index = rd_kunit_add(test, 64 * SZ_1K, 0);
	struct file *file = rd_kunit_open(test, index);
	struct block_device *bdev = file_bdev(file);
	sector_t first = RD_PAGE_SECTORS - 1;
	sector_t nr = 2 * RD_PAGE_SECTORS + 2;

	/* Zeroes that keep the memory (BLKZEROOUT, blkdiscard -z). */
	rd_kunit_write_pages(test, file, 0, 4);
	KUNIT_EXPECT_EQ(test, blkdev_issue_zeroout(bdev, first, nr, GFP_KERNEL,
						   BLKDEV_ZERO_NOUNMAP |
						   BLKDEV_ZERO_NOFALLBACK), 0);
	KUNIT_EXPECT_EQ(test, rd_kunit_pages(file), 4UL);
	rd_kunit_expect_pages(test, file, 1, 2, false);
	rd_kunit_bio(test, file, false, 0,
		     &(struct rd_kunit_seg){ 0, PAGE_SIZE - SECTOR_SIZE }, 1, true);
	rd_kunit_bio(test, file, false, first,
		     &(struct rd_kunit_seg){ 0, SECTOR_SIZE }, 1, false);
	rd_kunit_bio(test, file, false, 3 * RD_PAGE_SECTORS,
		     &(struct rd_kunit_seg){ 0, SECTOR_SIZE }, 1, false);
	rd_kunit_bio(test, file, false, 3 * RD_PAGE_SECTORS + 1,
		     &(struct rd_kunit_seg){ 0, PAGE_SIZE - SECTOR_SIZE }, 1, true);

	/* Zeroes that may unmap (fallocate --punch-hole): whole pages go. */
	rd_kunit_write_pages(test, file, 0, 4);
	KUNIT_EXPECT_EQ(test, blkdev_issue_zeroout(bdev, first, nr, GFP_KERNEL,
						   BLKDEV_ZERO_NOFALLBACK), 0);
	KUNIT_EXPECT_EQ(test, rd_kunit_pages(file), 2UL);
	rd_kunit_expect_pages(test, file, 1, 2, false);

	/* Discard: the same. */
	rd_kunit_write_pages(test, file, 0, 4);
	KUNIT_EXPECT_EQ(test, rd_kunit_pages(file), 4UL);
	KUNIT_EXPECT_EQ(test, blkdev_issue_discard(bdev, first, nr, GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, rd_kunit_pages(file), 2UL);
	KUNIT_EXPECT_EQ(test, rd_store_bytes(rd_kunit_rd(file)), 2ULL * PAGE_SIZE);
	rd_kunit_expect_pages(test, file, 1, 2, false);
	rd_kunit_bio(test, file, false, 3 * RD_PAGE_SECTORS + 1,
		     &(struct rd_kunit_seg){ 0, PAGE_SIZE - SECTOR_SIZE }, 1, true);
}

static void rd_kunit_disk_resize(struct kunit *test)
{
	u32 index = rd_kunit_add(test, 64 * SZ_1K, 0);
	struct file *file = rd_kunit_open(test, index);
	struct gendisk *disk = file_bdev(file)->bd_disk;

	/* Growing works while in use; the new range reads as zeros. */
	KUNIT_EXPECT_EQ(test, rd_disk_resize(index, 128 * SZ_1K), 0);
	KUNIT_EXPECT_EQ(test, get_capacity(disk), 256ULL);
	rd_kunit_write_pages(test, file, 0, 32);
	KUNIT_EXPECT_EQ(test, rd_kunit_pages(file), 32UL);
	/* Same size: nothing to do. */
	KUNIT_EXPECT_EQ(test, rd_disk_resize(index, 128 * SZ_1K), 0);
	/* Shrinking needs the disk closed. */
	KUNIT_EXPECT_EQ(test, rd_disk_resize(index, 64 * SZ_1K), -EBUSY);
	KUNIT_EXPECT_EQ(test, get_capacity(disk), 256ULL);
	rd_kunit_close(test, file);

	/* Closed: the pages past the new end are freed. */
	KUNIT_EXPECT_EQ(test, rd_kunit_shrink_when_closed(index, 48 * SZ_1K), 0);
	file = rd_kunit_open(test, index);
	KUNIT_EXPECT_EQ(test, get_capacity(file_bdev(file)->bd_disk), 96ULL);
	KUNIT_EXPECT_EQ(test, rd_kunit_pages(file), 12UL);
	rd_kunit_expect_pages(test, file, 0, 12, true);
	/* Grown again, the old range is zeros, not the old data. */
	KUNIT_EXPECT_EQ(test, rd_disk_resize(index, 64 * SZ_1K), 0);
	rd_kunit_expect_pages(test, file, 12, 4, false);
	KUNIT_EXPECT_EQ(test, rd_kunit_pages(file), 12UL);
}

/*
 * A disk is never grown past what its kind may hold: RAM for a plain
 * disk, rd_ctl_max_size(true) for a compressed one, whose memory its own
 * mem_limit bounds; a refused grow leaves the size as it was.
 */
static void rd_kunit_disk_resize_bound(struct kunit *test)
{
	u64 ram = rd_ctl_max_size(false), most = rd_ctl_max_size(true);
	u32 plain = rd_kunit_add(test, 64 * SZ_1K, 0), zipped;
	struct file *file;

	KUNIT_EXPECT_EQ(test, rd_disk_resize(plain, ram + PAGE_SIZE), -ENOMEM);
	file = rd_kunit_open(test, plain);
	KUNIT_EXPECT_EQ(test, get_capacity(file_bdev(file)->bd_disk), 128ULL);

	KUNIT_ASSERT_EQ(test, rd_disk_add(64 * SZ_1K, RDMIRROR_ADD_COMPRESS,
					  RDMIRROR_COMP_LZ4, 0, NULL, NULL, &zipped), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rd_kunit_remove_action,
							(void *)(uintptr_t)zipped), 0);
	KUNIT_EXPECT_EQ(test, rd_disk_resize(zipped, ram + PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, rd_disk_resize(zipped, most + PAGE_SIZE), -ENOMEM);
	file = rd_kunit_open(test, zipped);
	KUNIT_EXPECT_EQ(test, get_capacity(file_bdev(file)->bd_disk),
			(ram + PAGE_SIZE) >> SECTOR_SHIFT);
}

/*
 * Freeing a disk's pages (rdctl --flush) empties it, and its memory is
 * back in the allocator when the call returns: a preallocating add right
 * after it may count on that memory.
 */
static void rd_kunit_disk_free_pages(struct kunit *test)
{
	u32 index = rd_kunit_add(test, 64 * SZ_1K, 0);
	struct file *file = rd_kunit_open(test, index);
	struct rd_device *rd = rd_kunit_rd(file);
	struct page *pages[5];
	unsigned int i, still = 0;

	rd_kunit_write_pages(test, file, 3, 5);
	KUNIT_EXPECT_EQ(test, rd_kunit_pages(file), 5UL);
	/* A reference of the test's own: rd's free leaves the count at 1. */
	for (i = 0; i < ARRAY_SIZE(pages); i++) {
		pages[i] = xa_load(&rd->pages, 3 + i);
		KUNIT_ASSERT_NOT_NULL(test, pages[i]);
		get_page(pages[i]);
	}
	rd_kunit_close(test, file);
	KUNIT_EXPECT_EQ(test, rd_kunit_when_closed(rd_disk_free_pages, index), 0);
	for (i = 0; i < ARRAY_SIZE(pages); i++) {
		if (page_ref_count(pages[i]) != 1)
			still++;
		put_page(pages[i]);
	}
	KUNIT_EXPECT_EQ_MSG(test, still, 0U, "pages not yet freed when the flush returned");
	file = rd_kunit_open(test, index);
	KUNIT_EXPECT_EQ(test, rd_kunit_pages(file), 0UL);
	KUNIT_EXPECT_EQ(test, get_capacity(file_bdev(file)->bd_disk), 128ULL);
	rd_kunit_expect_pages(test, file, 0, 16, false);
}

/*
 * A free-all of a preallocated disk one of whose pages broke, when no
 * page can be had to replace it: an I/O error (not ENOMEM, which the
 * UAPI gives to an add that memory cannot hold), every other page zeroed,
 * and the disk opens again. With memory, a second free-all replaces it.
 */
static void rd_kunit_disk_free_pages_broken_no_memory(struct kunit *test)
{
	u32 index = rd_kunit_add(test, 64 * SZ_1K, RDMIRROR_ADD_PREALLOC);
	struct file *file = rd_kunit_open(test, index);
	struct rd_device *rd = rd_kunit_rd(file);
	struct page *buf, *old;

	rd_kunit_write_pages(test, file, 0, 16);
	old = xa_load(&rd->pages, 2);
	KUNIT_ASSERT_NOT_NULL(test, old);
	buf = alloc_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	/* broken as a machine check in a read leaves it */
	rd_kunit_fail_copies(test);
	KUNIT_EXPECT_EQ(test, rd_store_read(rd, rd_page_sector(2), buf, 0,
					    SECTOR_SIZE), -EIO);
	rd_kunit_mend_copies(test);
	__free_page(buf);
	rd_kunit_close(test, file);

	rd_kunit_fail_allocs_after(test, 0);
	KUNIT_EXPECT_EQ(test, rd_kunit_when_closed(rd_disk_free_pages, index),
			-EIO);
	kunit_deactivate_static_stub(test, rd_store_alloc_page);
	file = rd_kunit_open(test, index);
	KUNIT_EXPECT_PTR_EQ(test, xa_load(&rd->pages, 2), old);
	rd_kunit_expect_pages(test, file, 0, 2, false);
	rd_kunit_expect_pages(test, file, 3, 13, false);
	rd_kunit_close(test, file);

	KUNIT_EXPECT_EQ(test, rd_kunit_when_closed(rd_disk_free_pages, index), 0);
	KUNIT_EXPECT_PTR_NE(test, xa_load(&rd->pages, 2), old);
	/* out of the store now, and rd never frees a broken page */
	set_page_private(old, 0);
	__free_page(old);
}

/* A preallocated disk holds all its pages from the start, and keeps them. */
static void rd_kunit_disk_prealloc(struct kunit *test)
{
	u32 index = rd_kunit_add(test, 64 * SZ_1K, RDMIRROR_ADD_PREALLOC);
	struct file *file = rd_kunit_open(test, index);

	KUNIT_EXPECT_TRUE(test, rd_kunit_rd(file)->prealloc);
	KUNIT_EXPECT_EQ(test, rd_kunit_pages(file), 16UL);
	rd_kunit_expect_pages(test, file, 0, 16, false);
	rd_kunit_write_pages(test, file, 0, 4);
	KUNIT_EXPECT_EQ(test, blkdev_issue_discard(file_bdev(file), 0,
						   4 * RD_PAGE_SECTORS, GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, rd_kunit_pages(file), 16UL);
	rd_kunit_expect_pages(test, file, 0, 4, false);
	KUNIT_EXPECT_EQ(test, rd_disk_resize(index, 96 * SZ_1K), 0);
	KUNIT_EXPECT_EQ(test, rd_kunit_pages(file), 24UL);
	rd_kunit_write_pages(test, file, 0, 4);
	rd_kunit_close(test, file);
	KUNIT_EXPECT_EQ(test, rd_kunit_when_closed(rd_disk_free_pages, index), 0);
	file = rd_kunit_open(test, index);
	KUNIT_EXPECT_EQ(test, rd_kunit_pages(file), 24UL);
	rd_kunit_expect_pages(test, file, 0, 4, false);
}

/* A preallocation that fails leaves no disk, no index and no pages. */
static void rd_kunit_disk_prealloc_add_failure(struct kunit *test)
{
	u32 index = rd_kunit_add(test, 64 * SZ_1K, 0), again;
	int *calls;

	KUNIT_ASSERT_EQ(test, rd_kunit_when_closed(rd_disk_remove, index), 0);
	calls = rd_kunit_fail_allocs_after(test, 7);
	KUNIT_EXPECT_EQ(test, rd_disk_add(64 * SZ_1K, RDMIRROR_ADD_PREALLOC, 0, 0,
					  NULL, NULL, &again),
			-ENOMEM);
	KUNIT_EXPECT_EQ(test, *calls, 8);
	KUNIT_EXPECT_EQ(test, rd_disk_remove(index), -ENODEV);
	rd_kunit_expect_gone(test, index);
	/* (kmemleak, in the debug-kernel run, checks that the pages went.) */
	rd_kunit_fail_allocs_after(test, INT_MAX);
	KUNIT_EXPECT_EQ(test, rd_kunit_add(test, 64 * SZ_1K, RDMIRROR_ADD_PREALLOC),
			index);
}

/* A grow that cannot be backed leaves size and memory as they were. */
static void rd_kunit_disk_prealloc_grow_failure(struct kunit *test)
{
	u32 index = rd_kunit_add(test, 64 * SZ_1K, RDMIRROR_ADD_PREALLOC);
	struct file *file = rd_kunit_open(test, index);

	rd_kunit_write_pages(test, file, 0, 16);
	rd_kunit_fail_allocs_after(test, 5);
	KUNIT_EXPECT_EQ(test, rd_disk_resize(index, 128 * SZ_1K), -ENOMEM);
	KUNIT_EXPECT_EQ(test, get_capacity(file_bdev(file)->bd_disk), 128ULL);
	KUNIT_EXPECT_EQ(test, rd_kunit_pages(file), 16UL);
	rd_kunit_expect_pages(test, file, 0, 16, true);
}

/* A discard bio of @nr pages from page @idx; its status as an errno. */
static int rd_kunit_discard(struct file *file, pgoff_t idx, unsigned int nr,
			    blk_opf_t flags)
{
	struct bio *bio;
	int err;

	bio = bio_alloc(file_bdev(file), 0, REQ_OP_DISCARD | flags, GFP_KERNEL);
	if (!bio)
		return -ENOMEM;
	bio->bi_iter.bi_sector = rd_page_sector(idx);
	bio->bi_iter.bi_size = nr * PAGE_SIZE;
	err = submit_bio_wait(bio);
	bio_put(bio);
	return err;
}

/*
 * A NOWAIT discard (io_uring's first try) longer than rd does in its
 * submitter is turned back with EAGAIN, untouched, for io_uring to send
 * again from a worker; a short one, or one that may block, is done.
 */
static void rd_kunit_disk_nowait_discard_bounded(struct kunit *test)
{
	unsigned int nr = 2 * RD_NOWAIT_DISCARD_PAGES;
	u32 index = rd_kunit_add(test, (u64)nr * PAGE_SIZE, 0);
	struct file *file = rd_kunit_open(test, index);

	rd_kunit_write_pages(test, file, 0, 4);
	rd_kunit_write_pages(test, file, nr - 1, 1);
	KUNIT_EXPECT_EQ(test, rd_kunit_discard(file, 0, RD_NOWAIT_DISCARD_PAGES + 1,
					       REQ_NOWAIT), -EAGAIN);
	KUNIT_EXPECT_EQ(test, rd_kunit_pages(file), 5UL);
	rd_kunit_expect_pages(test, file, 0, 4, true);
	KUNIT_EXPECT_EQ(test, rd_kunit_discard(file, 0, RD_NOWAIT_DISCARD_PAGES,
					       REQ_NOWAIT), 0);
	KUNIT_EXPECT_EQ(test, rd_kunit_pages(file), 1UL);
	KUNIT_EXPECT_EQ(test, rd_kunit_discard(file, 0, nr, 0), 0);
	KUNIT_EXPECT_EQ(test, rd_kunit_pages(file), 0UL);
}

/* One whole-page bio at page @idx; returns its status as an errno. */
static int rd_kunit_page_io(struct kunit *test, struct file *file, bool write,
			    pgoff_t idx)
{
	struct bio *bio;
	struct page *page;
	int err;

	page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	KUNIT_ASSERT_NOT_NULL(test, page);
	bio = bio_alloc(file_bdev(file), 1, write ? REQ_OP_WRITE : REQ_OP_READ,
			GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, bio);
	bio->bi_iter.bi_sector = rd_page_sector(idx);
	__bio_add_page(bio, page, PAGE_SIZE, 0);
	err = submit_bio_wait(bio);
	bio_put(bio);
	__free_page(page);
	return err;
}

/*
 * Write-zeroes bios fit a 32-bit byte count: some kernels put a whole
 * request in one bio without a clamp (compat.h,
 * RD_MAX_WRITE_ZEROES_SECTORS).
 */
static void rd_kunit_disk_write_zeroes_limit(struct kunit *test)
{
	u32 index = rd_kunit_add(test, 64 * SZ_1K, 0);
	struct file *file = rd_kunit_open(test, index);
	u64 max = bdev_write_zeroes_sectors(file_bdev(file));

	KUNIT_EXPECT_GT(test, max, 0ULL);
	KUNIT_EXPECT_LE(test, max << SECTOR_SHIFT, (u64)UINT_MAX);
	KUNIT_EXPECT_EQ(test, max % RD_PAGE_SECTORS, 0ULL);
}

/*
 * A read of broken memory ends with an I/O error (what md corrects), and
 * a write that finds no memory with an I/O error too, not ENOMEM.
 */
static void rd_kunit_disk_errors_are_io_errors(struct kunit *test)
{
	u32 index = rd_kunit_add(test, 64 * SZ_1K, 0);
	struct file *file = rd_kunit_open(test, index);
	struct rd_device *rd = rd_kunit_rd(file);
	struct page *old;

	rd_kunit_write_pages(test, file, 0, 2);
	old = xa_load(&rd->pages, 1);
	rd_kunit_fail_copies(test);
	KUNIT_EXPECT_EQ(test, rd_kunit_page_io(test, file, false, 1), -EIO);
	rd_kunit_mend_copies(test);
	KUNIT_EXPECT_EQ(test, rd_kunit_page_io(test, file, false, 1), -EIO);
	rd_kunit_expect_pages(test, file, 0, 1, true);
	KUNIT_EXPECT_EQ(test, rd_kunit_page_io(test, file, true, 1), 0);
	KUNIT_EXPECT_EQ(test, rd_kunit_page_io(test, file, false, 1), 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&rd->bad_pages), 1L);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&rd->replaced_pages), 1L);
	set_page_private(old, 0);
	__free_page(old);

	rd_kunit_fail_allocs_after(test, 0);
	KUNIT_EXPECT_EQ(test, rd_kunit_page_io(test, file, true, 5), -EIO);
}

static int rd_kunit_report_fails(u32 index, void *data)
{
	*(u32 *)data = index;
	return -EFAULT;
}

/*
 * An add whose caller cannot be told the index makes no disk, and takes
 * nothing from the disks that are there.
 */
static void rd_kunit_disk_add_report_failure(struct kunit *test)
{
	u32 other = rd_kunit_add(test, 64 * SZ_1K, 0), told = U32_MAX, index;
	struct file *file = rd_kunit_open(test, other);

	KUNIT_EXPECT_EQ(test, rd_disk_add(64 * SZ_1K, 0, 0, 0, rd_kunit_report_fails,
					  &told, &index), -EFAULT);
	KUNIT_ASSERT_NE(test, told, U32_MAX);
	KUNIT_EXPECT_NE(test, told, other);
	rd_kunit_expect_gone(test, told);
	KUNIT_EXPECT_EQ(test, rd_disk_remove(told), -ENODEV);
	rd_kunit_write_pages(test, file, 0, 1);
	rd_kunit_expect_pages(test, file, 0, 1, true);
}

/* With every index taken, a preallocating add fails before it allocates. */
static void rd_kunit_disk_full_before_prealloc(struct kunit *test)
{
	u32 index;
	int *calls, err, n;

	for (n = 0; n < RD_KUNIT_MAX_ADDS; n++) {
		err = rd_disk_add(4096, 0, 0, 0, NULL, NULL, &index);
		if (err)
			break;
		err = kunit_add_action_or_reset(test, rd_kunit_remove_action,
						(void *)(uintptr_t)index);
		KUNIT_ASSERT_EQ(test, err, 0);
	}
	KUNIT_ASSERT_EQ(test, err, -ENOSPC);
	calls = rd_kunit_fail_allocs_after(test, INT_MAX);
	KUNIT_EXPECT_EQ(test, rd_disk_add(SZ_1M, RDMIRROR_ADD_PREALLOC, 0, 0, NULL,
					  NULL, &index), -ENOSPC);
	KUNIT_EXPECT_EQ(test, *calls, 0);
}

static struct kunit_case rd_kunit_disk_cases[] = {
	KUNIT_CASE(rd_kunit_disk_lifecycle),
	KUNIT_CASE(rd_kunit_disk_remove_while_open),
	KUNIT_CASE(rd_kunit_disk_io_crosses_pages),
	KUNIT_CASE(rd_kunit_disk_long_read),
	KUNIT_CASE(rd_kunit_disk_discard_write_zeroes),
	KUNIT_CASE(rd_kunit_disk_resize),
	KUNIT_CASE(rd_kunit_disk_resize_bound),
	KUNIT_CASE(rd_kunit_disk_free_pages),
	KUNIT_CASE(rd_kunit_disk_free_pages_broken_no_memory),
	KUNIT_CASE(rd_kunit_disk_nowait_discard_bounded),
	KUNIT_CASE(rd_kunit_disk_prealloc),
	KUNIT_CASE(rd_kunit_disk_prealloc_add_failure),
	KUNIT_CASE(rd_kunit_disk_prealloc_grow_failure),
	KUNIT_CASE(rd_kunit_disk_write_zeroes_limit),
	KUNIT_CASE(rd_kunit_disk_errors_are_io_errors),
	KUNIT_CASE(rd_kunit_disk_add_report_failure),
	KUNIT_CASE(rd_kunit_disk_full_before_prealloc),
	{}
};

struct kunit_suite rd_kunit_disk_suite = {
	.name = "rdmirror_disk",
	.test_cases = rd_kunit_disk_cases,
};
