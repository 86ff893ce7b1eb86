// SPDX-License-Identifier: GPL-2.0
#include "lib/proc.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/util.h"

struct buf {
	char *p;
	size_t len, cap;
	bool open;
};

static void buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->p = xrealloc(b->p, b->cap, 1);
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

#define TERM_GRACE	2.0	/* seconds from SIGTERM to SIGKILL */
#define KILL_GRACE	2.0	/* from SIGKILL to giving up on a child stuck in the kernel */
#define EXIT_DRAIN	1.0	/* after its exit: the pipes a helper it started still holds */
#define TICK_MS		100

char *proc_find(const char *name)
{
	static const char *const dirs[] = { "/usr/sbin", "/sbin", "/usr/bin", "/bin" };

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char *path = xasprintf("%s/%s", dirs[i], name);

		if (access(path, X_OK) == 0)
			return path;
		free(path);
	}
	return NULL;
}

/* close fd; the first error goes to *r (when *r is still 0) */
static void close_keep(int fd, int *r)
{
	if (close(fd) < 0 && *r == 0)
		*r = -errno;
}

static int set_cloexec_pipe(int fds[2])
{
	return pipe2(fds, O_CLOEXEC) < 0 ? -errno : 0;
}

/* Read what the open pipes have, waiting at most ms. 0 or -errno. */
static int read_some(const int fds[2], struct buf *b[2], int ms)
{
	struct pollfd p[2];
	char chunk[4096];
	int r;

	for (int i = 0; i < 2; i++)
		p[i] = (struct pollfd){ .fd = b[i]->open ? fds[i] : -1, .events = POLLIN };
	r = poll(p, 2, ms);
	if (r < 0)
		return errno == EINTR ? 0 : -errno;
	for (int i = 0; i < 2; i++) {
		ssize_t n;

		if (!b[i]->open || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		n = read(fds[i], chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			b[i]->open = false;
		else
			buf_add(b[i], chunk, (size_t)n);
	}
	return 0;
}

struct child {
	pid_t pid;
	bool exited;
	int wst;		/* its wait status, once exited */
	double term_at, kill_at;	/* when it was sent SIGTERM, SIGKILL (0: not) */
};

/* Has it exited? Reaps it when it has. 0 or -errno. */
static int reap(struct child *c)
{
	pid_t r;

	if (c->exited)
		return 0;
	do
		r = waitpid(c->pid, &c->wst, WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	c->exited = r == c->pid;
	return 0;
}

static int signal_child(struct child *c, int sig, double *at)
{
	*at = mono_now();
	/* not reaped yet, so it exists (a zombie at worst): ESRCH cannot happen */
	return kill(c->pid, sig) < 0 && errno != ESRCH ? -errno : 0;
}

/*
 * Read the pipes until the child has exited and closed them, stopping it
 * at the deadline (0: none): SIGTERM, then SIGKILL. Gives up on a child
 * SIGKILL does not end (stuck in the kernel): it stays, not reaped. 0 or -errno.
 */
static int collect(struct child *c, const int fds[2], struct buf *b[2], double deadline)
{
	double exited_at = 0;
	long nap = 1;
	int r;

	b[0]->open = b[1]->open = true;
	for (;;) {
		double now = mono_now();

		if ((r = reap(c)) < 0)
			return r;
		if (c->exited && !exited_at)
			exited_at = now;
		/* a helper it left behind may hold the pipes open: what the child itself
		 * printed is in by the time it has exited and EXIT_DRAIN has passed */
		if (c->exited && ((!b[0]->open && !b[1]->open) || now - exited_at >= EXIT_DRAIN))
			return 0;
		if (!c->exited && deadline && now >= deadline) {
			if (!c->term_at)
				r = signal_child(c, SIGTERM, &c->term_at);
			else if (!c->kill_at && now - c->term_at >= TERM_GRACE)
				r = signal_child(c, SIGKILL, &c->kill_at);
			else if (c->kill_at && now - c->kill_at >= KILL_GRACE)
				return 0;
			if (r < 0)
				return r;
		}
		if (b[0]->open || b[1]->open) {
			if ((r = read_some(fds, b, TICK_MS)) < 0)
				return r;
		} else {
			/* both closed: the exit is a moment away */
			util_sleep_ms(nap);
			nap = nap < TICK_MS ? nap * 2 : TICK_MS;
		}
	}
}

/* In the child: stdin from /dev/null, stdout and stderr to the pipes, exec. */
static void child_exec(const char *path, char *const argv[], int ofd, int efd)
{
	int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (nul < 0 || dup2(nul, 0) < 0 || dup2(ofd, 1) < 0 || dup2(efd, 2) < 0 ||
	    signal(SIGPIPE, SIG_DFL) == SIG_ERR)
		_exit(126);
	execv(path, argv);
	_exit(127);
}

static char *timeout_text(const struct child *c, unsigned seconds)
{
	if (!c->exited)
		return xasprintf("did not finish in %u s, and SIGKILL did not end it (stuck in the kernel?)", seconds);
	return xasprintf("did not finish in %u s (stopped with %s)", seconds, c->kill_at ? "SIGKILL" : "SIGTERM");
}

int proc_run_bounded(const char *path, char *const argv[], unsigned seconds, struct proc_result *res)
{
	struct buf out = { 0 }, err = { 0 }, *b[2] = { &out, &err };
	int ofd[2] = { -1, -1 }, efd[2] = { -1, -1 }, fds[2];
	struct child c = { .pid = -1 };
	char *found = NULL;
	double deadline = seconds ? mono_now() + seconds : 0;
	int r;

	res->status = -1;
	res->timed_out = false;
	buf_add(&out, "", 0);
	buf_add(&err, "", 0);
	if (!path) {
		path = found = proc_find(argv[0]);
		if (!path) {
			free(err.p);
			res->out = out.p;
			res->err = xasprintf("%s is not installed (not in /usr/sbin, /sbin, /usr/bin or /bin)", argv[0]);
			return -ENOENT;
		}
	}
	if ((r = set_cloexec_pipe(ofd)) < 0 || (r = set_cloexec_pipe(efd)) < 0)
		goto fail;
	c.pid = fork();
	if (c.pid < 0) {
		r = -errno;
		goto fail;
	}
	if (c.pid == 0)
		child_exec(path, argv, ofd[1], efd[1]);
	r = 0;
	close_keep(ofd[1], &r);
	close_keep(efd[1], &r);
	ofd[1] = efd[1] = -1;
	fds[0] = ofd[0];
	fds[1] = efd[0];
	if (r == 0)
		r = collect(&c, fds, b, deadline);
	close_keep(ofd[0], &r);
	close_keep(efd[0], &r);
	ofd[0] = efd[0] = -1;
	if (r < 0) {
		/* cannot follow it any more: stop it; it is reaped when rdctl exits */
		if (!c.exited)
			(void)kill(c.pid, SIGKILL);	/* best effort: r is the error to show */
		goto fail;
	}
	if (c.term_at) {
		free(err.p);
		free(found);
		res->timed_out = true;
		res->out = out.p;
		res->err = timeout_text(&c, seconds);
		return -ETIMEDOUT;
	}
	if (WIFEXITED(c.wst))
		res->status = WEXITSTATUS(c.wst);
	else
		res->status = 128 + (WIFSIGNALED(c.wst) ? WTERMSIG(c.wst) : 0);
	if (res->status == 127 && !*err.p) {
		free(err.p);
		err.p = xasprintf("cannot run %s", path);
		err.len = strlen(err.p);
	}
	free(found);
	res->out = out.p;
	res->err = err.p;
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		int ignored = 0;	/* already failing: report the first error */

		if (ofd[i] >= 0)
			close_keep(ofd[i], &ignored);
		if (efd[i] >= 0)
			close_keep(efd[i], &ignored);
	}
	free(err.p);
	res->out = out.p;
	res->err = xasprintf("cannot run %s: %s", path, strerror(-r));
	res->status = -1;
	free(found);
	return r;
}

int proc_run(char *const argv[], struct proc_result *res)
{
	return proc_run_bounded(NULL, argv, PROC_TIMEOUT, res);
}

void proc_result_clear(struct proc_result *res)
{
	free(res->out);
	free(res->err);
	res->out = res->err = NULL;
	res->status = -1;
}

char *last_line(const char *s)
{
	const char *end, *start;

	if (!s)
		return NULL;
	end = s + strlen(s);
	while (end > s && (end[-1] == '\n' || end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (end == s)
		return NULL;
	start = end;
	while (start > s && start[-1] != '\n')
		start--;
	return xasprintf("%.*s", (int)(end - start), start);
}

/* Can a word be shown to a shell as it is? */
static bool shell_plain(const char *w)
{
	if (!*w)
		return false;
	for (; *w; w++)
		if (!isalnum((unsigned char)*w) && !strchr("/-_.,:=+@%", *w))
			return false;
	return true;
}

char *command_line(const char *const argv[])
{
	char *s = xstrdup("");

	for (size_t i = 0; argv[i]; i++) {
		char *t, *q = NULL;

		if (!shell_plain(argv[i])) {
			/* 'it'\''s': single quotes, each ' closed, escaped and reopened */
			q = xstrdup("'");
			for (const char *c = argv[i]; *c; c++) {
				char *u = *c == '\'' ? xasprintf("%s'\\''", q) : xasprintf("%s%c", q, *c);

				free(q);
				q = u;
			}
			t = xasprintf("%s'", q);
			free(q);
			q = t;
		}
		t = xasprintf("%s%s%s", s, i ? " " : "", q ? q : argv[i]);
		free(q);
		free(s);
		s = t;
	}
	return s;
}
