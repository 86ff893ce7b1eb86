/* SPDX-License-Identifier: GPL-2.0 */
/* The rd disks as sysfs shows them: /sys/block/rdN/... */
#ifndef RDCTL_SYSFS_H
#define RDCTL_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rd_disk {
	char *name;		/* "rd0" */
	unsigned index;
	uint64_t size;		/* bytes */
	bool has_allocated;
	uint64_t allocated;	/* bytes of RAM held */
	int preallocated;	/* 1, 0, or -1 when unknown */
	/*
	 * Memory errors (module 0.2 on; -1 when the module does not say):
	 * pages found broken, and those a write has replaced since.
	 */
	int64_t memory_errors, replaced_pages;
	/* writes refused for the module's mem_limit (-1 when not said) */
	int64_t refused_writes;
	/*
	 * A disk created compressed: its compressor ("lz4", "zstd"; NULL:
	 * uncompressed), and (-1 when not said) the bytes of data it holds
	 * before compression (allocated is what they take), its memory
	 * bound (0: none), pages held as one word or whole, and reads failed
	 * for a checksum or a decompression.
	 */
	char *compressor;
	int64_t data_bytes, mem_limit, same_pages, huge_pages, checksum_errors;
	/* queue/iostats reads 0: its reads and writes are not counted */
	bool io_uncounted;
	bool has_devnum;
	unsigned major, minor;
	char **holders;		/* names in /sys/block/rdN/holders/, sorted */
	size_t nholders;
	char *mountpoint;	/* NULL when not mounted (or mountinfo unreadable) */
};

/*
 * Parse "rdN" or "/dev/rdN" (N decimal, no sign, no leading zero).
 * Returns true and sets *index.
 */
bool rd_parse_name(const char *arg, unsigned *index);

/*
 * Read one disk. 0, -ENODEV when it does not exist, or -errno when sysfs
 * cannot be read. The caller frees with rd_disk_clear().
 */
int rd_disk_read(unsigned index, struct rd_disk *d);
void rd_disk_clear(struct rd_disk *d);

/*
 * Turn on the disk's I/O statistics (queue/iostats), which rd keeps only
 * when asked: a mirror's RAM member must count its reads, or the share of
 * reads RAM serves (/sys/block/rdN/stat, --status --prometheus) reads 0.
 * 0 or -errno.
 */
int rd_disk_count_io(unsigned index);

/*
 * Reads a block device (a partition too) has completed: the first field of
 * its stat file, counted since boot, or for an rd disk since its statistics
 * were turned on. -1 when unknown.
 */
int64_t block_reads(const char *dev);

/* Every rd disk, sorted by index. 0 or -errno. */
int rd_disks_list(struct rd_disk **disks, size_t *n);
void rd_disks_free(struct rd_disk *disks, size_t n);

/* Module state: /sys/module/rdmirror and its version file. */
struct module_info {
	bool loaded;
	char *version;		/* NULL when unknown */
	bool control_present;	/* <dev>/rdmirror-control exists */
	/*
	 * The bound on the memory every rd disk holds together, in bytes
	 * (0: none), what they hold, and the writes refused for it since
	 * the module was loaded: parameters/mem_limit, mem_used and
	 * mem_refused_writes; -1 when the module does not say.
	 */
	int64_t mem_limit, mem_used, mem_refused_writes;
};
void module_info_read(struct module_info *m);
void module_info_clear(struct module_info *m);

/* List a directory's entries (no dot entries), sorted. 0 or -errno. */
int list_dir(const char *path, char ***names, size_t *n);
void free_names(char **names, size_t n);

#endif
