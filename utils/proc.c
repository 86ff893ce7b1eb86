// SPDX-License-Identifier: GPL-2.0
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

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

/* In the child: exec argv[0] from PATH, then from the sbin directories. */
static void child_exec(char *const argv[])
{
	static const char *const dirs[] = { "/usr/sbin", "/sbin" };

	execvp(argv[0], argv);
	if (errno == ENOENT && !strchr(argv[0], '/')) {
		for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
			char *path = xasprintf("%s/%s", dirs[i], argv[0]);

			execv(path, argv);
			free(path);
		}
	}
	_exit(127);
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

/* Read both pipes until both are closed. 0 or -errno. */
static int drain(int ofd, int efd, struct buf *out, struct buf *err)
{
	struct pollfd p[2] = { { .fd = ofd, .events = POLLIN }, { .fd = efd, .events = POLLIN } };
	struct buf *b[2] = { out, err };
	char chunk[4096];

	out->open = err->open = true;
	while (out->open || err->open) {
		int r;

		p[0].fd = out->open ? ofd : -1;
		p[1].fd = err->open ? efd : -1;
		r = poll(p, 2, -1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (int i = 0; i < 2; i++) {
			ssize_t n;

			if (!b[i]->open || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(p[i].fd, chunk, sizeof(chunk));
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				return -errno;
			if (n == 0)
				b[i]->open = false;
			else
				buf_add(b[i], chunk, (size_t)n);
		}
	}
	return 0;
}

int proc_run(char *const argv[], struct proc_result *res)
{
	struct buf out = { 0 }, err = { 0 };
	int ofd[2] = { -1, -1 }, efd[2] = { -1, -1 };
	int r, wst;
	pid_t pid;

	res->status = -1;
	buf_add(&out, "", 0);
	buf_add(&err, "", 0);
	if ((r = set_cloexec_pipe(ofd)) < 0 || (r = set_cloexec_pipe(efd)) < 0)
		goto fail;
	pid = fork();
	if (pid < 0) {
		r = -errno;
		goto fail;
	}
	if (pid == 0) {
		int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (nul < 0 || dup2(nul, 0) < 0 || dup2(ofd[1], 1) < 0 || dup2(efd[1], 2) < 0 ||
		    signal(SIGPIPE, SIG_DFL) == SIG_ERR)
			_exit(126);
		child_exec(argv);
	}
	r = 0;
	close_keep(ofd[1], &r);
	close_keep(efd[1], &r);
	ofd[1] = efd[1] = -1;
	if (r == 0)
		r = drain(ofd[0], efd[0], &out, &err);
	close_keep(ofd[0], &r);
	close_keep(efd[0], &r);
	ofd[0] = efd[0] = -1;
	while (waitpid(pid, &wst, 0) < 0) {
		if (errno != EINTR) {
			r = -errno;
			goto fail;
		}
	}
	if (r < 0)
		goto fail;
	if (WIFEXITED(wst))
		res->status = WEXITSTATUS(wst);
	else
		res->status = 128 + (WIFSIGNALED(wst) ? WTERMSIG(wst) : 0);
	if (res->status == 127 && !*err.p) {
		free(err.p);
		err.p = xasprintf("%s: command not found", argv[0]);
		err.len = strlen(err.p);
	}
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
	res->err = xasprintf("cannot run %s: %s", argv[0], strerror(-r));
	res->status = -1;
	return r;
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
