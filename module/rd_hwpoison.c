// SPDX-License-Identifier: GPL-2.0
/*
 * Whether memory_failure() has run since rdmirror loaded.
 *
 * memory_failure() (a machine check, a patrol scrub's report, the
 * hwpoison injector) sets a page's HWPoison flag. On a page rd owns it can
 * do nothing more and leaves the page to rd, whose reads of it then fail,
 * so that md reads the block from a disk and writes it back. The flag is
 * in the struct page, which a read otherwise never touches: reading it
 * costs a cache miss and a TLB miss per 4 KiB (docs/BENCHMARKS.md), which
 * brd does not pay. So rd reads
 * the flag only once memory_failure() has run. memory_failure() reports
 * every call on its tracepoint, memory_failure_event (where the kernel has
 * it: in 6.x only with CONFIG_RAS); the tracepoint is not exported to
 * modules, but found by name among the kernel's, as tracers find theirs.
 * Where it cannot be found, rd reads the flag on every page.
 *
 * The tracepoint fires after the flag is set, at the end of
 * memory_failure(): a read in between copies the page as a read a moment
 * earlier would have, with copy_mc_to_kernel(), which fails the read
 * where the memory itself is bad and the CPU can recover.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/printk.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "compat.h"
#include "rd_device.h"

bool rd_hwpoison_seen __read_mostly;
EXPORT_SYMBOL_IF_RD_KUNIT(rd_hwpoison_seen);

static struct tracepoint *rd_mf_tp;

/* The tracepoint's arguments: TP_PROTO(unsigned long pfn, int type, int result). */
static void rd_mf_probe(void *data, unsigned long pfn, int type, int result)
{
	if (!READ_ONCE(rd_hwpoison_seen)) {
		WRITE_ONCE(rd_hwpoison_seen, true);
		pr_info("memory failure reported at pfn %#lx: reads check each page's hwpoison flag from now on\n",
			pfn);
	}
}

static void rd_mf_find(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "memory_failure_event"))
		rd_mf_tp = tp;
}

void rd_hwpoison_init(void)
{
	for_each_kernel_tracepoint(rd_mf_find, NULL);
	if (rd_mf_tp && !tracepoint_probe_register(rd_mf_tp, rd_mf_probe, NULL))
		return;
	rd_mf_tp = NULL;
	/* No report to wait for: check every page, as a machine that had one. */
	WRITE_ONCE(rd_hwpoison_seen, true);
	pr_info("memory_failure_event not found: reads check each page's hwpoison flag\n");
}

void rd_hwpoison_exit(void)
{
	if (!rd_mf_tp)
		return;
	tracepoint_probe_unregister(rd_mf_tp, rd_mf_probe, NULL);
	/* No CPU may still be in the probe when the module's text goes. */
	tracepoint_synchronize_unregister();
}
