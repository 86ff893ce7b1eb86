// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the control ioctls' request checks (rd_control.c): each
 * field of each request, set wrong on its own, is refused; good requests
 * pass; and the byte counts the mem_limit files take (rd_parse_bytes()).
 */
#include <kunit/test.h>
#include <linux/limits.h>
#include <linux/mm.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/string.h>

#include "uapi/rdmirror.h"
#include "rd_control.h"
#include "rd_device.h"
#include "rd_kunit.h"

static const struct rdmirror_add rd_kunit_good_add = {
	.version = RDMIRROR_ABI_VERSION,
	.size = SZ_1M,
};

static const struct rdmirror_resize rd_kunit_good_resize = {
	.version = RDMIRROR_ABI_VERSION,
	.index = 3,
	.size = SZ_1M,
};

static const struct rdmirror_disk rd_kunit_good_disk = {
	.version = RDMIRROR_ABI_VERSION,
	.index = 3,
};

static u64 rd_kunit_ram_bytes(void)
{
	return (u64)totalram_pages() << PAGE_SHIFT;
}

static void rd_kunit_check_size(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rd_ctl_check_size(0, false), -EINVAL);
	KUNIT_EXPECT_EQ(test, rd_ctl_check_size(1, false), -EINVAL);
	KUNIT_EXPECT_EQ(test, rd_ctl_check_size(512, false), -EINVAL);
	KUNIT_EXPECT_EQ(test, rd_ctl_check_size(RDMIRROR_SIZE_ALIGN - 1, false), -EINVAL);
	KUNIT_EXPECT_EQ(test, rd_ctl_check_size(RDMIRROR_SIZE_ALIGN + 512, false), -EINVAL);
	KUNIT_EXPECT_EQ(test, rd_ctl_check_size(PAGE_SIZE + 512, false), -EINVAL);
	KUNIT_EXPECT_EQ(test, rd_ctl_check_size(RDMIRROR_SIZE_ALIGN, false), 0);
	KUNIT_EXPECT_EQ(test, rd_ctl_check_size(PAGE_SIZE, false), 0);
	KUNIT_EXPECT_EQ(test, rd_ctl_check_size(SZ_1M, false), 0);
	/* Up to the machine's RAM, not a byte more. */
	KUNIT_EXPECT_EQ(test, rd_ctl_check_size(rd_kunit_ram_bytes(), false), 0);
	KUNIT_EXPECT_EQ(test, rd_ctl_check_size(rd_kunit_ram_bytes() + PAGE_SIZE, false),
			-ENOMEM);
	KUNIT_EXPECT_EQ(test, rd_ctl_check_size(U64_MAX & ~(u64)(PAGE_SIZE - 1), false),
			-ENOMEM);
	KUNIT_EXPECT_EQ(test, rd_ctl_check_size(U64_MAX, false), -EINVAL);
	/* A compressed disk: up to rd_ctl_max_size(true), beyond RAM. */
	KUNIT_EXPECT_EQ(test, rd_ctl_check_size(SZ_1M + 512, true), -EINVAL);
	KUNIT_EXPECT_EQ(test, rd_ctl_check_size(rd_kunit_ram_bytes() + PAGE_SIZE, true), 0);
	KUNIT_EXPECT_EQ(test, rd_ctl_check_size(rd_ctl_max_size(true), true), 0);
	KUNIT_EXPECT_EQ(test, rd_ctl_check_size(rd_ctl_max_size(true) + PAGE_SIZE, true),
			-ENOMEM);
}

/* The checks, each with one signature so one loop can call them all. */
static int rd_kunit_check_add_req(const void *req)
{
	return rd_ctl_check_add(req);
}

static int rd_kunit_check_resize_req(const void *req)
{
	return rd_ctl_check_resize(req);
}

static int rd_kunit_check_disk_req(const void *req)
{
	return rd_ctl_check_disk(req);
}

/*
 * Every byte of @field ([off, off + len)) of a good request of @size
 * bytes, set on its own, makes @check refuse the request.
 */
static void rd_kunit_each_byte_refused(struct kunit *test,
				       const void *good, size_t size,
				       const char *field, size_t off, size_t len,
				       int (*check)(const void *req))
{
	u8 *req = kunit_kmalloc(test, size, GFP_KERNEL);
	size_t i;

	KUNIT_ASSERT_NOT_NULL(test, req);
	for (i = off; i < off + len; i++) {
		memcpy(req, good, size);
		req[i] = 0x80;
		KUNIT_EXPECT_EQ_MSG(test, check(req), -EINVAL, "%s byte %zu set",
				    field, i - off);
	}
}

static void rd_kunit_check_add(struct kunit *test)
{
	struct rdmirror_add req;
	unsigned int bit;

	req = rd_kunit_good_add;
	KUNIT_EXPECT_EQ(test, rd_ctl_check_add(&req), 0);
	req.flags = RDMIRROR_ADD_PREALLOC;
	KUNIT_EXPECT_EQ(test, rd_ctl_check_add(&req), 0);

	req = rd_kunit_good_add;
	req.version = 0;
	KUNIT_EXPECT_EQ(test, rd_ctl_check_add(&req), -EINVAL);
	req.version = RDMIRROR_ABI_VERSION + 1;
	KUNIT_EXPECT_EQ(test, rd_ctl_check_add(&req), -EINVAL);
	req.version = U32_MAX;
	KUNIT_EXPECT_EQ(test, rd_ctl_check_add(&req), -EINVAL);

	for (bit = 0; bit < 32; bit++) {
		if (BIT(bit) & RDMIRROR_ADD_ALL_FLAGS)
			continue;
		req = rd_kunit_good_add;
		req.flags = BIT(bit);
		KUNIT_EXPECT_EQ_MSG(test, rd_ctl_check_add(&req), -EINVAL,
				    "flag bit %u", bit);
	}

	/* index is an out field: it must come in as 0. */
	req = rd_kunit_good_add;
	req.index = 1;
	KUNIT_EXPECT_EQ(test, rd_ctl_check_add(&req), -EINVAL);

	req = rd_kunit_good_add;
	req.size = 0;
	KUNIT_EXPECT_EQ(test, rd_ctl_check_add(&req), -EINVAL);
	req.size = SZ_1M + 512;
	KUNIT_EXPECT_EQ(test, rd_ctl_check_add(&req), -EINVAL);
	req.size = rd_kunit_ram_bytes() + PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, rd_ctl_check_add(&req), -ENOMEM);

	rd_kunit_each_byte_refused(test, &rd_kunit_good_add, sizeof(rd_kunit_good_add),
				   "comp", offsetof(struct rdmirror_add, comp),
				   sizeof_field(struct rdmirror_add, comp),
				   rd_kunit_check_add_req);
	rd_kunit_each_byte_refused(test, &rd_kunit_good_add, sizeof(rd_kunit_good_add),
				   "mem_limit", offsetof(struct rdmirror_add, mem_limit),
				   sizeof_field(struct rdmirror_add, mem_limit),
				   rd_kunit_check_add_req);
	rd_kunit_each_byte_refused(test, &rd_kunit_good_add, sizeof(rd_kunit_good_add),
				   "reserved", offsetof(struct rdmirror_add, reserved),
				   sizeof_field(struct rdmirror_add, reserved),
				   rd_kunit_check_add_req);
}

static void rd_kunit_check_resize(struct kunit *test)
{
	struct rdmirror_resize req;

	req = rd_kunit_good_resize;
	KUNIT_EXPECT_EQ(test, rd_ctl_check_resize(&req), 0);
	/* Any index passes here: a missing disk is ENODEV, found later. */
	req.index = U32_MAX;
	KUNIT_EXPECT_EQ(test, rd_ctl_check_resize(&req), 0);

	req = rd_kunit_good_resize;
	req.version = 0;
	KUNIT_EXPECT_EQ(test, rd_ctl_check_resize(&req), -EINVAL);
	req.version = RDMIRROR_ABI_VERSION + 1;
	KUNIT_EXPECT_EQ(test, rd_ctl_check_resize(&req), -EINVAL);

	req = rd_kunit_good_resize;
	req.size = 0;
	KUNIT_EXPECT_EQ(test, rd_ctl_check_resize(&req), -EINVAL);
	req.size = SZ_1M - 512;
	KUNIT_EXPECT_EQ(test, rd_ctl_check_resize(&req), -EINVAL);
	/* The bound of a compressed disk: rd_disk_resize() narrows it. */
	req.size = rd_ctl_max_size(true) + PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, rd_ctl_check_resize(&req), -ENOMEM);
	req.size = rd_kunit_ram_bytes() + PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, rd_ctl_check_resize(&req), 0);

	rd_kunit_each_byte_refused(test, &rd_kunit_good_resize,
				   sizeof(rd_kunit_good_resize),
				   "reserved", offsetof(struct rdmirror_resize, reserved),
				   sizeof_field(struct rdmirror_resize, reserved),
				   rd_kunit_check_resize_req);
}

static void rd_kunit_check_disk(struct kunit *test)
{
	struct rdmirror_disk req;

	req = rd_kunit_good_disk;
	KUNIT_EXPECT_EQ(test, rd_ctl_check_disk(&req), 0);
	req.index = U32_MAX;
	KUNIT_EXPECT_EQ(test, rd_ctl_check_disk(&req), 0);

	req = rd_kunit_good_disk;
	req.version = 0;
	KUNIT_EXPECT_EQ(test, rd_ctl_check_disk(&req), -EINVAL);
	req.version = RDMIRROR_ABI_VERSION + 1;
	KUNIT_EXPECT_EQ(test, rd_ctl_check_disk(&req), -EINVAL);

	rd_kunit_each_byte_refused(test, &rd_kunit_good_disk, sizeof(rd_kunit_good_disk),
				   "reserved", offsetof(struct rdmirror_disk, reserved),
				   sizeof_field(struct rdmirror_disk, reserved),
				   rd_kunit_check_disk_req);
}

static void rd_kunit_parse_bytes(struct kunit *test)
{
	static const char * const bad[] = { "", "\n", "M", "1G x", "12Q", "1\n\n", "-" };
	unsigned int i;
	u64 v;

	KUNIT_EXPECT_EQ(test, rd_parse_bytes("4096", &v), 0);
	KUNIT_EXPECT_EQ(test, v, 4096ULL);
	KUNIT_EXPECT_EQ(test, rd_parse_bytes("64M\n", &v), 0);
	KUNIT_EXPECT_EQ(test, v, (u64)SZ_64M);
	KUNIT_EXPECT_EQ(test, rd_parse_bytes("2g", &v), 0);
	KUNIT_EXPECT_EQ(test, v, (u64)SZ_2G);
	KUNIT_EXPECT_EQ(test, rd_parse_bytes("0", &v), 0);
	KUNIT_EXPECT_EQ(test, v, 0ULL);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		v = 7;
		KUNIT_EXPECT_EQ_MSG(test, rd_parse_bytes(bad[i], &v), -EINVAL,
				    "\"%s\"", bad[i]);
		KUNIT_EXPECT_EQ(test, v, 7ULL);
	}
}

static struct kunit_case rd_kunit_ctl_cases[] = {
	KUNIT_CASE(rd_kunit_check_size),
	KUNIT_CASE(rd_kunit_check_add),
	KUNIT_CASE(rd_kunit_check_resize),
	KUNIT_CASE(rd_kunit_check_disk),
	KUNIT_CASE(rd_kunit_parse_bytes),
	{}
};

struct kunit_suite rd_kunit_ctl_suite = {
	.name = "rdmirror_ctl",
	.test_cases = rd_kunit_ctl_cases,
};
