// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the compressed store (rd_zstore.c) on a bare rd_device,
 * no disk: pages that compress, that do not and of one repeated word,
 * written whole and in sectors and read back; writers racing on one
 * page; discard and write-zeroes over each kind; the disk's memory
 * limit; and objects corrupt in their data or undecompressible, which
 * must read as errors.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/gfp.h>
#include <linux/highmem.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/string.h>
#include <linux/xarray.h>

#include "uapi/rdmirror.h"
#include "rd_device.h"
#include "rd_kunit.h"
#include "rd_zstore.h"

/* The kinds of page the tests write: what the store must make of each. */
enum rd_kz_kind { RD_KZ_COMP, RD_KZ_HUGE, RD_KZ_SAME, RD_KZ_KINDS };

struct rd_kz {
	struct rd_device rd;
	struct page *buf;	/* a page the tests copy to and from */
	u8 *shadow;		/* what the disk must hold: RD_KZ_PAGES pages */
};

#define RD_KZ_PAGES	8

static int rd_kz_setup(struct kunit *test, u32 comp, u64 limit)
{
	struct rd_kz *s = test->priv;
	int err;

	err = rd_store_init(&s->rd);
	if (err)
		return err;
	return rd_zstore_init(&s->rd, comp, limit);
}

static int rd_kz_init(struct kunit *test)
{
	struct rd_kz *s;

	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	s->shadow = kunit_kzalloc(test, RD_KZ_PAGES * PAGE_SIZE, GFP_KERNEL);
	s->buf = alloc_page(GFP_KERNEL);
	if (!s->buf || !s->shadow)
		return -ENOMEM;
	test->priv = s;
	return rd_kz_setup(test, RDMIRROR_COMP_LZ4, 0);
}

static void rd_kz_teardown(struct rd_kz *s)
{
	rd_zstore_destroy(&s->rd);
	rd_store_destroy(&s->rd);
	rd_store_flush_frees();
}

static void rd_kz_exit(struct kunit *test)
{
	struct rd_kz *s = test->priv;

	rd_kz_teardown(s);
	__free_page(s->buf);
}

/* Fill @p (@len bytes at disk offset @pos) as a page of @kind would be. */
static void rd_kz_fill(u8 *p, unsigned int len, u64 pos, enum rd_kz_kind kind)
{
	unsigned int i;

	switch (kind) {
	case RD_KZ_COMP:
		/* a quarter random, the rest a short repeated text */
		for (i = 0; i < len; i++)
			p[i] = "rdmirror compresses "[(pos + i) % 20];
		get_random_bytes(p, len / 4);
		break;
	case RD_KZ_HUGE:
		get_random_bytes(p, len);
		break;
	default:
		memset32((u32 *)p, 0x5a5a0000 | (u32)(pos >> PAGE_SHIFT), len / 4);
		break;
	}
}

/* Write [pos, pos + len) (inside one page) from the shadow. */
static int rd_kz_write(struct kunit *test, u64 pos, unsigned int len)
{
	struct rd_kz *s = test->priv;
	unsigned int off = offset_in_page(pos);

	memcpy_to_page(s->buf, off, s->shadow + pos, len);
	return rd_zstore_write(&s->rd, pos >> SECTOR_SHIFT, s->buf, off, len,
			       GFP_KERNEL);
}

/* Read [pos, pos + len) (inside one page): 0 and equal to the shadow. */
static void rd_kz_expect(struct kunit *test, u64 pos, unsigned int len)
{
	struct rd_kz *s = test->priv;
	unsigned int off = offset_in_page(pos);
	u8 *p;

	p = kmap_local_page(s->buf);
	memset(p, 0xa5, PAGE_SIZE);
	kunmap_local(p);
	KUNIT_ASSERT_EQ(test, rd_zstore_read(&s->rd, pos >> SECTOR_SHIFT, s->buf,
					     off, len), 0);
	p = kmap_local_page(s->buf);
	KUNIT_EXPECT_TRUE_MSG(test, !memcmp(p + off, s->shadow + pos, len),
			      "[%llu, %llu) differs", pos, pos + len);
	kunmap_local(p);
}

static void rd_kz_expect_all(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < RD_KZ_PAGES; i++) {
		rd_kz_expect(test, (u64)i * PAGE_SIZE, PAGE_SIZE);
		rd_kz_expect(test, (u64)i * PAGE_SIZE + 1024, 1536);
	}
}

static long rd_kz_count(struct kunit *test, enum rd_kz_kind kind)
{
	struct rd_kz *s = test->priv;
	struct rd_zstore *zs = s->rd.zs;

	if (kind == RD_KZ_COMP)
		return atomic_long_read(&zs->comp_pages);
	if (kind == RD_KZ_HUGE)
		return atomic_long_read(&zs->huge_pages);
	return atomic_long_read(&zs->same_pages);
}

/*
 * Pages of each kind written whole, then sectors of every kind written
 * into pages of every kind and into holes: each reads back as written,
 * whole and in part, and each page is kept as its content says.
 */
static void rd_kz_sub_page(struct kunit *test, u32 comp)
{
	const unsigned int secs[] = { 0, 3, RD_PAGE_SECTORS - 1 };
	struct rd_kz *s = test->priv;
	unsigned int i, j, k, sec;
	u64 pos;

	if (comp != RDMIRROR_COMP_LZ4) {
		rd_kz_teardown(s);
		KUNIT_ASSERT_EQ(test, rd_kz_setup(test, comp, 0), 0);
	}
	/* pages 0-2: one of each kind, whole */
	for (k = 0; k < RD_KZ_KINDS; k++) {
		rd_kz_fill(s->shadow + k * PAGE_SIZE, PAGE_SIZE, k * PAGE_SIZE, k);
		KUNIT_ASSERT_EQ(test, rd_kz_write(test, k * PAGE_SIZE, PAGE_SIZE), 0);
		KUNIT_EXPECT_EQ(test, rd_kz_count(test, k), 1);
	}
	rd_kz_expect_all(test);
	KUNIT_EXPECT_EQ(test, rd_zstore_data_bytes(&s->rd), 3 * PAGE_SIZE);

	/*
	 * Sectors of each kind into pages 0-7 (3-7 holes at first), a
	 * different kind a sector, at the first, a middle and the last.
	 */
	for (i = 0; i < RD_KZ_PAGES; i++) {
		for (j = 0; j < ARRAY_SIZE(secs); j++) {
			sec = secs[j];
			k = (i + j) % RD_KZ_KINDS;
			pos = (u64)i * PAGE_SIZE + sec * SECTOR_SIZE;
			rd_kz_fill(s->shadow + pos, SECTOR_SIZE, pos, k);
			KUNIT_ASSERT_EQ(test, rd_kz_write(test, pos, SECTOR_SIZE), 0);
			rd_kz_expect(test, pos, SECTOR_SIZE);
		}
	}
	rd_kz_expect_all(test);
	KUNIT_EXPECT_EQ(test, rd_zstore_data_bytes(&s->rd),
			RD_KZ_PAGES * PAGE_SIZE);

	/* a page written whole with one word again: a value, no object */
	rd_kz_fill(s->shadow, PAGE_SIZE, 0, RD_KZ_SAME);
	KUNIT_ASSERT_EQ(test, rd_kz_write(test, 0, PAGE_SIZE), 0);
	KUNIT_EXPECT_TRUE(test, xa_is_value(xa_load(&s->rd.pages, 0)));
	/* one sector of zeros in it: no longer one word */
	memset(s->shadow + 512, 0, SECTOR_SIZE);
	KUNIT_ASSERT_EQ(test, rd_kz_write(test, 512, SECTOR_SIZE), 0);
	KUNIT_EXPECT_FALSE(test, xa_is_value(xa_load(&s->rd.pages, 0)));
	rd_kz_expect_all(test);
}

static void rd_kz_sub_page_lz4(struct kunit *test)
{
	rd_kz_sub_page(test, RDMIRROR_COMP_LZ4);
}

static void rd_kz_sub_page_zstd(struct kunit *test)
{
	rd_kz_sub_page(test, RDMIRROR_COMP_ZSTD);
}

/*
 * Writers of distinct sectors of one page, racing: each merge into the
 * page must keep the other writers' sectors as they last wrote them.
 */
#define RD_KZ_ROUNDS	50

struct rd_kz_writer {
	struct rd_device *rd;
	unsigned int sector;
	unsigned int lost;	/* reads that did not find the round just written */
	int err;
	struct completion done;
};

/*
 * Each round writes its sector as (sector, round) and reads it back: a
 * writer whose merge started from the page before this write (the page's
 * lock not held, or another page's) undoes it, which the read back, and
 * at the end the last round, finds.
 */
static int rd_kz_writer_fn(void *data)
{
	struct rd_kz_writer *w = data;
	struct page *page = alloc_page(GFP_KERNEL);
	unsigned int r;
	u32 *p;

	if (!page) {
		w->err = -ENOMEM;
		goto out;
	}
	for (r = 1; r <= RD_KZ_ROUNDS && !w->err; r++) {
		p = kmap_local_page(page);
		memset32(p, w->sector << 16 | r, SECTOR_SIZE / 4);
		/* half random: the page compresses, not to one word */
		get_random_bytes(p, 64);
		p[16] = w->sector << 16 | r;
		kunmap_local(p);
		w->err = rd_zstore_write(w->rd, w->sector, page, 0, SECTOR_SIZE,
					 GFP_KERNEL);
		if (!w->err)
			w->err = rd_zstore_read(w->rd, w->sector, page, 0,
						SECTOR_SIZE);
		p = kmap_local_page(page);
		if (!w->err && p[16] != (w->sector << 16 | r))
			w->lost++;
		kunmap_local(p);
		cond_resched();
	}
	__free_page(page);
out:
	complete(&w->done);
	return 0;
}

static void rd_kz_concurrent(struct kunit *test)
{
	struct rd_kz *s = test->priv;
	struct rd_kz_writer w[RD_PAGE_SECTORS];
	struct task_struct *t;
	unsigned int i;
	u32 *p;

	for (i = 0; i < RD_PAGE_SECTORS; i++) {
		w[i] = (struct rd_kz_writer){ .rd = &s->rd, .sector = i };
		init_completion(&w[i].done);
		t = kthread_run(rd_kz_writer_fn, &w[i], "rd_kz_w%u", i);
		if (IS_ERR(t)) {
			w[i].err = PTR_ERR(t);
			complete(&w[i].done);
		}
	}
	for (i = 0; i < RD_PAGE_SECTORS; i++) {
		wait_for_completion(&w[i].done);
		KUNIT_EXPECT_EQ(test, w[i].err, 0);
		KUNIT_EXPECT_EQ_MSG(test, w[i].lost, 0,
				    "sector %u: its write undone", i);
	}
	KUNIT_ASSERT_EQ(test, rd_zstore_read(&s->rd, 0, s->buf, 0, PAGE_SIZE), 0);
	p = kmap_local_page(s->buf);
	for (i = 0; i < RD_PAGE_SECTORS; i++)
		KUNIT_EXPECT_EQ_MSG(test, p[i * SECTOR_SIZE / 4 + 16],
				    i << 16 | RD_KZ_ROUNDS,
				    "sector %u lost a write", i);
	kunmap_local(p);
}

/*
 * Discard, then write-zeroes (the same call), each over a range that
 * begins and ends inside pages, over pages of all three kinds: partial
 * pages zeroed, whole ones freed; then all of it, and nothing is left.
 */
static void rd_kz_discard(struct kunit *test)
{
	struct rd_kz *s = test->priv;
	unsigned int flags, k, round;

	for (round = 0; round < 2; round++) {
		for (k = 0; k < RD_KZ_PAGES; k++) {
			rd_kz_fill(s->shadow + k * PAGE_SIZE, PAGE_SIZE,
				   k * PAGE_SIZE, k % RD_KZ_KINDS);
			KUNIT_ASSERT_EQ(test, rd_kz_write(test, k * PAGE_SIZE,
							  PAGE_SIZE), 0);
		}
		/* from the middle of page 1 to the middle of page 5 */
		memset(s->shadow + PAGE_SIZE + 1024, 0, 4 * PAGE_SIZE);
		/* round 1: write-zeroes (REQ_NOUNMAP keeps no page here) */
		flags = RD_DISCARD_MAY_SLEEP | (round ? RD_DISCARD_KEEP_PAGES : 0);
		KUNIT_EXPECT_EQ(test,
				rd_zstore_discard(&s->rd,
						  (PAGE_SIZE + 1024) >> SECTOR_SHIFT,
						  (4 * PAGE_SIZE) >> SECTOR_SHIFT,
						  flags), 0);
		rd_kz_expect_all(test);
		/* pages 2, 3 and 4 are gone */
		KUNIT_EXPECT_EQ(test, rd_zstore_data_bytes(&s->rd),
				(RD_KZ_PAGES - 3) * PAGE_SIZE);
		KUNIT_EXPECT_NULL(test, xa_load(&s->rd.pages, 3));
	}
	KUNIT_EXPECT_EQ(test, rd_zstore_discard(&s->rd, 0,
						RD_KZ_PAGES * RD_PAGE_SECTORS,
						RD_DISCARD_MAY_SLEEP), 0);
	KUNIT_EXPECT_EQ(test, rd_zstore_bytes(&s->rd), 0);
	KUNIT_EXPECT_EQ(test, rd_zstore_data_bytes(&s->rd), 0);
	KUNIT_EXPECT_EQ(test, rd_kz_count(test, RD_KZ_COMP) +
			rd_kz_count(test, RD_KZ_HUGE) +
			rd_kz_count(test, RD_KZ_SAME), 0);
	memset(s->shadow, 0, RD_KZ_PAGES * PAGE_SIZE);
	rd_kz_expect_all(test);
}

/*
 * A disk bound to two and a half pages: two pages that do not compress
 * fit, the third is refused (-ENOSPC) and changes nothing; pages of one
 * word take nothing and still fit; a freed page makes room again.
 */
static void rd_kz_limit(struct kunit *test)
{
	struct rd_kz *s = test->priv;
	u64 limit = 5 * PAGE_SIZE / 2;
	unsigned int k;
	u64 held;

	rd_kz_teardown(s);
	KUNIT_ASSERT_EQ(test, rd_kz_setup(test, RDMIRROR_COMP_LZ4, limit), 0);
	for (k = 0; k < 3; k++)
		rd_kz_fill(s->shadow + k * PAGE_SIZE, PAGE_SIZE, k * PAGE_SIZE,
			   RD_KZ_HUGE);
	KUNIT_EXPECT_EQ(test, rd_kz_write(test, 0, PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, rd_kz_write(test, PAGE_SIZE, PAGE_SIZE), 0);
	held = rd_zstore_bytes(&s->rd);
	KUNIT_EXPECT_GT(test, held, 2 * PAGE_SIZE);
	KUNIT_EXPECT_LE(test, held, limit);
	KUNIT_EXPECT_EQ(test, rd_kz_write(test, 2 * PAGE_SIZE, PAGE_SIZE),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, rd_zstore_bytes(&s->rd), held);
	KUNIT_EXPECT_NULL(test, xa_load(&s->rd.pages, 2));
	/* a sector into a huge page: merged, still huge, still fits */
	rd_kz_fill(s->shadow + 512, SECTOR_SIZE, 512, RD_KZ_HUGE);
	KUNIT_EXPECT_EQ(test, rd_kz_write(test, 512, SECTOR_SIZE), 0);
	rd_kz_fill(s->shadow + 3 * PAGE_SIZE, PAGE_SIZE, 3 * PAGE_SIZE,
		   RD_KZ_SAME);
	KUNIT_EXPECT_EQ(test, rd_kz_write(test, 3 * PAGE_SIZE, PAGE_SIZE), 0);
	memset(s->shadow + 2 * PAGE_SIZE, 0, PAGE_SIZE);
	memset(s->shadow + 4 * PAGE_SIZE, 0, 4 * PAGE_SIZE);
	rd_kz_expect_all(test);
	/* page 1 freed: page 2 fits */
	KUNIT_EXPECT_EQ(test, rd_zstore_discard(&s->rd, RD_PAGE_SECTORS,
						RD_PAGE_SECTORS,
						RD_DISCARD_MAY_SLEEP), 0);
	rd_kz_fill(s->shadow + 2 * PAGE_SIZE, PAGE_SIZE, 2 * PAGE_SIZE,
		   RD_KZ_HUGE);
	KUNIT_EXPECT_EQ(test, rd_kz_write(test, 2 * PAGE_SIZE, PAGE_SIZE), 0);
	memset(s->shadow + PAGE_SIZE, 0, PAGE_SIZE);
	rd_kz_expect_all(test);
}

/* The object of page @idx, which must be one. */
static struct rd_zobj *rd_kz_obj(struct kunit *test, pgoff_t idx)
{
	struct rd_kz *s = test->priv;
	void *entry = xa_load(&s->rd.pages, idx);

	KUNIT_ASSERT_NOT_NULL(test, entry);
	KUNIT_ASSERT_FALSE(test, xa_is_value(entry));
	return entry;
}

/*
 * A bit flipped in a compressed object's data and in a whole page's:
 * both reads fail (-EIO), whole and in part, and are counted; the other
 * pages read as before; a write of the whole page mends it.
 */
static void rd_kz_checksum(struct kunit *test)
{
	struct rd_kz *s = test->priv;
	struct rd_zobj *obj;
	unsigned int k;
	u8 *p;

	for (k = 0; k < 3; k++) {
		rd_kz_fill(s->shadow + k * PAGE_SIZE, PAGE_SIZE, k * PAGE_SIZE,
			   k == 2 ? RD_KZ_HUGE : RD_KZ_COMP);
		KUNIT_ASSERT_EQ(test, rd_kz_write(test, k * PAGE_SIZE, PAGE_SIZE), 0);
	}
	obj = rd_kz_obj(test, 0);
	KUNIT_ASSERT_LT(test, obj->len, PAGE_SIZE);
	obj->data[obj->len / 2] ^= 0x10;
	obj = rd_kz_obj(test, 2);
	KUNIT_ASSERT_EQ(test, obj->len, PAGE_SIZE);
	p = kmap_local_page(obj->page);
	p[100] ^= 1;
	kunmap_local(p);

	KUNIT_EXPECT_EQ(test, rd_zstore_read(&s->rd, 0, s->buf, 0, PAGE_SIZE), -EIO);
	KUNIT_EXPECT_EQ(test, rd_zstore_read(&s->rd, 1, s->buf, 512, 512), -EIO);
	KUNIT_EXPECT_EQ(test, rd_zstore_read(&s->rd, 2 * RD_PAGE_SECTORS, s->buf,
					     0, PAGE_SIZE), -EIO);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&s->rd.zs->csum_errors), 3);
	rd_kz_expect(test, PAGE_SIZE, PAGE_SIZE);
	/* a write of part of a corrupt page cannot merge: refused */
	KUNIT_EXPECT_EQ(test, rd_kz_write(test, 512, 512), -EIO);
	KUNIT_ASSERT_EQ(test, rd_kz_write(test, 0, PAGE_SIZE), 0);
	KUNIT_ASSERT_EQ(test, rd_kz_write(test, 2 * PAGE_SIZE, PAGE_SIZE), 0);
	rd_kz_expect_all(test);
}

/*
 * An object whose checksum matches but which does not decompress (its
 * data zeroed, its checksum made anew): the read fails (-EIO), counted,
 * with lz4 and with zstd.
 */
static void rd_kz_undecompressible(struct kunit *test)
{
	struct rd_kz *s = test->priv;
	u32 comp[] = { RDMIRROR_COMP_LZ4, RDMIRROR_COMP_ZSTD };
	struct rd_zobj *obj;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(comp); i++) {
		rd_kz_teardown(s);
		KUNIT_ASSERT_EQ(test, rd_kz_setup(test, comp[i], 0), 0);
		rd_kz_fill(s->shadow, PAGE_SIZE, 0, RD_KZ_COMP);
		KUNIT_ASSERT_EQ(test, rd_kz_write(test, 0, PAGE_SIZE), 0);
		obj = rd_kz_obj(test, 0);
		KUNIT_ASSERT_LT(test, obj->len, PAGE_SIZE);
		memset(obj->data, 0, obj->len);
		obj->csum = rd_zobj_csum(obj->data, obj->len);
		KUNIT_EXPECT_EQ(test, rd_zstore_read(&s->rd, 0, s->buf, 0,
						     PAGE_SIZE), -EIO);
		KUNIT_EXPECT_EQ(test, rd_zstore_read(&s->rd, 2, s->buf, 1024,
						     512), -EIO);
		KUNIT_EXPECT_EQ(test, atomic_long_read(&s->rd.zs->csum_errors), 2);
	}
}

/* A machine check while copying an object out: -EIO, counted, reported. */
static void rd_kz_machine_check(struct kunit *test)
{
	struct rd_kz *s = test->priv;
	const struct rd_kunit_reports *mf;

	rd_kz_fill(s->shadow, PAGE_SIZE, 0, RD_KZ_COMP);
	KUNIT_ASSERT_EQ(test, rd_kz_write(test, 0, PAGE_SIZE), 0);
	mf = rd_kunit_fail_copies(test);
	KUNIT_EXPECT_EQ(test, rd_zstore_read(&s->rd, 0, s->buf, 0, PAGE_SIZE), -EIO);
	KUNIT_EXPECT_EQ(test, mf->calls, 1);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&s->rd.zs->csum_errors), 1);
	rd_kunit_mend_copies(test);
	rd_kz_expect(test, 0, PAGE_SIZE);
}

static struct kunit_case rd_kz_cases[] = {
	KUNIT_CASE(rd_kz_sub_page_lz4),
	KUNIT_CASE(rd_kz_sub_page_zstd),
	KUNIT_CASE(rd_kz_concurrent),
	KUNIT_CASE(rd_kz_discard),
	KUNIT_CASE(rd_kz_limit),
	KUNIT_CASE(rd_kz_checksum),
	KUNIT_CASE(rd_kz_undecompressible),
	KUNIT_CASE(rd_kz_machine_check),
	{}
};

struct kunit_suite rd_kunit_zstore_suite = {
	.name = "rdmirror_zstore",
	.init = rd_kz_init,
	.exit = rd_kz_exit,
	.test_cases = rd_kz_cases,
};
