// SPDX-License-Identifier: GPL-2.0
/*
 * rd-cmp: compare LENGTH bytes of two block devices (or files), each from
 * its own offset, read past the page cache.
 *
 *   rd-cmp FILE1 OFFSET1 FILE2 OFFSET2 LENGTH
 *
 * Exit 0 when they are the same, 1 with the first differing byte named
 * (as cmp names it: counted from 1, from each file's offset), 2 on an
 * error, an end of file before LENGTH among them: a short read is never
 * "the same". Offsets and LENGTH are multiples of 512 (O_DIRECT).
 *
 * What it replaces, cmp of two dd pipes, reads each pipe 4 KiB at a time:
 * 256 MiB took 12 s in a 6.1 guest under TCG, where each dd alone took
 * 0.3 s. This reads 1 MiB at a time from both and compares in memory.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK (1u << 20)

static int parse(const char *s, unsigned long long *v)
{
	char *end;

	if (s[0] < '0' || s[0] > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno || *end || *v % 512)
		return -1;
	return 0;
}

/* read exactly n bytes at off, or fail naming the file */
static int read_at(int fd, const char *name, char *buf, size_t n, unsigned long long off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(fd, buf + got, n - got, (off_t)(off + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			fprintf(stderr, "rd-cmp: %s: read at %llu: %s\n", name, off + got,
				strerror(errno));
			return -1;
		}
		if (r == 0) {
			fprintf(stderr, "rd-cmp: EOF on %s at %llu\n", name, off + got);
			return -1;
		}
		got += (size_t)r;
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long off1, off2, len, done = 0;
	char *b1, *b2;
	int fd1, fd2;

	if (argc != 6 || parse(argv[2], &off1) || parse(argv[4], &off2) || parse(argv[5], &len) ||
	    len == 0) {
		fprintf(stderr, "usage: rd-cmp FILE1 OFFSET1 FILE2 OFFSET2 LENGTH (multiples of 512, LENGTH > 0)\n");
		return 2;
	}
	fd1 = open(argv[1], O_RDONLY | O_DIRECT);
	if (fd1 < 0) {
		fprintf(stderr, "rd-cmp: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	fd2 = open(argv[3], O_RDONLY | O_DIRECT);
	if (fd2 < 0) {
		fprintf(stderr, "rd-cmp: %s: %s\n", argv[3], strerror(errno));
		return 2;
	}
	if (posix_memalign((void **)&b1, 4096, CHUNK) || posix_memalign((void **)&b2, 4096, CHUNK)) {
		fprintf(stderr, "rd-cmp: out of memory\n");
		return 2;
	}
	while (done < len) {
		size_t n = len - done < CHUNK ? (size_t)(len - done) : CHUNK;

		if (read_at(fd1, argv[1], b1, n, off1 + done) ||
		    read_at(fd2, argv[3], b2, n, off2 + done))
			return 2;
		if (memcmp(b1, b2, n)) {
			size_t i = 0;

			while (b1[i] == b2[i])
				i++;
			printf("%s %s differ: byte %llu\n", argv[1], argv[3], done + i + 1);
			return 1;
		}
		done += n;
	}
	return 0;
}
