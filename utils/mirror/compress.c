// SPDX-License-Identifier: GPL-2.0
#include "mirror/compress.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/config_edit.h"
#include "lib/errors.h"
#include "lib/meminfo.h"
#include "lib/size.h"
#include "lib/sysfs.h"
#include "lib/util.h"
#include "mirror/warm_record.h"

int compress_room_read(const struct config *cfg, struct compress_room *room)
{
	struct meminfo mi;
	struct rd_disk *disks = NULL;
	size_t n = 0;
	int r = meminfo_read(&mi);

	memset(room, 0, sizeof(*room));
	if (r < 0)
		return r;
	if (!mi.has_total || !mi.has_available)
		return -ENOENT;
	room->total = mi.total;
	room->available = mi.available;
	room->reserve = config_reserve_bytes(cfg, mi.total);
	if (rd_disks_list(&disks, &n) == 0) {
		for (size_t i = 0; i < n; i++) {
			const struct rd_disk *d = &disks[i];
			uint64_t held = d->has_allocated ? d->allocated : 0;
			uint64_t most = d->compressor ? (d->mem_limit > 0 ? (uint64_t)d->mem_limit : d->size) : d->size;

			room->pending += most > held ? most - held : 0;
		}
		rd_disks_free(disks, n);
	}
	if (room->available > room->reserve && room->available - room->reserve > room->pending)
		room->spare = room->available - room->reserve - room->pending;
	return 0;
}

/* "(N MiB available, N kept in reserve, N still to fill in other rd disks)" */
static char *room_words(const struct compress_room *room)
{
	char *av = size_mib_str(room->available / 1048576 * 1048576), *rs = size_mib_str(room->reserve / 1048576 * 1048576);
	char *pd = size_mib_str(room->pending / 1048576 * 1048576);
	char *s = xasprintf("%s available, %s kept in reserve, %s still to fill in other rd disks", av, rs, pd);

	free(av);
	free(rs);
	free(pd);
	return s;
}

int compress_limit(const struct config *cfg, bool ignore_memory, const char *what, uint64_t *limit)
{
	struct compress_room room;
	char *words, *min;
	int r = compress_room_read(cfg, &room), rc;

	if (r < 0)
		return fail_errno(-r, "cannot read MemTotal and MemAvailable from %s/meminfo to set the memory limit of %s",
				  proc_root(), what);
	if (ignore_memory) {
		/* past the refusal, still under the host's RAM less the reserve */
		*limit = room.total > room.reserve ? room.total - room.reserve : room.total;
		*limit &= ~4095ULL;
		return 0;
	}
	*limit = room.spare & ~4095ULL;
	if (*limit >= COMPRESS_MIN_LIMIT)
		return 0;
	words = room_words(&room);
	min = size_mib_str(COMPRESS_MIN_LIMIT);
	rc = fail_errno(ENOMEM, "%s would have less than %s of memory for its compressed data (%s): free memory, lower the reserve in rdmirror.conf, or --ignore-memory",
			what, min, words);
	free(words);
	free(min);
	return rc;
}

int compress_limit_conf(const char *conf_path, bool ignore_memory, const char *what, uint64_t *limit)
{
	struct config cfg;
	int rc;

	(void)config_read(conf_path, &cfg);
	rc = compress_limit(&cfg, ignore_memory, what, limit);
	config_free(&cfg);
	return rc;
}

static char *ratio_path(const char *uuid)
{
	return xasprintf("%s/ratio-%s", warm_state_dir(), uuid);
}

int compress_ratio_read(const char *uuid, uint64_t *data, uint64_t *allocated)
{
	char *path = ratio_path(uuid), *s = NULL;
	unsigned long long d, a;
	char tail;
	int r = read_text_file(path, &s);

	free(path);
	if (r < 0)
		return r == -ENOENT ? -ENOENT : r;
	r = sscanf(s, "%llu %llu%c", &d, &a, &tail) == 2 && d > 0 && a > 0 ? 0 : -EINVAL;
	free(s);
	if (r == 0) {
		*data = d;
		*allocated = a;
	}
	return r;
}

int compress_ratio_save(const char *uuid, uint64_t data, uint64_t allocated, char **why)
{
	char *path = ratio_path(uuid);
	char *text = xasprintf("%" PRIu64 " %" PRIu64 "\n", data, allocated);
	int r;

	*why = NULL;
	/* never into a missing state dir: a mount point at shutdown (warm_record.h) */
	if (path_exists(warm_state_dir())) {
		r = config_write_atomic(path, text, why);
	} else {
		r = -ENOENT;
		*why = xasprintf("cannot write %s: %s", path, strerror(ENOENT));
	}
	free(text);
	free(path);
	return r;
}

char *compress_refuse_restore(const struct compress_room *room, const char *uuid, uint64_t size, uint64_t *limit)
{
	uint64_t data = 0, alloc = 0, need;
	char *words, *nd, *why;
	bool ratio = uuid && compress_ratio_read(uuid, &data, &alloc) == 0;

	*limit = room->spare & ~4095ULL;
	/* at the ratio it had: size * allocated / data, without overflow */
	need = ratio ? (uint64_t)((long double)size * (long double)alloc / (long double)data) : COMPRESS_MIN_LIMIT;
	if (need < COMPRESS_MIN_LIMIT)
		need = COMPRESS_MIN_LIMIT;
	if (*limit >= need)
		return NULL;
	words = room_words(room);
	nd = size_mib_str(need / 1048576 * 1048576);
	if (ratio)
		why = xasprintf("a compressed member that held its data %.2f:1 needs about %s (%s)",
				(double)data / (double)alloc, nd, words);
	else
		why = xasprintf("a compressed member needs at least %s of memory for its compressed data (%s)", nd, words);
	free(words);
	free(nd);
	return why;
}
