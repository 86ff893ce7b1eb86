// SPDX-License-Identifier: GPL-2.0
/*
 * What a 4 KiB read costs rd and brd on this CPU, with no emulator in the
 * way (#36, items 5 and 10). A TCG guest runs `rep movsb` a byte at a
 * time, so the VM benches measure qemu there, not the copy; this program
 * runs the kernels' copy loops natively, in user space, on a source laid
 * out as the kernel's direct map is (2 MiB pages where the kernel gives
 * them, far larger than the caches), one random 4 KiB page per copy:
 *
 *   memcpy_orig   brd's memcpy() on a CPU without FSRM: four 8-byte
 *                 loads, then four stores, 32 bytes a turn;
 *   rep_movsb     brd's memcpy() with FSRM, and copy_mc_to_kernel() on
 *                 a CPU with ERMS (copy_mc_enhanced_fast_string()): what
 *                 rd reads through on most hardware;
 *   mc_fragile    copy_mc_fragile()'s loop, the branch of CPUs whose
 *                 machine check recovery needs it (Purley, Brickland):
 *                 one 8-byte load and one store a turn;
 *   rep_movsb_page  rep_movsb after reading the page's `struct page`
 *                 (64 bytes a page, in an array laid out as the
 *                 vmemmap: what PageHWPoison() reads), the check rd
 *                 makes before every copy (rd_page_poisoned());
 *   rep_movsb_page_4k  the same with that array in 4 KiB pages: a
 *                 TLB miss a copy, as where the vmemmap outgrows the TLB;
 *   rep_movsb_again  the same loop twice: the method's own control.
 *
 * The variants run in turn, 0.2 s each, for ROUNDS rounds, so that all
 * see the same machine at nearly the same moment; each figure is the
 * median of its rounds, in nanoseconds per 4 KiB copy, and each ratio
 * the median of the rounds' ratios. The exception-table entries that make
 * the kernel's loops machine-check safe cost nothing until a machine check
 * fires, so the loops here are the kernels' on the path without one.
 *
 *   copy-cost [ROUNDS [SOURCE_MIB]]     prints a table, then one JSON line
 */
#define _DEFAULT_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "copy-loops.h"

#define STRUCT_PAGE 64UL	/* sizeof(struct page) on x86-64 */
#define TURN_SECONDS 0.2

#if !HAVE_KERNEL_LOOPS
int main(void)
{
	fprintf(stderr, "copy-cost: the kernels' loops here are x86-64's\n");
	return 2;
}
#else
enum variant { V_ORIG, V_MOVSB, V_FRAGILE, V_MOVSB_PAGE, V_MOVSB_PAGE_4K, V_MOVSB_AGAIN, NVARIANTS };

static const char *const variant_name[NVARIANTS] = {
	"memcpy_orig", "rep_movsb", "mc_fragile", "rep_movsb_page", "rep_movsb_page_4k",
	"rep_movsb_again",
};

static const char *const variant_what[NVARIANTS] = {
	"brd, a CPU without FSRM (memcpy_orig)",
	"rd with ERMS (copy_mc_enhanced_fast_string); brd with FSRM",
	"rd on CPUs that need copy_mc_fragile()",
	"rd with ERMS, reading each page's struct page first",
	"the same, the struct pages mapped in 4 KiB pages (a TLB miss each)",
	"rep movsb again (the control)",
};

struct arena {
	unsigned char *src;	/* the disk's pages */
	size_t npages;
	const volatile uint64_t *flags;	/* a struct page's first word, each STRUCT_PAGE bytes */
	const volatile uint64_t *flags_4k;	/* the same, mapped in 4 KiB pages */
	unsigned char *dst;	/* the bio's page */
};

/* One turn of @v: copies for about TURN_SECONDS; nanoseconds a copy. */
static double turn(const struct arena *a, enum variant v, uint64_t *seed,
		   uint64_t *seen)
{
	unsigned long copies = 0;
	double start = now(), t = start;

	while (t - start < TURN_SECONDS) {
		/* 64 copies between clock reads: the clock costs too */
		for (int i = 0; i < 64; i++) {
			size_t pfn = (size_t)(next_rand(seed) % a->npages);
			const unsigned char *from = a->src + pfn * PAGE;

			switch (v) {
			case V_ORIG:
				copy_memcpy_orig(a->dst, from, PAGE);
				break;
			case V_FRAGILE:
				copy_mc_fragile_loop(a->dst, from, PAGE);
				break;
			case V_MOVSB_PAGE:
			case V_MOVSB_PAGE_4K:
				/* as rd: a flagged page is not copied (a branch, predicted) */
				if (__builtin_expect((v == V_MOVSB_PAGE ? a->flags : a->flags_4k)
						     [pfn * (STRUCT_PAGE / sizeof(uint64_t))] & 1, 0)) {
					(*seen)++;
					break;
				}
				copy_rep_movsb(a->dst, from, PAGE);
				break;
			default:
				copy_rep_movsb(a->dst, from, PAGE);
				break;
			}
			/* keep the compiler from dropping the copy */
			__asm__ __volatile__("" : : "r"(a->dst) : "memory");
		}
		copies += 64;
		t = now();
	}
	return (t - start) * 1e9 / (double)copies;
}

/* @size bytes of 2 MiB-aligned memory in 2 MiB pages if @huge, else in 4 KiB ones */
static void *big_alloc(size_t size, int huge)
{
	void *p = NULL;

	if (posix_memalign(&p, 2 * MIB, size))
		return NULL;
	/* as the kernel's direct map and vmemmap: a failure only costs TLB misses */
	(void)madvise(p, size, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	return p;
}

/* Whether the last copy of each loop is right: a figure of a wrong loop is none. */
static int check_loops(const struct arena *a)
{
	void (*const loop[])(void *, const void *, size_t) = {
		copy_memcpy_orig, copy_rep_movsb, copy_mc_fragile_loop,
	};
	const unsigned char *from = a->src + (a->npages - 1) * PAGE;

	for (size_t i = 0; i < sizeof(loop) / sizeof(loop[0]); i++) {
		memset(a->dst, 0, PAGE);
		loop[i](a->dst, from, PAGE);
		if (memcmp(a->dst, from, PAGE)) {
			fprintf(stderr, "copy-cost: loop %zu copies wrongly\n", i);
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	size_t src_size = 4096 * MIB, rounds = 15;
	/* per variant and round: ns a copy, and that over rep_movsb's in the round */
	double *ns[NVARIANTS], *ratio[NVARIANTS], med_ns[NVARIANTS], med_ratio[NVARIANTS];
	uint64_t seed = 0x9e3779b97f4a7c15ULL, seen = 0;
	struct arena a;
	unsigned char *flags, *flags_4k;
	int v;

	if (argc > 3) {
		fprintf(stderr, "usage: copy-cost [ROUNDS [SOURCE_MIB]]\n");
		return 2;
	}
	if (argc > 1)
		rounds = (size_t)parse_arg("copy-cost", argv[1], 3, 1000, "rounds");
	if (argc > 2)
		src_size = (size_t)parse_arg("copy-cost", argv[2], 64, 1 << 20, "source size in MiB") * MIB;

	a.npages = src_size / PAGE;
	a.src = big_alloc(src_size, 1);
	flags = big_alloc(a.npages * STRUCT_PAGE, 1);
	flags_4k = big_alloc(a.npages * STRUCT_PAGE, 0);
	a.dst = aligned_alloc(PAGE, PAGE);
	if (!a.src || !flags || !flags_4k || !a.dst) {
		fprintf(stderr, "copy-cost: out of memory for a %zu MiB source\n", src_size / MIB);
		return 1;
	}
	for (v = 0; v < NVARIANTS; v++) {
		ns[v] = calloc(rounds, sizeof(double));
		ratio[v] = calloc(rounds, sizeof(double));
		if (!ns[v] || !ratio[v]) {
			fprintf(stderr, "copy-cost: out of memory\n");
			return 1;
		}
	}
	/* Touch every page: a first touch would count page faults. */
	for (size_t i = 0; i < src_size; i += sizeof(uint64_t))
		*(uint64_t *)(a.src + i) = next_rand(&seed);
	memset(flags, 0, a.npages * STRUCT_PAGE);
	memset(flags_4k, 0, a.npages * STRUCT_PAGE);
	a.flags = (const volatile uint64_t *)flags;
	a.flags_4k = (const volatile uint64_t *)flags_4k;
	memset(a.dst, 0, PAGE);
	if (check_loops(&a))
		return 1;

	for (size_t r = 0; r < rounds; r++) {
		for (v = 0; v < NVARIANTS; v++)
			ns[v][r] = turn(&a, (enum variant)v, &seed, &seen);
		for (v = 0; v < NVARIANTS; v++)
			ratio[v][r] = ns[v][r] / ns[V_MOVSB][r];
		fprintf(stderr, "\rcopy-cost: round %zu of %zu", r + 1, rounds);
	}
	fprintf(stderr, "\n");
	for (v = 0; v < NVARIANTS; v++) {
		med_ns[v] = median(ns[v], rounds);
		med_ratio[v] = median(ratio[v], rounds);	/* sorts the ratios */
	}

	printf("4 KiB copies from random pages of a %zu MiB source, %zu rounds of %.1f s each, medians\n\n",
	       src_size / MIB, rounds, TURN_SECONDS);
	printf("| loop | what runs it | ns per 4 KiB | time / rep_movsb's |\n|---|---|---:|---:|\n");
	for (v = 0; v < NVARIANTS; v++)
		printf("| %s | %s | %.0f | %.3fx |\n", variant_name[v], variant_what[v],
		       med_ns[v], med_ratio[v]);
	printf("\nThe control (rep_movsb_again / rep_movsb) ranged %.3fx to %.3fx over the rounds.\n",
	       ratio[V_MOVSB_AGAIN][0], ratio[V_MOVSB_AGAIN][rounds - 1]);
	printf("{\"source_mib\": %zu, \"rounds\": %zu, \"ns_per_4k\": {", src_size / MIB, rounds);
	for (v = 0; v < NVARIANTS; v++)
		printf("%s\"%s\": %.1f", v ? ", " : "", variant_name[v], med_ns[v]);
	printf("}, \"ratio_to_rep_movsb\": {");
	for (v = 0; v < NVARIANTS; v++)
		printf("%s\"%s\": %.4f", v ? ", " : "", variant_name[v], med_ratio[v]);
	printf("}, \"control_range\": [%.4f, %.4f], \"flags_set\": %llu}\n",
	       ratio[V_MOVSB_AGAIN][0], ratio[V_MOVSB_AGAIN][rounds - 1],
	       (unsigned long long)seen);
	return 0;
}
#endif
