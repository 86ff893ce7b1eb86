// SPDX-License-Identifier: GPL-2.0
/*
 * The compressed member's Prometheus families (status/compressed.h): every
 * label escaped as the text format wants; and the memory bound a new one
 * gets (mirror/compress.h's compress_limit()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_tree.h"
#include "lib/errors.h"
#include "lib/util.h"
#include "mirror/compress.h"
#include "status/compressed.h"
#include "unit.h"

#define GiB (1024ULL * 1024 * 1024)

static void label_checks(void)
{
	char *s = prom_label_esc("a\\b\"c\nd");

	CHECK_STR(s, "a\\\\b\\\"c\\nd");
	free(s);
	s = prom_label_esc(NULL);
	CHECK_STR(s, "");
	free(s);
}

/* The data_bytes lines of compressed_prom() for disks, "" on error; malloc'd. */
static char *data_lines(const struct rd_disk *disks, size_t n)
{
	char *buf = NULL, *out, *o;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int r;

	if (!f)
		return xstrdup("");
	r = compressed_prom(f, disks, n);
	if (fclose(f) != 0 || r) {
		free(buf);
		return xstrdup("");
	}
	out = xmalloc(len + 1);
	o = out;
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
		if (!strncmp(line, "rdmirror_compressed_data_bytes{", 31))
			o += sprintf(o, "%s\n", line);
	*o = '\0';
	free(buf);
	return out;
}

static void prom_checks(void)
{
	char name0[] = "rd0", name1[] = "rd\"1", comp0[] = "lz4", comp1[] = "zstd\\\"x\ny";
	struct rd_disk d[3] = {
		{ .name = name0, .compressor = comp0, .data_bytes = 7 },
		{ .name = name1, .compressor = comp1, .data_bytes = 9 },
		{ .name = name0, .data_bytes = 5 },	/* not compressed: no line */
	};
	char *s = data_lines(d, 3);

	CHECK_STR(s, "rdmirror_compressed_data_bytes{disk=\"rd0\",compressor=\"lz4\"} 7\n"
		     "rdmirror_compressed_data_bytes{disk=\"rd\\\"1\",compressor=\"zstd\\\\\\\"x\\ny\"} 9\n");
	free(s);
}

static void limit_checks(const char *root)
{
	static const char meminfo[] = "MemTotal:       16777216 kB\n"
				      "MemFree:         2097152 kB\n"
				      "MemAvailable:    1048576 kB\n"
				      "Buffers:            1024 kB\n";
	uint64_t reserve = config_reserve_bytes(NULL, 16 * GiB), limit = 1;
	struct compress_room room;
	const char *msg;

	/* --ignore-memory: RAM less the reserve, whatever is free, in whole pages */
	CHECK(fake_write(root, "proc/meminfo", meminfo) == 0);
	CHECK_U64(compress_limit(NULL, true, "the compressed RAM member", &limit), 0);
	CHECK_U64(limit, (16 * GiB - reserve) & ~4095ULL);
	/* otherwise the spare: 1 GiB available less 819 MiB kept and the other disks is too little */
	error_reset();
	CHECK_U64(compress_limit(NULL, false, "the compressed RAM member", &limit), EXIT_RUNTIME);
	msg = error_message();
	CHECK(msg && strstr(msg, "the compressed RAM member would have less than 64 MiB of memory"));
	CHECK_STR(error_code(), "ENOMEM");
	error_reset();
	/* 8 GiB and 5 KiB available: the spare, in whole pages */
	CHECK(fake_write(root, "proc/meminfo", "MemTotal: 16777216 kB\nMemAvailable: 8388613 kB\n") == 0);
	CHECK(compress_room_read(NULL, &room) == 0);
	CHECK_U64(room.available, 8388613ULL * 1024);
	CHECK_U64(compress_limit(NULL, false, "the compressed RAM member", &limit), 0);
	CHECK_U64(limit, room.spare & ~4095ULL);
	CHECK(limit >= COMPRESS_MIN_LIMIT && limit % 4096 == 0 && limit < room.spare);
	CHECK(error_message() == NULL);
	CHECK(fake_write(root, "proc/meminfo", meminfo) == 0);
}

void test_compressed(const char *root)
{
	label_checks();
	prom_checks();
	limit_checks(root);
}
