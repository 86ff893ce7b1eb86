/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /etc/rdmirror.conf: the mirrors that rdctl --restore brings back.
 * One mirror per line, "ARRAY SIZE [OPTIONS...]", words separated by blanks,
 * "#" starts a comment (to the end of the line), blank lines are ignored.
 *   ARRAY    /dev/mdN, mdN, /dev/md/NAME, or UUID=xxxxxxxx:xxxxxxxx:xxxxxxxx:xxxxxxxx
 *            (the array UUID as mdadm --detail prints it; hex digits, any case)
 *   SIZE     auto (what the array needs from a member), or a size as for --attach
 *   OPTIONS  prealloc; or member=PATH: the fast member is the local disk
 *            at PATH (a stable name, /dev/disk/by-id/...), not RAM; its SIZE
 *            is auto; or compress=lz4|zstd: the RAM member stores its
 *            pages compressed (not with prealloc or member=)
 * and setting lines, each at most once:
 *   reserve SIZE|N%   memory --restore leaves free after the RAM members it
 *            attaches are full (default: see config_reserve_bytes())
 *   recovery_speed MIN MAX | off   md's sync_speed_min and sync_speed_max of
 *            an array while md recovers its RAM member after a warm-up copy
 *            (sizes per second; default: see CONFIG_SPEED_MIN)
 * A bad line is recorded with its line number; the good lines still count.
 * Bad are also: a line with a NUL byte, and a line naming an array that an
 * earlier line names already in the same form (md0 and /dev/md0, a UUID in
 * another letter case; the earlier line stays). That md0 and UUID=... are
 * one array only the running system knows: see config_drop_same_arrays().
 */
#ifndef RDCTL_CONFIG_H
#define RDCTL_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CONFIG_DEFAULT_PATH "/etc/rdmirror.conf"

/*
 * The configuration a command reads and edits, the one place it is worked
 * out: given (--config FILE) when not NULL, else CONFIG_DEFAULT_PATH, or
 * in the tests' build $RDCTL_CONFIG (lib/seams.h), so that the host's own
 * configuration never leaks into the tests.
 */
const char *config_path(const char *given);

/* What an invalid UUID=... is told, after "invalid UUID '%s': ". */
#define CONFIG_UUID_FORM "expected 4 groups of 8 hex digits separated by ':', as mdadm --detail prints it"

enum conf_kind {
	CONF_DEVICE,	/* /dev/mdN or mdN: name is "mdN" */
	CONF_MDNAME,	/* /dev/md/NAME: name is "NAME" */
	CONF_UUID,	/* UUID=...: uuid is lower case, with the colons */
};

struct conf_mirror {
	int line;
	enum conf_kind kind;
	char *spec;		/* ARRAY as written */
	char *name;		/* "md0" or "data"; NULL for CONF_UUID */
	char *uuid;		/* NULL unless CONF_UUID */
	bool auto_size;
	uint64_t size;		/* bytes, when !auto_size */
	bool prealloc;
	char *member;		/* member=PATH: the fast member is this disk; NULL: RAM */
	unsigned comp;		/* compress=NAME: RDMIRROR_COMP_*; RDMIRROR_COMP_NONE: uncompressed */
};

/* The compressor of that name ("lz4", "zstd", any case): RDMIRROR_COMP_*, or 0 when unknown. */
unsigned config_comp_parse(const char *name);
/* "lz4", "zstd"; "none" for RDMIRROR_COMP_NONE, "unknown" otherwise. */
const char *config_comp_name(unsigned comp);

struct conf_error {
	int line;		/* 0: the file itself */
	char *message;		/* without "file:line: " */
};

struct config {
	char *path;
	struct conf_mirror *v;
	size_t n;
	struct conf_error *errs;
	size_t nerrs;
	int reserve_line;	/* 0: no reserve line */
	uint64_t reserve_bytes;	/* reserve SIZE */
	unsigned reserve_pct;	/* reserve N% (of MemTotal), when reserve_bytes is 0 */
	int speed_line;		/* 0: no recovery_speed line */
	bool speed_off;		/* recovery_speed off: md's limits as they are */
	uint64_t speed_min, speed_max;	/* bytes per second */
};

/*
 * md's recovery of a RAM member runs at most at sync_speed_max (md's
 * default 200 MB/s caps a 1 TB array at 83 minutes, idle) and, while the
 * array has other I/O, at sync_speed_min (1 MB/s by default). A warm-up
 * raises both for its RAM member's recovery, and puts them back once the
 * member is in sync: RAM takes writes faster than any disk reads, so the
 * disks' own rate is the bound.
 */
#define CONFIG_SPEED_MIN	(100ULL << 20)
#define CONFIG_SPEED_MAX	(4ULL << 30)
/* The recovery speeds of c (or the defaults when c is NULL or has no line):
 * false for "recovery_speed off". */
bool config_recovery_speed(const struct config *c, uint64_t *min, uint64_t *max);

/*
 * The memory a restore must leave available once every RAM member is full,
 * so that md's recovery filling them never wakes the OOM killer: the
 * configured reserve, or by default 5% of MemTotal, at least 256 MiB and
 * at most 4 GiB (the kernel's own reserves and a busy host's page cache
 * live in that room).
 */
#define CONFIG_RESERVE_MIN	(256ULL << 20)
#define CONFIG_RESERVE_MAX	(4ULL << 30)
uint64_t config_reserve_bytes(const struct config *c, uint64_t mem_total);

/* Parse text (the file's contents) into c. Never fails: bad lines go to c->errs. */
void config_parse_text(const char *path, const char *text, struct config *c);
/*
 * Read and parse path, every byte of it (-EFBIG from 16 MiB on).
 * 0, or -errno when the file cannot be read (c is then empty).
 */
int config_read(const char *path, struct config *c);

/*
 * names[i] is the kernel name ("md0") that c->v[i] resolves to on this
 * system, or NULL when it does not resolve (now). Lines that resolve to the
 * same array are all taken out of c->v, as nobody can tell which one is
 * meant, with one error (line 0, the file) per array naming the lines:
 * "lines 3 and 7 both name /dev/md0 (md0, UUID=...): neither is used; keep
 * one of them". names[] stays parallel to c->v (the names of the lines
 * taken out are freed). Returns how many lines were taken out.
 */
size_t config_drop_same_arrays(struct config *c, char **names);
void config_free(struct config *c);

/* Is s a valid "xxxxxxxx:xxxxxxxx:xxxxxxxx:xxxxxxxx" UUID? */
bool config_uuid_valid(const char *s);

#endif
