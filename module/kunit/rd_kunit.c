// SPDX-License-Identifier: GPL-2.0
/*
 * rdmirror_kunit.ko: the module's KUnit tests. Loading it runs them (the
 * results are in /sys/kernel/debug/kunit/rdmirror_*). Built only for
 * kernels with CONFIG_KUNIT, and never installed by DKMS.
 */
#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/cache.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/string.h>

#include "compat.h"
#include "rd_device.h"
#include "rd_kunit.h"

/*
 * State of the failing allocator. KUnit runs one test at a time and the
 * stub only redirects calls made in that test's thread, so one copy does.
 */
static struct {
	int ok;		/* allocations left before they fail */
	int calls;	/* allocations asked for */
	gfp_t gfp;	/* the flags of the last one */
} rd_kunit_alloc;

static struct page *rd_kunit_alloc_page(gfp_t gfp)
{
	rd_kunit_alloc.calls++;
	rd_kunit_alloc.gfp = gfp;
	if (rd_kunit_alloc.ok <= 0)
		return NULL;
	rd_kunit_alloc.ok--;
	return alloc_page(gfp);
}

int *rd_kunit_fail_allocs_after(struct kunit *test, int ok)
{
	rd_kunit_alloc.ok = ok;
	rd_kunit_alloc.calls = 0;
	/* Deactivated by KUnit when the test ends. */
	kunit_activate_static_stub(test, rd_store_alloc_page,
				   rd_kunit_alloc_page);
	return &rd_kunit_alloc.calls;
}

gfp_t rd_kunit_last_gfp(void)
{
	return rd_kunit_alloc.gfp;
}

/* A copy that meets a machine check at its first byte. */
static unsigned long rd_kunit_copy_fails(void *dst, const void *src, size_t len)
{
	return len;
}

/* The memory failures reported since rd_kunit_fail_copies(), as one test sees them. */
static struct rd_kunit_reports rd_kunit_mf;

static void rd_kunit_report_mf(struct page *page)
{
	rd_kunit_mf.calls++;
	rd_kunit_mf.pfn = page_to_pfn(page);
}

const struct rd_kunit_reports *rd_kunit_fail_copies(struct kunit *test)
{
	rd_kunit_mf = (struct rd_kunit_reports){ 0 };
	kunit_activate_static_stub(test, rd_store_copy_mc, rd_kunit_copy_fails);
	/* until the test ends: the pages are not bad, memory_failure() must not take them */
	kunit_activate_static_stub(test, rd_store_report_mf, rd_kunit_report_mf);
	return &rd_kunit_mf;
}

void rd_kunit_mend_copies(struct kunit *test)
{
	kunit_deactivate_static_stub(test, rd_store_copy_mc);
}

/* The poisoned line of rd_kunit_poison(): copies that reach it stop there. */
static const char *rd_kunit_poisoned;

static unsigned long rd_kunit_copy_to_poison(void *dst, const void *src,
					     size_t len)
{
	const char *from = src;

	if (rd_kunit_poisoned >= from + len ||
	    rd_kunit_poisoned + SMP_CACHE_BYTES <= from) {
		memcpy(dst, src, len);
		return 0;
	}
	if (rd_kunit_poisoned <= from)
		return len;
	memcpy(dst, src, rd_kunit_poisoned - from);
	return len - (rd_kunit_poisoned - from);
}

const struct rd_kunit_reports *rd_kunit_poison(struct kunit *test,
					       struct page *page,
					       unsigned int off)
{
	rd_kunit_mf = (struct rd_kunit_reports){ 0 };
	/* (the store's pages are lowmem here: kmap_local_page() is page_address()) */
	rd_kunit_poisoned = (const char *)page_address(page) +
			    round_down(off, SMP_CACHE_BYTES);
	kunit_activate_static_stub(test, rd_store_copy_mc, rd_kunit_copy_to_poison);
	kunit_activate_static_stub(test, rd_store_report_mf, rd_kunit_report_mf);
	return &rd_kunit_mf;
}

kunit_test_suites(&rd_kunit_store_suite, &rd_kunit_ctl_suite,
		  &rd_kunit_disk_suite, &rd_kunit_zstore_suite);

MODULE_DESCRIPTION("KUnit tests for rdmirror");
MODULE_LICENSE("GPL");
RD_IMPORT_KUNIT_NS();
