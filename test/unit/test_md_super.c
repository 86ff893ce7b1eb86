// SPDX-License-Identifier: GPL-2.0
/*
 * md_super_parse() and md_super_fits() on superblocks built here byte by
 * byte, as the kernel's struct mdp_superblock_1 lays them out: a checksum
 * off by one, a role out of the array, a data area past the disk; and
 * the warm start's record of one (warm_record_save()).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "md/md_super.h"
#include "mirror/warm_record.h"
#include "unit.h"
#include "lib/util.h"

static void put32(unsigned char *b, size_t off, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b[off + (size_t)i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *b, size_t off, uint64_t v)
{
	put32(b, off, (uint32_t)v);
	put32(b, off + 4, (uint32_t)(v >> 32));
}

/* calc_sb_1_csum(), written out once more: the test must not share the code it checks */
static void seal(unsigned char *b)
{
	uint32_t max_dev = (uint32_t)b[220] | (uint32_t)b[221] << 8;
	size_t len = 256 + 2 * (size_t)max_dev, i;
	uint64_t sum = 0;

	if (len > MD_SUPER_BLOCK)
		len = MD_SUPER_BLOCK;

	put32(b, 216, 0);
	for (i = 0; i + 4 <= len; i += 4)
		sum += (uint32_t)b[i] | (uint32_t)b[i + 1] << 8 | (uint32_t)b[i + 2] << 16 | (uint32_t)b[i + 3] << 24;
	if (i + 2 <= len)
		sum += (uint32_t)b[i] | (uint32_t)b[i + 1] << 8;
	put32(b, 216, (uint32_t)((sum & 0xffffffffU) + (sum >> 32)));
}

/* a 1.2 member: dev_number 3 in slot 2 of 3, data at 2048 sectors */
static unsigned char *member(void)
{
	unsigned char *b = calloc(1, MD_SUPER_BLOCK);

	put32(b, 0, 0xa92b4efc);
	put32(b, 4, 1);
	for (int i = 0; i < 16; i++)
		b[16 + i] = (unsigned char)(0xa0 + i);
	put32(b, 72, 1);	/* level */
	put32(b, 92, 3);	/* raid_disks */
	put64(b, 128, 2048);	/* data_offset */
	put64(b, 136, 520192);	/* data_size */
	put64(b, 144, 8);	/* super_offset */
	put32(b, 160, 3);	/* dev_number */
	put64(b, 200, 77);	/* events */
	put32(b, 220, 5);	/* max_dev */
	for (int i = 0; i < 5; i++)
		b[256 + 2 * i] = b[256 + 2 * i + 1] = 0xff;
	b[256 + 2 * 3] = 2;	/* dev_roles[3] = slot 2 */
	b[256 + 2 * 3 + 1] = 0;
	seal(b);
	return b;
}

static uint32_t get32(const unsigned char *b, size_t off)
{
	return (uint32_t)b[off] | (uint32_t)b[off + 1] << 8 | (uint32_t)b[off + 2] << 16 | (uint32_t)b[off + 3] << 24;
}

/* md_super_returning(): a member's superblock made into the RAM slot's */
static void test_returning(void)
{
	const char *uuid = "a0a1a2a3:a4a5a6a7:a8a9aaab:acadaeaf";
	unsigned char *b = member(), *r;
	uint64_t rd = (2048ULL + 520192ULL) * 512;
	struct md_super tmpl, sb;
	char *why = NULL;

	b[184] = 1;		/* the template is write-mostly */
	put32(b, 8, 2);		/* and was recovering: neither may pass on */
	put64(b, 152, 4096);
	seal(b);
	CHECK(md_super_parse(b, &tmpl, &why) == 0);
	CHECK(md_super_returning(&tmpl, "1.2", rd, 520192, 7, 1, 70, &sb, &why) == 0);
	r = sb.raw;
	CHECK(sb.role == 1 && sb.dev_number == 7);
	CHECK_U64(sb.events, 76);	/* one below the template's */
	/*
	 * the bitmap cleared at the template's own event (a clean stop, a
	 * degraded start): one below would be refused, so the template's own
	 */
	CHECK(md_super_returning(&tmpl, "1.2", rd, 520192, 7, 1, 77, &sb, &why) == 0);
	CHECK_U64(sb.events, 77);
	/* cleared after the template's events: a template read before it */
	CHECK(md_super_returning(&tmpl, "1.2", rd, 520192, 7, 1, 78, &sb, &why) < 0);
	free(why);
	why = NULL;
	CHECK(md_super_returning(&tmpl, "1.2", rd, 520192, 7, 1, 0, &sb, &why) == 0);
	CHECK_U64(sb.super_offset, 8);
	CHECK_U64(sb.data_offset, 2048);
	CHECK_U64(sb.data_size, 520192);
	CHECK(get32(r, 220) == 8);	/* max_dev grown to hold number 7 */
	CHECK(r[256 + 2 * 5] == 0xff && r[256 + 2 * 6 + 1] == 0xff);	/* the new ones spare */
	CHECK(r[256 + 2 * 3] == 2);	/* the template's own role kept */
	CHECK(r[184] == 0 && get32(r, 8) == 0 && get32(r, 152) == 0);
	CHECK(memcmp(r + 168, b + 168, 16) != 0);	/* a device uuid of its own */
	CHECK(md_super_fits(&sb, uuid, rd, &why));
	/* a device one sector short of the data area; metadata 1.0 at the end */
	CHECK(md_super_returning(&tmpl, "1.2", rd - 512, 520192, 7, 1, 0, &sb, &why) < 0);
	free(why);
	put64(b, 128, 0);	/* 1.0: data first, the superblock 8-12 KiB before the end */
	put64(b, 144, 1000000);
	put32(b, 96, (uint32_t)-16);	/* bitmap 16 sectors before it */
	seal(b);
	CHECK(md_super_parse(b, &tmpl, &why) == 0);
	CHECK(md_super_returning(&tmpl, "1.0", 520192ULL * 512 + 32 * 512, 520192, 0, 2, 0, &sb, &why) == 0);
	CHECK_U64(sb.super_offset, 520192 + 16);
	CHECK_U64(sb.data_size, 520192);
	CHECK(md_super_returning(&tmpl, "1.0", 520192ULL * 512 + 16 * 512, 520192, 0, 2, 0, &sb, &why) < 0);
	free(why);
	/* a slot out of the array; a reshape running */
	CHECK(md_super_returning(&tmpl, "1.0", 1ULL << 30, 520192, 0, 3, 0, &sb, &why) < 0);
	free(why);
	put32(b, 8, 4);
	seal(b);
	CHECK(md_super_parse(b, &tmpl, &why) == 0);
	CHECK(md_super_returning(&tmpl, "1.0", 1ULL << 30, 520192, 0, 2, 0, &sb, &why) < 0);
	free(why);
	free(b);
}

/* md_bitmap_events_cleared(): the bitmap's superblock at the member's bitmap offset */
static void test_bitmap(void)
{
	char path[] = "/tmp/rdctl-unit-bitmap-XXXXXX";
	unsigned char *b = member(), bm[512] = { 0 };
	struct md_super sb;
	uint64_t cleared = 0;
	char *why = NULL;
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	put32(b, 8, 1);			/* bitmap offset in the feature map */
	put32(b, 96, 8);		/* 8 sectors after the superblock */
	seal(b);
	CHECK(md_super_parse(b, &sb, &why) == 0);
	put32(bm, 0, 0x6d746962);	/* "bitm" */
	put32(bm, 4, 4);
	memcpy(bm + 8, b + 16, 16);	/* the array's uuid */
	put64(bm, 24, 77);		/* events */
	put64(bm, 32, 75);		/* events_cleared */
	CHECK(pwrite(fd, b, MD_SUPER_BLOCK, 8 * 512) == MD_SUPER_BLOCK);
	CHECK(pwrite(fd, bm, sizeof(bm), 16 * 512) == (ssize_t)sizeof(bm));
	CHECK(ftruncate(fd, 1 << 20) == 0);
	CHECK(md_bitmap_events_cleared(path, &sb, &cleared, &why) == 0);
	CHECK_U64(cleared, 75);
	/* another array's bitmap, and none there */
	bm[8] ^= 1;
	CHECK(pwrite(fd, bm, sizeof(bm), 16 * 512) == (ssize_t)sizeof(bm));
	CHECK(md_bitmap_events_cleared(path, &sb, &cleared, &why) < 0);
	free(why);
	why = NULL;
	bm[8] ^= 1;
	put32(bm, 0, 0);
	CHECK(pwrite(fd, bm, sizeof(bm), 16 * 512) == (ssize_t)sizeof(bm));
	CHECK(md_bitmap_events_cleared(path, &sb, &cleared, &why) < 0);
	free(why);
	why = NULL;
	/* a superblock without a bitmap */
	put32(b, 8, 0);
	seal(b);
	CHECK(md_super_parse(b, &sb, &why) == 0);
	CHECK(md_bitmap_events_cleared(path, &sb, &cleared, &why) < 0);
	free(why);
	close(fd);
	unlink(path);
	free(b);
}

/* warm_record_save(): the record root alone reads (0600, whatever the umask), read back whole */
static void test_record(void)
{
	char tmpl[] = "/tmp/rdctl-record.XXXXXX", *dir = mkdtemp(tmpl), *path, *why = NULL;
	const char *was = getenv("RDCTL_STATE_DIR");
	char *old = was ? xstrdup(was) : NULL;
	unsigned char *b = member();
	struct md_super sb, back;
	struct stat st;
	mode_t mask = umask(022);

	CHECK(dir != NULL);
	if (!dir) {
		free(b);
		free(old);
		return;
	}
	setenv("RDCTL_STATE_DIR", dir, 1);
	path = xasprintf("%s/warm-%s.sb", dir, "a0a1a2a3:a4a5a6a7:a8a9aaab:acadaeaf");
	CHECK(md_super_parse(b, &sb, &why) == 0);
	CHECK_U64(warm_record_save(&sb, &why), 0);
	CHECK(why == NULL);
	CHECK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0600 && st.st_size == MD_SUPER_BLOCK);
	CHECK_U64(warm_record_peek(sb.uuid, &back, &why), 0);
	CHECK(!memcmp(back.raw, b, MD_SUPER_BLOCK));
	/* one made 0644 by hand is 0600 again once written */
	CHECK(chmod(path, 0644) == 0);
	CHECK_U64(warm_record_save(&sb, &why), 0);
	CHECK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0600);
	CHECK_U64(warm_record_take(sb.uuid, &back, &why), 0);
	CHECK(!path_exists(path));
	CHECK(rmdir(dir) == 0);	/* nothing else left behind */
	umask(mask);
	if (old)
		setenv("RDCTL_STATE_DIR", old, 1);
	else
		unsetenv("RDCTL_STATE_DIR");
	free(why);
	free(old);
	free(path);
	free(b);
}

void test_md_super(void)
{
	const char *uuid = "a0a1a2a3:a4a5a6a7:a8a9aaab:acadaeaf";
	unsigned char *b = member();
	struct md_super sb;
	char *why = NULL;

	CHECK(md_super_parse(b, &sb, &why) == 0);
	CHECK_STR(sb.uuid, uuid);
	CHECK_U64(sb.events, 77);
	CHECK_U64(sb.data_offset, 2048);
	CHECK_U64(sb.super_offset, 8);
	CHECK(sb.role == 2);
	CHECK(sb.raid_disks == 3);
	CHECK(md_super_fits(&sb, uuid, 2048ULL * 512 + 520192ULL * 512, &why));
	CHECK(!md_super_fits(&sb, uuid, 2048ULL * 512 + 520191ULL * 512, &why));	/* one sector short */
	free(why);
	CHECK(!md_super_fits(&sb, "a0a1a2a3:a4a5a6a7:a8a9aaab:acadaeb0", 1ULL << 30, &why));
	free(why);

	b[260] ^= 1;	/* inside dev_roles[]: the checksum no longer holds */
	CHECK(md_super_parse(b, &sb, &why) < 0);
	free(why);
	b[260] ^= 1;
	b[400] ^= 1;	/* past dev_roles[max_dev]: not covered, still good */
	CHECK(md_super_parse(b, &sb, &why) == 0);

	b[256 + 2 * 3] = 0xfe;	/* faulty: no slot */
	b[256 + 2 * 3 + 1] = 0xff;
	seal(b);
	CHECK(md_super_parse(b, &sb, &why) == 0 && sb.role == -1);
	CHECK(!md_super_fits(&sb, uuid, 1ULL << 30, &why));
	free(why);

	b[256 + 2 * 3] = 2;
	b[256 + 2 * 3 + 1] = 0;
	put32(b, 8, 2);		/* recovery_offset: it left before it was in sync */
	seal(b);
	CHECK(md_super_parse(b, &sb, &why) == 0);
	CHECK(!md_super_fits(&sb, uuid, 1ULL << 30, &why));
	free(why);

	put32(b, 8, 0);
	put32(b, 0, 0xa92b4efd);
	seal(b);
	CHECK(md_super_parse(b, &sb, &why) < 0);
	free(why);
	put32(b, 0, 0xa92b4efc);
	put32(b, 220, 2000);	/* dev_roles[] past the block */
	seal(b);
	CHECK(md_super_parse(b, &sb, &why) < 0);
	free(why);
	free(b);
	test_returning();
	test_bitmap();
	test_record();
}
