/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the KUnit suites of rdmirror_kunit.ko share: their suite tables
 * (registered in rd_kunit.c) and a page allocator that fails on demand.
 */
#ifndef RD_KUNIT_H
#define RD_KUNIT_H

#include <kunit/test.h>

#include "rd_kunit_hooks.h"

#ifndef RD_KUNIT_HOOKS
#error "rdmirror's KUnit tests need a kernel with CONFIG_KUNIT, 6.9 or newer"
#endif

extern struct kunit_suite rd_kunit_store_suite;
extern struct kunit_suite rd_kunit_ctl_suite;
extern struct kunit_suite rd_kunit_disk_suite;
extern struct kunit_suite rd_kunit_zstore_suite;

/*
 * From now until the test ends, rd_store_alloc_page() in this test's
 * thread succeeds @ok more times and then fails. Returns a counter of the
 * allocations it was asked for.
 */
int *rd_kunit_fail_allocs_after(struct kunit *test, int ok);
/* The gfp flags of the last allocation rd_kunit_fail_allocs_after() saw. */
gfp_t rd_kunit_last_gfp(void);

/* What rd_store_report_mf() was asked in a test. */
struct rd_kunit_reports {
	int calls;
	unsigned long pfn;	/* of the last call */
};

/*
 * Until rd_kunit_mend_copies() or the test's end, every copy out of a
 * store page in this test's thread fails as a machine check would. Until
 * the test's end, memory failures the store reports are counted in what
 * it returns, not sent to memory_failure().
 */
const struct rd_kunit_reports *rd_kunit_fail_copies(struct kunit *test);
void rd_kunit_mend_copies(struct kunit *test);
/*
 * Until rd_kunit_mend_copies() or the test's end, copies out of the
 * cache line at @off in @page fail there, as a machine check in that line
 * would; every other copy succeeds. Memory failures are counted as with
 * rd_kunit_fail_copies().
 */
const struct rd_kunit_reports *rd_kunit_poison(struct kunit *test,
					       struct page *page,
					       unsigned int off);

#endif /* RD_KUNIT_H */
