// SPDX-License-Identifier: GPL-2.0
/*
 * The bio path. rdmirror is bio-based like brd: a RAM copy needs no
 * request queue, no scheduler and no completion context, so every bio is
 * served and ended in the submitter's context. The bio path has no lock
 * of its own: pages are looked up under RCU, counters are atomic, and
 * only once a page of the disk has broken does the store take its
 * xarray's lock, around its table of lost sectors (rd_store.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/printk.h>

#include "rd_device.h"

static blk_status_t rd_do_read(struct rd_device *rd, struct bio *bio)
{
	int err;

	/*
	 * A memory error, or a compressed page found corrupt: md reads the
	 * block from a disk (and writes it back).
	 */
	if (likely(!rd->zs))
		return rd_store_read_bio(rd, bio) ? BLK_STS_IOERR : BLK_STS_OK;
	err = rd_zstore_read_bio(rd, bio);
	if (err == -EAGAIN)
		return BLK_STS_AGAIN;
	return err ? BLK_STS_IOERR : BLK_STS_OK;
}

/* Whether a disk that had a write refused must refuse this one too. */
static bool rd_mem_still_full(struct rd_device *rd)
{
	return rd_store_mem_full() || (rd->zs && rd_zstore_full(rd));
}

/*
 * A write refused for the module's memory bound (or a compressed disk's
 * own, rdmirror_add.mem_limit): an error md sees
 * (BLK_STS_NOSPC; to a direct writer, ENOSPC), counted, and the disk
 * marked to refuse every write until the bound has room again.
 */
static blk_status_t rd_refuse_write(struct rd_device *rd, sector_t sector)
{
	WRITE_ONCE(rd->mem_full, true);
	rd_store_count_refused(rd);
	if (rd->zs && rd_zstore_full(rd))
		pr_err_ratelimited("rd%d: write at sector %llu refused: the disk's memory limit (rdmirror/mem_limit) is reached\n",
				   rd->index, (unsigned long long)sector);
	else
		pr_err_ratelimited("rd%d: write at sector %llu refused: rdmirror's memory limit (parameter mem_limit) is reached\n",
				   rd->index, (unsigned long long)sector);
	return BLK_STS_NOSPC;
}

static blk_status_t rd_do_write(struct rd_device *rd, struct bio *bio)
{
	sector_t sector = bio->bi_iter.bi_sector;
	/*
	 * A NOWAIT bio (io_uring, aio, and md passing its own on) must not
	 * block: no reclaim then. Otherwise
	 * reclaim as long as it makes progress, then fail the write
	 * (__GFP_RETRY_MAYFAIL) rather than loop in the allocator until the
	 * OOM killer takes someone's process: md then fails the RAM member
	 * and the array goes on from its disks, which hold every write. The
	 * RAM member is a copy; a user's process is not.
	 */
	gfp_t gfp = (bio->bi_opf & REQ_NOWAIT) ? GFP_NOWAIT :
		    GFP_NOIO | __GFP_RETRY_MAYFAIL;
	struct bvec_iter iter;
	struct bio_vec bv;
	int err;

	/*
	 * Once a write met the bound, the writes that need no new page are
	 * refused too. md raid1 answers a member's write error by recording
	 * bad blocks for it where its bad-block log has room, keeping it in
	 * the array; a failed write of its superblock or bitmap, which the
	 * recording itself brings at once, fails it (super_written() calls
	 * md_error()). A RAM member that cannot take the array's writes must
	 * leave it, for the disks to serve the array, not stay with bad
	 * blocks over what it could not take.
	 */
	if (unlikely(READ_ONCE(rd->mem_full))) {
		if (rd_mem_still_full(rd))
			return rd_refuse_write(rd, sector);
		WRITE_ONCE(rd->mem_full, false);
	}

	bio_for_each_segment(bv, bio, iter) {
		unsigned int done = 0;

		/* A segment may straddle two store pages: split it there. */
		while (done < bv.bv_len) {
			unsigned int len = min_t(unsigned int, bv.bv_len - done,
						 PAGE_SIZE - rd_sector_offset(sector));

			if (likely(!rd->zs))
				err = rd_store_write(rd, sector, bv.bv_page,
						     bv.bv_offset + done, len, gfp);
			else
				err = rd_zstore_write(rd, sector, bv.bv_page,
						      bv.bv_offset + done, len, gfp);
			if (unlikely(err == -ENOSPC))
				return rd_refuse_write(rd, sector);
			if (err) {
				if (bio->bi_opf & REQ_NOWAIT)
					return BLK_STS_AGAIN;
				/* (-EIO: a compressed page, said where) */
				if (err == -ENOMEM)
					pr_err_ratelimited("rd%d: out of memory writing sector %llu\n",
							   rd->index, (unsigned long long)sector);
				/*
				 * An I/O error, as brd and zram end it:
				 * BLK_STS_RESOURCE is blk-mq's "retry the
				 * dispatch", and reaches a file system as
				 * ENOMEM.
				 */
				return BLK_STS_IOERR;
			}
			done += len;
			sector += len >> SECTOR_SHIFT;
		}
	}
	return BLK_STS_OK;
}

/*
 * Discard and write-zeroes: whole pages freed or zeroed, partial ones
 * zeroed. A NOWAIT bio (io_uring's, first try) must not do unbounded
 * work in its submitter: longer than RD_NOWAIT_DISCARD_PAGES it is
 * turned back untouched, and io_uring sends it again from a worker
 * without NOWAIT. An error means some of the range may not read as
 * zeroes (a broken page that could not be replaced).
 */
static blk_status_t rd_do_discard(struct rd_device *rd, struct bio *bio)
{
	bool nowait = bio->bi_opf & REQ_NOWAIT;
	unsigned int flags = 0;

	if (nowait && bio_sectors(bio) > RD_NOWAIT_DISCARD_PAGES * RD_PAGE_SECTORS)
		return BLK_STS_AGAIN;
	/* A preallocated disk keeps its pages: resync must not fail later. */
	if (rd->prealloc || (bio->bi_opf & REQ_NOUNMAP))
		flags |= RD_DISCARD_KEEP_PAGES;
	if (!nowait)
		flags |= RD_DISCARD_MAY_SLEEP;
	if (rd_discard(rd, bio->bi_iter.bi_sector, bio_sectors(bio), flags))
		return nowait ? BLK_STS_AGAIN : BLK_STS_IOERR;
	return BLK_STS_OK;
}

void rd_submit_bio(struct bio *bio)
{
	struct gendisk *disk = bio->bi_bdev->bd_disk;
	struct rd_device *rd = disk->private_data;
	bool acct = blk_queue_io_stat(disk->queue);
	unsigned long start = 0;

	if (acct)
		start = bio_start_io_acct(bio);

	switch (bio_op(bio)) {
	case REQ_OP_READ:
		bio->bi_status = rd_do_read(rd, bio);
		break;
	case REQ_OP_WRITE:
		bio->bi_status = rd_do_write(rd, bio);
		break;
	case REQ_OP_DISCARD:
	case REQ_OP_WRITE_ZEROES:
		bio->bi_status = rd_do_discard(rd, bio);
		break;
	default:
		bio->bi_status = BLK_STS_NOTSUPP;
		break;
	}

	if (acct)
		bio_end_io_acct(bio, start);
	bio_endio(bio);
}
