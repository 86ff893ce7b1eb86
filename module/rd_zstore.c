// SPDX-License-Identifier: GPL-2.0
/*
 * The store of a compressed rd disk (RDMIRROR_ADD_COMPRESS): the disk's
 * xarray (rd_device.pages) holds, per page, nothing for a page of zeros,
 * a value entry for a page of one repeated 32-bit word, or a struct
 * rd_zobj (rd_zstore.h): the page compressed, or whole where it does not
 * compress to 3/4 of a page.
 *
 * Objects are rd's own, one allocation each, contiguous: a read copies
 * one out with the machine-check-safe copy (rd_store_copy_mc()), checks
 * its checksum and decompresses the copy. zsmalloc is not used: its
 * object API changed in 6.15, 6.16 and 7.0, and it copies an object that
 * spans two pages with a plain memcpy(), which a machine check in that
 * memory would not survive.
 *
 * Readers take no lock of the store: under RCU they copy the object the
 * slot holds, and a writer frees the object it replaced after a grace
 * period. Writers of one page serialise on one of RD_ZLOCKS mutexes
 * (the page's index picks it): a write of part of a page decompresses
 * the page, merges and compresses it again, and a second writer must
 * start from the first one's result. Lock order: that mutex, then a
 * compressor stream's (rd_zcomp.c). A NOWAIT bio takes either only if
 * free (-EAGAIN otherwise).
 *
 * Objects come from size classes of rd's own, RD_ZCLASS_STEP bytes
 * apart (kmem caches, which the slab allocator may share with others
 * of the same size): kmalloc's classes are powers of two above 256
 * bytes, and a page that lz4 compresses to 1.1 KiB (75% compressible
 * data) would take 2 KiB there, halving the ratio; here it takes at
 * most RD_ZCLASS_STEP - 1 bytes more than it needs.
 *
 * Memory is counted exactly: the object size of each object's class
 * (what ksize() would say of it), plus a page for each page kept whole.
 * It is charged against the disk's own bound and, in whole pages,
 * against the module's (rd_store_mem_charge()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bio.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <linux/xxhash.h>

#include "uapi/rdmirror.h"
#include "rd_device.h"
#include "rd_kunit_hooks.h"
#include "rd_zstore.h"

u32 rd_zobj_csum(const void *data, unsigned int len)
{
	return xxh32(data, len, 0);
}
EXPORT_SYMBOL_IF_RD_KUNIT(rd_zobj_csum);

static bool rd_zobj_huge(const struct rd_zobj *obj)
{
	return obj->len == PAGE_SIZE;
}

#define RD_ZCLASS_STEP		64
#define RD_ZCLASSES \
	DIV_ROUND_UP(offsetof(struct rd_zobj, data) + RD_ZCOMP_MAX_LEN, \
		     RD_ZCLASS_STEP)
static struct kmem_cache *rd_zclass[RD_ZCLASSES];
static char rd_zclass_name[RD_ZCLASSES][24];

/* The class of an object of @len bytes (PAGE_SIZE: the header alone). */
static struct kmem_cache *rd_zobj_class(unsigned int len)
{
	size_t size = offsetof(struct rd_zobj, data) +
		      (len == PAGE_SIZE ? sizeof(struct page *) : len);

	return rd_zclass[DIV_ROUND_UP(size, RD_ZCLASS_STEP) - 1];
}

/* What an object of @len bytes takes (PAGE_SIZE: and a whole page). */
static size_t rd_zobj_alloc_size(unsigned int len)
{
	return kmem_cache_size(rd_zobj_class(len)) +
	       (len == PAGE_SIZE ? PAGE_SIZE : 0);
}

void rd_zstore_module_exit(void)
{
	unsigned int i;

	for (i = 0; i < RD_ZCLASSES; i++)
		kmem_cache_destroy(rd_zclass[i]);
}

int rd_zstore_module_init(void)
{
	unsigned int i;

	for (i = 0; i < RD_ZCLASSES; i++) {
		snprintf(rd_zclass_name[i], sizeof(rd_zclass_name[i]),
			 "rdmirror_z%u", (i + 1) * RD_ZCLASS_STEP);
		/* (8-aligned: the header's pointers) */
		rd_zclass[i] = kmem_cache_create(rd_zclass_name[i],
						 (i + 1) * RD_ZCLASS_STEP, 8,
						 0, NULL);
		if (!rd_zclass[i]) {
			rd_zstore_module_exit();
			return -ENOMEM;
		}
	}
	return 0;
}

/* The bytes @entry takes: 0 for a hole or a value entry. */
static size_t rd_zentry_size(void *entry)
{
	if (!entry || xa_is_value(entry))
		return 0;
	return rd_zobj_alloc_size(((struct rd_zobj *)entry)->len);
}

static atomic_long_t *rd_zentry_counter(struct rd_zstore *zs, void *entry)
{
	if (!entry)
		return NULL;
	if (xa_is_value(entry))
		return &zs->same_pages;
	return rd_zobj_huge(entry) ? &zs->huge_pages : &zs->comp_pages;
}

/* A page whose memory failed goes back to no allocator. */
static void rd_zobj_free(struct rd_zobj *obj)
{
	if (rd_zobj_huge(obj) && !PageHWPoison(obj->page))
		__free_page(obj->page);
	kmem_cache_free(rd_zobj_class(obj->len), obj);
}

static void rd_zobj_free_rcu(struct rcu_head *head)
{
	rd_zobj_free(container_of(head, struct rd_zobj, rcu));
}

/* Free @entry once no reader can be copying it (at once if @quiesced). */
static void rd_zentry_free(void *entry, bool quiesced)
{
	struct rd_zobj *obj = entry;

	if (!entry || xa_is_value(entry))
		return;
	if (quiesced)
		rd_zobj_free(obj);
	else
		call_rcu(&obj->rcu, rd_zobj_free_rcu);
}

/*
 * Change the disk's bytes by @delta: 0, or -ENOSPC where growing would
 * pass the disk's bound or, in whole pages, the module's.
 */
static int rd_zs_account(struct rd_zstore *zs, s64 delta)
{
	u64 limit = READ_ONCE(zs->mem_limit);
	unsigned long pages;
	int err = 0;
	u64 bytes;

	spin_lock(&zs->acct_lock);
	bytes = zs->bytes + delta;
	pages = DIV_ROUND_UP(bytes, PAGE_SIZE);
	if (delta > 0) {
		if (limit && bytes > limit)
			err = -ENOSPC;
		else if (pages > zs->charged &&
			 rd_store_mem_charge(pages - zs->charged))
			err = -ENOSPC;
		else if (pages > zs->charged)
			zs->charged = pages;
	} else if (pages < zs->charged) {
		rd_store_mem_uncharge(zs->charged - pages);
		zs->charged = pages;
	}
	if (!err)
		zs->bytes = bytes;
	spin_unlock(&zs->acct_lock);
	return err;
}

/*
 * Whether the disk's bound leaves less than RD_MEM_ROOM_PAGES: a disk
 * that had a write refused refuses every write until then (rd_io.c).
 */
bool rd_zstore_full(struct rd_device *rd)
{
	struct rd_zstore *zs = rd->zs;
	u64 limit = READ_ONCE(zs->mem_limit);

	return limit &&
	       READ_ONCE(zs->bytes) + RD_MEM_ROOM_PAGES * PAGE_SIZE > limit;
}

u64 rd_zstore_bytes(struct rd_device *rd)
{
	return READ_ONCE(rd->zs->bytes);
}
EXPORT_SYMBOL_IF_RD_KUNIT(rd_zstore_bytes);

u64 rd_zstore_data_bytes(struct rd_device *rd)
{
	struct rd_zstore *zs = rd->zs;

	return ((u64)atomic_long_read(&zs->same_pages) +
		atomic_long_read(&zs->huge_pages) +
		atomic_long_read(&zs->comp_pages)) << PAGE_SHIFT;
}
EXPORT_SYMBOL_IF_RD_KUNIT(rd_zstore_data_bytes);

/*
 * Whether the page at @page is one 32-bit word repeated, which a value
 * entry holds: then *@entry is that entry, or NULL for a page of zeros.
 */
static bool rd_zs_same(const void *page, void **entry)
{
	const unsigned long *w = page;
	unsigned long first = w[0];
	unsigned int i;
	u32 word = (u32)first;

	for (i = 1; i < PAGE_SIZE / sizeof(*w); i++)
		if (w[i] != first)
			return false;
#if BITS_PER_LONG == 64
	if (first >> 32 != word)
		return false;
#endif
	if (word > LONG_MAX)
		return false;
	*entry = word ? xa_mk_value(word) : NULL;
	return true;
}

/*
 * Copy @obj out, under the caller's RCU section (or its page lock):
 * a compressed one into strm->buf, a whole page into @page. Returns 0,
 * or -EIO where the copy met a machine check (reported, counted).
 */
static int rd_zs_copy_obj(struct rd_device *rd, struct rd_zstrm *strm,
			  struct rd_zobj *obj, u32 *csum, u32 *len, void *page)
{
	struct { u32 csum; u32 len; } h;
	struct page *hp = NULL;
	unsigned long left;
	void *from;

	left = rd_store_copy_mc(&h, &obj->csum, sizeof(h));
	if (!left && h.len == PAGE_SIZE) {
		left = rd_store_copy_mc(&hp, &obj->page, sizeof(hp));
		if (!left) {
			from = kmap_local_page(hp);
			left = PageHWPoison(hp) ? PAGE_SIZE :
			       rd_store_copy_mc(page, from, PAGE_SIZE);
			kunmap_local(from);
		}
	} else if (!left && h.len <= RD_ZCOMP_MAX_LEN) {
		left = rd_store_copy_mc(strm->buf, obj->data, h.len);
	} else if (!left) {
		/* a length no object has: its header is wrong */
		*len = h.len;
		*csum = ~0U;
		return 0;
	}
	if (unlikely(left)) {
		atomic_long_inc(&rd->zs->csum_errors);
		pr_err_ratelimited("rd%d: memory error reading a compressed page: read failed\n",
				   rd->index);
		rd_store_report_mf(hp ? hp : virt_to_page(obj));
		return -EIO;
	}
	*csum = h.csum;
	*len = h.len;
	return 0;
}

/*
 * The page the copy of an object holds, into @page (which holds the
 * copy already if it was a whole page): 0, or -EIO where its checksum
 * does not match or it does not decompress to exactly a page (counted).
 */
static int rd_zs_decode(struct rd_device *rd, struct rd_zstrm *strm,
			pgoff_t idx, u32 csum, u32 len, void *page)
{
	const void *data = len == PAGE_SIZE ? page : strm->buf;

	if (len > RD_ZCOMP_MAX_LEN && len != PAGE_SIZE)
		goto bad;
	if (rd_zobj_csum(data, len) != csum)
		goto bad;
	if (len == PAGE_SIZE ||
	    !rd_zcomp_decompress(rd->zs->comp, strm, data, len, page))
		return 0;
bad:
	atomic_long_inc(&rd->zs->csum_errors);
	pr_err_ratelimited("rd%d: compressed page at sector %llu is corrupt (checksum or length): read failed\n",
			   rd->index, (unsigned long long)rd_page_sector(idx));
	return -EIO;
}

/* The page @entry holds, into @page. The caller holds the page's lock. */
static int rd_zs_load(struct rd_device *rd, struct rd_zstrm *strm,
		      pgoff_t idx, void *entry, void *page)
{
	u32 csum, len;
	int err;

	if (!entry) {
		memset(page, 0, PAGE_SIZE);
		return 0;
	}
	if (xa_is_value(entry)) {
		memset32(page, xa_to_value(entry), PAGE_SIZE / 4);
		return 0;
	}
	err = rd_zs_copy_obj(rd, strm, entry, &csum, &len, page);
	return err ?: rd_zs_decode(rd, strm, idx, csum, len, page);
}

static struct mutex *rd_zs_lock(struct rd_zstore *zs, pgoff_t idx, bool nowait)
{
	struct mutex *lock = &zs->locks[idx % RD_ZLOCKS];

	if (!nowait)
		mutex_lock(lock);
	else if (!mutex_trylock(lock))
		return NULL;
	return lock;
}

/*
 * What the page at @data (strm->page, or the writer's own page) becomes:
 * false with *@entry set where it needs no object (a value entry, or
 * NULL for zeros); true where it does, with *@clen its length, the
 * compressed bytes in strm->buf, or PAGE_SIZE and the page in strm->page
 * where it does not compress to RD_ZCOMP_MAX_LEN.
 */
static bool rd_zs_encode(struct rd_zstore *zs, struct rd_zstrm *strm,
			 const void *data, void **entry, unsigned int *clen)
{
	if (rd_zs_same(data, entry))
		return false;
	*clen = rd_zcomp_compress(zs->comp, strm, data);
	if (!*clen) {
		*clen = PAGE_SIZE;
		if (data != strm->page)
			memcpy(strm->page, data, PAGE_SIZE);
	}
	return true;
}

static struct rd_zobj *rd_zs_alloc(struct rd_zstrm *strm, unsigned int clen,
				   gfp_t gfp)
{
	struct rd_zobj *obj;

	gfp |= __GFP_NOWARN;
	obj = kmem_cache_alloc(rd_zobj_class(clen), gfp);
	if (!obj)
		return NULL;
	if (clen == PAGE_SIZE) {
		obj->page = alloc_page(gfp | __GFP_HIGHMEM);
		if (!obj->page) {
			kmem_cache_free(rd_zobj_class(clen), obj);
			return NULL;
		}
		memcpy_to_page(obj->page, 0, strm->page, PAGE_SIZE);
		obj->csum = rd_zobj_csum(strm->page, PAGE_SIZE);
	} else {
		memcpy(obj->data, strm->buf, clen);
		obj->csum = rd_zobj_csum(strm->buf, clen);
	}
	obj->len = clen;
	return obj;
}

/*
 * Write @len bytes at @off of page @idx from @src at @src_off (zeros if
 * @src is NULL). Returns 0, -ENOSPC past a bound, -ENOMEM, -EAGAIN
 * (NOWAIT: a lock was taken; @gfp does not block), or -EIO where the
 * page held before, needed for a partial write, could not be read.
 */
static int rd_zs_write_page(struct rd_device *rd, pgoff_t idx,
			    unsigned int off, unsigned int len,
			    struct page *src, unsigned int src_off, gfp_t gfp)
{
	bool nowait = !gfpflags_allow_blocking(gfp);
	struct rd_zstore *zs = rd->zs;
	void *old, *new = NULL;
	struct rd_zstrm *strm;
	unsigned int clen = 0;
	bool obj = false;
	struct mutex *lock;	/* the page's */
	atomic_long_t *cnt;
	s64 delta;
	void *map;
	int err;

	lock = rd_zs_lock(zs, idx, nowait);
	if (!lock)
		return -EAGAIN;
	strm = rd_zcomp_get(zs->comp, nowait);
	if (!strm) {
		mutex_unlock(lock);
		return -EAGAIN;
	}
	/* only holders of this page's lock change or free its entry */
	old = xa_load(&rd->pages, idx);
	if (len == PAGE_SIZE && src) {
		map = kmap_local_page(src);
		obj = rd_zs_encode(zs, strm, map + src_off, &new, &clen);
		kunmap_local(map);
	} else if (len < PAGE_SIZE) {
		err = rd_zs_load(rd, strm, idx, old, strm->page);
		if (err)
			goto out;
		if (src)
			memcpy_from_page(strm->page + off, src, src_off, len);
		else
			memset(strm->page + off, 0, len);
		obj = rd_zs_encode(zs, strm, strm->page, &new, &clen);
	}
	/* (a whole page of zeros: NULL, a hole) */

	delta = (s64)(obj ? rd_zobj_alloc_size(clen) : 0) -
		(s64)rd_zentry_size(old);
	err = rd_zs_account(zs, delta);
	if (err)
		goto out;
	if (obj) {
		new = rd_zs_alloc(strm, clen, gfp);
		if (!new) {
			err = -ENOMEM;
			goto out_unaccount;
		}
	}
	if (new) {
		old = xa_store(&rd->pages, idx, new, gfp | __GFP_NOWARN);
		if (xa_is_err(old)) {
			err = xa_err(old);
			rd_zentry_free(new, true);
			goto out_unaccount;
		}
	} else {
		old = xa_erase(&rd->pages, idx);
	}
	cnt = rd_zentry_counter(zs, old);
	if (cnt)
		atomic_long_dec(cnt);
	cnt = rd_zentry_counter(zs, new);
	if (cnt)
		atomic_long_inc(cnt);
	rd_zentry_free(old, false);
	goto out;

out_unaccount:
	rd_zs_account(zs, -delta);
out:
	rd_zcomp_put(strm);
	mutex_unlock(lock);
	return err;
}

int rd_zstore_write(struct rd_device *rd, sector_t sector, struct page *src,
		    unsigned int src_off, unsigned int len, gfp_t gfp)
{
	return rd_zs_write_page(rd, rd_sector_page(sector),
				rd_sector_offset(sector), len, src, src_off, gfp);
}
EXPORT_SYMBOL_IF_RD_KUNIT(rd_zstore_write);

/*
 * Read @len bytes of page @idx at @off into @dst at @dst_off: 0, or -EIO
 * where the object could not be read or is corrupt.
 */
static int rd_zs_read_piece(struct rd_device *rd, struct rd_zstrm *strm,
			    pgoff_t idx, unsigned int off, unsigned int len,
			    struct page *dst, unsigned int dst_off)
{
	void *to = kmap_local_page(dst);
	void *page = len == PAGE_SIZE ? to + dst_off : strm->page;
	u32 csum, len_obj;
	void *entry;
	int err = 0;

	rcu_read_lock();
	entry = xa_load(&rd->pages, idx);
	if (!entry || xa_is_value(entry)) {
		rcu_read_unlock();
		if (entry)
			memset32(to + dst_off, xa_to_value(entry), len / 4);
		else
			memset(to + dst_off, 0, len);
		goto out;
	}
	err = rd_zs_copy_obj(rd, strm, entry, &csum, &len_obj, page);
	rcu_read_unlock();
	if (!err)
		err = rd_zs_decode(rd, strm, idx, csum, len_obj, page);
	if (!err && page != to + dst_off)
		memcpy(to + dst_off, page + off, len);
out:
	kunmap_local(to);
	flush_dcache_page(dst);
	return err;
}

#ifdef RD_KUNIT_HOOKS
/* One piece (within one page), for the tests: 0, or -EIO. */
int rd_zstore_read(struct rd_device *rd, sector_t sector, struct page *dst,
		   unsigned int dst_off, unsigned int len)
{
	struct rd_zstrm *strm = rd_zcomp_get(rd->zs->comp, false);
	int err;

	err = rd_zs_read_piece(rd, strm, rd_sector_page(sector),
			       rd_sector_offset(sector), len, dst, dst_off);
	rd_zcomp_put(strm);
	return err;
}
EXPORT_SYMBOL_IF_RD_KUNIT(rd_zstore_read);
#endif

/* Read a bio: 0, -EIO at the first piece that failed, or -EAGAIN (NOWAIT). */
int rd_zstore_read_bio(struct rd_device *rd, struct bio *bio)
{
	sector_t sector = bio->bi_iter.bi_sector;
	struct bvec_iter iter;
	struct rd_zstrm *strm;
	struct bio_vec bv;
	int err = 0;

	strm = rd_zcomp_get(rd->zs->comp, bio->bi_opf & REQ_NOWAIT);
	if (!strm)
		return -EAGAIN;
	bio_for_each_segment(bv, bio, iter) {
		unsigned int done = 0;

		while (done < bv.bv_len) {
			unsigned int off = rd_sector_offset(sector);
			unsigned int len = min_t(unsigned int, bv.bv_len - done,
						 PAGE_SIZE - off);

			err = rd_zs_read_piece(rd, strm, rd_sector_page(sector),
					       off, len, bv.bv_page,
					       bv.bv_offset + done);
			if (unlikely(err))
				goto out;
			done += len;
			sector += len >> SECTOR_SHIFT;
		}
	}
out:
	rd_zcomp_put(strm);
	return err;
}
EXPORT_SYMBOL_IF_RD_KUNIT(rd_zstore_read_bio);

/* Free the entry of page @idx, under its lock: 0, or -EAGAIN (NOWAIT). */
static int rd_zs_free_page(struct rd_device *rd, pgoff_t idx, bool nowait,
			   bool quiesced)
{
	struct rd_zstore *zs = rd->zs;
	struct mutex *lock;	/* the page's */
	atomic_long_t *cnt;
	void *old;

	lock = rd_zs_lock(zs, idx, nowait);
	if (!lock)
		return -EAGAIN;
	old = xa_erase(&rd->pages, idx);
	cnt = rd_zentry_counter(zs, old);
	if (cnt)
		atomic_long_dec(cnt);
	rd_zs_account(zs, -(s64)rd_zentry_size(old));
	rd_zentry_free(old, quiesced);
	mutex_unlock(lock);
	return 0;
}

/*
 * Discard or write zeroes over [sector, sector + nr_sects): whole pages
 * freed (RD_DISCARD_KEEP_PAGES changes nothing here: a hole takes no
 * memory and reads as zeros), partial ones written with zeros. Returns
 * 0, or the first error (-EAGAIN for a lock a NOWAIT discard could not
 * take, -ENOMEM, -ENOSPC, -EIO where a partial page could not be read);
 * the rest of the range is done all the same.
 */
int rd_zstore_discard(struct rd_device *rd, sector_t sector,
		      sector_t nr_sects, unsigned int flags)
{
	gfp_t gfp = flags & RD_DISCARD_MAY_SLEEP ? GFP_NOIO : GFP_NOWAIT;
	bool nowait = !(flags & RD_DISCARD_MAY_SLEEP);
	bool quiesced = flags & RD_DISCARD_QUIESCED;
	sector_t end = sector + nr_sects;
	int err = 0, ret;

	while (sector < end) {
		pgoff_t idx = rd_sector_page(sector);
		unsigned int off = rd_sector_offset(sector);
		unsigned int len = min_t(sector_t, PAGE_SIZE - off,
					 (end - sector) << SECTOR_SHIFT);
		unsigned long next = idx;

		if (len < PAGE_SIZE) {
			ret = rd_zs_write_page(rd, idx, off, len, NULL, 0, gfp);
			sector += len >> SECTOR_SHIFT;
		} else {
			/* whole pages: only those present are visited */
			pgoff_t last = rd_sector_page(round_down(end, RD_PAGE_SECTORS)) - 1;

			ret = 0;
			if (xa_find(&rd->pages, &next, last, XA_PRESENT)) {
				ret = rd_zs_free_page(rd, next, nowait, quiesced);
				sector = rd_page_sector(next + 1);
			} else {
				sector = rd_page_sector(last + 1);
			}
			if (!nowait)
				cond_resched();
		}
		if (ret && !err)
			err = ret;
	}
	return err;
}
EXPORT_SYMBOL_IF_RD_KUNIT(rd_zstore_discard);

int rd_zstore_init(struct rd_device *rd, u32 comp, u64 mem_limit)
{
	struct rd_zstore *zs;
	unsigned int i;

	zs = kzalloc(sizeof(*zs), GFP_KERNEL);
	if (!zs)
		return -ENOMEM;
	zs->comp = rd_zcomp_create(comp);
	if (!zs->comp) {
		kfree(zs);
		return -ENOMEM;
	}
	zs->mem_limit = mem_limit;
	spin_lock_init(&zs->acct_lock);
	for (i = 0; i < RD_ZLOCKS; i++)
		mutex_init(&zs->locks[i]);
	rd->zs = zs;
	return 0;
}
EXPORT_SYMBOL_IF_RD_KUNIT(rd_zstore_init);

/* Called once no I/O can reach the disk any more; the xarray stays. */
void rd_zstore_destroy(struct rd_device *rd)
{
	struct rd_zstore *zs = rd->zs;
	unsigned long idx;
	void *entry;

	if (!zs)
		return;
	xa_for_each(&rd->pages, idx, entry) {
		rd_zentry_free(entry, true);
		cond_resched();
	}
	xa_destroy(&rd->pages);
	rd_store_mem_uncharge(zs->charged);
	rd_zcomp_destroy(zs->comp);
	kfree(zs);
	rd->zs = NULL;
}
EXPORT_SYMBOL_IF_RD_KUNIT(rd_zstore_destroy);

const char *rd_zstore_compressor(struct rd_device *rd)
{
	return rd_zcomp_name(rd->zs->comp);
}
