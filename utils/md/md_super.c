// SPDX-License-Identifier: GPL-2.0
#include "md/md_super.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/util.h"

#define SB_MAGIC		0xa92b4efcU
#define SB_FIXED		256	/* bytes before dev_roles[] */
#define FEATURE_RECOVERY_OFFSET	2U
#define FEATURE_JOURNAL		512U
#define ROLE_MAX		0xff00U

/* offsets in struct mdp_superblock_1 */
#define OFF_MAGIC		0
#define OFF_MAJOR		4
#define OFF_FEATURE		8
#define OFF_UUID		16
#define OFF_RAID_DISKS		92
#define OFF_DATA_OFFSET		128
#define OFF_DATA_SIZE		136
#define OFF_SUPER_OFFSET	144
#define OFF_DEV_NUMBER		160
#define OFF_EVENTS		200
#define OFF_CSUM		216
#define OFF_MAX_DEV		220

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
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

int md_super_read(const char *path, const char *ver, uint64_t size, struct md_super *sb, char **why)
{
	unsigned char *block;
	uint64_t off;
	ssize_t n;
	int fd, r;

	*why = NULL;
	if (!strcmp(ver, "1.2"))
		off = 8;
	else if (!strcmp(ver, "1.1"))
		off = 0;
	else if (!strcmp(ver, "1.0") && size >= 16 * 512)
		off = ((size >> 9) - 16) & ~(uint64_t)7;	/* super_1_load() */
	else {
		*why = xasprintf("metadata %s: only 1.0, 1.1 and 1.2 are kept", ver);
		return -EINVAL;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		*why = xasprintf("cannot open %s: %s", path, strerror(errno));
		return r;
	}
	block = xmalloc(MD_SUPER_BLOCK);
	do
		n = pread(fd, block, MD_SUPER_BLOCK, (off_t)(off * 512));
	while (n < 0 && errno == EINTR);
	r = n < 0 ? -errno : 0;
	close(fd);
	if (n != MD_SUPER_BLOCK) {
		*why = xasprintf("cannot read the superblock of %s: %s", path, r ? strerror(-r) : "short read");
		free(block);
		return r ? r : -EIO;
	}
	r = md_super_parse(block, sb, why);
	free(block);
	if (r == 0 && sb->super_offset != off) {
		*why = xasprintf("its superblock says it is at sector %llu, not %llu",
				 (unsigned long long)sb->super_offset, (unsigned long long)off);
		r = -EINVAL;
	}
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
