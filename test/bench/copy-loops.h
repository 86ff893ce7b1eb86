/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the copy benches share (memcpy-bw.c, copy-cost.c, zcomp-cost.c):
 * a clock, a median, a cheap random generator, an argument parser and, on x86-64,
 * the kernel's copy loops as user-space functions. The loops are written from
 * what arch/x86/lib/memcpy_64.S and copy_mc_64.S do on the path without a
 * fault; the exception-table entries that make the kernel's machine-check
 * safe cost nothing until one fires.
 */
#ifndef RDMIRROR_BENCH_COPY_LOOPS_H
#define RDMIRROR_BENCH_COPY_LOOPS_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MIB (1024UL * 1024UL)
#define PAGE 4096UL

static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of @v's @n values (sorts @v). */
static inline double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* xorshift64: a cheap generator, so the timing is the copies' */
static inline uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* @s as a number in [min, max], or exit 2 naming @what */
static inline long parse_arg(const char *prog, const char *s, long min, long max, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "%s: bad %s: %s (%ld to %ld)\n", prog, what, s, min, max);
		exit(2);
	}
	return v;
}

#if defined(__x86_64__)
#define HAVE_KERNEL_LOOPS 1

/* memcpy_orig's loop (no FSRM): four 8-byte loads, four stores; @len a multiple of 32, not 0 */
static inline void copy_memcpy_orig(void *dst, const void *src, size_t len)
{
	__asm__ __volatile__("1:\n\t"
			     "movq 0(%1), %%r8\n\t"
			     "movq 8(%1), %%r9\n\t"
			     "movq 16(%1), %%r10\n\t"
			     "movq 24(%1), %%r11\n\t"
			     "movq %%r8, 0(%0)\n\t"
			     "movq %%r9, 8(%0)\n\t"
			     "movq %%r10, 16(%0)\n\t"
			     "movq %%r11, 24(%0)\n\t"
			     "leaq 32(%1), %1\n\t"
			     "leaq 32(%0), %0\n\t"
			     "subq $32, %2\n\t"
			     "jnz 1b\n\t"
			     : "+r"(dst), "+r"(src), "+r"(len)
			     :
			     : "r8", "r9", "r10", "r11", "memory", "cc");
}

/* `rep movsb`: memcpy() with FSRM; copy_mc_enhanced_fast_string() */
static inline void copy_rep_movsb(void *dst, const void *src, size_t len)
{
	__asm__ __volatile__("rep movsb"
			     : "+D"(dst), "+S"(src), "+c"(len)
			     :
			     : "memory");
}

/* copy_mc_fragile()'s main loop: one 8-byte load, one store; @len a multiple of 8, not 0 */
static inline void copy_mc_fragile_loop(void *dst, const void *src, size_t len)
{
	size_t words = len / 8;

	__asm__ __volatile__("1:\n\t"
			     "movq (%1), %%r8\n\t"
			     "movq %%r8, (%0)\n\t"
			     "addq $8, %1\n\t"
			     "addq $8, %0\n\t"
			     "decq %2\n\t"
			     "jnz 1b\n\t"
			     : "+r"(dst), "+r"(src), "+r"(words)
			     :
			     : "r8", "memory", "cc");
}
#else
#define HAVE_KERNEL_LOOPS 0
#endif

#endif
