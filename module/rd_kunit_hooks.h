/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit hooks: the tests (module/kunit/, module rdmirror_kunit) are built
 * on request (RDMIRROR_KUNIT=1, which defines RDMIRROR_KUNIT_BUILD) for
 * kernels with CONFIG_KUNIT on which they can run (compat.h). There the
 * functions they call are exported to the test namespace and page
 * allocation and copies can be stubbed; in every other build, a
 * distribution kernel with CONFIG_KUNIT and DKMS included, these hooks
 * compile to nothing: no stub check on the I/O path, no internal symbol
 * exported.
 */
#ifndef RD_KUNIT_HOOKS_H
#define RD_KUNIT_HOOKS_H

#include <linux/atomic.h>
#include <linux/build_bug.h>
#include <linux/types.h>

#include "compat.h"

#if defined(RDMIRROR_KUNIT_BUILD) && IS_ENABLED(CONFIG_KUNIT) && \
	RD_COMPAT_KUNIT_CAN_RUN
#include <kunit/static_stub.h>
#include <kunit/visibility.h>
#define RD_KUNIT_HOOKS 1
/* The kunit headers' own hooks, under names of rdmirror's. */
#define RD_VISIBLE_IF_KUNIT VISIBLE_IF_KUNIT
#define EXPORT_SYMBOL_IF_RD_KUNIT EXPORT_SYMBOL_IF_KUNIT
#define RD_STUB_REDIRECT KUNIT_STATIC_STUB_REDIRECT
/* rd_disk.c's block major, for the tests to open disks by number. */
extern int rd_major;
/* rd_store.c: discarded pages freed by one RCU callback each. */
extern atomic_long_t rd_store_single_frees;
struct bio;
struct page;
struct rd_device;
/*
 * rd_store.c: one piece read (within one page), and a bio read with
 * @batch pieces an RCU section (1: each piece its own section and walk).
 * Returns 0, or -EIO where the page's memory failed or holds no data.
 */
int rd_store_read(struct rd_device *rd, sector_t sector, struct page *dst,
		  unsigned int dst_off, unsigned int len);
int rd_store_read_bio_batch(struct rd_device *rd, struct bio *bio,
			    unsigned int batch);
/* rd_zstore.c: one piece read (within one page); 0, or -EIO. */
int rd_zstore_read(struct rd_device *rd, sector_t sector, struct page *dst,
		   unsigned int dst_off, unsigned int len);
/* rd_store.c: every copy a write makes into a page already in the store. */
void rd_store_copy_in(struct page *page, unsigned int off, struct page *src,
		      unsigned int src_off, unsigned int len);
#else
/*
 * No-ops that still name their symbol, so that a misspelt one fails to
 * build on every kernel, not only on a test kernel.
 */
#define RD_VISIBLE_IF_KUNIT static
#define RD_NOT_EXPORTED(symbol) static_assert(sizeof(typeof(symbol) *))
#define EXPORT_SYMBOL_IF_RD_KUNIT RD_NOT_EXPORTED
#define RD_STUB_REDIRECT(real_fn_name, args...) ((void)(real_fn_name))
#endif

#endif /* RD_KUNIT_HOOKS_H */
