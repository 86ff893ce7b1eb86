// SPDX-License-Identifier: GPL-2.0
/*
 * --restore's add of the fast member (restore_disk.h's restore_add()): a
 * RAM disk attached, or the blank member disk, brought in by the warm
 * start (warmup.h) or added for md to recover in full.
 */
#include "mirror/restore_disk.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdmirror.h>

#include "lib/config.h"
#include "lib/errors.h"
#include "lib/size.h"
#include "lib/sysfs.h"
#include "lib/util.h"
#include "md/md.h"
#include "md/md_ops.h"
#include "mirror/assemble.h"
#include "mirror/compress.h"
#include "mirror/rd_prepare.h"
#include "mirror/restore_checks.h"
#include "mirror/restore_steps.h"
#include "mirror/steps.h"
#include "mirror/warmup.h"
#include "rd/control.h"

#define POLL_MS		500
#define NODE_WAIT_MS	3000

static int attach_disk(struct boot_item *it, const struct config *cfg, const struct restore_slot *s, unsigned *index)
{
	struct rd_spec spec = { .size = s->size, .prealloc = s->prealloc, .comp = s->comp, .mem_limit = s->mem_limit };
	uint64_t size = s->size;
	int fd, r, rc;
	char *path;

	/* --ignore-memory skipped restore_fits_compressed(): the bound is then RAM less the reserve */
	if (spec.comp && !spec.mem_limit && compress_limit(cfg, true, it->spec, &spec.mem_limit))
		return boot_item_take_error(it);
	if ((rc = control_open(true, &fd)))
		return boot_item_take_error(it);
	r = ctl_add(fd, &spec, index);
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r < 0)
		return boot_item_fail(it, errno_code(-r),
				      attach_error(-r, size, spec.prealloc ? "prealloc" : NULL, spec.comp));
	it->rd = xasprintf("%s%u", RDMIRROR_DISK_PREFIX, *index);
	it->has_size = true;
	it->size = size;
	path = md_dev_path(it->rd);
	for (int waited = 0; !path_exists(path) && waited < NODE_WAIT_MS; waited += POLL_MS)
		util_sleep_ms(POLL_MS);
	r = path_exists(path);
	free(path);
	if (!r) {
		boot_item_fail(it, "ENODEV", xasprintf("%s/%s did not appear within 3 s: is udev/devtmpfs running?",
						       dev_root(), it->rd));
		if (restore_detach_disk(*index))
			error_reset();	/* the missing node is the error to show */
		return -1;
	}
	rd_prepare_count_io(*index);
	return 0;
}

/*
 * Start the warm-up copy into the attached disk. 0, or -1 with a note on
 * why not (the caller adds the disk the usual way then).
 */
static int warm_start(struct boot_item *it, const struct config *cfg, const char *mdname, const struct md_super *sb,
		      char **note)
{
	struct warm_speed speed;
	char *msg = NULL;
	int r = rd_prepare_for_md(it->rd, mdname, &msg);

	speed.raise = config_recovery_speed(cfg, &speed.min, &speed.max);
	if (r == 0)
		r = warmup_start(mdname, it->rd, sb, &speed, &msg);
	if (r < 0) {
		*note = xasprintf("no warm start (%s)", msg ? msg : strerror(-r));
		free(msg);
		return -1;
	}
	return 0;
}

/* The attached disk added (md recovers it in full), then grown into a new slot when s->grow. 0 or -1. */
static int restore_add_cold(struct boot_item *it, const struct restore_slot *s, unsigned index)
{
	char *msg = NULL, *path = md_dev_path(it->rd), *words, *wm, *sz;
	struct md_array a;
	const struct md_member *rm;
	int r;

	if ((r = rd_prepare_for_md(it->rd, s->mdname, &msg)) < 0 ||
	    (r = mdadm_call(NULL, &msg, s->dev, "--add", path, NULL)) < 0) {
		free(path);
		boot_item_fail(it, errno_code(-r), msg);
		if (!s->disk && restore_detach_disk(index))
			error_reset();	/* the add failed: that is the error to show */
		return -1;
	}
	free(path);
	free(msg);
	if ((s->grow && restore_grow_to(it, s->dev, s->raid_disks + 1) < 0))
		return -1;
	it->action = "added";
	if (restore_fix_write_mostly(it, s->mdname) < 0)
		return -1;
	if (md_array_read(s->mdname, &a) == 0) {
		rm = restore_rd_member(&a);
		words = rm ? restore_sync_words(&a, rm) : xstrdup("not in the array");
		md_array_clear(&a);
	} else {
		words = xstrdup("state unknown");
	}
	wm = restore_join_wm(it);
	sz = size_mib_str(s->size);
	it->summary = xasprintf("%s%s%sattached %s (%s%s), added to %s%s%s%s%s, %s", s->note ? s->note : "",
				s->note ? ", " : "", s->compacted ? "disks moved below the RAM slot, " : "",
				it->rd, sz, s->prealloc ? ", preallocated" : "", s->mdname,
				s->grow ? " in a new slot" : "",
				it->nwm ? ", " : "", wm, it->nwm ? " write-mostly" : "", words);
	free(sz);
	free(wm);
	free(words);
	return 0;
}

/* A RAM disk attached (or the blank member disk s->disk) and brought in by the warm start, or added. */
int restore_add(struct boot_item *it, const struct config *cfg, const struct restore_slot *s)
{
	char *warm_note = NULL, *sz;
	struct md_super sb;
	bool made = false, warm;
	unsigned index = 0;
	int rc = 0;

	warm = restore_warm_choice(s->mdname, s->size, s->compacted || s->grow, false, &sb, &made, &warm_note);
	if (!s->disk && attach_disk(it, cfg, s, &index) < 0) {
		free(warm_note);
		return -1;
	}
	if (warm && warm_start(it, cfg, s->mdname, &sb, &warm_note) == 0) {
		/* the disks: write-mostly again once it is in sync, by the daemon (warmup.h) */
		it->action = "warming";
		sz = size_mib_str(s->size);
		it->summary = xasprintf("%s%s%s %s (%s%s), warm start: copying %s into it, then re-adding it (md recovers only what was written %s); reads spread over the disks until it is in sync",
					s->note ? s->note : "", s->note ? ", " : "",
					s->disk ? "blank member disk" : "attached", it->rd, sz,
					s->prealloc ? ", preallocated" : "", s->mdname,
					made ? "during the copy" : "since it left");
		free(sz);
	} else {
		if (warm_note)
			fprintf(stderr, "rdctl: %s: %s: md recovers %s in full\n", s->mdname, warm_note, it->rd);
		rc = restore_add_cold(it, s, index);
	}
	free(warm_note);
	return rc;
}
