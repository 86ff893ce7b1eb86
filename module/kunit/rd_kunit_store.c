// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the page store (rd_store.c) on a bare rd_device, no disk:
 * where a sector lands, writes at page edges, holes, discard and
 * write-zeroes of partial and whole pages, the allocated-bytes count,
 * preallocation that fails part way, and pages whose memory fails.
 */
#include <kunit/test-bug.h>
#include <kunit/test.h>
#include <linux/gfp.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/string.h>

#include "rd_device.h"
#include "rd_kunit.h"

/* The byte the tests write at disk offset @pos: differs sector to sector. */
static u8 rd_kunit_byte(u64 pos)
{
	return (u8)(pos * 7 + (pos >> SECTOR_SHIFT) * 13 + 1);
}

struct rd_kunit_store {
	struct rd_device rd;
	struct page *buf;	/* a page the tests copy to and from */
};

static int rd_kunit_store_init(struct kunit *test)
{
	struct rd_kunit_store *s;

	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	s->buf = alloc_page(GFP_KERNEL);
	if (!s->buf)
		return -ENOMEM;
	test->priv = s;
	return rd_store_init(&s->rd);
}

static void rd_kunit_store_exit(struct kunit *test)
{
	struct rd_kunit_store *s = test->priv;

	rd_store_destroy(&s->rd);
	__free_page(s->buf);
}

/* Write the test pattern into [pos, pos + len), which is inside one page. */
static void rd_kunit_write(struct kunit *test, u64 pos, unsigned int len)
{
	struct rd_kunit_store *s = test->priv;
	unsigned int off = offset_in_page(pos);
	u8 *p = kmap_local_page(s->buf);
	unsigned int i;
	int err;

	for (i = 0; i < len; i++)
		p[off + i] = rd_kunit_byte(pos + i);
	kunmap_local(p);
	err = rd_store_write(&s->rd, pos >> SECTOR_SHIFT, s->buf, off, len,
			     GFP_KERNEL);
	KUNIT_ASSERT_EQ(test, err, 0);
}

/*
 * Read [pos, pos + len) (inside one page) and check each byte: the pattern
 * where @written says so, zero elsewhere.
 */
static void rd_kunit_expect(struct kunit *test, u64 pos, unsigned int len,
			    bool written)
{
	struct rd_kunit_store *s = test->priv;
	unsigned int off = offset_in_page(pos);
	unsigned int i, bad = 0;
	u8 *p;

	p = kmap_local_page(s->buf);
	memset(p, 0xa5, PAGE_SIZE);
	kunmap_local(p);
	KUNIT_EXPECT_EQ(test, rd_store_read(&s->rd, pos >> SECTOR_SHIFT,
					    s->buf, off, len), 0);
	p = kmap_local_page(s->buf);
	for (i = 0; i < len; i++) {
		u8 want = written ? rd_kunit_byte(pos + i) : 0;

		if (p[off + i] != want && !bad++)
			KUNIT_FAIL(test, "byte at %llu is %#x, want %#x",
				   pos + i, p[off + i], want);
	}
	kunmap_local(p);
	KUNIT_EXPECT_EQ_MSG(test, bad, 0, "%u wrong bytes in [%llu, %llu)",
			    bad, pos, pos + len);
}

static unsigned long rd_kunit_pages(struct kunit *test)
{
	struct rd_kunit_store *s = test->priv;

	return atomic_long_read(&s->rd.nr_pages);
}

static void rd_kunit_sector_mapping(struct kunit *test)
{
	static const struct {
		u64 page;
		unsigned int sector_in_page;
	} cases[] = {
		{ 0, 0 }, { 0, 1 }, { 0, RD_PAGE_SECTORS - 1 },
		{ 1, 0 }, { 1, 1 }, { 1, RD_PAGE_SECTORS - 1 },
		{ 12345, 3 }, { 1ULL << 30, RD_PAGE_SECTORS - 1 },
		{ (~0ULL >> RD_PAGE_SECTORS_SHIFT), RD_PAGE_SECTORS - 1 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		sector_t sector = (cases[i].page << RD_PAGE_SECTORS_SHIFT) +
				  cases[i].sector_in_page;

		KUNIT_EXPECT_EQ(test, (u64)rd_sector_page(sector), cases[i].page);
		KUNIT_EXPECT_EQ(test, rd_sector_offset(sector),
				cases[i].sector_in_page * SECTOR_SIZE);
	}
	/* The literal layout on 4 KiB pages: 8 sectors a page. */
	if (PAGE_SIZE == 4096) {
		KUNIT_EXPECT_EQ(test, rd_sector_page(7), 0UL);
		KUNIT_EXPECT_EQ(test, rd_sector_offset(7), 3584U);
		KUNIT_EXPECT_EQ(test, rd_sector_page(9), 1UL);
		KUNIT_EXPECT_EQ(test, rd_sector_offset(9), 512U);
	}
}

static void rd_kunit_pages_for_sectors(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rd_sectors_to_pages(0), 0UL);
	KUNIT_EXPECT_EQ(test, rd_sectors_to_pages(1), 1UL);
	KUNIT_EXPECT_EQ(test, rd_sectors_to_pages(RD_PAGE_SECTORS), 1UL);
	KUNIT_EXPECT_EQ(test, rd_sectors_to_pages(RD_PAGE_SECTORS + 1), 2UL);
	KUNIT_EXPECT_EQ(test, rd_sectors_to_pages(1ULL << 31),
			(1UL << 31) / RD_PAGE_SECTORS);
}

static void rd_kunit_holes_read_zero(struct kunit *test)
{
	rd_kunit_expect(test, 0, PAGE_SIZE, false);
	rd_kunit_expect(test, 5 * PAGE_SIZE + SECTOR_SIZE, SECTOR_SIZE,
			false);
	/* Reading never allocates. */
	KUNIT_EXPECT_EQ(test, rd_kunit_pages(test), 0UL);
}

static void rd_kunit_write_in_page(struct kunit *test)
{
	u64 pos = 3 * PAGE_SIZE + 2 * SECTOR_SIZE;

	rd_kunit_write(test, pos, 3 * SECTOR_SIZE);
	rd_kunit_expect(test, pos, 3 * SECTOR_SIZE, true);
	/* The rest of the new page reads as zero, not as old memory. */
	rd_kunit_expect(test, 3 * PAGE_SIZE, 2 * SECTOR_SIZE, false);
	rd_kunit_expect(test, pos + 3 * SECTOR_SIZE,
			PAGE_SIZE - 5 * SECTOR_SIZE, false);
	KUNIT_EXPECT_EQ(test, rd_kunit_pages(test), 1UL);
	/* Overwriting the same page allocates nothing more. */
	rd_kunit_write(test, 3 * PAGE_SIZE, PAGE_SIZE);
	rd_kunit_expect(test, 3 * PAGE_SIZE, PAGE_SIZE, true);
	KUNIT_EXPECT_EQ(test, rd_kunit_pages(test), 1UL);
	KUNIT_EXPECT_EQ(test, rd_store_bytes(&((struct rd_kunit_store *)test->priv)->rd),
			(u64)PAGE_SIZE);
}

/* The last sector of one page and the first of the next are two pages. */
static void rd_kunit_write_page_edges(struct kunit *test)
{
	u64 edge = 7 * PAGE_SIZE;

	rd_kunit_write(test, edge - SECTOR_SIZE, SECTOR_SIZE);
	rd_kunit_write(test, edge, SECTOR_SIZE);
	KUNIT_EXPECT_EQ(test, rd_kunit_pages(test), 2UL);
	rd_kunit_expect(test, edge - SECTOR_SIZE, SECTOR_SIZE, true);
	rd_kunit_expect(test, edge, SECTOR_SIZE, true);
	rd_kunit_expect(test, edge - PAGE_SIZE, PAGE_SIZE - SECTOR_SIZE,
			false);
	rd_kunit_expect(test, edge + SECTOR_SIZE,
			PAGE_SIZE - SECTOR_SIZE, false);
}

/* Fill pages [0, n) with the pattern. */
static void rd_kunit_fill(struct kunit *test, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		rd_kunit_write(test, (u64)i * PAGE_SIZE, PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, rd_kunit_pages(test), (unsigned long)n);
}

/*
 * A range inside two pages ([3, 13) sectors on 4 KiB pages): the tail of
 * the first and the head of the second are zeroed, the rest kept, and no
 * page is freed because none is covered whole.
 */
static void rd_kunit_discard_partial(struct kunit *test, unsigned int flags)
{
	struct rd_kunit_store *s = test->priv;
	sector_t first = 3, end = RD_PAGE_SECTORS + 5;
	u64 a = first << SECTOR_SHIFT, b = end << SECTOR_SHIFT;

	rd_kunit_fill(test, 2);
	rd_store_discard(&s->rd, first, end - first, flags);
	rd_kunit_expect(test, 0, a, true);
	rd_kunit_expect(test, a, PAGE_SIZE - a, false);
	rd_kunit_expect(test, PAGE_SIZE, b - PAGE_SIZE, false);
	rd_kunit_expect(test, b, 2 * PAGE_SIZE - b, true);
	KUNIT_EXPECT_EQ(test, rd_kunit_pages(test), 2UL);
}

static void rd_kunit_discard_partial_pages(struct kunit *test)
{
	rd_kunit_discard_partial(test, RD_DISCARD_MAY_SLEEP);
}

static void rd_kunit_write_zeroes_partial_pages(struct kunit *test)
{
	rd_kunit_discard_partial(test, RD_DISCARD_KEEP_PAGES);
}

/*
 * From the last sector of page 0 to the first of page 3: pages 1 and 2 go
 * (or, with KEEP_PAGES, stay zeroed), the edge sectors are zeroed.
 */
static void rd_kunit_discard_across(struct kunit *test, unsigned int flags,
				    unsigned long pages_left)
{
	struct rd_kunit_store *s = test->priv;
	sector_t first = RD_PAGE_SECTORS - 1, end = 3 * RD_PAGE_SECTORS + 1;

	rd_kunit_fill(test, 4);
	rd_store_discard(&s->rd, first, end - first, flags);
	KUNIT_EXPECT_EQ(test, rd_kunit_pages(test), pages_left);
	KUNIT_EXPECT_EQ(test, rd_store_bytes(&s->rd), (u64)pages_left * PAGE_SIZE);
	rd_kunit_expect(test, 0, PAGE_SIZE - SECTOR_SIZE, true);
	rd_kunit_expect(test, PAGE_SIZE - SECTOR_SIZE, SECTOR_SIZE, false);
	rd_kunit_expect(test, PAGE_SIZE, PAGE_SIZE, false);
	rd_kunit_expect(test, 2 * PAGE_SIZE, PAGE_SIZE, false);
	rd_kunit_expect(test, 3 * PAGE_SIZE, SECTOR_SIZE, false);
	rd_kunit_expect(test, 3 * PAGE_SIZE + SECTOR_SIZE,
			PAGE_SIZE - SECTOR_SIZE, true);
}

static void rd_kunit_discard_frees_whole_pages(struct kunit *test)
{
	/* As the bio path does, with I/O possibly in flight (RCU frees). */
	rd_kunit_discard_across(test, RD_DISCARD_MAY_SLEEP, 2);
}

static void rd_kunit_discard_quiesced_frees_whole_pages(struct kunit *test)
{
	/* As shrink and free-all do, with the disk closed. */
	rd_kunit_discard_across(test, RD_DISCARD_QUIESCED | RD_DISCARD_MAY_SLEEP, 2);
}

static void rd_kunit_write_zeroes_keeps_pages(struct kunit *test)
{
	rd_kunit_discard_across(test, RD_DISCARD_KEEP_PAGES, 4);
}

static void rd_kunit_discard_holes_allocates_nothing(struct kunit *test)
{
	struct rd_kunit_store *s = test->priv;

	rd_store_discard(&s->rd, 3, 2 * RD_PAGE_SECTORS, 0);
	rd_store_discard(&s->rd, 1, 1, RD_DISCARD_KEEP_PAGES);
	rd_store_discard(&s->rd, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, rd_kunit_pages(test), 0UL);
	rd_kunit_expect(test, 0, PAGE_SIZE, false);
}

static void rd_kunit_prealloc_zeroed(struct kunit *test)
{
	struct rd_kunit_store *s = test->priv;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, rd_store_prealloc(&s->rd, 0, 8), 0);
	KUNIT_EXPECT_EQ(test, rd_kunit_pages(test), 8UL);
	for (i = 0; i < 8; i++)
		rd_kunit_expect(test, (u64)i * PAGE_SIZE, PAGE_SIZE, false);
	/* Growing keeps what is there. */
	rd_kunit_write(test, 2 * PAGE_SIZE, PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, rd_store_prealloc(&s->rd, 8, 12), 0);
	KUNIT_EXPECT_EQ(test, rd_kunit_pages(test), 12UL);
	rd_kunit_expect(test, 2 * PAGE_SIZE, PAGE_SIZE, true);
}

/* The 6th page cannot be had: the 5 taken before it are given back. */
static void rd_kunit_prealloc_failure_frees_all(struct kunit *test)
{
	struct rd_kunit_store *s = test->priv;
	int *calls = rd_kunit_fail_allocs_after(test, 5);

	KUNIT_EXPECT_EQ(test, rd_store_prealloc(&s->rd, 0, 16), -ENOMEM);
	KUNIT_EXPECT_EQ(test, *calls, 6);
	KUNIT_EXPECT_EQ(test, rd_kunit_pages(test), 0UL);
	KUNIT_EXPECT_TRUE(test, xa_empty(&s->rd.pages));
}

/* A failed grow gives back its own pages and leaves the old ones alone. */
static void rd_kunit_prealloc_grow_failure_keeps_old(struct kunit *test)
{
	struct rd_kunit_store *s = test->priv;
	unsigned long idx = 4;

	KUNIT_ASSERT_EQ(test, rd_store_prealloc(&s->rd, 0, 4), 0);
	rd_kunit_write(test, PAGE_SIZE, PAGE_SIZE);
	rd_kunit_fail_allocs_after(test, 3);
	KUNIT_EXPECT_EQ(test, rd_store_prealloc(&s->rd, 4, 16), -ENOMEM);
	KUNIT_EXPECT_EQ(test, rd_kunit_pages(test), 4UL);
	KUNIT_EXPECT_NULL(test, xa_find(&s->rd.pages, &idx, ULONG_MAX,
					XA_PRESENT));
	rd_kunit_expect(test, PAGE_SIZE, PAGE_SIZE, true);
}

/* More than memory can hold is refused before a single page is taken. */
static void rd_kunit_prealloc_too_big(struct kunit *test)
{
	struct rd_kunit_store *s = test->priv;
	int *calls = rd_kunit_fail_allocs_after(test, INT_MAX);

	KUNIT_EXPECT_EQ(test, rd_store_prealloc(&s->rd, 0,
						totalram_pages() + 1), -ENOMEM);
	KUNIT_EXPECT_EQ(test, *calls, 0);
	KUNIT_EXPECT_EQ(test, rd_kunit_pages(test), 0UL);
}

/* A write that cannot get its page fails and leaves no trace. */
static void rd_kunit_write_alloc_failure(struct kunit *test)
{
	struct rd_kunit_store *s = test->priv;

	rd_kunit_write(test, 0, PAGE_SIZE);
	rd_kunit_fail_allocs_after(test, 0);
	KUNIT_EXPECT_EQ(test, rd_store_write(&s->rd, RD_PAGE_SECTORS, s->buf,
					     0, SECTOR_SIZE, GFP_KERNEL),
			-ENOMEM);
	KUNIT_EXPECT_EQ(test, rd_kunit_pages(test), 1UL);
	rd_kunit_expect(test, PAGE_SIZE, PAGE_SIZE, false);
	/* A page that exists is written without allocating. */
	rd_kunit_write(test, SECTOR_SIZE, SECTOR_SIZE);
	rd_kunit_expect(test, 0, PAGE_SIZE, true);
}

/* Pages come with __GFP_HIGHMEM: every access goes through kmap_local. */
static void rd_kunit_pages_may_be_highmem(struct kunit *test)
{
	struct rd_kunit_store *s = test->priv;

	rd_kunit_fail_allocs_after(test, INT_MAX);
	rd_kunit_write(test, 0, SECTOR_SIZE);
	KUNIT_EXPECT_TRUE(test, rd_kunit_last_gfp() & __GFP_HIGHMEM);
	KUNIT_EXPECT_EQ(test, rd_store_prealloc(&s->rd, 1, 2), 0);
	KUNIT_EXPECT_TRUE(test, rd_kunit_last_gfp() & __GFP_HIGHMEM);
}

/* A reserved (zero) xarray entry reads as a hole, and does not spin. */
static void rd_kunit_reserved_entry_is_hole(struct kunit *test)
{
	struct rd_kunit_store *s = test->priv;

	KUNIT_ASSERT_EQ(test, xa_reserve(&s->rd.pages, 3, GFP_KERNEL), 0);
	rd_kunit_expect(test, 3 * PAGE_SIZE, PAGE_SIZE, false);
	xa_release(&s->rd.pages, 3);
}

static struct page *rd_kunit_store_page(struct kunit *test, pgoff_t idx)
{
	struct rd_kunit_store *s = test->priv;
	struct page *page = xa_load(&s->rd.pages, idx);

	KUNIT_ASSERT_NOT_NULL(test, page);
	return page;
}

static int rd_kunit_read_status(struct kunit *test, u64 pos, unsigned int len)
{
	struct rd_kunit_store *s = test->priv;

	return rd_store_read(&s->rd, pos >> SECTOR_SHIFT, s->buf,
			     offset_in_page(pos), len);
}

/* A broken page is the tests' to free: rd never gives one back. */
static void rd_kunit_free_broken(void *page)
{
	set_page_private(page, 0);
	__free_page(page);
}

/* Break page @idx as a machine check in a read would; returns the page. */
static struct page *rd_kunit_break(struct kunit *test, pgoff_t idx)
{
	struct rd_kunit_store *s = test->priv;
	struct page *page = rd_kunit_store_page(test, idx);
	long before = atomic_long_read(&s->rd.bad_pages);

	rd_kunit_fail_copies(test);
	KUNIT_EXPECT_EQ(test, rd_kunit_read_status(test, idx * PAGE_SIZE,
						   SECTOR_SIZE), -EIO);
	rd_kunit_mend_copies(test);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&s->rd.bad_pages), before + 1);
	return page;
}

/*
 * Write page 0 whole and break it; the broken page is freed when the
 * test ends. Returns it.
 */
static struct page *rd_kunit_written_broken_page(struct kunit *test)
{
	struct page *old;

	rd_kunit_write(test, 0, PAGE_SIZE);
	old = rd_kunit_break(test, 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rd_kunit_free_broken,
							old), 0);
	return old;
}

/*
 * A copy that meets a machine check fails the read and marks the page:
 * later reads of any part of it fail too, without touching its memory,
 * and the neighbours read as before. The page is counted once.
 */
static void rd_kunit_machine_check_fails_reads(struct kunit *test)
{
	struct rd_kunit_store *s = test->priv;

	rd_kunit_write(test, 0, PAGE_SIZE);
	rd_kunit_write(test, PAGE_SIZE, PAGE_SIZE);
	rd_kunit_write(test, 2 * PAGE_SIZE, PAGE_SIZE);
	rd_kunit_break(test, 1);
	KUNIT_EXPECT_EQ(test, rd_kunit_read_status(test, PAGE_SIZE + SECTOR_SIZE,
						   SECTOR_SIZE), -EIO);
	KUNIT_EXPECT_EQ(test, rd_kunit_read_status(test, PAGE_SIZE, PAGE_SIZE),
			-EIO);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&s->rd.bad_pages), 1L);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&s->rd.replaced_pages), 0L);
	rd_kunit_expect(test, 0, PAGE_SIZE, true);
	rd_kunit_expect(test, 2 * PAGE_SIZE, PAGE_SIZE, true);
}

/*
 * A copy that meets a machine check tells memory_failure() of that page
 * (as copy_mc_highpage() does), once: a later read fails on rd's mark
 * without copying.
 */
static void rd_kunit_machine_check_is_reported(struct kunit *test)
{
	const struct rd_kunit_reports *mf;
	struct page *page;

	rd_kunit_write(test, 0, PAGE_SIZE);
	rd_kunit_write(test, PAGE_SIZE, PAGE_SIZE);
	page = rd_kunit_store_page(test, 1);
	mf = rd_kunit_fail_copies(test);
	KUNIT_EXPECT_EQ(test, rd_kunit_read_status(test, PAGE_SIZE, SECTOR_SIZE),
			-EIO);
	KUNIT_EXPECT_EQ(test, mf->calls, 1);
	KUNIT_EXPECT_EQ(test, mf->pfn, page_to_pfn(page));
	KUNIT_EXPECT_EQ(test, rd_kunit_read_status(test, PAGE_SIZE + SECTOR_SIZE,
						   SECTOR_SIZE), -EIO);
	rd_kunit_mend_copies(test);
	KUNIT_EXPECT_EQ(test, rd_kunit_read_status(test, PAGE_SIZE, PAGE_SIZE),
			-EIO);
	KUNIT_EXPECT_EQ(test, mf->calls, 1);
	rd_kunit_expect(test, 0, PAGE_SIZE, true);
}

/*
 * A write over a broken page puts the data in a new page; the broken one
 * is not freed (its reference stays), and the page count does not change.
 */
static void rd_kunit_write_replaces_broken_page(struct kunit *test)
{
	struct rd_kunit_store *s = test->priv;
	struct page *old;

	old = rd_kunit_written_broken_page(test);
	rd_kunit_write(test, 0, PAGE_SIZE);
	KUNIT_EXPECT_PTR_NE(test, rd_kunit_store_page(test, 0), old);
	KUNIT_EXPECT_EQ(test, page_ref_count(old), 1);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&s->rd.replaced_pages), 1L);
	KUNIT_EXPECT_EQ(test, rd_kunit_pages(test), 1UL);
	rd_kunit_expect(test, 0, PAGE_SIZE, true);
}

/*
 * A write of part of a broken page whose other sectors cannot be read
 * either (every copy out of it fails): the written sectors read back,
 * the others fail until they too are written, one sector at a time.
 */
static void rd_kunit_partial_rewrite(struct kunit *test)
{
	struct rd_kunit_store *s = test->priv;

	rd_kunit_written_broken_page(test);
	rd_kunit_fail_copies(test);
	rd_kunit_write(test, 2 * SECTOR_SIZE, 2 * SECTOR_SIZE);
	rd_kunit_mend_copies(test);
	rd_kunit_expect(test, 2 * SECTOR_SIZE, 2 * SECTOR_SIZE, true);
	KUNIT_EXPECT_EQ(test, rd_kunit_read_status(test, SECTOR_SIZE, SECTOR_SIZE),
			-EIO);
	KUNIT_EXPECT_EQ(test, rd_kunit_read_status(test, 0, PAGE_SIZE), -EIO);
	/* Not broken memory: not counted again. */
	KUNIT_EXPECT_EQ(test, atomic_long_read(&s->rd.bad_pages), 1L);
	/* each sector on its own, as md rewrites a 512-byte read it failed */
	rd_kunit_write(test, SECTOR_SIZE, SECTOR_SIZE);
	rd_kunit_expect(test, SECTOR_SIZE, SECTOR_SIZE, true);
	KUNIT_EXPECT_EQ(test, rd_kunit_read_status(test, 0, SECTOR_SIZE), -EIO);
	rd_kunit_write(test, 0, SECTOR_SIZE);
	rd_kunit_write(test, 4 * SECTOR_SIZE, PAGE_SIZE - 4 * SECTOR_SIZE);
	rd_kunit_expect(test, 0, PAGE_SIZE, true);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&s->rd.replaced_pages), 1L);
}

/*
 * Poison the cache line at @off in the page at @idx (written whole) and
 * read the sector holding it, as a machine check would find it: the read
 * fails and the page is broken. The poison stays for the test.
 */
static struct page *rd_kunit_poisoned_page(struct kunit *test, pgoff_t idx,
					   unsigned int off)
{
	struct page *old;

	rd_kunit_write(test, (u64)idx * PAGE_SIZE, PAGE_SIZE);
	old = rd_kunit_store_page(test, idx);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rd_kunit_free_broken,
							old), 0);
	rd_kunit_poison(test, old, off);
	KUNIT_EXPECT_EQ(test, rd_kunit_read_status(test, (u64)idx * PAGE_SIZE +
						   round_down(off, SECTOR_SIZE),
						   SECTOR_SIZE), -EIO);
	return old;
}

/*
 * md rewrites the sector it failed to read; the new page takes the old
 * one's other sectors over (their copies do not reach the poison), so
 * the whole page reads back at once, and the poisoned line is never in
 * the new page.
 */
static void rd_kunit_salvage_keeps_readable_sectors(struct kunit *test)
{
	struct rd_kunit_store *s = test->priv;

	rd_kunit_poisoned_page(test, 0, 5 * SECTOR_SIZE + 100);
	rd_kunit_write(test, 5 * SECTOR_SIZE, SECTOR_SIZE);
	rd_kunit_expect(test, 0, PAGE_SIZE, true);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&s->rd.bad_pages), 1L);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&s->rd.replaced_pages), 1L);
}

/*
 * A write elsewhere in the page: the sector with the poison cannot be
 * copied and reads as an error until written; every other one is there.
 */
static void rd_kunit_salvage_skips_unreadable_sector(struct kunit *test)
{
	rd_kunit_poisoned_page(test, 0, 5 * SECTOR_SIZE);
	rd_kunit_write(test, 0, SECTOR_SIZE);
	rd_kunit_expect(test, 0, 5 * SECTOR_SIZE, true);
	KUNIT_EXPECT_EQ(test, rd_kunit_read_status(test, 5 * SECTOR_SIZE,
						   SECTOR_SIZE), -EIO);
	rd_kunit_expect(test, 6 * SECTOR_SIZE, 2 * SECTOR_SIZE, true);
	rd_kunit_write(test, 5 * SECTOR_SIZE, SECTOR_SIZE);
	rd_kunit_expect(test, 0, PAGE_SIZE, true);
}

/*
 * Three broken pages read as md reads a member with 512-byte direct
 * reads, each failed read followed by md's rewrite of that sector: three
 * read errors in all, one a page (md fails a member after
 * max_corr_read_errors, 20, of them).
 */
static void rd_kunit_three_broken_pages_three_errors(struct kunit *test)
{
	static const unsigned int poison_at[] = { 0, 3, 7 };
	unsigned int i, sec, errors = 0;

	for (i = 0; i < ARRAY_SIZE(poison_at); i++) {
		rd_kunit_write(test, (u64)i * PAGE_SIZE, PAGE_SIZE);
		rd_kunit_poison(test, rd_kunit_store_page(test, i),
				poison_at[i] * SECTOR_SIZE);
		KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
								rd_kunit_free_broken,
								rd_kunit_store_page(test, i)), 0);
		for (sec = 0; sec < RD_PAGE_SECTORS; sec++) {
			u64 pos = (u64)i * PAGE_SIZE + sec * SECTOR_SIZE;

			if (rd_kunit_read_status(test, pos, SECTOR_SIZE) == 0)
				continue;
			errors++;
			rd_kunit_write(test, pos, SECTOR_SIZE);
			KUNIT_EXPECT_EQ(test, rd_kunit_read_status(test, pos,
								   SECTOR_SIZE), 0);
		}
		rd_kunit_expect(test, (u64)i * PAGE_SIZE, PAGE_SIZE, true);
	}
	KUNIT_EXPECT_EQ(test, errors, 3U);
}

/*
 * Page 0 written whole, then flagged as memory_failure() flags a page
 * (hwpoison), with nothing else said to rd. The caller clears the flag
 * and frees the page (rd_kunit_free_broken()).
 */
static struct page *rd_kunit_written_flagged_page(struct kunit *test)
{
	struct page *old;

	if (!IS_ENABLED(CONFIG_MEMORY_FAILURE))
		kunit_skip(test, "no CONFIG_MEMORY_FAILURE: no hwpoison flag");
	rd_kunit_write(test, 0, PAGE_SIZE);
	old = rd_kunit_store_page(test, 0);
	SetPageHWPoison(old);
	return old;
}

/*
 * A page the kernel flagged (hwpoison) without a copy of rd's having met
 * its poison is never read, not even to salvage it: on a CPU that cannot
 * survive a machine check in the kernel that read would be fatal. A
 * partial write leaves the rest of the page missing.
 */
static void rd_kunit_flagged_page_not_salvaged(struct kunit *test)
{
	struct page *old = rd_kunit_written_flagged_page(test);

	rd_kunit_write(test, 0, SECTOR_SIZE);
	rd_kunit_expect(test, 0, SECTOR_SIZE, true);
	KUNIT_EXPECT_EQ(test, rd_kunit_read_status(test, SECTOR_SIZE,
						   SECTOR_SIZE), -EIO);
	KUNIT_EXPECT_EQ(test, rd_kunit_read_status(test, PAGE_SIZE - SECTOR_SIZE,
						   SECTOR_SIZE), -EIO);
	ClearPageHWPoison(old);
	rd_kunit_free_broken(old);
}

/*
 * A discard of a page with missing sectors takes them out of the table:
 * the hole, and a page written there later, read whole.
 */
static void rd_kunit_discard_forgets_missing(struct kunit *test)
{
	struct rd_kunit_store *s = test->priv;

	rd_kunit_written_broken_page(test);
	rd_kunit_fail_copies(test);
	rd_kunit_write(test, 0, SECTOR_SIZE);
	rd_kunit_mend_copies(test);
	KUNIT_EXPECT_EQ(test, rd_kunit_read_status(test, SECTOR_SIZE,
						   SECTOR_SIZE), -EIO);
	KUNIT_EXPECT_EQ(test, rd_store_discard(&s->rd, 0, RD_PAGE_SECTORS,
					       RD_DISCARD_QUIESCED), 0);
	rd_kunit_expect(test, 0, PAGE_SIZE, false);
	rd_kunit_write(test, 0, SECTOR_SIZE);
	rd_kunit_expect(test, 0, SECTOR_SIZE, true);
	rd_kunit_expect(test, SECTOR_SIZE, PAGE_SIZE - SECTOR_SIZE, false);
}

/*
 * The race of a writer that found a hole and slept in the allocator
 * (reclaim) while, meanwhile, another write filled the slot, that page
 * broke with a sector that cannot be salvaged, and a third write replaced
 * it, recording that sector missing: the sleeper, back, must not wipe
 * the replacement's records (md would then take zeros for data). The
 * stub of the sleeper's allocation runs the others in its place.
 */
static struct page *rd_kunit_alloc_after_replacement(gfp_t gfp)
{
	struct kunit *test = kunit_get_current_test();

	kunit_deactivate_static_stub(test, rd_store_alloc_page);
	rd_kunit_poisoned_page(test, 0, 5 * SECTOR_SIZE);
	rd_kunit_write(test, 0, SECTOR_SIZE);
	KUNIT_EXPECT_EQ(test, rd_kunit_read_status(test, 5 * SECTOR_SIZE,
						   SECTOR_SIZE), -EIO);
	return alloc_page(gfp);
}

static void rd_kunit_late_insert_keeps_records(struct kunit *test)
{
	struct rd_kunit_store *s = test->priv;

	kunit_activate_static_stub(test, rd_store_alloc_page,
				   rd_kunit_alloc_after_replacement);
	rd_kunit_write(test, 2 * SECTOR_SIZE, SECTOR_SIZE);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&s->rd.replaced_pages), 1L);
	/* the sleeper wrote into the replacement */
	rd_kunit_expect(test, 0, 5 * SECTOR_SIZE, true);
	KUNIT_EXPECT_EQ(test, rd_kunit_read_status(test, 5 * SECTOR_SIZE,
						   SECTOR_SIZE), -EIO);
	rd_kunit_expect(test, 6 * SECTOR_SIZE, PAGE_SIZE - 6 * SECTOR_SIZE, true);
	KUNIT_EXPECT_EQ(test, rd_kunit_pages(test), 1UL);
}

/*
 * The race of a direct writer copying into a page while that page breaks
 * and another write replaces it, salvaging the old page's sectors before
 * the writer's copy lands: the writer must find, after its copy, that the
 * page was replaced, and write again into the new one. The stub of the
 * writer's copy breaks and replaces the page before copying. The copy
 * runs in the writer's RCU section, where the others may not sleep: the
 * stub leaves it for them, as a preemption would let them run (nothing
 * frees the page meanwhile: rd never frees a broken one).
 */
static void rd_kunit_copy_in_after_replacement(struct page *page,
					       unsigned int off,
					       struct page *src,
					       unsigned int src_off,
					       unsigned int len)
{
	struct kunit *test = kunit_get_current_test();
	struct rd_kunit_store *s = test->priv;
	struct page *buf;

	kunit_deactivate_static_stub(test, rd_store_copy_in);
	rcu_read_unlock();
	/* the page breaks (a read meets a machine check)... */
	rd_kunit_break(test, 0);
	/* ...and a write of sector 0 replaces it, salvaging all but sector 0 */
	buf = alloc_page(GFP_KERNEL | __GFP_ZERO);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_EXPECT_EQ(test, rd_store_write(&s->rd, 0, buf, 0, SECTOR_SIZE,
					     GFP_KERNEL), 0);
	__free_page(buf);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&s->rd.replaced_pages), 1L);
	rcu_read_lock();
	/* the copy that was under way lands in the old page */
	rd_store_copy_in(page, off, src, src_off, len);
}

static void rd_kunit_write_into_replaced_page(struct kunit *test)
{
	struct page *old;

	/* page 0 in the store, zeros but for its last sector */
	rd_kunit_write(test, PAGE_SIZE - SECTOR_SIZE, SECTOR_SIZE);
	old = rd_kunit_store_page(test, 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rd_kunit_free_broken,
							old), 0);
	kunit_activate_static_stub(test, rd_store_copy_in,
				   rd_kunit_copy_in_after_replacement);
	rd_kunit_write(test, 3 * SECTOR_SIZE, SECTOR_SIZE);
	KUNIT_EXPECT_PTR_NE(test, rd_kunit_store_page(test, 0), old);
	rd_kunit_expect(test, 0, 3 * SECTOR_SIZE, false);
	rd_kunit_expect(test, 3 * SECTOR_SIZE, SECTOR_SIZE, true);
	rd_kunit_expect(test, 4 * SECTOR_SIZE, PAGE_SIZE - 5 * SECTOR_SIZE, false);
	rd_kunit_expect(test, PAGE_SIZE - SECTOR_SIZE, SECTOR_SIZE, true);
}

/* Write-zeroes over a broken page replaces it with zeros. */
static void rd_kunit_write_zeroes_replaces_broken_page(struct kunit *test)
{
	struct rd_kunit_store *s = test->priv;

	rd_kunit_written_broken_page(test);
	KUNIT_EXPECT_EQ(test, rd_store_discard(&s->rd, 0, RD_PAGE_SECTORS,
					       RD_DISCARD_KEEP_PAGES |
					       RD_DISCARD_MAY_SLEEP), 0);
	rd_kunit_expect(test, 0, PAGE_SIZE, false);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&s->rd.replaced_pages), 1L);
}

/*
 * Write-zeroes over a broken page when no page can be had for it (always
 * possible under NOWAIT): an error, not success over a range that does
 * not read as zeroes; the pages around it are zeroed all the same. The
 * same for a partial page (md's 512-byte zeroing at a range's edge).
 */
static void rd_kunit_write_zeroes_broken_page_no_memory(struct kunit *test)
{
	struct rd_kunit_store *s = test->priv;

	rd_kunit_write(test, PAGE_SIZE, PAGE_SIZE);
	rd_kunit_written_broken_page(test);
	rd_kunit_fail_allocs_after(test, 0);
	KUNIT_EXPECT_EQ(test, rd_store_discard(&s->rd, 0, 2 * RD_PAGE_SECTORS,
					       RD_DISCARD_KEEP_PAGES), -ENOMEM);
	KUNIT_EXPECT_EQ(test, rd_kunit_read_status(test, 0, SECTOR_SIZE), -EIO);
	rd_kunit_expect(test, PAGE_SIZE, PAGE_SIZE, false);
	KUNIT_EXPECT_EQ(test, rd_store_discard(&s->rd, 1, 1, 0), -ENOMEM);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&s->rd.replaced_pages), 0L);
}

/* A discard takes a broken page out of the store, but never frees it. */
static void rd_kunit_discard_keeps_broken_page(struct kunit *test)
{
	struct rd_kunit_store *s = test->priv;
	struct page *old;

	old = rd_kunit_written_broken_page(test);
	rd_store_discard(&s->rd, 0, RD_PAGE_SECTORS,
			 RD_DISCARD_QUIESCED | RD_DISCARD_MAY_SLEEP);
	KUNIT_EXPECT_EQ(test, rd_kunit_pages(test), 0UL);
	KUNIT_EXPECT_EQ(test, page_ref_count(old), 1);
	rd_kunit_expect(test, 0, PAGE_SIZE, false);
}

/*
 * A page memory_failure() flagged (hwpoison) fails its reads before any
 * copy touches it, is replaced by the next write, and is never freed:
 * on a disk with no page of rd's own marks (the flag is all there is).
 */
static void rd_kunit_hwpoison_page(struct kunit *test)
{
	struct rd_kunit_store *s = test->priv;
	struct page *old = rd_kunit_written_flagged_page(test);

	KUNIT_EXPECT_EQ(test, rd_kunit_read_status(test, 0, SECTOR_SIZE), -EIO);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&s->rd.bad_pages), 1L);
	rd_kunit_write(test, 0, PAGE_SIZE);
	rd_kunit_expect(test, 0, PAGE_SIZE, true);
	KUNIT_EXPECT_EQ(test, page_ref_count(old), 1);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&s->rd.replaced_pages), 1L);
	ClearPageHWPoison(old);
	rd_kunit_free_broken(old);
}

/*
 * A discard that may not sleep (NOWAIT) frees what it takes out after a
 * grace period, in batches: not one RCU callback a page (a million for
 * 4 GiB), and all of it comes back.
 */
static void rd_kunit_nowait_discard_frees_in_batches(struct kunit *test)
{
	struct rd_kunit_store *s = test->priv;
	unsigned int nr = 2048, i, still = 0;
	long singles = atomic_long_read(&rd_store_single_frees);
	struct page **pages;

	pages = kunit_kmalloc_array(test, nr, sizeof(*pages), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	for (i = 0; i < nr; i++)
		rd_kunit_write(test, (u64)i * PAGE_SIZE, SECTOR_SIZE);
	KUNIT_ASSERT_EQ(test, rd_kunit_pages(test), (unsigned long)nr);
	/* A reference of the test's own: rd's free leaves the count at 1. */
	for (i = 0; i < nr; i++) {
		pages[i] = rd_kunit_store_page(test, i);
		get_page(pages[i]);
	}
	rd_store_discard(&s->rd, 0, rd_page_sector(nr), 0);
	KUNIT_EXPECT_EQ(test, rd_kunit_pages(test), 0UL);
	rd_store_flush_frees();
	KUNIT_EXPECT_EQ(test, atomic_long_read(&rd_store_single_frees), singles);
	for (i = 0; i < nr; i++) {
		if (page_ref_count(pages[i]) != 1)
			still++;
		put_page(pages[i]);
	}
	KUNIT_EXPECT_EQ_MSG(test, still, 0U, "pages rd did not free");
	rd_kunit_expect(test, 0, PAGE_SIZE, false);
}

static struct kunit_case rd_kunit_store_cases[] = {
	KUNIT_CASE(rd_kunit_sector_mapping),
	KUNIT_CASE(rd_kunit_pages_for_sectors),
	KUNIT_CASE(rd_kunit_holes_read_zero),
	KUNIT_CASE(rd_kunit_write_in_page),
	KUNIT_CASE(rd_kunit_write_page_edges),
	KUNIT_CASE(rd_kunit_discard_partial_pages),
	KUNIT_CASE(rd_kunit_write_zeroes_partial_pages),
	KUNIT_CASE(rd_kunit_discard_frees_whole_pages),
	KUNIT_CASE(rd_kunit_discard_quiesced_frees_whole_pages),
	KUNIT_CASE(rd_kunit_write_zeroes_keeps_pages),
	KUNIT_CASE(rd_kunit_discard_holes_allocates_nothing),
	KUNIT_CASE(rd_kunit_prealloc_zeroed),
	KUNIT_CASE(rd_kunit_prealloc_failure_frees_all),
	KUNIT_CASE(rd_kunit_prealloc_grow_failure_keeps_old),
	KUNIT_CASE(rd_kunit_prealloc_too_big),
	KUNIT_CASE(rd_kunit_write_alloc_failure),
	KUNIT_CASE(rd_kunit_pages_may_be_highmem),
	KUNIT_CASE(rd_kunit_reserved_entry_is_hole),
	KUNIT_CASE(rd_kunit_machine_check_fails_reads),
	KUNIT_CASE(rd_kunit_machine_check_is_reported),
	KUNIT_CASE(rd_kunit_write_replaces_broken_page),
	KUNIT_CASE(rd_kunit_partial_rewrite),
	KUNIT_CASE(rd_kunit_salvage_keeps_readable_sectors),
	KUNIT_CASE(rd_kunit_salvage_skips_unreadable_sector),
	KUNIT_CASE(rd_kunit_three_broken_pages_three_errors),
	KUNIT_CASE(rd_kunit_flagged_page_not_salvaged),
	KUNIT_CASE(rd_kunit_discard_forgets_missing),
	KUNIT_CASE(rd_kunit_late_insert_keeps_records),
	KUNIT_CASE(rd_kunit_write_into_replaced_page),
	KUNIT_CASE(rd_kunit_write_zeroes_replaces_broken_page),
	KUNIT_CASE(rd_kunit_write_zeroes_broken_page_no_memory),
	KUNIT_CASE(rd_kunit_discard_keeps_broken_page),
	KUNIT_CASE(rd_kunit_hwpoison_page),
	KUNIT_CASE(rd_kunit_nowait_discard_frees_in_batches),
	{}
};

struct kunit_suite rd_kunit_store_suite = {
	.name = "rdmirror_store",
	.init = rd_kunit_store_init,
	.exit = rd_kunit_store_exit,
	.test_cases = rd_kunit_store_cases,
};
