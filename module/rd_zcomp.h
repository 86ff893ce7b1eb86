/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The compressors of a compressed rd disk (rd_zcomp.c): lib/lz4 and
 * lib/zstd called directly, each stream (work memory and two page
 * buffers) per CPU and behind a mutex, so that its holder may sleep
 * (allocate with reclaim) and another task that lands on the same CPU
 * waits for it instead of sharing it.
 */
#ifndef RD_ZCOMP_H
#define RD_ZCOMP_H

#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/types.h>

/*
 * The longest compressed page kept compressed: 3/4 of a page. A page
 * that compresses worse is kept whole ("huge"): its few hundred bytes
 * saved would cost a decompression on every read.
 */
#define RD_ZCOMP_MAX_LEN	(PAGE_SIZE / 4 * 3)

struct rd_zstrm {
	struct mutex lock;	/* held by the stream's user */
	void *cwork;		/* lz4 work memory, or the zstd cctx's */
	void *dwork;		/* the zstd dctx's workspace (zstd only) */
	void *cctx;		/* zstd_cctx, in @cwork (zstd only) */
	void *dctx;		/* zstd_dctx, in @dwork (zstd only) */
	u8 *buf;		/* a page: a compressed page, or an object's copy */
	u8 *page;		/* a page: a decompressed page */
};

struct rd_zcomp;

/* @kind: RDMIRROR_COMP_LZ4 or RDMIRROR_COMP_ZSTD. NULL without memory. */
struct rd_zcomp *rd_zcomp_create(u32 kind);
void rd_zcomp_destroy(struct rd_zcomp *comp);
const char *rd_zcomp_name(const struct rd_zcomp *comp);
/* A stream of this CPU (or another's), locked; NULL if @nowait and busy. */
struct rd_zstrm *rd_zcomp_get(struct rd_zcomp *comp, bool nowait);
void rd_zcomp_put(struct rd_zstrm *strm);
/*
 * Compress the page at @src into strm->buf: its length, or 0 where it
 * does not fit in RD_ZCOMP_MAX_LEN bytes (or the compressor failed).
 */
unsigned int rd_zcomp_compress(struct rd_zcomp *comp, struct rd_zstrm *strm,
			       const void *src);
/*
 * Decompress @len bytes at @src into the page at @dst: 0 if that gave
 * exactly a page, else -EIO.
 */
int rd_zcomp_decompress(struct rd_zcomp *comp, struct rd_zstrm *strm,
			const void *src, unsigned int len, void *dst);

#endif /* RD_ZCOMP_H */
