// SPDX-License-Identifier: GPL-2.0
/*
 * The page store behind one rd disk: an xarray of pages, indexed by the
 * disk offset in pages. A page appears on its first write and goes away on
 * discard, shrink, free-all and removal, so memory follows what is written.
 *
 * Readers and writers look pages up under RCU, and a discard that runs
 * while I/O may be in flight frees pages only after a grace period: I/O
 * racing a discard of the same range sees old data or zeros, never freed
 * memory. Paths that run with the disk closed (shrink, free-all, removal)
 * free at once.
 */
#include <linux/gfp.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>

#include "compat.h"
#include "rd_device.h"

/*
 * Every page the store takes comes from here, so that the KUnit tests can
 * make allocation fail at a chosen point (a no-op without CONFIG_KUNIT).
 */
struct page *rd_store_alloc_page(gfp_t gfp)
{
	KUNIT_STATIC_STUB_REDIRECT(rd_store_alloc_page, gfp);
	return alloc_page(gfp);
}
EXPORT_SYMBOL_IF_KUNIT(rd_store_alloc_page);

static void rd_page_free_rcu(struct rcu_head *head)
{
	__free_page(container_of(head, struct page, rcu_head));
}

void rd_store_init(struct rd_device *rd)
{
	xa_init(&rd->pages);
	atomic_long_set(&rd->nr_pages, 0);
}
EXPORT_SYMBOL_IF_KUNIT(rd_store_init);

/* Called once no I/O can reach the disk any more. */
void rd_store_destroy(struct rd_device *rd)
{
	struct page *page;
	unsigned long idx;

	xa_for_each(&rd->pages, idx, page) {
		__free_page(page);
		cond_resched();
	}
	xa_destroy(&rd->pages);
	atomic_long_set(&rd->nr_pages, 0);
}
EXPORT_SYMBOL_IF_KUNIT(rd_store_destroy);

/*
 * The page at @idx, or NULL; the caller holds rcu_read_lock() until it is
 * done with the page. This is xa_load() without the RCU section xa_load()
 * opens inside the caller's: one section a page instead of two nested
 * ones (out-of-line calls on PREEMPT_RCU kernels), on every read and write.
 */
static struct page *rd_store_lookup(struct rd_device *rd, pgoff_t idx)
{
	XA_STATE(xas, &rd->pages, idx);
	void *entry;

	do {
		entry = xas_load(&xas);
	} while (xas_retry(&xas, entry));
	return xa_is_zero(entry) ? NULL : entry;
}

/* Copy @len bytes at @sector (within one page) to @dst; holes read as 0. */
void rd_store_read(struct rd_device *rd, sector_t sector, struct page *dst,
		   unsigned int dst_off, unsigned int len)
{
	struct page *page;

	rcu_read_lock();
	page = rd_store_lookup(rd, rd_sector_page(sector));
	if (page)
		memcpy_page(dst, dst_off, page, rd_sector_offset(sector), len);
	else
		memzero_page(dst, dst_off, len);
	rcu_read_unlock();
	flush_dcache_page(dst);
}
EXPORT_SYMBOL_IF_KUNIT(rd_store_read);

/*
 * Copy @len bytes from @src to @sector (within one page), allocating the
 * page with @gfp if it is not there yet. Returns 0 or -ENOMEM.
 */
int rd_store_write(struct rd_device *rd, sector_t sector, struct page *src,
		   unsigned int src_off, unsigned int len, gfp_t gfp)
{
	pgoff_t idx = rd_sector_page(sector);
	unsigned int off = rd_sector_offset(sector);
	struct page *page, *old;

	for (;;) {
		rcu_read_lock();
		page = rd_store_lookup(rd, idx);
		if (page) {
			memcpy_page(page, off, src, src_off, len);
			rcu_read_unlock();
			return 0;
		}
		rcu_read_unlock();

		/*
		 * Fill the new page before the xarray publishes it, so that
		 * a racing reader never sees what the page held before; a
		 * page the write covers whole needs no zeroing.
		 */
		page = rd_store_alloc_page(gfp | __GFP_NOWARN |
					   (len == PAGE_SIZE ? 0 : __GFP_ZERO));
		if (!page)
			return -ENOMEM;
		memcpy_page(page, off, src, src_off, len);
		old = xa_cmpxchg(&rd->pages, idx, NULL, page, gfp | __GFP_NOWARN);
		if (!old) {
			atomic_long_inc(&rd->nr_pages);
			return 0;
		}
		__free_page(page);
		if (xa_is_err(old))
			return xa_err(old);
		/* Another writer inserted this page first: write into it. */
	}
}
EXPORT_SYMBOL_IF_KUNIT(rd_store_write);

static void rd_store_zero(struct rd_device *rd, pgoff_t idx, unsigned int off,
			  unsigned int len)
{
	struct page *page;

	rcu_read_lock();
	page = rd_store_lookup(rd, idx);
	if (page)
		memzero_page(page, off, len);
	rcu_read_unlock();
}

/* Zero or free the pages present in [first, last]. */
static void rd_store_clear_pages(struct rd_device *rd, pgoff_t first,
				 pgoff_t last, unsigned int flags)
{
	unsigned long idx = first;
	struct page *page;

	while (xa_find(&rd->pages, &idx, last, XA_PRESENT)) {
		if (flags & RD_DISCARD_KEEP_PAGES) {
			rd_store_zero(rd, idx, 0, PAGE_SIZE);
		} else {
			page = xa_erase(&rd->pages, idx);
			if (page) {
				atomic_long_dec(&rd->nr_pages);
				if (flags & RD_DISCARD_QUIESCED)
					__free_page(page);
				else
					call_rcu(&page->rcu_head, rd_page_free_rcu);
			}
		}
		if (idx == last)
			break;
		idx++;
		if (flags & RD_DISCARD_MAY_SLEEP)
			cond_resched();
	}
}

/*
 * Discard or write zeroes over [sector, sector + nr_sects): partial pages
 * are zeroed, whole pages freed (or zeroed with RD_DISCARD_KEEP_PAGES).
 */
void rd_store_discard(struct rd_device *rd, sector_t sector,
		      sector_t nr_sects, unsigned int flags)
{
	sector_t end = sector + nr_sects;
	unsigned int off, len;

	/* Head: a partial first page. */
	off = rd_sector_offset(sector);
	if (nr_sects && off) {
		len = min_t(sector_t, PAGE_SIZE - off, nr_sects << SECTOR_SHIFT);
		rd_store_zero(rd, rd_sector_page(sector), off, len);
		sector += len >> SECTOR_SHIFT;
	}
	/* Middle: whole pages. */
	if (end - sector >= RD_PAGE_SECTORS) {
		pgoff_t first = rd_sector_page(sector);
		pgoff_t last = rd_sector_page(end) - 1;

		rd_store_clear_pages(rd, first, last, flags);
		sector = (sector_t)(last + 1) << RD_PAGE_SECTORS_SHIFT;
	}
	/* Tail: a partial last page. */
	if (end > sector)
		rd_store_zero(rd, rd_sector_page(sector), 0,
			      (end - sector) << SECTOR_SHIFT);
}
EXPORT_SYMBOL_IF_KUNIT(rd_store_discard);

/*
 * Allocate zeroed pages [first, end). On failure free what this call
 * allocated and return -ENOMEM, or -EINTR if the caller was killed, so a
 * creation or grow that cannot be backed leaves nothing behind.
 */
int rd_store_prealloc(struct rd_device *rd, pgoff_t first, pgoff_t end)
{
	struct page *page;
	pgoff_t idx;
	int err = 0;
	void *old;

	/*
	 * Refuse what memory cannot hold before taking it: filling all of RAM
	 * and then failing would push every other task towards the OOM killer.
	 */
	if (end - first > (unsigned long)max(si_mem_available(), 0L))
		return -ENOMEM;

	for (idx = first; idx < end; idx++) {
		if (fatal_signal_pending(current)) {
			err = -EINTR;
			break;
		}
		/* RETRY_MAYFAIL: fail this request rather than OOM-kill. */
		page = rd_store_alloc_page(GFP_KERNEL | __GFP_ZERO |
					   __GFP_RETRY_MAYFAIL | __GFP_NOWARN);
		if (!page) {
			err = -ENOMEM;
			break;
		}
		old = xa_store(&rd->pages, idx, page,
			       GFP_KERNEL | __GFP_RETRY_MAYFAIL | __GFP_NOWARN);
		if (xa_is_err(old)) {
			__free_page(page);
			err = xa_err(old);
			break;
		}
		atomic_long_inc(&rd->nr_pages);
		cond_resched();
	}
	if (err && idx > first)
		rd_store_clear_pages(rd, first, idx - 1,
				     RD_DISCARD_QUIESCED | RD_DISCARD_MAY_SLEEP);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(rd_store_prealloc);
