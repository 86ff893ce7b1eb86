// SPDX-License-Identifier: GPL-2.0
/*
 * A local disk as the fast member (mirror/member.h): each refusal, the
 * path's stability (with the stable names offered from the fake
 * /dev/disk/by-id), and md marking the disk the fast member once the
 * configuration names it (md_fast_disks_from_config()).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_tree.h"
#include "lib/config.h"
#include "lib/util.h"
#include "md/md.h"
#include "mirror/member.h"
#include "unit.h"

#define GiB (1024ULL * 1024 * 1024)

/* Does the refusal why (taken) contain want? NULL want: no refusal. */
static int says(char *why, const char *want)
{
	int ok = want ? why && strstr(why, want) != NULL : why == NULL;

	if (!ok)
		fprintf(stderr, "  refusal: %s\n", why ? why : "(none)");
	free(why);
	return ok;
}

static void path_checks(const char *root)
{
	char *dev = xasprintf("%s/dev", root), *p, *link;

	/* a kernel name is refused, with the disk's stable name offered */
	CHECK(fake_write(root, "dev/nvme0n1", "") == 0);
	CHECK(fake_mkdir(root, "dev/disk/by-id") == 0);
	link = xasprintf("%s/disk/by-id/nvme-rdtest-nvme", dev);
	CHECK(symlink("../../nvme0n1", link) == 0);
	p = xasprintf("%s/nvme0n1", dev);
	CHECK(says(member_refuse_path(p), "a kernel name can name another disk after a reboot"));
	CHECK(says(member_refuse_path(p), link));
	free(p);
	for (size_t i = 0; i < 6; i++) {
		static const char *const names[] = { "sdb", "vdc", "xvdf", "nvme1n1p2", "mmcblk0", "dm-3" };

		p = xasprintf("%s/%s", dev, names[i]);
		CHECK(says(member_refuse_path(p), "give a stable name: one under /dev/disk/by-id"));
		free(p);
	}
	/* stable names pass: by-id, by-path, a device-mapper name */
	CHECK(says(member_refuse_path(link), NULL));
	p = xasprintf("%s/disk/by-path/pci-0000:00:04.0-nvme-1", dev);
	CHECK(says(member_refuse_path(p), NULL));
	free(p);
	p = xasprintf("%s/mapper/local-ssd", dev);
	CHECK(says(member_refuse_path(p), NULL));
	free(p);
	CHECK(says(member_refuse_path("nvme-X"), "give the disk's absolute path"));
	free(link);
	free(dev);
}

static void fit_checks(void)
{
	CHECK(says(member_refuse_fit("/dev/x", 4 * GiB, 512, 4 * GiB, 512), NULL));
	CHECK(says(member_refuse_fit("/dev/x", 4 * GiB - 4096, 512, 4 * GiB, 512),
		   "/dev/x (4194300 KiB) is smaller than the 4096 MiB a member of the array needs"));
	CHECK(says(member_refuse_fit("/dev/x", 8 * GiB, 4096, 4 * GiB, 512),
		   "/dev/x has 4096-byte logical blocks, larger than the array's 512: Linux 6.19 and later refuse it"));
	/* smaller blocks than the array's are fine; unknown ones are not refused */
	CHECK(says(member_refuse_fit("/dev/x", 8 * GiB, 512, 4 * GiB, 4096), NULL));
	CHECK(says(member_refuse_fit("/dev/x", 8 * GiB, 0, 4 * GiB, 512), NULL));
}

static void registry_checks(const char *root)
{
	char *text = xasprintf("UUID=79387934:aaaad032:f56c6261:de230a86 auto member=%s/dev/disk/by-id/nvme-rdtest-nvme\nmd1 auto\n",
			       root);
	struct config c;
	struct md_array a;

	config_parse_text("t.conf", text, &c);
	CHECK_U64(c.nerrs, 0);
	CHECK(c.n == 2 && c.v[0].member && !c.v[1].member);
	CHECK(!md_name_is_fast_disk("nvme0n1"));
	md_fast_disks_from_config(&c);
	CHECK(md_name_is_fast_disk("nvme0n1"));
	config_free(&c);
	free(text);
	/* md7: sdb write-mostly, nvme0n1 the fast member (a disk) */
	CHECK(fake_write(root, "sys/block/md7/md/level", "raid1") == 0);
	CHECK(fake_write(root, "sys/block/md7/md/dev-sdb/state", "in_sync,write_mostly") == 0);
	CHECK(fake_write(root, "sys/block/md7/md/dev-sdb/slot", "0") == 0);
	CHECK(fake_write(root, "sys/block/md7/md/dev-nvme0n1/state", "in_sync") == 0);
	CHECK(fake_write(root, "sys/block/md7/md/dev-nvme0n1/slot", "1") == 0);
	CHECK(md_array_read("md7", &a) == 0);
	for (size_t i = 0; i < a.nmembers; i++) {
		bool nvme = !strcmp(a.members[i].name, "nvme0n1");

		CHECK(md_is_fast(&a.members[i]) == nvme && md_is_disk(&a.members[i]) == nvme);
	}
	md_array_clear(&a);
}

/* The fast member's kind, once per member: an rd disk is RAM, or compressed when it has a compressor file. */
static void kind_checks(const char *root)
{
	struct md_array a;

	CHECK(fake_write(root, "sys/block/md8/md/level", "raid1") == 0);
	CHECK(fake_write(root, "sys/block/md8/md/dev-sdc/state", "in_sync,write_mostly") == 0);
	CHECK(fake_write(root, "sys/block/md8/md/dev-rd5/state", "in_sync") == 0);
	CHECK(fake_write(root, "sys/block/md8/md/dev-rd6/state", "spare") == 0);
	CHECK(fake_write(root, "sys/block/rd6/rdmirror/compressor", "zstd") == 0);
	CHECK(md_array_read("md8", &a) == 0 && a.nmembers == 3);
	for (size_t i = 0; i < a.nmembers; i++) {
		const struct md_member *m = &a.members[i];
		enum md_kind k = !strcmp(m->name, "rd5") ? MD_FAST_RAM : !strcmp(m->name, "rd6") ? MD_FAST_COMPRESSED
												    : MD_PERSISTENT;

		CHECK(m->kind == k);
		CHECK(md_is_fast(m) == (k != MD_PERSISTENT) && !md_is_disk(m));
	}
	CHECK(!strcmp(md_kind_name(MD_FAST_COMPRESSED), "compressed") && !strcmp(md_kind_name(MD_FAST_RAM), "ram") &&
	      !strcmp(md_kind_name(MD_FAST_DISK), "disk") && !strcmp(md_kind_name(MD_PERSISTENT), "persistent"));
	md_array_clear(&a);
}

void test_member(const char *root)
{
	path_checks(root);
	fit_checks();
	registry_checks(root);
	kind_checks(root);
}
