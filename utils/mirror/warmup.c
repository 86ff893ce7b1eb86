// SPDX-License-Identifier: GPL-2.0
#include "mirror/warmup.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "lib/config.h"
#include "lib/config_edit.h"
#include "lib/errors.h"
#include "lib/journal.h"
#include "lib/lock.h"
#include "lib/seams.h"
#include "lib/sysfs.h"
#include "lib/util.h"
#include "md/md.h"
#include "md/md_ops.h"
#include "mirror/rd_prepare.h"
#include "mirror/warm_copy.h"
#include "rd/control.h"
#include "status/compressed.h"
#include "status/warm_state.h"

#define STOP_WAIT_MS	30000
#define LOCK_TRIES	600	/* seconds */
#define POLL_MS		100
#define SYNC_POLL_MS	250

static volatile sig_atomic_t stopping;

static void on_stop(int sig)
{
	(void)sig;
	stopping = 1;
}

/* rd is held (by md): rd_disk_read()'s holders */
static bool in_an_array(const char *rd)
{
	struct rd_disk d;
	unsigned index;
	bool held;

	if (!rd_parse_name(rd, &index) || rd_disk_read(index, &d) < 0)
		return false;
	held = d.nholders > 0;
	rd_disk_clear(&d);
	return held;
}

static int detach(const char *rd)
{
	unsigned index;
	int fd, r;

	if (!rd_parse_name(rd, &index))
		return -EINVAL;
	if (control_open(false, &fd)) {
		error_reset();
		return -ENODEV;
	}
	r = ctl_remove(fd, index);
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}

void warm_speed_of(const char *path, struct warm_speed *s)
{
	struct config c;

	if (config_read(path, &c) < 0)
		s->raise = config_recovery_speed(NULL, &s->min, &s->max);
	else
		s->raise = config_recovery_speed(&c, &s->min, &s->max);
	config_free(&c);
}

static char *speed_path(const char *mdname, const char *which)
{
	return xasprintf("%s/block/%s/md/sync_speed_%s", sysfs_root(), mdname, which);
}

/* md's sync_speed_WHICH ("min", "max") of mdname set to value. 0 or -errno. */
static int speed_set(const char *mdname, const char *which, const char *value)
{
	char *path = speed_path(mdname, which);
	int r = journal_sysfs_write(path, value);

	free(path);
	return r;
}

/*
 * md's requests in flight for a recovery on a busy array above
 * sync_speed_min (md_do_sync()'s sync_io_within_limit(), 6.16+; md's
 * default 32), while it recovers the RAM member.
 */
#define RECOVERY_IO_DEPTH	128UL

static char *depth_path(const char *mdname)
{
	return xasprintf("%s/block/%s/md/sync_io_depth", sysfs_root(), mdname);
}

/*
 * md's sync_speed_min and _max of mdname as they were (w->min_was,
 * w->max_was), and its sync_io_depth when it was raised (w->depth_was).
 * 0 or -errno.
 */
static int speed_put_back(const char *mdname, const struct warmup *w)
{
	int r = speed_set(mdname, "min", w->min_was), r2 = speed_set(mdname, "max", w->max_was), r3 = 0;

	if (w->depth_was) {
		char *path = depth_path(mdname);

		r3 = journal_sysfs_write(path, w->depth_was);
		free(path);
	}
	return r < 0 ? r : r2 < 0 ? r2 : r3;
}

int warmup_cancel(const char *mdname, char **why)
{
	struct warmup w;
	int r = warmup_read(mdname, &w);

	*why = NULL;
	if (r == -ENOENT)
		return 0;
	if (r < 0) {
		warm_state_remove(mdname);
		return 0;
	}
	if (w.alive && kill(w.pid, SIGTERM) < 0 && errno != ESRCH) {
		r = -errno;
		*why = xasprintf("cannot stop the warm-up of %s (pid %ld): %s", mdname, (long)w.pid, strerror(errno));
		goto out;
	}
	for (int waited = 0; w.alive && waited < STOP_WAIT_MS; waited += POLL_MS) {
		util_sleep_ms(POLL_MS);
		w.alive = warmup_is_daemon(w.pid);
	}
	if (w.alive) {
		r = -ETIMEDOUT;
		*why = xasprintf("the warm-up of %s (pid %ld) did not stop within %d s", mdname, (long)w.pid,
				 STOP_WAIT_MS / 1000);
		goto out;
	}
	warm_state_remove(mdname);
	r = 0;
	/* md's limits, when the daemon raised them and died before it put them back */
	if (w.min_was && w.max_was && speed_put_back(mdname, &w) < 0)
		fprintf(stderr, "rdctl: warning: %s: cannot put sync_speed_min/max (or sync_io_depth) back to %s and %s\n", mdname,
			w.min_was, w.max_was);
	/* a daemon that got as far as the re-add leaves its disk to md; a member disk (not rd) stays as it is */
	if (md_name_is_rd(w.rd) && !in_an_array(w.rd)) {
		char *node = xasprintf("%s/block/%s", sysfs_root(), w.rd);

		if (path_exists(node) && (r = detach(w.rd)) < 0)
			*why = xasprintf("cannot detach %s after stopping the warm-up of %s: %s", w.rd, mdname,
					 strerror(-r));
		free(node);
	}
out:
	warmup_clear(&w);
	return r;
}

int warmup_wait(const char *mdname, double deadline, bool progress, bool copy_only)
{
	bool shown = false;
	int r = 0;

	for (;;) {
		struct warmup w;

		if (warmup_read(mdname, &w) < 0)
			break;
		if (!w.alive || (copy_only && w.recovering)) {
			warmup_clear(&w);
			break;
		}
		if (progress && w.recovering)
			fprintf(stderr, "\r%s: warm-up copy done, md recovers what was written during it", mdname);
		else if (progress)
			fprintf(stderr, "\r%s: warm-up copy %.1f%%", mdname, warmup_percent(&w));
		shown |= progress;
		warmup_clear(&w);
		if (deadline > 0 && mono_now() >= deadline) {
			r = -ETIMEDOUT;
			break;
		}
		util_sleep_ms(500);
	}
	if (shown)
		fputc('\n', stderr);
	return r;
}

int warmup_wait_in_sync(const char *mdname, const char *rd, unsigned timeout, char **msg)
{
	unsigned left = timeout;
	double start = mono_now(), last;
	char *why;
	int r;

	*msg = NULL;
	/*
	 * The copy, then md's recovery of what was written meanwhile (which
	 * md_wait_in_sync() bounds when md leaves it undone), then the
	 * daemon's last step: the disks write-mostly again, a moment after.
	 */
	if (warmup_wait(mdname, timeout ? start + timeout : 0, isatty(2) == 1, true) < 0) {
		*msg = xasprintf("the warm-up copy of %s did not finish within %u s", mdname, timeout);
		return -ETIMEDOUT;
	}
	if (timeout) {
		double spent = mono_now() - start;

		left = spent >= timeout ? 1 : timeout - (unsigned)spent;
	}
	r = md_wait_in_sync(mdname, rd, isatty(2) == 1, left, msg);
	/* (the daemon gives up on the lock after LOCK_TRIES s by itself) */
	last = timeout ? start + timeout : 0;
	if (last && last < mono_now() + 1)
		last = mono_now() + 1;
	if (!r && warmup_wait(mdname, last, false, false) < 0) {
		*msg = xasprintf("%s is in sync in %s, but its warm-up had not made the disks write-mostly again after %u s",
				 rd, mdname, timeout);
		return -ETIMEDOUT;
	}
	/*
	 * md says only that the member is gone or failed (or the warm-up
	 * never got it in): a compressed one's limit says why
	 */
	if (r == -EIO && (why = compressed_left_why(mdname, rd))) {
		free(*msg);
		*msg = xasprintf("%s did not come into sync in %s: %s", rd, mdname, why);
		free(why);
	}
	return r;
}

/* ---- the daemon ---- */

struct job {
	const char *mdname, *rd;
	const struct md_super *sb;
	struct warm_speed speed;
	struct warmup w;
	double copy_s;		/* the copy's own time: its first read to its last write */
};

/* Is the array still waiting for this disk: running, no RAM member, rd still there? */
static bool still_wanted(const struct job *j)
{
	struct md_array a;
	char *node = xasprintf("%s/block/%s", sysfs_root(), j->rd);
	bool ok = path_exists(node) && md_array_read(j->mdname, &a) == 0;

	free(node);
	if (!ok)
		return false;
	for (size_t i = 0; i < a.nmembers; i++)
		ok &= !md_is_fast(&a.members[i]);
	ok &= a.array_state && strcmp(a.array_state, "inactive") && strcmp(a.array_state, "clear");
	md_array_clear(&a);
	return ok;
}

/*
 * Step 3 (and 4): superblock, re-add; a new member when md refuses, or
 * when the copy failed (copied false). 0 or -1.
 */
static int add_back(struct job *j, int rd, void *buf, bool copied)
{
	char *dev = md_dev_path(j->mdname), *path = md_dev_path(j->rd), *msg = NULL;
	int r = -EIO;

	if (copied) {
		memcpy(buf, j->sb->raw, MD_SUPER_BLOCK);
		r = warm_full_io(true, rd, buf, MD_SUPER_BLOCK, j->sb->super_offset * 512);
		if (r == 0)
			r = mdadm_call(NULL, &msg, dev, "--re-add", path, NULL);
		if (r == 0) {
			syslog(LOG_INFO,
			       "warm-up of %s: %s copied (%llu MiB in %.1f s, %.0f MiB/s) and re-added: md recovers what was written since it left",
			       j->mdname, j->rd, (unsigned long long)(j->w.total >> 20), j->copy_s,
			       (double)j->w.total / 1048576 / (j->copy_s > 0.001 ? j->copy_s : 0.001));
			goto out;
		}
		syslog(LOG_NOTICE, "warm-up of %s: md did not take %s back (%s): adding it as a new member, md recovers it in full",
		       j->mdname, j->rd, msg ? msg : strerror(-r));
		free(msg);
		msg = NULL;
	}
	j->w.full = true;	/* md recovers all of it: --status says so (warm_start_full) */
	if ((r = rd_prepare_for_md(j->rd, j->mdname, &msg)) < 0 ||
	    (r = mdadm_call(NULL, &msg, dev, "--add", path, NULL)) < 0)
		syslog(LOG_ERR, "warm-up of %s: adding %s failed: %s; run rdctl --restore", j->mdname, j->rd,
		       msg ? msg : strerror(-r));
out:
	free(msg);
	free(dev);
	free(path);
	return r < 0 ? -1 : 0;
}

/*
 * The lock, in one-second waits, so that a stop request is seen at once:
 * --release stops this daemon while it holds the lock itself.
 */
static int take_lock(void)
{
	lock_set_wait(1);
	for (int i = 0; i < LOCK_TRIES && !stopping; i++) {
		if (lock_take() == 0)
			return 0;
		error_reset();
	}
	return -1;
}

/*
 * Reads while the RAM member is away. raid1's read_balance() reads a
 * write-mostly member only when no other in-sync member can serve the
 * read, and then the first one it finds (choose_slow_rdev() in 6.12 and
 * later; 6.1's loop keeps the first write-mostly one as its last resort):
 * with the RAM slot empty, or its member recovering, every read goes to
 * one disk. So the daemon turns write-mostly off on the disks before the
 * copy, and on again once md has the RAM member in sync (await_in_sync()).
 * What must hold: the disks are write-mostly whenever the RAM member is
 * in sync, or reads go to the disks beside RAM. Should the daemon die in
 * between, the next rdctl --restore (every boot runs one) makes them
 * write-mostly again (restore_fix_write_mostly()), and until then
 * --status warns (not_write_mostly).
 */
static void spread_reads(const struct job *j)
{
	char *msg = NULL;
	int n = md_disks_write_mostly(j->mdname, false, NULL, NULL, &msg);

	if (n < 0)
		syslog(LOG_WARNING, "warm-up of %s: %s: reads stay on one disk until %s is in sync", j->mdname, msg,
		       j->rd);
	else if (n > 0)
		syslog(LOG_INFO, "warm-up of %s: %d disk(s) no longer write-mostly: reads spread over them until %s is in sync",
		       j->mdname, n, j->rd);
	free(msg);
}

/*
 * Before the re-add: md's sync_speed_min and _max of the array raised for
 * the RAM member's recovery (lib/config.h, CONFIG_SPEED_MIN), what they
 * were kept in the state, so that whoever finds this daemon dead puts them
 * back (warmup_cancel()). md keeps them per array and forgets them when the
 * array stops: a reboot puts them back by itself.
 */
/*
 * On a kernel with sync_io_depth (6.16+) below RECOVERY_IO_DEPTH: raised
 * with the speeds, put back with them (speed_put_back()). The value it
 * had is in the state before it changes, so that a crash in between
 * leaves what the next --restore puts back (warmup_cancel()).
 */
static void raise_depth(struct job *j)
{
	char *path = depth_path(j->mdname), *text = NULL, *v;
	int r;

	if (!path_exists(path) || read_text_file(path, &text) < 0 ||
	    strtoul(text, NULL, 10) >= RECOVERY_IO_DEPTH)
		goto out;
	/* "32 (system)" or "64 (local)" */
	j->w.depth_was = strstr(text, "(system)") ? xstrdup("system") : xasprintf("%lu", strtoul(text, NULL, 10));
	if (warm_state_write(j->mdname, &j->w) < 0) {
		syslog(LOG_WARNING, "warm-up of %s: cannot write its state: its sync_io_depth stays", j->mdname);
		free(j->w.depth_was);
		j->w.depth_was = NULL;
		goto out;
	}
	v = xasprintf("%lu", RECOVERY_IO_DEPTH);
	r = journal_sysfs_write(path, v);
	free(v);
	if (r < 0)
		syslog(LOG_WARNING, "warm-up of %s: cannot raise its sync_io_depth: %s", j->mdname, strerror(-r));
out:
	free(text);
	free(path);
}

static void raise_speed(struct job *j)
{
	const char *which[2] = { "min", "max" };
	char *was[2] = { NULL, NULL }, *path, *text, *v, *depth;
	int r = 0;

	if (!j->speed.raise)
		return;
	for (int i = 0; i < 2 && r == 0; i++) {
		path = speed_path(j->mdname, which[i]);
		text = NULL;
		/* "1000 (system)" or "5000 (local)" */
		r = read_text_file(path, &text);
		if (r == 0)
			was[i] = strstr(text, "(system)") ? xstrdup("system") : xasprintf("%lu", strtoul(text, NULL, 10));
		free(text);
		free(path);
	}
	if (r < 0) {
		syslog(LOG_WARNING, "warm-up of %s: cannot read its sync_speed_min/max (%s): md's limits stay", j->mdname,
		       strerror(-r));
		free(was[0]);
		free(was[1]);
		return;
	}
	j->w.min_was = was[0];
	j->w.max_was = was[1];
	if (warm_state_write(j->mdname, &j->w) < 0)
		syslog(LOG_WARNING, "warm-up of %s: cannot write its state", j->mdname);
	/* max first: md reads them apart, but a min above max reads as nonsense */
	v = xasprintf("%llu", (unsigned long long)(j->speed.max >> 10));
	r = speed_set(j->mdname, "max", v);
	free(v);
	if (r == 0) {
		v = xasprintf("%llu", (unsigned long long)(j->speed.min >> 10));
		r = speed_set(j->mdname, "min", v);
		free(v);
	}
	if (r < 0) {
		syslog(LOG_WARNING, "warm-up of %s: cannot raise its sync_speed_min/max: %s", j->mdname, strerror(-r));
		return;
	}
	raise_depth(j);
	depth = j->w.depth_was ? xasprintf(", sync_io_depth %lu, was %s", RECOVERY_IO_DEPTH, j->w.depth_was)
			       : xstrdup("");
	syslog(LOG_INFO, "warm-up of %s: md's recovery of %s at %llu to %llu KiB/s (sync_speed_min/max; was %s and %s)%s",
	       j->mdname, j->rd, (unsigned long long)(j->speed.min >> 10),
	       (unsigned long long)(j->speed.max >> 10), j->w.min_was, j->w.max_was, depth);
	free(depth);
}

/* After: md's limits as they were, and the state says so. */
static void lower_speed(struct job *j)
{
	int r;

	if (!j->w.min_was || !j->w.max_was)
		return;
	r = speed_put_back(j->mdname, &j->w);
	if (r < 0) {
		syslog(LOG_WARNING, "warm-up of %s: cannot put sync_speed_min/max back to %s and %s: %s", j->mdname,
		       j->w.min_was, j->w.max_was, strerror(-r));
		return;
	}
	free(j->w.min_was);
	free(j->w.max_was);
	free(j->w.depth_was);
	j->w.min_was = j->w.max_was = j->w.depth_was = NULL;
	warm_state_write(j->mdname, &j->w);
}

/* 1: rd is an in-sync member of the array; 0: a member, not in sync yet; -1: not a working member */
static int rd_in_sync(const struct job *j)
{
	struct md_array a;
	int r = -1;

	if (md_array_read(j->mdname, &a) < 0)
		return -1;
	for (size_t i = 0; i < a.nmembers; i++) {
		const struct md_member *m = &a.members[i];

		if (!strcmp(m->name, j->rd) && !m->faulty)
			r = m->in_sync;
	}
	md_array_clear(&a);
	return r;
}

/*
 * Step 5: md has the disk (re-added, or added anew): wait until it is in
 * sync, then make the disks write-mostly again. The state says "recover"
 * meanwhile: --status shows md's recovery, --wait waits for this step too.
 * Not under the lock (a recovery may take hours), but for the change.
 */
static void await_in_sync(struct job *j)
{
	char *msg = NULL;
	int s, n;

	j->w.recovering = true;
	warm_state_write(j->mdname, &j->w);
	while (!stopping && (s = rd_in_sync(j)) == 0)
		util_sleep_ms(SYNC_POLL_MS);
	if (stopping)
		return;
	if (s < 0) {
		syslog(LOG_NOTICE, "warm-up of %s: %s left the array before it was in sync", j->mdname, j->rd);
		return;
	}
	if (take_lock() < 0) {
		syslog(LOG_ERR, "warm-up of %s: the rdctl lock stayed taken; the disks are not write-mostly: rdctl --restore makes them so",
		       j->mdname);
		return;
	}
	if (!stopping && rd_in_sync(j) > 0) {
		n = md_disks_write_mostly(j->mdname, true, NULL, NULL, &msg);
		if (n < 0)
			syslog(LOG_ERR, "warm-up of %s: %s; rdctl --restore retries", j->mdname, msg);
		else
			syslog(LOG_INFO, "warm-up of %s: %s in sync, %d disk(s) write-mostly again", j->mdname,
			       j->rd, n);
		free(msg);
	}
	lock_release();
}

static int daemon_main(struct job *j)
{
	char *mdpath = md_dev_path(j->mdname), *rdpath = md_dev_path(j->rd);
	struct warmup now;
	void *buf = NULL;
	int md = -1, rd = -1, rc = 1;
	uint64_t size = 0;
	bool copied;

	openlog("rdctl", LOG_PID, LOG_DAEMON);
	md = open(mdpath, O_RDONLY | O_DIRECT | O_CLOEXEC);
	rd = open(rdpath, O_WRONLY | O_DIRECT | O_CLOEXEC);
	if (md < 0 || rd < 0 || ioctl(md, BLKGETSIZE64, &size) < 0 || posix_memalign(&buf, 4096, MD_SUPER_BLOCK)) {
		syslog(LOG_ERR, "warm-up of %s: cannot open %s or %s: %s", j->mdname, mdpath, rdpath, strerror(errno));
		goto out;
	}
	j->w.total = size;
	spread_reads(j);
	/* a copy that cannot be made or failed is left to md: a full recovery, as without a record */
	if (size > j->sb->data_size * 512) {
		syslog(LOG_ERR, "warm-up of %s: the array (%llu bytes) is larger than the kept member's data area",
		       j->mdname, (unsigned long long)size);
		copied = false;
	} else {
		double t0 = mono_now();

		copied = warm_copy(j->mdname, j->rd, md, rd, j->sb->data_offset * 512, &j->w, &stopping) == 0;
		j->copy_s = mono_now() - t0;
	}
	if (stopping)
		goto out;
	if (take_lock() < 0) {
		syslog(LOG_ERR, "warm-up of %s: the rdctl lock stayed taken; %s not added", j->mdname, j->rd);
		goto out;
	}
	if (stopping || !still_wanted(j)) {
		syslog(LOG_NOTICE, "warm-up of %s: the array no longer waits for %s: not added", j->mdname, j->rd);
		goto out;
	}
	raise_speed(j);
	rc = add_back(j, rd, buf, copied) < 0;
	lock_release();
	if (rc == 0)
		await_in_sync(j);
	/* (a stopped daemon too: the state would name them otherwise) */
	lower_speed(j);
out:
	if (stopping)
		syslog(LOG_NOTICE, "warm-up of %s stopped at %llu of %llu bytes", j->mdname,
		       (unsigned long long)j->w.done, (unsigned long long)j->w.total);
	if (md >= 0)
		close(md);
	if (rd >= 0)
		close(rd);
	free(buf);
	free(mdpath);
	free(rdpath);
	/* a stopped one leaves its state to whoever stopped it (warmup_cancel) */
	if (!stopping && warmup_read(j->mdname, &now) == 0) {
		if (now.pid == getpid())
			warm_state_remove(j->mdname);
		warmup_clear(&now);
	}
	warmup_clear(&j->w);
	closelog();
	return rc;
}

int warmup_start(const char *mdname, const char *rd, const struct md_super *sb, const struct warm_speed *speed,
		 char **why)
{
	struct job j = { .mdname = mdname, .rd = rd, .sb = sb, .speed = *speed };
	int p[2], st, r;
	pid_t pid;
	char c;

	*why = NULL;
	if (mkdir(run_dir(), 0755) < 0 && errno != EEXIST) {
		r = -errno;
		*why = xasprintf("cannot make %s: %s", run_dir(), strerror(errno));
		return r;
	}
	if (pipe2(p, O_CLOEXEC) < 0) {
		r = -errno;
		*why = xasprintf("pipe: %s", strerror(errno));
		return r;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		r = -errno;
		*why = xasprintf("fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return r;
	}
	if (pid == 0) {
		struct sigaction sa = { .sa_handler = on_stop };
		int null;

		close(p[0]);
		if (setsid() < 0 || (pid = fork()) < 0)
			_exit(1);
		if (pid > 0)
			_exit(0);
		/* the daemon: no terminal, no lock of its parent's, no pipe held open */
		lock_release();
		null = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
			close(null);
		}
		sigemptyset(&sa.sa_mask);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		j.w.pid = getpid();
		j.w.rd = xstrdup(rd);
		j.w.started = (int64_t)time(NULL);
		if (warm_state_write(mdname, &j.w) < 0)
			_exit(1);
		close(p[1]);	/* the parent goes on */
		_exit(daemon_main(&j));
	}
	close(p[1]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	while (read(p[0], &c, 1) < 0 && errno == EINTR)
		;
	close(p[0]);
	if (warmup_read(mdname, &j.w) < 0) {
		*why = xasprintf("the warm-up of %s did not start", mdname);
		return -ECHILD;
	}
	warmup_clear(&j.w);
	return 0;
}
