// SPDX-License-Identifier: GPL-2.0
#include "mirror/warm_copy.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "lib/config_edit.h"
#include "lib/seams.h"
#include "lib/util.h"
#include "md/md.h"
#include "md/md_ops.h"

/*
 * Large reads: the block layer splits one into requests of the disks'
 * max_sectors_kb, all in flight at once, so each reader is one more
 * reader with a queue of its own among the load's, each request worth as
 * much to a disk as a 4 KiB one and 16 times md's 64 KiB recovery requests.
 */
#define COPY_CHUNK	(16U << 20)
/* at most this many readers at once: one a disk md may read (copy_streams()) */
#define MAX_STREAMS	4
#define STATE_EVERY_S	1.0
#define POLL_MS		100

/* warm_copy()'s stop flag (the daemon's signal handler sets it); NULL before */
static const volatile sig_atomic_t *stopping;

int warm_full_io(bool wr, int fd, void *buf, size_t n, uint64_t off)
{
	while (n) {
		ssize_t k = wr ? pwrite(fd, buf, n, (off_t)off) : pread(fd, buf, n, (off_t)off);

		if (k < 0 && errno == EINTR) {
			if (stopping && *stopping)
				return -EINTR;
			continue;
		}
		if (k <= 0)
			return k < 0 ? -errno : -EIO;
		buf = (char *)buf + k;
		n -= (size_t)k;
		off += (uint64_t)k;
	}
	return 0;
}

/* For the tests: stop half way while the file RDCTL_TEST_WARMUP_HOLD exists. */
static bool test_hold_wanted(void)
{
	const char *hold = seam("RDCTL_TEST_WARMUP_HOLD");

	return hold && *hold && path_exists(hold);
}

static void test_hold(const char *mdname, struct warmup *w)
{
	const char *hold = seam("RDCTL_TEST_WARMUP_HOLD");
	char *held, *msg = NULL;

	held = xasprintf("%s.held", hold);
	if (config_write_atomic(held, "held\n", &msg) < 0)
		free(msg);
	warm_state_write(mdname, w);
	while (path_exists(hold) && !*stopping)
		util_sleep_ms(POLL_MS);
	unlink(held);
	free(held);
}

/* One reader of the copy (warm_copy.h) and what it ended with. */
struct stream {
	const char *mdname, *rd_name;
	int md, rd;
	int disk;		/* O_DIRECT descriptor of its member disk, or -1: reads md */
	char *disk_name;	/* that disk's kernel name; NULL with no disk */
	uint64_t disk_base;	/* bytes: the disk's data offset */
	void *buf;
	uint64_t from, to;	/* bytes of the array: this reader's stretch */
	uint64_t base;		/* bytes: the RAM disk's data offset */
	int err;		/* 0, or the -errno it stopped at */
};

/* What the readers share, under copy_lock. */
static pthread_mutex_t copy_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t copy_cond = PTHREAD_COND_INITIALIZER;
static unsigned copy_running, copy_at_half;
static bool copy_hold, copy_released;
static atomic_uint_fast64_t copy_done;
static atomic_bool copy_failed;

/* One reader: its stretch, read from md, written to rd's data area. */
static void *stream_copy(void *arg)
{
	struct stream *s = arg;
	uint64_t pos = s->from, half = s->from + (s->to - s->from) / 2;
	bool halfway = false;
	int r = 0;

	while (pos < s->to && !*stopping && !atomic_load(&copy_failed)) {
		size_t n = s->to - pos < COPY_CHUNK ? (size_t)(s->to - pos) : COPY_CHUNK;

		if (copy_hold && !halfway && pos >= half) {
			halfway = true;
			pthread_mutex_lock(&copy_lock);
			copy_at_half++;
			while (!copy_released)
				pthread_cond_wait(&copy_cond, &copy_lock);
			pthread_mutex_unlock(&copy_lock);
			continue;
		}
		r = -ENXIO;
		if (s->disk >= 0) {
			r = warm_full_io(false, s->disk, s->buf, n, s->disk_base + pos);
			if (r < 0 && r != -EINTR) {
				syslog(LOG_WARNING,
				       "warm-up of %s: reading %s at byte %llu failed (%s): the rest of its stretch through /dev/%s",
				       s->mdname, s->disk_name, (unsigned long long)(s->disk_base + pos), strerror(-r),
				       s->mdname);
				close(s->disk);
				s->disk = -1;
			}
		}
		if (s->disk < 0)
			r = warm_full_io(false, s->md, s->buf, n, pos);
		if (r < 0) {
			syslog(LOG_ERR, "warm-up of %s: reading /dev/%s at byte %llu failed: %s", s->mdname,
			       s->mdname, (unsigned long long)pos, strerror(-r));
			break;
		}
		r = warm_full_io(true, s->rd, s->buf, n, s->base + pos);
		if (r < 0) {
			syslog(LOG_ERR, "warm-up of %s: writing /dev/%s failed: %s", s->mdname, s->rd_name,
			       strerror(-r));
			break;
		}
		pos += n;
		atomic_fetch_add(&copy_done, n);
	}
	if (r == 0 && pos < s->to)
		r = -EINTR;
	if (r < 0 && r != -EINTR)
		atomic_store(&copy_failed, true);
	s->err = r;
	pthread_mutex_lock(&copy_lock);
	copy_running--;
	pthread_mutex_unlock(&copy_lock);
	return NULL;
}

/*
 * Readers for the copy: one a disk md reads from while the RAM member is
 * away (in sync, not write-mostly: spread_reads() ran), each reading its
 * own disk (open_member()). Two readers on one disk would only make it
 * seek between them. Fills names[] (malloc'd, NULL where the reader must
 * read md) and offsets[] (bytes); returns how many readers, 1 at least.
 */
static unsigned copy_streams(const char *mdname, char *names[MAX_STREAMS], uint64_t offsets[MAX_STREAMS])
{
	struct md_array a;
	unsigned n = 0;

	if (md_array_read(mdname, &a) < 0)
		return 1;
	for (size_t i = 0; i < a.nmembers && n < MAX_STREAMS; i++) {
		const struct md_member *m = &a.members[i];

		if (md_is_fast(m) || m->faulty || !m->in_sync || m->write_mostly)
			continue;
		/*
		 * A disk with a recorded bad block holds there what md must
		 * not return (the write it missed, a read it could not mend):
		 * md reads such ranges from another disk; this reader reads md.
		 */
		names[n] = m->data_offset >= 0 && m->bad.n == 0 ? xstrdup(m->name) : NULL;
		offsets[n] = m->data_offset >= 0 ? (uint64_t)m->data_offset * 512 : 0;
		n++;
	}
	md_array_clear(&a);
	return n < 1 ? 1 : n;
}

/*
 * A reader's own disk, read past md (md's read_balance() may put every
 * reader on one disk). What it reads is what md would return, or is
 * recovered after:
 * - a chunk not written since the RAM member left: raid1 wrote it to
 *   every member; a member that missed such a write is faulty, out of
 *   sync, or has the range in its bad-block log (raid1's
 *   handle_write_finished()), and copy_streams() reads none of those;
 * - a chunk written since: the array is degraded throughout (the RAM
 *   slot is missing), and md-bitmap.c's end of a write then marks the
 *   chunk's bit NEEDED, never clean (bitmap_endwrite() in 6.12,
 *   bitmap_end_write() in 7.x, on mddev->degraded; 6.1's
 *   md_bitmap_endwrite() on raid1's R1BIO_Degraded, set for a write that
 *   missed a slot), so md recovers it into the RAM disk once it is taken
 *   back, whatever the copy read.
 * A read error switches the reader to md. -1 (read md) when the disk
 * cannot be opened.
 */
static int open_member(const char *mdname, const char *name)
{
	char *path = md_dev_path(name);
	int fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);

	if (fd < 0)
		syslog(LOG_WARNING, "warm-up of %s: cannot open %s (%s): its reader reads /dev/%s", mdname, path,
		       strerror(errno), mdname);
	free(path);
	return fd;
}

/*
 * Step 2: the array's data into the RAM disk's data area, by
 * copy_streams() readers over equal stretches (whole COPY_CHUNKs, the
 * last takes the rest). The state gets the bytes copied by all of them,
 * every STATE_EVERY_S. 0 or -errno.
 */
int warm_copy(const char *mdname, const char *rd_name, int md, int rd, uint64_t base, struct warmup *w,
	      const volatile sig_atomic_t *stop)
{
	struct stream s[MAX_STREAMS] = { 0 };
	pthread_t t[MAX_STREAMS];
	char *names[MAX_STREAMS] = { NULL };
	uint64_t offsets[MAX_STREAMS] = { 0 };
	unsigned n = copy_streams(mdname, names, offsets), started = 0;
	uint64_t stretch = w->total / n / COPY_CHUNK * COPY_CHUNK;
	double last = mono_now();
	int r = 0;

	for (unsigned i = 0; i < MAX_STREAMS; i++)
		s[i].disk = -1;
	if (stretch == 0)
		n = 1;
	stopping = stop;
	copy_hold = test_hold_wanted();
	copy_released = !copy_hold;
	copy_at_half = 0;
	atomic_store(&copy_done, 0);
	atomic_store(&copy_failed, false);
	for (unsigned i = 0; i < n; i++) {
		s[i] = (struct stream){ .mdname = mdname, .rd_name = rd_name, .md = md, .rd = rd, .base = base,
					.disk = names[i] ? open_member(mdname, names[i]) : -1, .disk_name = names[i],
					.disk_base = offsets[i],
					.from = i * stretch, .to = i + 1 == n ? w->total : (i + 1) * stretch };
		if (posix_memalign(&s[i].buf, 4096, COPY_CHUNK)) {
			r = -ENOMEM;
			break;
		}
	}
	pthread_mutex_lock(&copy_lock);
	copy_running = 0;
	for (unsigned i = 0; i < n && r == 0; i++) {
		if ((r = -pthread_create(&t[i], NULL, stream_copy, &s[i])) == 0) {
			started++;
			copy_running++;
		}
	}
	pthread_mutex_unlock(&copy_lock);
	if (r < 0)
		atomic_store(&copy_failed, true);
	for (;;) {
		bool all_held, running;

		pthread_mutex_lock(&copy_lock);
		running = copy_running > 0;
		all_held = running && !copy_released && copy_at_half == copy_running;
		pthread_mutex_unlock(&copy_lock);
		if (!running)
			break;
		w->done = atomic_load(&copy_done);
		if (all_held) {
			/* every reader at its stretch's half: the tests write into what is copied */
			if (!*stopping)
				test_hold(mdname, w);
			pthread_mutex_lock(&copy_lock);
			copy_released = true;
			pthread_cond_broadcast(&copy_cond);
			pthread_mutex_unlock(&copy_lock);
		}
		if (mono_now() - last >= STATE_EVERY_S) {
			last = mono_now();
			warm_state_write(mdname, w);
		}
		util_sleep_ms(POLL_MS);
	}
	for (unsigned i = 0; i < started; i++) {
		pthread_join(t[i], NULL);
		if (s[i].err && (r == 0 || r == -EINTR))
			r = s[i].err;
	}
	for (unsigned i = 0; i < n; i++) {
		if (s[i].disk >= 0)
			close(s[i].disk);
		free(s[i].buf);
	}
	for (unsigned i = 0; i < MAX_STREAMS; i++)
		free(names[i]);
	w->done = atomic_load(&copy_done);
	warm_state_write(mdname, w);
	return r;
}

