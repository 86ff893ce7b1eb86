// SPDX-License-Identifier: GPL-2.0
#include "md/md_super.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "lib/util.h"

#define SB_MAGIC		0xa92b4efcU
#define SB_FIXED		256	/* bytes before dev_roles[] */
#define FEATURE_BITMAP_OFFSET	1U
#define FEATURE_RECOVERY_OFFSET	2U
#define FEATURE_RESHAPE_ACTIVE	4U
#define FEATURE_REPLACEMENT	16U
#define FEATURE_RECOVERY_BITMAP	128U
#define FEATURE_CLUSTERED	256U
#define FEATURE_JOURNAL		512U
#define FEATURE_PPL		1024U
#define FEATURE_MULTIPLE_PPLS	2048U
#define ROLE_MAX		0xff00U
#define ROLE_SPARE		0xffffU

/* offsets in struct mdp_superblock_1 */
#define OFF_MAGIC		0
#define OFF_MAJOR		4
#define OFF_FEATURE		8
#define OFF_UUID		16
#define OFF_RAID_DISKS		92
#define OFF_BITMAP_OFFSET	96
#define OFF_DATA_OFFSET		128
#define OFF_DATA_SIZE		136
#define OFF_SUPER_OFFSET	144
#define OFF_RECOVERY_OFFSET	152
#define OFF_DEV_NUMBER		160
#define OFF_CNT_CORRECTED	164
#define OFF_DEVICE_UUID		168
#define OFF_DEVFLAGS		184
#define OFF_BBLOG_OFFSET	188
#define OFF_EVENTS		200
#define OFF_CSUM		216
#define OFF_MAX_DEV		220

/* offsets in bitmap_super_t (drivers/md/md-bitmap.h) */
#define BM_MAGIC		0x6d746962U	/* "bitm" */
#define BM_OFF_MAGIC		0
#define BM_OFF_UUID		8
#define BM_OFF_EVENTS_CLEARED	32

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

/* calc_sb_1_csum(): the 32-bit words up to dev_roles[max_dev], csum as 0, folded */
static uint32_t csum(const unsigned char *b, size_t len)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i + 4 <= len; i += 4)
		sum += i == OFF_CSUM ? 0 : le32(b + i);
	if (i + 2 <= len)
		sum += (uint32_t)b[i] | (uint32_t)b[i + 1] << 8;
	return (uint32_t)((sum & 0xffffffffU) + (sum >> 32));
}

int md_super_parse(const unsigned char *block, struct md_super *sb, char **why)
{
	uint32_t max_dev, role;
	size_t len;

	*why = NULL;
	memset(sb, 0, sizeof(*sb));
	memcpy(sb->raw, block, MD_SUPER_BLOCK);
	if (le32(block + OFF_MAGIC) != SB_MAGIC || le32(block + OFF_MAJOR) != 1) {
		*why = xstrdup("no md version-1 superblock there");
		return -EINVAL;
	}
	max_dev = le32(block + OFF_MAX_DEV);
	len = SB_FIXED + 2 * (size_t)max_dev;
	if (max_dev == 0 || len > MD_SUPER_BLOCK) {
		*why = xasprintf("its superblock has max_dev %u", max_dev);
		return -EINVAL;
	}
	if (csum(block, len) != le32(block + OFF_CSUM)) {
		*why = xstrdup("its superblock's checksum is wrong");
		return -EINVAL;
	}
	sb->feature_map = le32(block + OFF_FEATURE);
	sb->raid_disks = le32(block + OFF_RAID_DISKS);
	sb->data_offset = le64(block + OFF_DATA_OFFSET);
	sb->data_size = le64(block + OFF_DATA_SIZE);
	sb->super_offset = le64(block + OFF_SUPER_OFFSET);
	sb->dev_number = le32(block + OFF_DEV_NUMBER);
	sb->events = le64(block + OFF_EVENTS);
	sb->role = -1;
	if (sb->dev_number < max_dev) {
		role = (uint32_t)block[SB_FIXED + 2 * sb->dev_number] |
		       (uint32_t)block[SB_FIXED + 2 * sb->dev_number + 1] << 8;
		if (role < ROLE_MAX)
			sb->role = (int)role;
	}
	{
		const unsigned char *u = block + OFF_UUID;
		char *s = xasprintf("%02x%02x%02x%02x:%02x%02x%02x%02x:%02x%02x%02x%02x:%02x%02x%02x%02x",
				    u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7],
				    u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);

		memcpy(sb->uuid, s, sizeof(sb->uuid));
		free(s);
	}
	if (sb->feature_map & FEATURE_JOURNAL) {
		*why = xstrdup("it is a journal device");
		return -EINVAL;
	}
	if (sb->data_size == 0 ||
	    (sb->data_offset > sb->super_offset && sb->data_offset - sb->super_offset < MD_SUPER_BLOCK / 512)) {
		*why = xstrdup("its superblock's data area is not after it");
		return -EINVAL;
	}
	return 0;
}

/* where the version puts the superblock on a device of size bytes; false for others */
static bool super_offset_of(const char *ver, uint64_t size, uint64_t *off)
{
	if (!strcmp(ver, "1.2"))
		*off = 8;
	else if (!strcmp(ver, "1.1"))
		*off = 0;
	else if (!strcmp(ver, "1.0") && size >= 16 * 512)
		*off = ((size >> 9) - 16) & ~(uint64_t)7;	/* super_1_load() */
	else
		return false;
	return true;
}

/*
 * len bytes at byte off of path, into a 4 KiB-aligned buffer (*out, to
 * free), where len and off are multiples of 4096. O_DIRECT: md writes its
 * superblocks and its bitmap by bio, past the device's page cache, which
 * may still hold what mdadm --create wrote (events 0) or what an earlier
 * mdadm --examine read. (Without it only where the file system of a
 * regular file refuses O_DIRECT.) 0, or -errno with *why.
 */
static int read_direct(const char *path, uint64_t off, size_t len, unsigned char **out, char **why)
{
	unsigned char *block;
	ssize_t n;
	int fd, r;

	*out = NULL;
	fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0 && errno == EINVAL)
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		*why = xasprintf("cannot open %s: %s", path, strerror(errno));
		return r;
	}
	if (posix_memalign((void **)&block, MD_SUPER_BLOCK, len)) {
		close(fd);
		*why = xstrdup("out of memory");
		return -ENOMEM;
	}
	do
		n = pread(fd, block, len, (off_t)off);
	while (n < 0 && errno == EINTR);
	r = n < 0 ? -errno : 0;
	close(fd);
	if (n != (ssize_t)len) {
		*why = xasprintf("cannot read %zu bytes at %llu of %s: %s", len, (unsigned long long)off, path,
				 r ? strerror(-r) : "short read");
		free(block);
		return r ? r : -EIO;
	}
	*out = block;
	return 0;
}

int md_super_read(const char *path, const char *ver, uint64_t size, struct md_super *sb, char **why)
{
	unsigned char *block;
	uint64_t off;
	int r;

	*why = NULL;
	if (!super_offset_of(ver, size, &off)) {
		*why = xasprintf("metadata %s: only 1.0, 1.1 and 1.2 are kept", ver);
		return -EINVAL;
	}
	r = read_direct(path, off * 512, MD_SUPER_BLOCK, &block, why);
	if (r < 0)
		return r;
	r = md_super_parse(block, sb, why);
	free(block);
	if (r == 0 && sb->super_offset != off) {
		*why = xasprintf("its superblock says it is at sector %llu, not %llu",
				 (unsigned long long)sb->super_offset, (unsigned long long)off);
		r = -EINVAL;
	}
	return r;
}

int md_bitmap_events_cleared(const char *path, const struct md_super *sb, uint64_t *cleared, char **why)
{
	int32_t rel = (int32_t)le32(sb->raw + OFF_BITMAP_OFFSET);
	uint64_t at, base;
	unsigned char *block;
	int r;

	*why = NULL;
	if (!(sb->feature_map & FEATURE_BITMAP_OFFSET) || rel == 0 ||
	    (rel < 0 && (uint64_t)-(int64_t)rel > sb->super_offset)) {
		*why = xstrdup("its superblock places no internal bitmap");
		return -EINVAL;
	}
	at = (sb->super_offset + (uint64_t)(int64_t)rel) * 512;
	base = at & ~(uint64_t)(MD_SUPER_BLOCK - 1);
	r = read_direct(path, base, MD_SUPER_BLOCK, &block, why);
	if (r < 0)
		return r;
	if (le32(block + (at - base) + BM_OFF_MAGIC) != BM_MAGIC ||
	    memcmp(block + (at - base) + BM_OFF_UUID, sb->raw + OFF_UUID, 16)) {
		*why = xasprintf("no bitmap of the array at sector %llu of %s", (unsigned long long)(at / 512), path);
		r = -EINVAL;
	} else {
		*cleared = le64(block + (at - base) + BM_OFF_EVENTS_CLEARED);
	}
	free(block);
	return r;
}

bool md_super_fits(const struct md_super *sb, const char *uuid, uint64_t size, char **why)
{
	*why = NULL;
	if (strcasecmp(sb->uuid, uuid))
		*why = xasprintf("it belongs to array %s", sb->uuid);
	else if (sb->role < 0 || (uint32_t)sb->role >= sb->raid_disks)
		*why = xstrdup("it had no slot in the array");
	else if (sb->feature_map & FEATURE_RECOVERY_OFFSET)
		*why = xstrdup("it was not in sync when it left");
	else if (sb->data_offset + sb->data_size > size / 512 || sb->super_offset >= size / 512)
		*why = xasprintf("its data area ends past the RAM disk's %llu sectors", (unsigned long long)(size / 512));
	return !*why;
}

int md_super_returning(const struct md_super *tmpl, const char *ver, uint64_t size, uint64_t comp,
		       uint32_t nr, int slot, uint64_t cleared, struct md_super *out, char **why)
{
	unsigned char *b;
	uint32_t max_dev = le32(tmpl->raw + OFF_MAX_DEV), feat = tmpl->feature_map;
	uint64_t super, avail;
	int32_t lowest = 0;
	bool at_end;
	int r;

	*why = NULL;
	if (feat & (FEATURE_RESHAPE_ACTIVE | FEATURE_CLUSTERED | FEATURE_JOURNAL | FEATURE_PPL | FEATURE_MULTIPLE_PPLS)) {
		*why = xasprintf("the array's superblock has features 0x%x (a reshape, a cluster, a journal or PPL)",
				 feat);
		return -EINVAL;
	}
	if (cleared > tmpl->events) {
		*why = xasprintf("the bitmap was cleared at event %llu, after the superblock's %llu",
				 (unsigned long long)cleared, (unsigned long long)tmpl->events);
		return -EINVAL;
	}
	if (slot < 0 || (uint32_t)slot >= tmpl->raid_disks || tmpl->events == 0 ||
	    SB_FIXED + 2 * ((size_t)nr + 1) > MD_SUPER_BLOCK) {
		*why = xasprintf("no superblock for slot %d, number %u of %u slots", slot, nr, tmpl->raid_disks);
		return -EINVAL;
	}
	if (!super_offset_of(ver, size, &super)) {
		*why = xasprintf("metadata %s: only 1.0, 1.1 and 1.2 are made", ver);
		return -EINVAL;
	}
	at_end = !strcmp(ver, "1.0");
	if (at_end) {	/* the bitmap and the bad-block log lie before it */
		int32_t bm = (int32_t)le32(tmpl->raw + OFF_BITMAP_OFFSET), bb = (int32_t)le32(tmpl->raw + OFF_BBLOG_OFFSET);

		lowest = bm < lowest ? bm : lowest;
		lowest = bb < lowest ? bb : lowest;
	}
	avail = at_end ? super - (uint64_t)-(int64_t)lowest : size / 512;
	if (avail < tmpl->data_offset || avail - tmpl->data_offset < comp) {
		*why = xasprintf("a data area of %llu sectors at %llu does not fit in %llu sectors",
				 (unsigned long long)comp, (unsigned long long)tmpl->data_offset,
				 (unsigned long long)(size / 512));
		return -EINVAL;
	}
	b = xmalloc(MD_SUPER_BLOCK);
	memcpy(b, tmpl->raw, MD_SUPER_BLOCK);
	put32(b + OFF_FEATURE, feat & ~(FEATURE_RECOVERY_OFFSET | FEATURE_REPLACEMENT | FEATURE_RECOVERY_BITMAP));
	put64(b + OFF_DATA_SIZE, avail - tmpl->data_offset);
	put64(b + OFF_SUPER_OFFSET, super);
	put64(b + OFF_RECOVERY_OFFSET, 0);
	put32(b + OFF_DEV_NUMBER, nr);
	put32(b + OFF_CNT_CORRECTED, 0);
	if (getentropy(b + OFF_DEVICE_UUID, 16) < 0) {
		r = -errno;
		*why = xasprintf("no random device uuid: %s", strerror(errno));
		free(b);
		return r;
	}
	b[OFF_DEVFLAGS] = 0;	/* not write-mostly, not failfast */
	put64(b + OFF_EVENTS, tmpl->events - 1 > cleared ? tmpl->events - 1 : cleared);
	for (; max_dev <= nr; max_dev++) {
		b[SB_FIXED + 2 * max_dev] = ROLE_SPARE & 0xff;
		b[SB_FIXED + 2 * max_dev + 1] = ROLE_SPARE >> 8;
	}
	put32(b + OFF_MAX_DEV, max_dev);
	b[SB_FIXED + 2 * nr] = (unsigned char)slot;
	b[SB_FIXED + 2 * nr + 1] = (unsigned char)(slot >> 8);
	put32(b + OFF_CSUM, csum(b, SB_FIXED + 2 * (size_t)max_dev));
	r = md_super_parse(b, out, why);
	free(b);
	return r;
}

/* bitmap/location: "+8" (sectors from the superblock), "none", "file" */
bool md_has_internal_bitmap(const char *mdname)
{
	char *path = xasprintf("%s/block/%s/md/bitmap/location", sysfs_root(), mdname), *s = NULL;
	bool yes = read_text_file(path, &s) == 0 && (s[0] == '+' || s[0] == '-');

	free(s);
	free(path);
	return yes;
}

char *md_metadata_version(const char *mdname)
{
	char *path = xasprintf("%s/block/%s/md/metadata_version", sysfs_root(), mdname), *s = NULL;

	if (read_text_file(path, &s) < 0) {
		free(s);
		s = NULL;
	} else {
		s[strcspn(s, "\n")] = '\0';
	}
	free(path);
	return s;
}
