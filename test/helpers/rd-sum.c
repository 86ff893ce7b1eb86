// SPDX-License-Identifier: GPL-2.0
/*
 * rd-sum: a 64-bit checksum of a whole block device (or file), read past
 * the page cache, for the VM suite's "the array still holds what it
 * held" checks.
 *
 *   rd-sum FILE
 *
 * Prints the checksum in hex and the bytes read. A changed block, not an
 * attacker, is what it must find: the state goes through a one-to-one
 * mix after each 8-byte word, so the order of the words counts (a block
 * moved is a change), and the word's position goes in with it besides;
 * two different contents give the same sum by chance once in 2^64.
 *
 * What it replaces, dd of the device into md5sum, took 2.2 to 3.1 s for
 * 256 MiB in a 6.1 guest under TCG (test/RUNLOG.md), where dd alone
 * read it in 0.3 s.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK (1u << 20)

/* the finalizer of splitmix64: every input bit moves every output bit */
static uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

int main(int argc, char **argv)
{
	uint64_t h = 0x6a09e667f3bcc908ULL, pos = 0;
	unsigned char *buf;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: rd-sum FILE\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_DIRECT);
	if (fd < 0) {
		fprintf(stderr, "rd-sum: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	if (posix_memalign((void **)&buf, 4096, CHUNK)) {
		fprintf(stderr, "rd-sum: out of memory\n");
		return 2;
	}
	for (;;) {
		ssize_t r = read(fd, buf, CHUNK);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			fprintf(stderr, "rd-sum: %s: read at %" PRIu64 ": %s\n", argv[1], pos,
				strerror(errno));
			return 2;
		}
		if (r == 0)
			break;
		/* a short read's tail: zero up to the next word, the length is summed too */
		memset(buf + r, 0, (size_t)(-r & 7));
		for (size_t i = 0; i < (size_t)r; i += 8) {
			uint64_t w;

			memcpy(&w, buf + i, 8);
			h = mix(h ^ w ^ (pos + i));
		}
		pos += (uint64_t)r;
	}
	h = mix(h ^ pos);
	printf("%016" PRIx64 " %" PRIu64 "\n", h, pos);
	/* an empty answer must not compare equal to another empty one */
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "rd-sum: writing the sum failed\n");
		return 2;
	}
	return 0;
}
