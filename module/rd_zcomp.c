// SPDX-License-Identifier: GPL-2.0
/*
 * The compressors of a compressed rd disk: lib/lz4 and lib/zstd, called
 * directly. The crypto API's crypto_comp was removed in 6.15; the lib
 * functions used here (LZ4_compress_default, LZ4_decompress_safe,
 * zstd_get_params, zstd_{c,d}ctx_workspace_bound, zstd_init_{c,d}ctx,
 * zstd_{compress,decompress}_{c,d}ctx) are exported with the same
 * signatures from 6.1 to 7.2, as zram has called them since 6.12. On
 * Debian's kernels lz4_compress and zstd_compress are modules (the
 * decompressors are built in): modprobe loads them with rdmirror, from
 * the symbols it uses.
 *
 * Each disk has one stream per possible CPU (no CPU hotplug to follow),
 * each behind a mutex: a task takes the stream of the CPU it runs on and
 * may sleep holding it, and a task that lands on that CPU meanwhile
 * waits for it, as zram's streams since 6.15.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/lz4.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/zstd.h>

#include "uapi/rdmirror.h"
#include "rd_zcomp.h"

/* zstd's own default, as zram's: a third better than lz4 on text. */
#define RD_ZSTD_LEVEL	3

struct rd_zcomp {
	u32 kind;
	zstd_parameters params;		/* zstd only */
	struct rd_zstrm __percpu *strm;
};

static void rd_zstrm_free(struct rd_zstrm *s)
{
	kvfree(s->cwork);
	kvfree(s->dwork);
	kfree(s->buf);
	kfree(s->page);
}

static int rd_zstrm_init(struct rd_zcomp *comp, struct rd_zstrm *s)
{
	size_t size;

	mutex_init(&s->lock);
	s->buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	s->page = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!s->buf || !s->page)
		return -ENOMEM;
	if (comp->kind == RDMIRROR_COMP_LZ4) {
		s->cwork = kvmalloc(LZ4_MEM_COMPRESS, GFP_KERNEL);
		return s->cwork ? 0 : -ENOMEM;
	}
	/*
	 * (the compression parameters are zstd_parameters' first member, in
	 * zstd's API since 1.0: named so, checkpatch takes it for CamelCase)
	 */
	size = zstd_cctx_workspace_bound((const zstd_compression_parameters *)
					 &comp->params);
	s->cwork = kvmalloc(size, GFP_KERNEL);
	if (!s->cwork)
		return -ENOMEM;
	s->cctx = zstd_init_cctx(s->cwork, size);
	size = zstd_dctx_workspace_bound();
	s->dwork = kvmalloc(size, GFP_KERNEL);
	if (!s->dwork)
		return -ENOMEM;
	s->dctx = zstd_init_dctx(s->dwork, size);
	return s->cctx && s->dctx ? 0 : -EINVAL;
}

void rd_zcomp_destroy(struct rd_zcomp *comp)
{
	int cpu;

	if (!comp)
		return;
	if (comp->strm) {
		for_each_possible_cpu(cpu)
			rd_zstrm_free(per_cpu_ptr(comp->strm, cpu));
		free_percpu(comp->strm);
	}
	kfree(comp);
}

struct rd_zcomp *rd_zcomp_create(u32 kind)
{
	struct rd_zcomp *comp;
	int cpu;

	comp = kzalloc(sizeof(*comp), GFP_KERNEL);
	if (!comp)
		return NULL;
	comp->kind = kind;
	if (kind == RDMIRROR_COMP_ZSTD)
		comp->params = zstd_get_params(RD_ZSTD_LEVEL, PAGE_SIZE);
	/* zeroed: a stream that failed half-way frees what it has */
	comp->strm = alloc_percpu(struct rd_zstrm);
	if (!comp->strm)
		goto fail;
	for_each_possible_cpu(cpu)
		if (rd_zstrm_init(comp, per_cpu_ptr(comp->strm, cpu)))
			goto fail;
	return comp;
fail:
	rd_zcomp_destroy(comp);
	return NULL;
}

const char *rd_zcomp_name(const struct rd_zcomp *comp)
{
	return comp->kind == RDMIRROR_COMP_ZSTD ? "zstd" : "lz4";
}

struct rd_zstrm *rd_zcomp_get(struct rd_zcomp *comp, bool nowait)
{
	/* any CPU's stream will do: this one's is the least contended */
	struct rd_zstrm *s = raw_cpu_ptr(comp->strm);

	if (!nowait)
		mutex_lock(&s->lock);
	else if (!mutex_trylock(&s->lock))
		return NULL;
	return s;
}

void rd_zcomp_put(struct rd_zstrm *strm)
{
	mutex_unlock(&strm->lock);
}

unsigned int rd_zcomp_compress(struct rd_zcomp *comp, struct rd_zstrm *strm,
			       const void *src)
{
	size_t ret;
	int len;

	if (comp->kind == RDMIRROR_COMP_LZ4) {
		/* 0 where the output would pass RD_ZCOMP_MAX_LEN */
		len = LZ4_compress_default(src, strm->buf, PAGE_SIZE,
					   RD_ZCOMP_MAX_LEN, strm->cwork);
		return len > 0 ? len : 0;
	}
	ret = zstd_compress_cctx(strm->cctx, strm->buf, RD_ZCOMP_MAX_LEN,
				 src, PAGE_SIZE, &comp->params);
	return zstd_is_error(ret) ? 0 : ret;
}

int rd_zcomp_decompress(struct rd_zcomp *comp, struct rd_zstrm *strm,
			const void *src, unsigned int len, void *dst)
{
	size_t ret;

	if (comp->kind == RDMIRROR_COMP_LZ4)
		return LZ4_decompress_safe(src, dst, len, PAGE_SIZE) == PAGE_SIZE ?
		       0 : -EIO;
	ret = zstd_decompress_dctx(strm->dctx, dst, PAGE_SIZE, src, len);
	return !zstd_is_error(ret) && ret == PAGE_SIZE ? 0 : -EIO;
}
