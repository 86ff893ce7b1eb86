// SPDX-License-Identifier: GPL-2.0
/*
 * The page store behind one rd disk: an xarray of pages, indexed by the
 * disk offset in pages. A page appears on its first write and goes away on
 * discard, shrink, free-all and removal, so memory follows what is written.
 *
 * Readers and writers look pages up under RCU, and a discard that runs
 * while I/O may be in flight frees pages only after a grace period: I/O
 * racing a discard of the same range sees old data or zeros, never freed
 * memory. Paths that run while no opener can send I/O (shrink past the
 * end, free-all, removal) free at once.
 *
 * A page whose memory fails is never given back to the allocator: a read
 * of it fails with an I/O error (md then reads the block from a disk and
 * writes it back), and that write puts the data in a new page, with what
 * can still be read of the old one; the sectors that cannot be read are
 * recorded in rd->missing and fail until written.
 *
 * rd->missing describes the pages in rd->pages: it is changed only under
 * the xarray's lock, together with the slot it describes (a page put in,
 * replaced or erased), and only when that change of the slot is made; once
 * a page has broken (rd->marked), it is also read under that lock. So a
 * writer that lost a race for a slot cannot wipe or add records that
 * describe another writer's page, and a check of the table never runs
 * beside a change of it (some kernels' badblocks_check() miss a range
 * then: compat.h, rd_bb_any()). Before the first broken page, I/O takes
 * no lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/badblocks.h>
#include <linux/bio.h>
#include <linux/gfp.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/uaccess.h>

#include "compat.h"
#include "rd_device.h"
#include "rd_kunit_hooks.h"

/*
 * Every page the store takes comes from here, so that the KUnit tests can
 * make allocation fail at a chosen point (a no-op without CONFIG_KUNIT).
 */
struct page *rd_store_alloc_page(gfp_t gfp)
{
	RD_STUB_REDIRECT(rd_store_alloc_page, gfp);
	return alloc_page(gfp);
}
EXPORT_SYMBOL_IF_RD_KUNIT(rd_store_alloc_page);

/*
 * The module-wide bound on the pages every store holds (the mem_limit
 * parameter, in pages; 0: none), and the pages charged against it: those
 * in the stores plus those a writer or a preallocation is about to put
 * there. Without it, lazily allocated disks take up to max_disks times
 * RAM, in pages charged to no cgroup, and anyone who may write a disk
 * can drive the machine to the OOM killer. Pages put in broken pages'
 * place are not charged: the count is of pages in the stores.
 */
static unsigned long rd_mem_limit;
static atomic_long_t rd_mem_used = ATOMIC_LONG_INIT(0);
static atomic_long_t rd_mem_refused = ATOMIC_LONG_INIT(0);

void rd_store_set_mem_limit(unsigned long pages)
{
	WRITE_ONCE(rd_mem_limit, pages);
}

unsigned long rd_store_mem_limit(void)
{
	return READ_ONCE(rd_mem_limit);
}

unsigned long rd_store_mem_used(void)
{
	return max(atomic_long_read(&rd_mem_used), 0L);
}

unsigned long rd_store_mem_refused(void)
{
	return atomic_long_read(&rd_mem_refused);
}

/* Charge @nr pages against the bound: 0, or -ENOSPC past it. */
static int rd_mem_charge(unsigned long nr)
{
	unsigned long limit = READ_ONCE(rd_mem_limit);
	long used = atomic_long_add_return(nr, &rd_mem_used);

	if (limit && (unsigned long)used > limit) {
		atomic_long_sub(nr, &rd_mem_used);
		return -ENOSPC;
	}
	return 0;
}

static void rd_mem_uncharge(unsigned long nr)
{
	atomic_long_sub(nr, &rd_mem_used);
}

/* The same for the compressed store (rd_zstore.c), which counts bytes. */
int rd_store_mem_charge(unsigned long nr)
{
	return rd_mem_charge(nr);
}

void rd_store_mem_uncharge(unsigned long nr)
{
	rd_mem_uncharge(nr);
}

/*
 * Whether the bound leaves less than RD_MEM_ROOM_PAGES free: a disk that
 * had a write refused refuses every write until then (rd_io.c).
 */
bool rd_store_mem_full(void)
{
	unsigned long limit = READ_ONCE(rd_mem_limit);

	return limit &&
	       rd_store_mem_used() + RD_MEM_ROOM_PAGES > limit;
}

/* A write to @rd was refused for the bound: counted on @rd and in all. */
void rd_store_count_refused(struct rd_device *rd)
{
	atomic_long_inc(&rd->refused_writes);
	atomic_long_inc(&rd_mem_refused);
}

/* Every page is reached through kmap_local_page(): highmem will do. */
static struct page *rd_store_new_page(gfp_t gfp)
{
	return rd_store_alloc_page(gfp | __GFP_HIGHMEM | __GFP_NOWARN);
}

/*
 * Copy out of a store page, surviving a machine check on the way (pmem's
 * read copy): returns the bytes not copied. Plain memcpy() where the
 * architecture has no such copy. The tests stub it to fail.
 */
unsigned long rd_store_copy_mc(void *dst, const void *src, size_t len)
{
	RD_STUB_REDIRECT(rd_store_copy_mc, dst, src, len);
	return copy_mc_to_kernel(dst, src, len);
}
EXPORT_SYMBOL_IF_RD_KUNIT(rd_store_copy_mc);

/*
 * A copy met a machine check in @page: memory_failure() is told, from a
 * workqueue, as the kernel's own copy_mc_highpage() tells it (a poison
 * that copy_mc_to_kernel() consumed is queued by nobody else): it flags
 * the page hwpoisoned, counts it in HardwareCorrupted and reports it to
 * rasdaemon, and a kdump then skips the page. The page stays rd's, which
 * never frees a broken page. The tests stub it: a copy they fail is not
 * bad memory.
 */
void rd_store_report_mf(struct page *page)
{
	RD_STUB_REDIRECT(rd_store_report_mf, page);
	rd_compat_memory_failure_queue(page_to_pfn(page));
}
EXPORT_SYMBOL_IF_RD_KUNIT(rd_store_report_mf);

/*
 * Copy @len bytes from @src at @src_off (zeros if @src is NULL) into a
 * page of the store, at @off. The tests stub it, to break the page in
 * the middle of a write.
 */
RD_VISIBLE_IF_KUNIT void rd_store_copy_in(struct page *page, unsigned int off,
					  struct page *src,
					  unsigned int src_off,
					  unsigned int len)
{
	RD_STUB_REDIRECT(rd_store_copy_in, page, off, src, src_off, len);
	if (src)
		memcpy_page(page, off, src, src_off, len);
	else
		memzero_page(page, off, len);
}
EXPORT_SYMBOL_IF_RD_KUNIT(rd_store_copy_in);

/*
 * Whether memory_failure() has flagged @page: checked before every copy
 * from or into a page, as shmem's reads do. memory_failure() sets the
 * flag first and handles the page after; a copy that began just before
 * the flag goes through copy_mc_to_kernel(), which fails where the memory
 * itself is bad and the CPU can recover. The read of struct page costs
 * no measurable time beside a 4 KiB copy on hardware (test/bench/
 * copy-cost.c, docs/BENCHMARKS.md); without CONFIG_MEMORY_FAILURE the
 * flag does not exist and this is false at build time.
 */
static bool rd_page_poisoned(struct page *page)
{
	return unlikely(PageHWPoison(page));
}

/* Whether rd itself has marked @page broken (rd_store_replace()). */
static bool rd_page_marked_broken(struct page *page)
{
	return READ_ONCE(page->private) & RD_PAGE_BROKEN;
}

/* Whether @page is broken either way: flagged by the kernel or by rd. */
static bool rd_page_broken(struct page *page)
{
	return rd_page_poisoned(page) || rd_page_marked_broken(page);
}

/*
 * Whether @rd's pages, the one just looked up among them, carry none of
 * rd's own marks: no page of @rd has been found broken (rd->marked, set
 * before any page carries page->private bits), so none has sectors
 * missing and a read need neither look at page->private nor take the
 * lock of the table. The kernel's hwpoison flag is not covered:
 * memory_failure() may set it on any page at any moment, and I/O reads
 * it on every page (rd_page_poisoned()).
 */
static bool rd_store_page_plain(struct rd_device *rd)
{
	/*
	 * The page's pointer was read before rd->marked: pairs with the
	 * release with which xas_store() publishes, after setting it, the
	 * page rd_store_replace() puts in a broken one's place.
	 */
	smp_rmb();
	return likely(!READ_ONCE(rd->marked));
}

/* A page of @rd is about to carry page->private bits. */
static void rd_store_mark(struct rd_device *rd)
{
	if (!READ_ONCE(rd->marked))
		WRITE_ONCE(rd->marked, true);
}

/*
 * Whether a sector of [sector, sector + len bytes) is missing. Only once
 * rd->marked is set can one be (rd_store_replace() marks first). Under
 * the table's lock (the store's xa_lock, see the top of this file): a
 * sector seen not missing is read after the data that the write which
 * took it out of the table put there, and the page just looked up was
 * published with its records.
 */
static bool rd_store_missing(struct rd_device *rd, sector_t sector,
			     unsigned int len)
{
	bool missing;

	if (!READ_ONCE(rd->marked))
		return false;
	xa_lock(&rd->pages);
	missing = rd_bb_any(&rd->missing, sector, len >> SECTOR_SHIFT);
	xa_unlock(&rd->pages);
	return missing;
}

/*
 * [sector, sector + len bytes) now holds data: none of it is missing.
 * The caller holds the store's xa_lock, and the data is in the page that
 * the slot holds, or will hold when the caller drops the lock.
 */
static void rd_store_written(struct rd_device *rd, sector_t sector,
			     unsigned int len)
{
	lockdep_assert_held(&rd->pages.xa_lock);
	if (!READ_ONCE(rd->marked) ||
	    !rd_bb_any(&rd->missing, sector, len >> SECTOR_SHIFT))
		return;
	/* Splits the range at most once: a table with room for one more range. */
	if (rd_bb_clear(&rd->missing, sector, len >> SECTOR_SHIFT))
		pr_err_ratelimited("rd%d: sectors %llu+%u written after a memory error still read as errors: the table of lost sectors is full\n",
				   rd->index, (unsigned long long)sector,
				   len >> SECTOR_SHIFT);
}

/* A page leaves the store: back to the allocator, unless it is broken. */
static void rd_page_free(struct page *page)
{
	if (rd_page_broken(page))
		return;
	set_page_private(page, 0);
	__free_page(page);
}

/*
 * Pages a discard took out while I/O may still be reading them: freed
 * after a grace period, in process context, a batch (a page of
 * pointers) at a time. One RCU callback a page would queue about a
 * million for a 4 GiB discard, and free them all in softirq context.
 */
struct rd_free_batch {
	struct rcu_work rwork;
	unsigned int nr;
	struct page *pages[];
};

#define RD_FREE_BATCH_PAGES \
	((PAGE_SIZE - sizeof(struct rd_free_batch)) / sizeof(struct page *))

static struct workqueue_struct *rd_free_wq;

#ifdef RD_KUNIT_HOOKS
/* For the tests: pages freed one RCU callback each (no batch to be had). */
atomic_long_t rd_store_single_frees = ATOMIC_LONG_INIT(0);
EXPORT_SYMBOL_IF_RD_KUNIT(rd_store_single_frees);

static void rd_store_count_single_free(void)
{
	atomic_long_inc(&rd_store_single_frees);
}
#else
static void rd_store_count_single_free(void) {}
#endif

static void rd_page_free_rcu(struct rcu_head *head)
{
	rd_page_free(container_of(head, struct page, rcu_head));
}

static void rd_free_batch_work(struct work_struct *work)
{
	struct rd_free_batch *b = container_of(to_rcu_work(work),
					       struct rd_free_batch, rwork);
	unsigned int i;

	for (i = 0; i < b->nr; i++) {
		rd_page_free(b->pages[i]);
		cond_resched();
	}
	kfree(b);
}

static void rd_free_batch_queue(struct rd_free_batch *b)
{
	INIT_RCU_WORK(&b->rwork, rd_free_batch_work);
	queue_rcu_work(rd_free_wq, &b->rwork);
}

/*
 * Free @page once no reader can hold it: into *@batch, which is queued
 * when full; without memory for a batch, an RCU callback of its own.
 */
static void rd_page_free_deferred(struct page *page,
				  struct rd_free_batch **batch)
{
	struct rd_free_batch *b = *batch;

	if (!b) {
		b = kmalloc(PAGE_SIZE, GFP_NOWAIT | __GFP_NOWARN);
		if (!b) {
			rd_store_count_single_free();
			call_rcu(&page->rcu_head, rd_page_free_rcu);
			return;
		}
		b->nr = 0;
		*batch = b;
	}
	b->pages[b->nr++] = page;
	if (b->nr == RD_FREE_BATCH_PAGES) {
		rd_free_batch_queue(b);
		*batch = NULL;
	}
}

int rd_store_module_init(void)
{
	/*
	 * WQ_MEM_RECLAIM: the work gives memory back, and under the pressure
	 * that most needs it a new kworker may not be had; the rescuer
	 * thread runs it then.
	 */
	rd_free_wq = alloc_workqueue("rdmirror_free", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	return rd_free_wq ? 0 : -ENOMEM;
}

/* Every deferred free done: the callbacks and the work are this module's. */
void rd_store_flush_frees(void)
{
	rcu_barrier();
	flush_workqueue(rd_free_wq);
}
EXPORT_SYMBOL_IF_RD_KUNIT(rd_store_flush_frees);

void rd_store_module_exit(void)
{
	rd_store_flush_frees();
	destroy_workqueue(rd_free_wq);
}

int rd_store_init(struct rd_device *rd)
{
	xa_init(&rd->pages);
	rd->marked = false;
	atomic_long_set(&rd->nr_pages, 0);
	atomic_long_set(&rd->bad_pages, 0);
	atomic_long_set(&rd->replaced_pages, 0);
	atomic_long_set(&rd->refused_writes, 0);
	rd->mem_full = false;
	/* (a page for the table: it must not be allocated when needed, in I/O) */
	return badblocks_init(&rd->missing, 1);
}
EXPORT_SYMBOL_IF_RD_KUNIT(rd_store_init);

/* Called once no I/O can reach the disk any more. */
void rd_store_destroy(struct rd_device *rd)
{
	struct page *page;
	unsigned long idx;

	xa_for_each(&rd->pages, idx, page) {
		rd_page_free(page);
		cond_resched();
	}
	xa_destroy(&rd->pages);
	rd_mem_uncharge(atomic_long_xchg(&rd->nr_pages, 0));
	badblocks_exit(&rd->missing);
}
EXPORT_SYMBOL_IF_RD_KUNIT(rd_store_destroy);

/*
 * The page at @idx, found with @xas (under the caller's RCU section): for
 * a reader walking a bio's pages in order, the page after the one before
 * is one step along the node's slots (xas_next()), not a walk from the
 * root; any other index is walked to. @cont says that @xas was left on
 * the page before by this RCU section.
 */
static struct page *rd_store_lookup_next(struct xa_state *xas, pgoff_t idx,
					 bool cont)
{
	void *entry;

	if (cont && idx == xas->xa_index + 1) {
		entry = xas_next(xas);
	} else {
		xas_set(xas, idx);
		entry = xas_load(xas);
	}
	/*
	 * As xa_load(): a reserved (zero) entry is a hole. xas_retry() would
	 * restart the walk on one, and the next load find it again; on a
	 * retry entry it resets the walk, and the load starts it again.
	 */
	for (;;) {
		if (xa_is_zero(entry))
			entry = NULL;
		if (!xas_retry(xas, entry))
			return entry;
		entry = xas_load(xas);
	}
}

/*
 * The page at @idx, or NULL; the caller holds rcu_read_lock() until it is
 * done with the page. This is xa_load() without the RCU section xa_load()
 * opens inside the caller's: one section a page instead of two nested
 * ones (out-of-line calls on PREEMPT_RCU kernels). For one page: writes,
 * zeroing, a pfn; a bio's reads walk with rd_store_lookup_next().
 */
static struct page *rd_store_lookup(struct rd_device *rd, pgoff_t idx)
{
	XA_STATE(xas, &rd->pages, idx);

	return rd_store_lookup_next(&xas, idx, false);
}

/*
 * A read met a broken page: mark it (the mark outlives the machine
 * check that found it, if memory_failure() has not flagged it yet),
 * count it once and say where. Returns whether this read found it first.
 */
static bool rd_store_read_failed(struct rd_device *rd, struct page *page,
				 sector_t sector)
{
	bool first;

	rd_store_mark(rd);
	first = !test_and_set_bit(RD_PAGE_BROKEN_BIT, &page->private);
	if (first)
		atomic_long_inc(&rd->bad_pages);
	pr_err_ratelimited("rd%d: memory error at sector %llu, read failed\n",
			   rd->index, (unsigned long long)sector);
	return first;
}

/*
 * Copy @len bytes at @sector (within @page, or a hole if NULL) to @dst;
 * holes read as 0. The caller holds rcu_read_lock(). Returns 0, or -EIO
 * where the page's memory failed or holds no data.
 */
static int rd_store_copy_out(struct rd_device *rd, struct page *page,
			     sector_t sector, struct page *dst,
			     unsigned int dst_off, unsigned int len)
{
	unsigned int off = rd_sector_offset(sector);
	unsigned long left;
	char *from, *to;

	if (!page) {
		memzero_page(dst, dst_off, len);
		goto done;
	}
	if (rd_page_poisoned(page))
		goto failed;
	if (rd_store_page_plain(rd))
		goto copy;
	if (unlikely(rd_page_marked_broken(page)))
		goto failed;
	if (unlikely(rd_store_missing(rd, sector, len))) {
		pr_err_ratelimited("rd%d: sector %llu was lost to a memory error and not written since\n",
				   rd->index, (unsigned long long)sector);
		return -EIO;
	}
copy:
	from = kmap_local_page(page);
	to = kmap_local_page(dst);
	left = rd_store_copy_mc(to + dst_off, from + off, len);
	kunmap_local(to);
	kunmap_local(from);
	if (unlikely(left)) {
		set_bit(RD_PAGE_MC_RECOVERED_BIT, &page->private);
		/* once a page: a later read fails on the mark, copying nothing */
		if (rd_store_read_failed(rd, page, sector) && !PageHWPoison(page))
			rd_store_report_mf(page);
		return -EIO;
	}
done:
	flush_dcache_page(dst);
	return 0;
failed:
	rd_store_read_failed(rd, page, sector);
	return -EIO;
}

#ifdef RD_KUNIT_HOOKS
/*
 * Copy @len bytes at @sector (within one page) to @dst; holes read as 0.
 * Returns 0, or -EIO where the page's memory failed or holds no data.
 * The store's tests read one piece at a time; bios read through
 * rd_store_read_bio().
 */
int rd_store_read(struct rd_device *rd, sector_t sector, struct page *dst,
		  unsigned int dst_off, unsigned int len)
{
	int err;

	rcu_read_lock();
	err = rd_store_copy_out(rd, rd_store_lookup(rd, rd_sector_page(sector)),
				sector, dst, dst_off, len);
	rcu_read_unlock();
	return err;
}
EXPORT_SYMBOL_IF_RD_KUNIT(rd_store_read);
#endif

/*
 * Read a bio's data into its pages, a piece at a time, a piece being the
 * part of a segment within one store page, with one RCU section for
 * @batch pieces and each page found from the one before. A 1 MiB read
 * makes one walk from the root, not 256. Returns 0, or -EIO at the first
 * piece that failed.
 */
RD_VISIBLE_IF_KUNIT int rd_store_read_bio_batch(struct rd_device *rd,
						struct bio *bio,
						unsigned int batch)
{
	sector_t sector = bio->bi_iter.bi_sector;
	XA_STATE(xas, &rd->pages, 0);
	unsigned int held = 0;
	struct bvec_iter iter;
	struct bio_vec bv;
	int err = 0;

	rcu_read_lock();
	bio_for_each_segment(bv, bio, iter) {
		unsigned int done = 0;

		/* A segment may straddle two store pages: split it there. */
		while (done < bv.bv_len) {
			unsigned int len = min_t(unsigned int, bv.bv_len - done,
						 PAGE_SIZE - rd_sector_offset(sector));
			struct page *page;

			if (held == batch) {
				rcu_read_unlock();
				rcu_read_lock();
				held = 0;
			}
			page = rd_store_lookup_next(&xas, rd_sector_page(sector),
						    held);
			held++;
			err = rd_store_copy_out(rd, page, sector, bv.bv_page,
						bv.bv_offset + done, len);
			if (unlikely(err))
				goto out;
			done += len;
			sector += len >> SECTOR_SHIFT;
		}
	}
out:
	rcu_read_unlock();
	return err;
}
EXPORT_SYMBOL_IF_RD_KUNIT(rd_store_read_bio_batch);

/*
 * Read a bio: RD_READ_BATCH pieces a section (in the test build, 1 for
 * the disks debugfs says, for the bench's page-by-page read).
 */
int rd_store_read_bio(struct rd_device *rd, struct bio *bio)
{
#ifdef RDMIRROR_TEST_BUILD
	return rd_store_read_bio_batch(rd, bio, rd_debugfs_read_batch(rd));
#else
	return rd_store_read_bio_batch(rd, bio, RD_READ_BATCH);
#endif
}

/*
 * The sectors of @page outside [off, off + len), from @old: copied with
 * the machine-check-safe copy where rd's own copy out of @old met a
 * machine check and survived it (so this machine recovers from one),
 * else not read at all (a page the kernel flagged without rd's copy
 * touching it may hold poison whose consumption this CPU cannot survive).
 * What is not copied is set in @lost, one bit a sector, for the caller to
 * record once @page is in the store. @page is not yet in the store.
 */
static void rd_store_salvage(struct page *old, struct page *page,
			     unsigned int off, unsigned int len,
			     unsigned long *lost)
{
	bool readable = test_bit(RD_PAGE_MC_RECOVERED_BIT, &old->private);
	char *from = NULL, *to = NULL;
	unsigned int o;

	if (readable) {
		from = kmap_local_page(old);
		to = kmap_local_page(page);
	}
	for (o = 0; o < PAGE_SIZE; o += SECTOR_SIZE) {
		if (o >= off && o < off + len)
			continue;
		/* a sector missing in @old copies as it is: it stays missing */
		if (readable && !rd_store_copy_mc(to + o, from + o, SECTOR_SIZE))
			continue;
		/* (a copy that failed part way leaves part of the sector) */
		if (readable)
			memset(to + o, 0, SECTOR_SIZE);
		__set_bit(o >> SECTOR_SHIFT, lost);
	}
	if (readable) {
		kunmap_local(to);
		kunmap_local(from);
	}
}

/*
 * Record the sectors of page @idx set in @lost missing. The caller holds
 * the store's xa_lock. Returns 0, or -ENOSPC if the table is full.
 */
static int rd_store_record_lost(struct rd_device *rd, pgoff_t idx,
				const unsigned long *lost)
{
	sector_t first = rd_page_sector(idx);
	unsigned int s = 0, e;

	lockdep_assert_held(&rd->pages.xa_lock);
	for (;;) {
		s = find_next_bit(lost, RD_PAGE_SECTORS, s);
		if (s >= RD_PAGE_SECTORS)
			return 0;
		e = find_next_zero_bit(lost, RD_PAGE_SECTORS, s);
		if (rd_bb_set(&rd->missing, first + s, e - s)) {
			pr_err_ratelimited("rd%d: no room to record the sectors lost at sector %llu: the write fails\n",
					   rd->index, (unsigned long long)first);
			return -ENOSPC;
		}
		s = e;
	}
}

/*
 * Put a new page in @old's place at @idx: @len bytes at @off from @src
 * (zeros if @src is NULL), the rest salvaged from @old where it can be
 * read (rd_store_salvage()) and missing where not. @old is broken and
 * stays out of the allocator for good. Returns 0, -EAGAIN if @old is no
 * longer there (the caller looks again), -ENOMEM, or -ENOSPC.
 *
 * @old is marked broken, with a full barrier, before anything of it is
 * copied: a writer that copied into @old without seeing the mark before
 * its copy looks again after it (rd_page_fill_unless_broken()), so either
 * the salvage below reads its data or it sees the mark and writes again,
 * into the new page. The missing sectors are recorded under the xa_lock,
 * with the store of the new page and only if @old is still in the slot,
 * before the page can be seen: no reader takes a sector that could not
 * be salvaged for data, and a replacer that lost its race records
 * nothing.
 */
static int rd_store_replace(struct rd_device *rd, pgoff_t idx,
			    struct page *old, struct page *src,
			    unsigned int src_off, unsigned int off,
			    unsigned int len, gfp_t gfp)
{
	sector_t sector = rd_page_sector(idx) + (off >> SECTOR_SHIFT);
	DECLARE_BITMAP(lost, RD_PAGE_SECTORS) = { 0 };
	XA_STATE(xas, &rd->pages, idx);
	struct page *page;
	int err;

	/*
	 * rd->marked before the page's mark, and both before any sector is
	 * recorded missing or the new page can be seen: I/O that finds
	 * rd->marked unset looks at neither.
	 */
	rd_store_mark(rd);
	/* A page never read since it broke is counted here. */
	if (!test_and_set_bit(RD_PAGE_BROKEN_BIT, &old->private))
		atomic_long_inc(&rd->bad_pages);
	/* pairs with the smp_mb() in rd_page_fill_unless_broken() */
	smp_mb();

	page = rd_store_new_page(gfp | __GFP_ZERO);
	if (!page)
		return -ENOMEM;
	if (src)
		memcpy_page(page, off, src, src_off, len);
	rd_store_salvage(old, page, off, len, lost);

	xas_lock(&xas);
	if (xas_load(&xas) != old) {
		xas_unlock(&xas);
		__free_page(page);
		return -EAGAIN;
	}
	/*
	 * (On -ENOSPC the records made so far stay, on sectors of @old,
	 * which fail their reads anyway: at worst a sector a later
	 * replacement salvages reads as an error until written, which under
	 * md is one more corrected read, never wrong data.)
	 */
	err = rd_store_record_lost(rd, idx, lost);
	if (!err) {
		/* Sectors missing since an earlier replacement, written now. */
		rd_store_written(rd, sector, len);
		/* the slot holds @old: no node to allocate, no error */
		xas_store(&xas, page);
	}
	xas_unlock(&xas);
	if (err) {
		__free_page(page);
		return err;
	}
	atomic_long_inc(&rd->replaced_pages);
	pr_warn_ratelimited("rd%d: page at sector %llu replaced after a memory error\n",
			    rd->index, (unsigned long long)rd_page_sector(idx));
	return 0;
}

/* What rd_page_fill_unless_broken() did. */
enum rd_fill {
	RD_FILL_DONE,		/* the data is in the store */
	RD_FILL_BROKEN,		/* the page is broken: replace it */
	RD_FILL_AGAIN,		/* the page left the store: look again */
};

/*
 * Copy @len bytes from @src (zeros if @src is NULL) into @page, the page
 * at @sector's index in @rd's store, under the caller's RCU section,
 * unless it is broken. The page may break while the copy runs
 * (rd_store_replace() salvaging it): the copy is followed by a full
 * barrier and a second look, so that either the replacement's salvage
 * reads this data or this sees the mark, and the caller writes again
 * into the page that takes this one's place. Once a page of @rd has
 * broken, the written sectors leave the missing ones under the
 * xa_lock, only if @page still holds the slot.
 */
static enum rd_fill rd_page_fill_unless_broken(struct rd_device *rd,
					       struct page *page,
					       sector_t sector,
					       struct page *src,
					       unsigned int src_off,
					       unsigned int len)
{
	unsigned int off = rd_sector_offset(sector);
	bool plain = rd_store_page_plain(rd);
	bool here;

	if (rd_page_poisoned(page) || (!plain && rd_page_marked_broken(page)))
		return RD_FILL_BROKEN;
	rd_store_copy_in(page, off, src, src_off, len);
	/* pairs with the smp_mb() in rd_store_replace() */
	smp_mb();
	if (rd_page_broken(page))
		return RD_FILL_BROKEN;
	if (!READ_ONCE(rd->marked))
		return RD_FILL_DONE;
	xa_lock(&rd->pages);
	here = rd_store_lookup(rd, rd_sector_page(sector)) == page;
	if (here)
		rd_store_written(rd, sector, len);
	xa_unlock(&rd->pages);
	return here ? RD_FILL_DONE : RD_FILL_AGAIN;
}

/*
 * Put @page (filled) in the hole at @idx. The hole's records go with it,
 * under the xa_lock and only if the slot is still a hole: a new page
 * holds data in every sector (zeros where not written). Returns 0,
 * -EEXIST if another page got there first, or -ENOMEM.
 */
static int rd_store_insert(struct rd_device *rd, pgoff_t idx,
			   struct page *page, gfp_t gfp)
{
	XA_STATE(xas, &rd->pages, idx);
	void *cur;

	do {
		xas_lock(&xas);
		cur = xas_load(&xas);
		/* (a reserved entry is a hole, as rd_store_lookup() reads it) */
		if (!cur || xa_is_zero(cur)) {
			cur = NULL;
			rd_store_written(rd, rd_page_sector(idx), PAGE_SIZE);
			xas_store(&xas, page);
		}
		xas_unlock(&xas);
	} while (xas_nomem(&xas, gfp | __GFP_NOWARN));
	if (xas_error(&xas))
		return xas_error(&xas);
	return cur ? -EEXIST : 0;
}

/*
 * Copy @len bytes from @src to @sector (within one page), allocating the
 * page with @gfp if it is not there yet. Returns 0, -ENOMEM, or -ENOSPC
 * where a new page would pass the bound (rd_mem_limit).
 */
int rd_store_write(struct rd_device *rd, sector_t sector, struct page *src,
		   unsigned int src_off, unsigned int len, gfp_t gfp)
{
	pgoff_t idx = rd_sector_page(sector);
	unsigned int off = rd_sector_offset(sector);
	struct page *page;
	int err;

	for (;;) {
		enum rd_fill fill = RD_FILL_BROKEN;

		rcu_read_lock();
		page = rd_store_lookup(rd, idx);
		if (page)
			fill = rd_page_fill_unless_broken(rd, page, sector, src,
							  src_off, len);
		rcu_read_unlock();
		if (fill == RD_FILL_DONE)
			return 0;
		if (fill == RD_FILL_AGAIN)
			continue;

		if (page) {
			/* Broken pages are never freed: @page stays valid. */
			err = rd_store_replace(rd, idx, page, src, src_off, off,
					       len, gfp);
			if (err != -EAGAIN)
				return err;
			continue;
		}

		/*
		 * Fill the new page before the xarray publishes it, so that
		 * a racing reader never sees what the page held before; a
		 * page the write covers whole needs no zeroing.
		 */
		err = rd_mem_charge(1);
		if (err)
			return err;
		page = rd_store_new_page(gfp | (len == PAGE_SIZE ? 0 : __GFP_ZERO));
		if (!page) {
			rd_mem_uncharge(1);
			return -ENOMEM;
		}
		memcpy_page(page, off, src, src_off, len);
		err = rd_store_insert(rd, idx, page, gfp);
		if (!err) {
			atomic_long_inc(&rd->nr_pages);
			return 0;
		}
		rd_mem_uncharge(1);
		__free_page(page);
		if (err != -EEXIST)
			return err;
		/* Another writer inserted this page first: write into it. */
	}
}
EXPORT_SYMBOL_IF_RD_KUNIT(rd_store_write);

/*
 * Zero [off, off + len) of the page at @idx, if there is one. A broken
 * page is replaced, with @gfp. Returns 0, or -ENOMEM if no page could be
 * had: the broken page stays, its reads keep failing, and the zeroes
 * were not written.
 */
static int rd_store_zero(struct rd_device *rd, pgoff_t idx, unsigned int off,
			 unsigned int len, gfp_t gfp)
{
	sector_t sector = rd_page_sector(idx) + (off >> SECTOR_SHIFT);
	struct page *page;
	int err;

	do {
		enum rd_fill fill = RD_FILL_DONE;

		rcu_read_lock();
		page = rd_store_lookup(rd, idx);
		if (page)
			fill = rd_page_fill_unless_broken(rd, page, sector,
							  NULL, 0, len);
		rcu_read_unlock();
		if (fill == RD_FILL_DONE)
			return 0;
		err = fill == RD_FILL_AGAIN ? -EAGAIN :
		      rd_store_replace(rd, idx, page, NULL, 0, off, len, gfp);
	} while (err == -EAGAIN);
	return err;
}

/* Zero or free the pages present in [first, last]. */
static gfp_t rd_discard_gfp(unsigned int flags)
{
	return flags & RD_DISCARD_MAY_SLEEP ? GFP_NOIO : GFP_NOWAIT;
}

/*
 * Returns 0, or the first error of a page that could not be zeroed
 * (RD_DISCARD_KEEP_PAGES only: freeing cannot fail); the other pages are
 * done all the same.
 */
static int rd_store_clear_pages(struct rd_device *rd, pgoff_t first,
				pgoff_t last, unsigned int flags)
{
	struct rd_free_batch *batch = NULL;
	unsigned long idx = first;
	struct page *page;
	int err = 0, ret;

	while (xa_find(&rd->pages, &idx, last, XA_PRESENT)) {
		if (flags & RD_DISCARD_KEEP_PAGES) {
			ret = rd_store_zero(rd, idx, 0, PAGE_SIZE,
					    rd_discard_gfp(flags));
			if (ret && !err)
				err = ret;
		} else {
			xa_lock(&rd->pages);
			page = __xa_erase(&rd->pages, idx);
			/* a hole reads as zeros: nothing of it is missing */
			if (page)
				rd_store_written(rd, rd_page_sector(idx),
						 PAGE_SIZE);
			xa_unlock(&rd->pages);
			if (page) {
				atomic_long_dec(&rd->nr_pages);
				rd_mem_uncharge(1);
				if (flags & RD_DISCARD_QUIESCED)
					rd_page_free(page);
				else
					rd_page_free_deferred(page, &batch);
			}
		}
		if (idx == last)
			break;
		idx++;
		if (flags & RD_DISCARD_MAY_SLEEP)
			cond_resched();
	}
	if (batch)
		rd_free_batch_queue(batch);
	return err;
}

/*
 * Discard or write zeroes over [sector, sector + nr_sects): partial pages
 * are zeroed, whole pages freed (or zeroed with RD_DISCARD_KEEP_PAGES).
 * Returns 0, or -ENOMEM where a broken page was to be zeroed and no page
 * could be had to replace it (always possible with GFP_NOWAIT): that
 * range does not read as zeroes, so the caller must not report success.
 * The rest of the range is done all the same.
 */
int rd_store_discard(struct rd_device *rd, sector_t sector,
		     sector_t nr_sects, unsigned int flags)
{
	sector_t end = sector + nr_sects;
	unsigned int off, len;
	int err = 0, ret;

	/* Head: a partial first page. */
	off = rd_sector_offset(sector);
	if (nr_sects && off) {
		len = min_t(sector_t, PAGE_SIZE - off, nr_sects << SECTOR_SHIFT);
		err = rd_store_zero(rd, rd_sector_page(sector), off, len,
				    rd_discard_gfp(flags));
		sector += len >> SECTOR_SHIFT;
	}
	/* Middle: whole pages. */
	if (end - sector >= RD_PAGE_SECTORS) {
		pgoff_t first = rd_sector_page(sector);
		pgoff_t last = rd_sector_page(end) - 1;

		ret = rd_store_clear_pages(rd, first, last, flags);
		if (ret && !err)
			err = ret;
		sector = rd_page_sector(last + 1);
	}
	/* Tail: a partial last page. */
	if (end > sector) {
		ret = rd_store_zero(rd, rd_sector_page(sector), 0,
				    (end - sector) << SECTOR_SHIFT,
				    rd_discard_gfp(flags));
		if (ret && !err)
			err = ret;
	}
	return err;
}
EXPORT_SYMBOL_IF_RD_KUNIT(rd_store_discard);

/*
 * Pages that preallocations running now have yet to take: each one counts
 * what the others will take before it decides whether memory can hold it.
 */
static DEFINE_SPINLOCK(rd_prealloc_lock);
static unsigned long rd_prealloc_pending;

/*
 * Reserve @nr pages for a preallocation, or -ENOMEM. Memory that is
 * available now, less what running preallocations will take, less a
 * margin of 1/32 of RAM (at least 16 MiB) so that the machine does not
 * end the fill at the OOM killer's door.
 */
static int rd_prealloc_reserve(unsigned long nr)
{
	long margin = max(totalram_pages() / 32, 16UL << (20 - PAGE_SHIFT));
	long room;
	int err = -ENOMEM;

	spin_lock(&rd_prealloc_lock);
	/* Pages a running fill took already count twice: errs on the safe side. */
	room = si_mem_available() - margin - (long)rd_prealloc_pending;
	if (room > 0 && nr <= (unsigned long)room) {
		rd_prealloc_pending += nr;
		err = 0;
	}
	spin_unlock(&rd_prealloc_lock);
	return err;
}

static void rd_prealloc_unreserve(unsigned long nr)
{
	spin_lock(&rd_prealloc_lock);
	rd_prealloc_pending -= nr;
	spin_unlock(&rd_prealloc_lock);
}

/*
 * Allocate zeroed pages [first, end). On failure free what this call
 * allocated and return -ENOMEM, -EDQUOT if the pages would pass the bound
 * (rd_mem_limit), or -EINTR if the caller was killed, so a creation or
 * grow that cannot be backed leaves nothing behind.
 */
int rd_store_prealloc(struct rd_device *rd, pgoff_t first, pgoff_t end)
{
	struct page *page;
	pgoff_t idx;
	int err;

	/* A grow within the last page (64 KiB pages) takes nothing. */
	if (first >= end)
		return 0;
	/*
	 * Refuse what memory cannot hold before taking it: filling all of RAM
	 * and then failing would push every other task towards the OOM killer.
	 */
	err = rd_prealloc_reserve(end - first);
	if (err)
		return err;
	/* (after the memory's check: what memory cannot hold stays ENOMEM) */
	if (rd_mem_charge(end - first)) {
		rd_prealloc_unreserve(end - first);
		pr_warn("rd%d: preallocating %lu pages refused: the disks hold %lu of the %lu pages of mem_limit\n",
			rd->index, end - first, rd_store_mem_used(), rd_store_mem_limit());
		return -EDQUOT;
	}

	for (idx = first; idx < end; idx++) {
		if (fatal_signal_pending(current)) {
			err = -EINTR;
			break;
		}
		/* RETRY_MAYFAIL: fail this request rather than OOM-kill. */
		page = rd_store_new_page(GFP_KERNEL | __GFP_ZERO |
					 __GFP_RETRY_MAYFAIL);
		if (!page) {
			err = -ENOMEM;
			break;
		}
		/*
		 * The range is past the disk's end, so empty: a page there
		 * (-EBUSY) would be a bug that an overwrite would hide.
		 */
		err = xa_insert(&rd->pages, idx, page,
				GFP_KERNEL | __GFP_RETRY_MAYFAIL | __GFP_NOWARN);
		if (err) {
			WARN_ON_ONCE(err == -EBUSY);
			__free_page(page);
			break;
		}
		atomic_long_inc(&rd->nr_pages);
		cond_resched();
	}
	rd_prealloc_unreserve(end - first);
	/* (the pages not inserted; the clearing uncharges those that were) */
	rd_mem_uncharge(end - idx);
	/* (freeing, not zeroing: it cannot fail) */
	if (err && idx > first)
		rd_store_clear_pages(rd, first, idx - 1,
				     RD_DISCARD_QUIESCED | RD_DISCARD_MAY_SLEEP);
	return err;
}
EXPORT_SYMBOL_IF_RD_KUNIT(rd_store_prealloc);

#ifdef RDMIRROR_TEST_BUILD
/* The page frame behind @sector, for the tests' memory-error injection. */
int rd_store_pfn(struct rd_device *rd, sector_t sector, unsigned long *pfn)
{
	struct page *page;

	rcu_read_lock();
	page = rd_store_lookup(rd, rd_sector_page(sector));
	if (page)
		*pfn = page_to_pfn(page);
	rcu_read_unlock();
	return page ? 0 : -ENODATA;
}
#endif
