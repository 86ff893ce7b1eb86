// SPDX-License-Identifier: GPL-2.0
/*
 * The physical limit for make bench: how fast this CPU copies memory, the
 * only work a RAM disk does per byte. Three figures, on one CPU (the caller
 * pins it with taskset if it wants):
 *
 *   1 MiB copies: memcpy() of 1 MiB blocks from random places in a source
 *   buffer larger than the caches into a 1 MiB destination, in MB/s (the
 *   ceiling for a 1 MiB read from a RAM disk);
 *   4 KiB copies: memcpy() of 4 KiB pages from random places in the same
 *   source into one 4 KiB destination, copies per second (the ceiling for
 *   4 KiB random reads on one CPU);
 *   1 MiB copies in 8-byte moves: the 1 MiB copies again, in the kernel's
 *   own instructions on x86-64 without FSRM (memcpy_orig's loop: four
 *   8-byte loads, then four stores), the ceiling for any copy the kernel
 *   makes, beside glibc's memcpy(), which may use wider moves (AVX2).
 *
 *   memcpy-bw [SECONDS [SOURCE_MIB]]      prints one JSON object
 */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "copy-loops.h"

#if !HAVE_KERNEL_LOOPS
#define copy_memcpy_orig memcpy
#endif

/*
 * Copy @block-byte blocks from random block-aligned places in @src
 * (@src_size bytes) to @dst (in 8-byte moves if @moves8) for about
 * @secs seconds; returns the number of copies and their time through
 * @elapsed.
 */
static unsigned long copy_loop(unsigned char *dst, const unsigned char *src,
			       size_t src_size, size_t block, bool moves8,
			       double secs, double *elapsed)
{
	size_t nblocks = src_size / block;
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	unsigned long copies = 0;
	double start = now(), t = start;

	while (t - start < secs) {
		/* 64 copies between clock reads: the clock costs too */
		for (int i = 0; i < 64; i++) {
			size_t at = (size_t)(next_rand(&seed) % nblocks) * block;

			if (moves8)
				copy_memcpy_orig(dst, src + at, block);
			else
				memcpy(dst, src + at, block);
			/* keep the compiler from dropping the copy */
			__asm__ __volatile__("" : : "r"(dst) : "memory");
		}
		copies += 64;
		t = now();
	}
	*elapsed = t - start;
	return copies;
}

int main(int argc, char **argv)
{
	double secs = 3, t_big, t_small, t_moves = 0;
	size_t src_size = 256 * MIB;
	unsigned char *src, *dst;
	unsigned long n_big, n_small, n_moves;

	if (argc > 3) {
		fprintf(stderr, "usage: memcpy-bw [SECONDS [SOURCE_MIB]]\n");
		return 2;
	}
	if (argc > 1)
		secs = (double)parse_arg("memcpy-bw", argv[1], 1, 600, "seconds");
	if (argc > 2)
		src_size = (size_t)parse_arg("memcpy-bw", argv[2], 8, 65536, "source size") * MIB;

	src = aligned_alloc(PAGE, src_size);
	dst = aligned_alloc(PAGE, MIB);
	if (!src || !dst) {
		fprintf(stderr, "memcpy-bw: out of memory\n");
		return 1;
	}
	/* Touch every page: a first touch would count page faults. */
	for (size_t i = 0; i < src_size; i++)
		src[i] = (unsigned char)(i * 2654435761U >> 13);
	memset(dst, 0, MIB);

	n_big = copy_loop(dst, src, src_size, MIB, false, secs, &t_big);
	n_small = copy_loop(dst, src, src_size, PAGE, false, secs, &t_small);
	n_moves = HAVE_KERNEL_LOOPS ?
		copy_loop(dst, src, src_size, MIB, true, secs, &t_moves) : 0;
	/* a figure of a loop that does not copy would be no figure */
	memset(dst, 0, MIB);
	copy_memcpy_orig(dst, src + src_size - MIB, MIB);
	if (memcmp(dst, src + src_size - MIB, MIB) != 0) {
		fprintf(stderr, "memcpy-bw: the 8-byte-move copy is wrong\n");
		return 1;
	}

	printf("{\"source_mib\": %zu, \"seconds\": %.0f, "
	       "\"copy_1m_mb_per_s\": %.1f, \"copy_4k_per_s\": %.0f, "
	       "\"copy_4k_mb_per_s\": %.1f, ",
	       src_size / MIB, secs,
	       (double)n_big * MIB / t_big / 1e6,
	       (double)n_small / t_small,
	       (double)n_small * PAGE / t_small / 1e6);
	if (HAVE_KERNEL_LOOPS)
		printf("\"copy_1m_8byte_moves_mb_per_s\": %.1f}\n",
		       (double)n_moves * MIB / t_moves / 1e6);
	else
		printf("\"copy_1m_8byte_moves_mb_per_s\": null}\n");
	free(src);
	free(dst);
	return 0;
}
