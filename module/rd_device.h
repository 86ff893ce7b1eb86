/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdmirror internals shared by the files of the module: the per-disk state
 * and the functions each file offers the others.
 */
#ifndef RD_DEVICE_H
#define RD_DEVICE_H

#include <linux/atomic.h>
#include <linux/badblocks.h>
#include <linux/bits.h>
#include <linux/math.h>
#include <linux/blk_types.h>
#include <linux/types.h>
#include <linux/xarray.h>

#define RD_PAGE_SECTORS_SHIFT	(PAGE_SHIFT - SECTOR_SHIFT)
#define RD_PAGE_SECTORS		BIT(RD_PAGE_SECTORS_SHIFT)

/* The store page that holds @sector, and where in it the sector starts. */
static inline pgoff_t rd_sector_page(sector_t sector)
{
	return sector >> RD_PAGE_SECTORS_SHIFT;
}

/* The first sector of store page @idx. */
static inline sector_t rd_page_sector(pgoff_t idx)
{
	return (sector_t)idx << RD_PAGE_SECTORS_SHIFT;
}

static inline unsigned int rd_sector_offset(sector_t sector)
{
	return (sector & (RD_PAGE_SECTORS - 1)) << SECTOR_SHIFT;
}

/*
 * page->private of a store page: RD_PAGE_BROKEN, a page whose memory
 * failed (machine check or hwpoison), which the next write to it retires
 * (rd_store_replace()); RD_PAGE_MC_RECOVERED, a copy out of it met a
 * machine check and survived it, so this machine recovers from one: the
 * replacement may then copy the old page's other sectors over with the
 * machine-check-safe copy. The sectors that could not be copied, and
 * were not written since, are in rd_device.missing; they read as an I/O
 * error until written. md rewrites what a member failed to read, so
 * under md each lasts one corrected read.
 */
#define RD_PAGE_BROKEN_BIT	0
#define RD_PAGE_BROKEN		BIT(RD_PAGE_BROKEN_BIT)
#define RD_PAGE_MC_RECOVERED_BIT 1
#define RD_PAGE_MC_RECOVERED	BIT(RD_PAGE_MC_RECOVERED_BIT)

struct gendisk;
struct rd_zstore;

struct rd_device {
	int index;
	bool prealloc;
	/*
	 * Set under disk->open_mutex once removal has decided that nobody
	 * holds the disk open; ->open then refuses, so no opener can slip in
	 * between that decision and del_gendisk().
	 */
	bool deleting;
	/*
	 * Set under rd_ctl_mutex and disk->open_mutex once a free-all has
	 * decided that nobody holds the disk open, cleared under both when
	 * the emptying is over: ->open refuses meanwhile, so that no write
	 * lands in a disk being emptied, to be discarded after it was
	 * acknowledged, and no I/O runs while its pages are freed; removal,
	 * resize and another free-all refuse too, so that the emptying,
	 * which holds neither lock, keeps its disk.
	 */
	bool emptying;
	/* Under rd_ctl_mutex: a preallocated grow is filling the new range. */
	bool growing;
	struct gendisk *disk;
	struct xarray pages;	/* page index -> struct page */
	atomic_long_t nr_pages;	/* pages in @pages, for allocated_bytes */
	/*
	 * A page of the disk has been found broken: set before any page can
	 * carry page->private bits or any sector is recorded missing, so that
	 * until then a read need not look at page->private nor take the lock
	 * of @missing (rd_store_page_plain(); the hwpoison flag in struct
	 * page is read by every copy all the same). Never cleared.
	 */
	bool marked;
	/*
	 * Sectors of pages put in broken pages' place that hold no data:
	 * they read as an I/O error until written. Per 512-byte sector, so
	 * that md's rewrite of what it failed to read restores exactly that,
	 * on every page size; only set or read once @marked is, and then
	 * only under @pages' xa_lock, with the slot it describes (rd_store.c).
	 */
	struct badblocks missing;
	atomic_long_t bad_pages;	/* pages found broken */
	atomic_long_t replaced_pages;	/* broken pages retired by a write */
	/*
	 * A write to the disk was refused for the module's memory bound
	 * (mem_limit): every write is refused until the bound has
	 * RD_MEM_ROOM_PAGES free again (rd_io.c says why).
	 */
	bool mem_full;
	atomic_long_t refused_writes;	/* write bios refused for the bound */
	/*
	 * A compressed disk's store (rd_zstore.c), which holds its pages in
	 * @pages in its own way; NULL for a disk of plain pages. Set before
	 * the disk appears, never changed.
	 */
	struct rd_zstore *zs;
};

/* rd_store.c: the pages behind one disk */
#define RD_DISCARD_KEEP_PAGES	BIT(0)	/* zero whole pages, do not free them */
#define RD_DISCARD_QUIESCED	BIT(1)	/* no I/O can run: free without RCU */
#define RD_DISCARD_MAY_SLEEP	BIT(2)
/* The most a NOWAIT discard does in its submitter (1 MiB of 4 KiB pages). */
#define RD_NOWAIT_DISCARD_PAGES	256

int rd_store_init(struct rd_device *rd);
void rd_store_destroy(struct rd_device *rd);
/*
 * Pieces a bio's read copies under one RCU section (256 KiB of 4 KiB
 * pages). A bio may carry many MiB: the section ends and begins again
 * between batches, so that on PREEMPT_RCU kernels (Debian's) a grace
 * period waiting on the reader ends at the next batch, not at the bio's
 * end.
 */
#define RD_READ_BATCH	64
int rd_store_read_bio(struct rd_device *rd, struct bio *bio);
int rd_store_write(struct rd_device *rd, sector_t sector, struct page *src,
		   unsigned int src_off, unsigned int len, gfp_t gfp);
int rd_store_discard(struct rd_device *rd, sector_t sector,
		     sector_t nr_sects, unsigned int flags);
int rd_store_prealloc(struct rd_device *rd, pgoff_t first, pgoff_t end);
struct page *rd_store_alloc_page(gfp_t gfp);
unsigned long rd_store_copy_mc(void *dst, const void *src, size_t len);
void rd_store_report_mf(struct page *page);
/* Room under the bound that ends a disk's refusals (1 MiB of 4 KiB pages). */
#define RD_MEM_ROOM_PAGES	256
int rd_store_mem_charge(unsigned long nr);
void rd_store_mem_uncharge(unsigned long nr);
void rd_store_set_mem_limit(unsigned long pages);
unsigned long rd_store_mem_limit(void);
unsigned long rd_store_mem_used(void);
unsigned long rd_store_mem_refused(void);
bool rd_store_mem_full(void);
void rd_store_count_refused(struct rd_device *rd);
int rd_store_module_init(void);
void rd_store_module_exit(void);
void rd_store_flush_frees(void);

/* Pages that back @sectors sectors (a partial last page counts). */
static inline pgoff_t rd_sectors_to_pages(sector_t sectors)
{
	return DIV_ROUND_UP((u64)sectors << SECTOR_SHIFT, PAGE_SIZE);
}

static inline u64 rd_store_bytes(struct rd_device *rd)
{
	return (u64)atomic_long_read(&rd->nr_pages) << PAGE_SHIFT;
}

/*
 * rd_zstore.c: the store of a compressed disk, in rd->pages and rd->zs,
 * with the calls of rd_store.c's above for I/O: rd_io.c and rd_disk.c
 * call the one of the disk's kind.
 */
int rd_zstore_module_init(void);
void rd_zstore_module_exit(void);
int rd_zstore_init(struct rd_device *rd, u32 comp, u64 mem_limit);
void rd_zstore_destroy(struct rd_device *rd);
int rd_zstore_read_bio(struct rd_device *rd, struct bio *bio);
int rd_zstore_write(struct rd_device *rd, sector_t sector, struct page *src,
		    unsigned int src_off, unsigned int len, gfp_t gfp);
int rd_zstore_discard(struct rd_device *rd, sector_t sector,
		      sector_t nr_sects, unsigned int flags);
bool rd_zstore_full(struct rd_device *rd);
u64 rd_zstore_bytes(struct rd_device *rd);
u64 rd_zstore_data_bytes(struct rd_device *rd);
const char *rd_zstore_compressor(struct rd_device *rd);

/* Whichever store the disk has: discard or write zeroes. */
static inline int rd_discard(struct rd_device *rd, sector_t sector,
			     sector_t nr_sects, unsigned int flags)
{
	if (rd->zs)
		return rd_zstore_discard(rd, sector, nr_sects, flags);
	return rd_store_discard(rd, sector, nr_sects, flags);
}

/*
 * rd_main.c: a byte count written to a parameter or a sysfs file, as
 * memparse() reads it (K, M, G... suffixes), one '\n' after it allowed;
 * 0, or -EINVAL for anything else (no digit first, trailing words).
 */
int rd_parse_bytes(const char *buf, u64 *bytes);

/* rd_io.c: the bio path */
void rd_submit_bio(struct bio *bio);
/* rd_disk.c: disk lifetime, called by the control device */
/*
 * Called by rd_disk_add() with the new index before the disk appears;
 * an error ends the add with nothing made.
 */
typedef int (*rd_add_report_fn)(u32 index, void *data);
int rd_disk_add(u64 size, u32 flags, u32 comp, u64 mem_limit,
		rd_add_report_fn report, void *data, u32 *index);
int rd_disk_remove(u32 index);
int rd_disk_resize(u32 index, u64 size);
int rd_disk_free_pages(u32 index);
int rd_disks_init(unsigned int max_disks, bool iostats);
void rd_disks_exit(void);

/*
 * rd_debugfs.c, in the test build only (RDMIRROR_TEST=1): a sector's page
 * frame, for the hwpoison injector, and disks that read page by page, for
 * the bench. The module users install has neither file, and its reads
 * take RD_READ_BATCH pieces a section always (rd_store_read_bio()).
 */
#ifdef RDMIRROR_TEST_BUILD
void rd_debugfs_init(void);
void rd_debugfs_exit(void);
unsigned int rd_debugfs_read_batch(const struct rd_device *rd);
int rd_disk_pfn(u32 index, sector_t sector, unsigned long *pfn);
int rd_store_pfn(struct rd_device *rd, sector_t sector, unsigned long *pfn);
#else
static inline void rd_debugfs_init(void) {}
static inline void rd_debugfs_exit(void) {}
#endif

/* rd_control.c: /dev/rdmirror-control */
int rd_control_init(void);
void rd_control_exit(void);

#endif /* RD_DEVICE_H */
