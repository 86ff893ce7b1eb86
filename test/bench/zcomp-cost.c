// SPDX-License-Identifier: GPL-2.0
/*
 * What a compressed rd disk's page costs on this CPU, natively (#66): the
 * compressors and the checksum of module/rd_zcomp.c and rd_zstore.c, each
 * 4 KiB page against a 4 KiB copy (what an uncompressed rd disk's read
 * costs, `rep movsb`: copy-cost.c). The kernel cannot be timed in a TCG
 * guest (the emulator sets the pace) and this host loads no modules, so
 * the same upstream code runs in user space: Debian's liblz4 and libzstd
 * (the kernel's lib/lz4 and lib/zstd are ports of the same projects, of
 * older releases) and libxxhash's XXH32 (the kernel's xxh32()), called as
 * the module calls them:
 *
 *   lz4 compress     LZ4_compress_default() into 3/4 of a page (rd keeps
 *                    a page that does not fit whole);
 *   zstd compress    level 3 (RD_ZSTD_LEVEL), parameters for a 4 KiB
 *                    input (zstd_get_params(3, PAGE_SIZE));
 *   decompress       LZ4_decompress_safe(), ZSTD_decompressDCtx();
 *   read path        what rd_zs_copy_obj() and rd_zs_decode() do per page:
 *                    copy the object out (rep movsb, as
 *                    copy_mc_to_kernel() with ERMS), xxh32 over it,
 *                    decompress (a page stored whole: copy and xxh32);
 *   memcpy           a 4 KiB rep movsb: an uncompressed rd disk's read.
 *
 * Three kinds of pages, each from a source far larger than the caches,
 * one random page a call: "fio 3x", as `make demo` writes them (fio's
 * buffer_compress_percentage=67, buffer_compress_chunk=4k: 1351 random
 * bytes, then zeros); "text", the C headers under /usr/include one after
 * another (real text, about as compressible); and "random"
 * (incompressible: rd stores it whole after the compressors fail). The
 * objects are laid out one after another in 64-byte classes with rd's
 * 24-byte header, as rd_zstore.c allocates
 * them, which also gives the ratio rd would reach on each kind.
 *
 * The variants run in turn, TURN_SECONDS each, for ROUNDS rounds; each
 * figure is the median of its rounds in nanoseconds per 4 KiB page, each
 * ratio the median of the rounds' ratios to memcpy's.
 *
 *   zcomp-cost [ROUNDS [SOURCE_MIB]]     prints a table, then one JSON line
 */
#define _DEFAULT_SOURCE
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <lz4.h>
#include <xxhash.h>
#include <zstd.h>

#include "copy-loops.h"

#define TURN_SECONDS 0.2
#define ZSTD_LEVEL 3		/* module/rd_zcomp.c: RD_ZSTD_LEVEL */
#define MAX_LEN (PAGE / 4 * 3)	/* module/rd_zcomp.h: RD_ZCOMP_MAX_LEN */
#define OBJ_HEADER 24UL		/* struct rd_zobj before its data, x86-64 */
#define CLASS_STEP 64UL		/* rd_zstore.c: RD_ZCLASS_STEP */
#define FIO_RANDOM ((100 - 67) * PAGE / 100)	/* fio's random bytes a 4 KiB chunk */
#define TEXT_DIR "/usr/include"

#if !HAVE_KERNEL_LOOPS
int main(void)
{
	fprintf(stderr, "zcomp-cost: the copy loop here is x86-64's\n");
	return 2;
}
#else
enum comp { C_LZ4, C_ZSTD, NCOMP };
enum kind { K_FIO, K_TEXT, K_RANDOM, NKINDS };
enum op { O_MEMCPY, O_COMPRESS, O_DECOMPRESS, O_READ, O_XXH32, NOPS };

static const char *const comp_name[NCOMP] = { "lz4", "zstd" };
static const char *const kind_name[NKINDS] = { "fio 3x", "text", "random" };
static const char *const kind_key[NKINDS] = { "fio3x", "text", "random" };

/* One compressor's objects of one kind of pages, as rd's store holds them. */
struct store {
	unsigned char *mem;
	size_t *off;		/* page i's object at mem + off[i] */
	uint32_t *len;		/* its length: PAGE where stored whole */
	uint32_t *csum;
	size_t bytes;		/* what rd would allocate, as allocated_bytes */
	size_t whole;		/* pages stored whole */
};

struct variant {
	enum kind kind;
	enum op op;
	enum comp comp;
	char name[64];
};

struct arena {
	size_t npages;
	unsigned char *src[NKINDS];
	struct store st[NKINDS][NCOMP];
	unsigned char *dst, *buf;	/* the bio's page; the stream's buffer */
	ZSTD_CCtx *cctx;
	ZSTD_DCtx *dctx;
};

static unsigned int compress(struct arena *a, enum comp c, const void *src, void *dst)
{
	size_t ret;
	int len;

	if (c == C_LZ4) {
		len = LZ4_compress_default(src, dst, PAGE, MAX_LEN);
		return len > 0 ? (unsigned int)len : 0;
	}
	ret = ZSTD_compressCCtx(a->cctx, dst, MAX_LEN, src, PAGE, ZSTD_LEVEL);
	return ZSTD_isError(ret) ? 0 : (unsigned int)ret;
}

/* 0, or -1 where it does not decompress to exactly a page */
static int decompress(struct arena *a, enum comp c, const void *src, unsigned int len, void *dst)
{
	size_t ret;

	if (c == C_LZ4)
		return LZ4_decompress_safe(src, dst, (int)len, PAGE) == (int)PAGE ? 0 : -1;
	ret = ZSTD_decompressDCtx(a->dctx, dst, PAGE, src, len);
	return !ZSTD_isError(ret) && ret == PAGE ? 0 : -1;
}

/* The read of page @i as rd_zs_copy_obj() and rd_zs_decode() make it. */
static int read_page(struct arena *a, const struct store *st, enum comp c, size_t i)
{
	const unsigned char *obj = st->mem + st->off[i];
	unsigned int len = st->len[i];

	if (len == PAGE) {
		copy_rep_movsb(a->dst, obj, PAGE);
		return XXH32(a->dst, PAGE, 0) == st->csum[i] ? 0 : -1;
	}
	copy_rep_movsb(a->buf, obj, len);
	if (XXH32(a->buf, len, 0) != st->csum[i])
		return -1;
	return decompress(a, c, a->buf, len, a->dst);
}

/* Compress every page of @src into @st, as rd's writes would; 0 or -1. */
static int fill_store(struct arena *a, enum comp c, const unsigned char *src, struct store *st)
{
	size_t cap = a->npages * (PAGE + CLASS_STEP), at = 0;

	st->mem = malloc(cap);
	st->off = calloc(a->npages, sizeof(*st->off));
	st->len = calloc(a->npages, sizeof(*st->len));
	st->csum = calloc(a->npages, sizeof(*st->csum));
	if (!st->mem || !st->off || !st->len || !st->csum)
		return -1;
	for (size_t i = 0; i < a->npages; i++) {
		const unsigned char *page = src + i * PAGE;
		unsigned int len = compress(a, c, page, a->buf);
		size_t size;

		st->off[i] = at;
		if (!len) {
			len = PAGE;
			memcpy(st->mem + at, page, PAGE);
			size = PAGE + CLASS_STEP;	/* a whole page, and a header's class */
			st->whole++;
		} else {
			memcpy(st->mem + at, a->buf, len);
			size = (OBJ_HEADER + len + CLASS_STEP - 1) / CLASS_STEP * CLASS_STEP;
		}
		st->len[i] = len;
		st->csum[i] = XXH32(st->mem + at, len, 0);
		/* objects one after another, in their classes' sizes */
		at += size - OBJ_HEADER;
		st->bytes += size;
	}
	/* every page reads back as written: a figure of a wrong path is none */
	for (size_t i = 0; i < a->npages; i++) {
		memset(a->dst, 0xa5, PAGE);
		if (read_page(a, st, c, i) || memcmp(a->dst, src + i * PAGE, PAGE)) {
			fprintf(stderr, "zcomp-cost: %s: page %zu does not read back\n", comp_name[c], i);
			return -1;
		}
	}
	return 0;
}

/* One turn of @v: pages for about TURN_SECONDS; nanoseconds a page. */
static double turn(struct arena *a, const struct variant *v, uint64_t *seed, uint64_t *sink)
{
	const unsigned char *src = a->src[v->kind];
	const struct store *st = &a->st[v->kind][v->comp];
	unsigned long pages = 0;
	double start = now(), t = start;

	while (t - start < TURN_SECONDS) {
		/* 64 pages between clock reads: the clock costs too */
		for (int k = 0; k < 64; k++) {
			size_t i = (size_t)(next_rand(seed) % a->npages);

			switch (v->op) {
			case O_MEMCPY:
				copy_rep_movsb(a->dst, src + i * PAGE, PAGE);
				break;
			case O_COMPRESS:
				*sink += compress(a, v->comp, src + i * PAGE, a->buf);
				break;
			case O_DECOMPRESS:
				*sink += (uint64_t)decompress(a, v->comp, st->mem + st->off[i],
							      st->len[i], a->dst);
				break;
			case O_READ:
				*sink += (uint64_t)read_page(a, st, v->comp, i);
				break;
			case O_XXH32:
				*sink += XXH32(src + i * PAGE, PAGE, 0);
				break;
			default:
				break;
			}
			/* keep the compiler from dropping the work */
			__asm__ __volatile__("" : : "r"(a->dst), "r"(a->buf) : "memory");
		}
		pages += 64;
		t = now();
	}
	return (t - start) * 1e9 / (double)pages;
}

static int add(struct variant *vs, int n, enum kind k, enum op o, enum comp c)
{
	static const char *const op_name[NOPS] = {
		"memcpy 4 KiB (rd's read, uncompressed)", "compress", "decompress",
		"read path (copy, xxh32, decompress)", "xxh32 of 4 KiB",
	};

	vs[n].kind = k;
	vs[n].op = o;
	vs[n].comp = c;
	if (o == O_MEMCPY || o == O_XXH32)
		snprintf(vs[n].name, sizeof(vs[n].name), "%s", op_name[o]);
	else if (k == K_RANDOM && o == O_COMPRESS)
		snprintf(vs[n].name, sizeof(vs[n].name), "%s compress (fails)", comp_name[c]);
	else if (k == K_RANDOM && o == O_READ)
		snprintf(vs[n].name, sizeof(vs[n].name), "read path (copy, xxh32: whole)");
	else
		snprintf(vs[n].name, sizeof(vs[n].name), "%s %s", comp_name[c], op_name[o]);
	return n + 1;
}

/* The text pages: C headers, as found, one after another, until full. */
static unsigned char *text_at;
static size_t text_len, text_cap;

static int add_text(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	size_t n = strlen(path);
	FILE *f;

	(void)ftw;
	if (type != FTW_F || !S_ISREG(sb->st_mode) || n < 2 || strcmp(path + n - 2, ".h"))
		return 0;
	f = fopen(path, "rb");
	if (!f)
		return 0;
	text_len += fread(text_at + text_len, 1, text_cap - text_len, f);
	fclose(f);
	return text_len == text_cap;	/* 1 stops the walk: full */
}

/* @dst of @size bytes: the headers under TEXT_DIR, repeated; -1 if none */
static int fill_text(unsigned char *dst, size_t size)
{
	text_at = dst;
	text_cap = size;
	text_len = 0;
	if (nftw(TEXT_DIR, add_text, 16, FTW_PHYS) < 0 || text_len < PAGE)
		return -1;
	for (size_t at = text_len; at < size; at += text_len)
		memcpy(dst + at, dst, at + text_len <= size ? text_len : size - at);
	return 0;
}

int main(int argc, char **argv)
{
	size_t src_size = 512 * MIB, rounds = 15;
	struct variant vs[24];
	double *ns[24], *ratio[24], med_ns[24], med_ratio[24];
	int memcpy_of[NKINDS], nv = 0, v;
	uint64_t seed = 0x9e3779b97f4a7c15ULL, sink = 0;
	struct arena a;

	if (argc > 3) {
		fprintf(stderr, "usage: zcomp-cost [ROUNDS [SOURCE_MIB]]\n");
		return 2;
	}
	if (argc > 1)
		rounds = (size_t)parse_arg("zcomp-cost", argv[1], 3, 1000, "rounds");
	if (argc > 2)
		src_size = (size_t)parse_arg("zcomp-cost", argv[2], 64, 1 << 16, "source size in MiB") * MIB;

	memset(&a, 0, sizeof(a));
	a.npages = src_size / PAGE;
	a.dst = aligned_alloc(PAGE, PAGE);
	a.buf = aligned_alloc(PAGE, PAGE);
	a.cctx = ZSTD_createCCtx();
	a.dctx = ZSTD_createDCtx();
	for (int k = 0; k < NKINDS; k++)
		a.src[k] = aligned_alloc(PAGE, src_size);
	if (!a.dst || !a.buf || !a.cctx || !a.dctx || !a.src[K_FIO] || !a.src[K_TEXT] ||
	    !a.src[K_RANDOM]) {
		fprintf(stderr, "zcomp-cost: out of memory for a %zu MiB source\n", src_size / MIB);
		return 1;
	}
	/* The pages, every one touched: a first touch would count page faults. */
	for (size_t i = 0; i < a.npages; i++) {
		unsigned char *fio = a.src[K_FIO] + i * PAGE;
		uint64_t *r = (uint64_t *)(a.src[K_RANDOM] + i * PAGE);

		for (size_t w = 0; w < PAGE / sizeof(uint64_t); w++)
			r[w] = next_rand(&seed);
		for (size_t b = 0; b < FIO_RANDOM; b++)
			fio[b] = (unsigned char)next_rand(&seed);
		memset(fio + FIO_RANDOM, 0, PAGE - FIO_RANDOM);
	}
	if (fill_text(a.src[K_TEXT], src_size)) {
		fprintf(stderr, "zcomp-cost: no C headers under %s for the text pages\n", TEXT_DIR);
		return 1;
	}
	for (int k = 0; k < NKINDS; k++)
		for (int c = 0; c < NCOMP; c++)
			if (fill_store(&a, (enum comp)c, a.src[k], &a.st[k][c])) {
				fprintf(stderr, "zcomp-cost: the %s store of %s pages failed\n",
					comp_name[c], kind_name[k]);
				return 1;
			}

	for (int k = 0; k < NKINDS; k++) {
		memcpy_of[k] = nv;
		nv = add(vs, nv, (enum kind)k, O_MEMCPY, C_LZ4);
		for (int c = 0; c < NCOMP; c++) {
			nv = add(vs, nv, (enum kind)k, O_COMPRESS, (enum comp)c);
			if (k != K_RANDOM) {
				nv = add(vs, nv, (enum kind)k, O_DECOMPRESS, (enum comp)c);
				nv = add(vs, nv, (enum kind)k, O_READ, (enum comp)c);
			}
		}
		if (k == K_RANDOM) {
			nv = add(vs, nv, (enum kind)k, O_READ, C_LZ4);
			nv = add(vs, nv, (enum kind)k, O_XXH32, C_LZ4);
		}
	}
	for (v = 0; v < nv; v++) {
		ns[v] = calloc(rounds, sizeof(double));
		ratio[v] = calloc(rounds, sizeof(double));
		if (!ns[v] || !ratio[v]) {
			fprintf(stderr, "zcomp-cost: out of memory\n");
			return 1;
		}
	}

	for (size_t r = 0; r < rounds; r++) {
		for (v = 0; v < nv; v++)
			ns[v][r] = turn(&a, &vs[v], &seed, &sink);
		for (v = 0; v < nv; v++)
			ratio[v][r] = ns[v][r] / ns[memcpy_of[vs[v].kind]][r];
		fprintf(stderr, "\rzcomp-cost: round %zu of %zu", r + 1, rounds);
	}
	fprintf(stderr, "\n");
	for (v = 0; v < nv; v++) {
		med_ns[v] = median(ns[v], rounds);
		med_ratio[v] = median(ratio[v], rounds);
	}

	printf("4 KiB pages from random places of a %zu MiB source of each kind, %zu rounds of %.1f s each, medians;\n"
	       "liblz4 %s, libzstd %s (level %d), libxxhash XXH32\n\n",
	       src_size / MIB, rounds, TURN_SECONDS, LZ4_versionString(), ZSTD_versionString(),
	       ZSTD_LEVEL);
	printf("| pages | what | ns per 4 KiB page | time / memcpy's |\n|---|---|---:|---:|\n");
	for (v = 0; v < nv; v++)
		printf("| %s | %s | %.0f | %.2fx |\n", kind_name[vs[v].kind], vs[v].name, med_ns[v],
		       med_ratio[v]);
	printf("\n| pages | compressor | stored whole | ratio as rd would store them (64-byte classes, 24-byte header) |\n"
	       "|---|---|---:|---:|\n");
	for (int k = 0; k < NKINDS; k++)
		for (int c = 0; c < NCOMP; c++)
			printf("| %s | %s | %zu of %zu | %.2fx |\n", kind_name[k], comp_name[c],
			       a.st[k][c].whole, a.npages,
			       (double)(a.npages * PAGE) / (double)a.st[k][c].bytes);
	printf("{\"source_mib\": %zu, \"rounds\": %zu, \"lz4\": \"%s\", \"zstd\": \"%s\", \"zstd_level\": %d, \"ns_per_4k\": {",
	       src_size / MIB, rounds, LZ4_versionString(), ZSTD_versionString(), ZSTD_LEVEL);
	for (v = 0; v < nv; v++)
		printf("%s\"%s: %s\": %.1f", v ? ", " : "", kind_key[vs[v].kind], vs[v].name, med_ns[v]);
	printf("}, \"ratio\": {");
	for (int k = 0; k < NKINDS; k++)
		for (int c = 0; c < NCOMP; c++)
			printf("%s\"%s %s\": %.3f", k || c ? ", " : "", kind_key[k], comp_name[c],
			       (double)(a.npages * PAGE) / (double)a.st[k][c].bytes);
	printf("}, \"sink\": %llu}\n", (unsigned long long)(sink & 1));
	return 0;
}
#endif
