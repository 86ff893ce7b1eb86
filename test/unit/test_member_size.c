// SPDX-License-Identifier: GPL-2.0
/* SIZE auto: what a member of an array needs, from a fake sysfs tree. */
#include <errno.h>
#include <stdlib.h>

#include "fake_tree.h"
#include "md/md_ops.h"
#include "unit.h"
#include "lib/util.h"

#define MiB (1024ULL * 1024)

static void array(const char *root, const char *md, const char *meta, const char *comp_kib)
{
	char *d = xasprintf("sys/block/%s/md", md), *p;

	p = xasprintf("%s/metadata_version", d);
	CHECK(fake_write(root, p, meta) == 0);
	free(p);
	p = xasprintf("%s/component_size", d);
	CHECK(fake_write(root, p, comp_kib) == 0);
	free(p);
	free(d);
}

/* member NAME of md: data offset (sectors), data size (KiB), device size (sectors) */
static void member(const char *root, const char *md, const char *name, const char *offset,
		   const char *size_kib, const char *dev_sectors)
{
	char *p;

	p = xasprintf("sys/block/%s/md/dev-%s/offset", md, name);
	CHECK(fake_write(root, p, offset) == 0);
	free(p);
	p = xasprintf("sys/block/%s/md/dev-%s/size", md, name);
	CHECK(fake_write(root, p, size_kib) == 0);
	free(p);
	if (dev_sectors) {
		p = xasprintf("sys/class/block/%s/size", name);
		CHECK(fake_write(root, p, dev_sectors) == 0);
		free(p);
	}
}

static void expect(const char *md, int want_r, unsigned long long want)
{
	uint64_t got = 0;
	char *msg = NULL;
	int r = md_member_size(md, &got, &msg);

	CHECK_U64((unsigned long long)(r < 0 ? -r : r), (unsigned long long)want_r);
	if (r == 0)
		CHECK_U64(got, want);
	else
		CHECK(msg != NULL);
	if (r < 0 && want_r == 0)
		fprintf(stderr, "md_member_size(%s): %s\n", md, msg);
	free(msg);
}

void test_member_size(const char *root)
{
	/* 1.2: 1 GiB components, data offsets 2048 and 264192 sectors: the larger wins */
	array(root, "md20", "1.2", "1048576");
	member(root, "md20", "sdx", "2048", "1048576", "2101248");
	member(root, "md20", "sdy", "264192", "1048576", NULL);
	member(root, "md20", "rd9", "999999", "1048576", NULL);	/* the RAM member does not count */
	expect("md20", 0, 264192ULL * 512 + 1024 * MiB);
	/* 1.1, a component size that is not a multiple of 4 KiB: rounded up */
	array(root, "md21", "1.1", "1048577");
	member(root, "md21", "sdx", "8", "1048577", NULL);
	expect("md21", 0, (8ULL * 512 + 1048577ULL * 1024 + 4095) / 4096 * 4096);
	/* 1.0: the metadata after the data on the member: 2101248 - 0 - 1048576 KiB = 1 MiB */
	array(root, "md22", "1.0", "1048576");
	member(root, "md22", "sdz1", "0", "1048576", "2099200");
	expect("md22", 0, 1024 * MiB + 1024 * 1024);
	/* 1.0 without a readable device size: 1 MiB of room */
	array(root, "md23", "1.0", "1048576");
	member(root, "md23", "sdw", "0", "1048576", NULL);
	expect("md23", 0, 1025 * MiB);
	/* 0.90: rounded up to 64 KiB, + 64 KiB */
	array(root, "md24", "0.90", "1000");
	expect("md24", 0, 1024 * 1024 + 64 * 1024);
	/* external metadata, no member, no component size */
	array(root, "md25", "external:imsm", "1048576");
	expect("md25", EOPNOTSUPP, 0);
	array(root, "md26", "1.2", "1048576");
	expect("md26", ENODEV, 0);	/* no persistent member */
	array(root, "md27", "1.2", "0");
	expect("md27", EINVAL, 0);	/* not running */
	expect("md28", ENOENT, 0);	/* no such array */
}
