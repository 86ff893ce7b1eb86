// SPDX-License-Identifier: GPL-2.0
/*
 * log-replay: replays a dm-log-writes log (as the kernel's
 * drivers/md/dm-log-writes.c writes it) onto an image file, and stops at
 * every crash point to let a hook judge the image.
 *
 *   log-replay [-o OFFSET] [-s SIZE] [-x HOOK] [-c DISK] LOG OUT
 *   log-replay -m LOG
 *
 * The logged device is assumed blank (zeros) when logging started, as the
 * test's disk images are. OUT is the byte range [OFFSET, OFFSET+SIZE) of
 * that device (SIZE 0: up to the highest byte written); writes outside it
 * are skipped, discards zero their range.
 *
 * The log holds the writes in the order the device completed them, a
 * write that was not FUA only once a later flush covered it (see
 * Documentation/admin-guide/device-mapper/log-writes.rst). So replaying
 * up to a FLUSH entry, a FUA entry or a mark gives exactly what the disk
 * held had the power gone right then. At each such point, if OUT changed
 * since the last call or a mark came, HOOK runs with REPLAY_IMAGE (OUT),
 * REPLAY_ENTRY, REPLAY_KIND (flush, fua, mark, flush+fua) and REPLAY_MARK
 * (the last mark's text, empty before the first) in its environment.
 * Exit 0 is a pass, 3 a point the hook does not judge (before the file
 * system existed), anything else a failure. Every point is run, whatever
 * fails, so that the summary counts them all.
 *
 * -c DISK: after the whole log, OUT must equal DISK's same range (the
 * disk image the logged device wrote): the replay itself is checked.
 * -m: only print the marks, "ENTRY TEXT" a line.
 *
 * Exit 0 when every point passed (and -c matched), 1 otherwise, 2 for a
 * log that cannot be read.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* On-disk format, all little endian (dm-log-writes.c, WRITE_LOG_VERSION 1). */
#define LOG_FLUSH_FLAG		(1u << 0)
#define LOG_FUA_FLAG		(1u << 1)
#define LOG_DISCARD_FLAG	(1u << 2)
#define LOG_MARK_FLAG		(1u << 3)
#define WRITE_LOG_MAGIC		0x6a736677736872ULL
#define WRITE_LOG_VERSION	1ULL

struct log_super {		/* sector 0 */
	uint64_t magic, version, nr_entries;
	uint32_t sectorsize;
} __attribute__((packed));

struct log_entry {		/* first bytes of each entry's header sector */
	uint64_t sector, nr_sectors, flags, data_len;
} __attribute__((packed));

struct stats {
	uint64_t writes, discards, flushes, fuas, marks, outside;
	uint64_t points, checked, unchanged, skipped, failed;
};

static const char *log_path;
static int log_fd = -1;
static off_t log_size;

static void fatal(const char *fmt, const char *arg)
{
	fprintf(stderr, "log-replay: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	exit(2);
}

static void read_log(void *buf, size_t len, uint64_t pos)
{
	if (pos > (uint64_t)log_size || len > (uint64_t)log_size - pos)
		fatal("%s: an entry runs past the end of the log", log_path);
	if (pread(log_fd, buf, len, (off_t)pos) != (ssize_t)len)
		fatal("%s: short read", log_path);
}

static void write_all(int fd, const void *buf, size_t len, uint64_t pos)
{
	const char *p = buf;

	while (len) {
		ssize_t w = pwrite(fd, p, len, (off_t)pos);

		if (w <= 0)
			fatal("writing the image: %s", strerror(errno));
		p += w;
		len -= (size_t)w;
		pos += (uint64_t)w;
	}
}

static int run_hook(const char *hook, const char *out, uint64_t entry, const char *kind, const char *mark)
{
	char num[32];
	pid_t pid;
	int st;

	snprintf(num, sizeof(num), "%" PRIu64, entry);
	pid = fork();
	if (pid < 0)
		fatal("fork: %s", strerror(errno));
	if (pid == 0) {
		if (setenv("REPLAY_IMAGE", out, 1) || setenv("REPLAY_ENTRY", num, 1) ||
		    setenv("REPLAY_KIND", kind, 1) || setenv("REPLAY_MARK", mark, 1))
			_exit(126);
		execl(hook, hook, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		fatal("waitpid: %s", strerror(errno));
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* -c: OUT against the same range of the disk image, byte for byte. */
static bool compare(int out_fd, const char *disk, uint64_t offset, uint64_t size)
{
	static char a[1 << 16], b[1 << 16];
	int fd = open(disk, O_RDONLY | O_CLOEXEC);
	uint64_t pos = 0;

	if (fd < 0)
		fatal("%s: cannot open", disk);
	while (pos < size) {
		size_t n = size - pos < sizeof(a) ? (size_t)(size - pos) : sizeof(a);
		ssize_t ra = pread(out_fd, a, n, (off_t)pos);
		ssize_t rb = pread(fd, b, n, (off_t)(offset + pos));

		if (ra != (ssize_t)n || rb != (ssize_t)n || memcmp(a, b, n)) {
			size_t i = 0;

			while (ra == (ssize_t)n && rb == (ssize_t)n && a[i] == b[i])
				i++;
			printf("replay: the replayed image differs from %s at byte %" PRIu64 " of the range\n",
			       disk, pos + i);
			close(fd);
			return false;
		}
		pos += n;
	}
	close(fd);
	printf("replay: the image after the whole log equals %s (%" PRIu64 " bytes from %" PRIu64 ")\n", disk, size,
	       offset);
	return true;
}

static int usage(void)
{
	fprintf(stderr, "usage: log-replay [-o OFFSET] [-s SIZE] [-x HOOK] [-c DISK] LOG OUT\n"
			"       log-replay -m LOG\n");
	return 2;
}

int main(int argc, char **argv)
{
	uint64_t offset = 0, size = 0, pos, ss, end = 0;
	const char *hook = NULL, *disk = NULL;
	bool marks_only = false, dirty = false, new_mark = false;
	char mark[512] = "";
	struct log_super super;
	struct stats s = { 0 };
	struct stat st;
	char *buf = NULL;
	size_t buf_len = 0;
	int opt, out_fd = -1;

	while ((opt = getopt(argc, argv, "o:s:x:c:m")) != -1) {
		switch (opt) {
		case 'o': offset = strtoull(optarg, NULL, 0); break;
		case 's': size = strtoull(optarg, NULL, 0); break;
		case 'x': hook = optarg; break;
		case 'c': disk = optarg; break;
		case 'm': marks_only = true; break;
		default: return usage();
		}
	}
	if (argc - optind != (marks_only ? 1 : 2))
		return usage();
	log_path = argv[optind];
	log_fd = open(log_path, O_RDONLY | O_CLOEXEC);
	if (log_fd < 0 || fstat(log_fd, &st))
		fatal("%s: cannot open", log_path);
	log_size = st.st_size;
	read_log(&super, sizeof(super), 0);
	if (le64toh(super.magic) != WRITE_LOG_MAGIC || le64toh(super.version) != WRITE_LOG_VERSION)
		fatal("%s: not a dm-log-writes log (magic or version)", log_path);
	ss = le32toh(super.sectorsize);
	if (ss < 512 || ss > 65536 || (ss & (ss - 1)))
		fatal("%s: bad sector size in the log", log_path);
	if (!marks_only) {
		out_fd = open(argv[optind + 1], O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (out_fd < 0 || ftruncate(out_fd, (off_t)size))
			fatal("%s: cannot create", argv[optind + 1]);
	}

	end = offset;
	pos = ss;	/* entry 1 follows the super's sector */
	for (uint64_t i = 1; i <= le64toh(super.nr_entries); i++) {
		char hdr[65536];
		struct log_entry e;
		uint64_t flags, dev, len, lo, hi;
		bool point;

		read_log(hdr, ss, pos);
		memcpy(&e, hdr, sizeof(e));
		flags = le64toh(e.flags);
		pos += ss;
		if (le64toh(e.nr_sectors) > (UINT64_MAX / ss) || le64toh(e.sector) > (UINT64_MAX / ss))
			fatal("%s: an entry's range overflows", log_path);
		dev = le64toh(e.sector) * ss;
		len = le64toh(e.nr_sectors) * ss;
		if (len > UINT64_MAX - dev)
			fatal("%s: an entry's range overflows", log_path);
		if (flags & LOG_MARK_FLAG) {
			uint64_t n = le64toh(e.data_len);

			if (n > ss - sizeof(e) || n >= sizeof(mark))
				fatal("%s: a mark longer than its sector", log_path);
			memcpy(mark, hdr + sizeof(e), n);
			mark[n] = '\0';
			s.marks++;
			new_mark = true;
			if (marks_only)
				printf("%" PRIu64 " %s\n", i, mark);
		}
		/* the written range, clipped to [offset, offset + size) */
		lo = dev > offset ? dev : offset;
		hi = dev + len;
		if (size && hi > offset + size)
			hi = offset + size;
		if (flags & LOG_DISCARD_FLAG) {
			s.discards++;
			if (!marks_only && lo < hi) {
				/* what a discarded range reads as is undefined: zeros here */
				if (buf_len < 65536) {
					buf = realloc(buf, 65536);
					if (!buf)
						fatal("%s", "out of memory");
					buf_len = 65536;
				}
				memset(buf, 0, buf_len);
				for (uint64_t p = lo; p < hi;) {
					size_t n = hi - p < buf_len ? (size_t)(hi - p) : buf_len;

					write_all(out_fd, buf, n, p - offset);
					p += n;
				}
				dirty = true;
			}
		} else if (len) {
			s.writes++;
			if (!marks_only && lo < hi) {
				if (buf_len < hi - lo) {
					buf = realloc(buf, hi - lo);
					if (!buf)
						fatal("%s", "out of memory");
					buf_len = hi - lo;
				}
				read_log(buf, hi - lo, pos + (lo - dev));
				write_all(out_fd, buf, hi - lo, lo - offset);
				if (hi > end)
					end = hi;
				dirty = true;
			} else {
				s.outside++;
			}
			pos += len;
		}
		if (flags & LOG_FLUSH_FLAG)
			s.flushes++;
		if (flags & LOG_FUA_FLAG)
			s.fuas++;
		point = flags & (LOG_FLUSH_FLAG | LOG_FUA_FLAG | LOG_MARK_FLAG);
		if (marks_only || !point)
			continue;
		s.points++;
		if (!hook)
			continue;
		if (!dirty && !new_mark) {
			s.unchanged++;
			continue;
		}
		const char *kind = (flags & LOG_MARK_FLAG)	? "mark"
				   : (flags & LOG_FLUSH_FLAG) && (flags & LOG_FUA_FLAG) ? "flush+fua"
				   : (flags & LOG_FLUSH_FLAG)	? "flush"
								: "fua";
		int rc = run_hook(hook, argv[optind + 1], i, kind, mark);

		if (rc == 0)
			s.checked++;
		else if (rc == 3)
			s.skipped++;
		else
			s.failed++;
		dirty = new_mark = false;
	}
	if (marks_only)
		return 0;
	printf("replay: %" PRIu64 " entries: %" PRIu64 " writes (%" PRIu64 " outside the range), %" PRIu64
	       " discards, %" PRIu64 " flushes, %" PRIu64 " FUA, %" PRIu64 " marks\n",
	       (uint64_t)le64toh(super.nr_entries), s.writes, s.outside, s.discards, s.flushes, s.fuas, s.marks);
	printf("replay: %" PRIu64 " crash points: %" PRIu64 " checked, %" PRIu64 " failed, %" PRIu64
	       " not judged (before the file system), %" PRIu64 " unchanged since the point before\n",
	       s.points, s.checked, s.failed, s.skipped, s.unchanged);
	if (disk && !compare(out_fd, disk, offset, size ? size : end - offset))
		s.failed++;
	free(buf);
	return s.failed ? 1 : 0;
}
