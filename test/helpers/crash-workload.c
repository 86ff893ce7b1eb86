// SPDX-License-Identifier: GPL-2.0
/*
 * crash-workload: the file workload of the crash-consistency test
 * (test/crash/), and the check of what survived a replayed crash.
 *
 *   crash-workload run DIR SEED OPS [--mark-before-fsync] -- MARKCMD...
 *   crash-workload verify DIR SEED OPS K
 *
 * Both modes build the same model from SEED: OPS operations (create a
 * file, overwrite part of one, append to one, rename one), each with
 * content that is a function of SEED and the operation's number. "run"
 * performs them in DIR on the device under test; after each one it
 * fsyncs the file and DIR, and only once those returned runs
 * "MARKCMD... op-K" (a dm-log-writes mark), so a mark in the log means
 * "everything of operations 1..K was acknowledged as durable". Before the
 * first operation it marks op-0. --mark-before-fsync is a planted
 * defect: it marks first, so the test must fail.
 *
 * "verify" checks a dump of DIR taken from a replayed crash image whose
 * last mark was op-K: every file of the state after operation K holds
 * exactly its bytes, and nothing else is there, except what operation
 * K+1 (possibly in flight at the crash) touches: its file may hold its
 * old or new bytes or a mix, a new file may be absent, a renamed file may
 * be under either name. Prints "verified N files" or one line a finding,
 * exits 1 on any finding.
 */
#define _GNU_SOURCE
#include <dirent.h>
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

enum op_kind { OP_CREATE, OP_OVERWRITE, OP_APPEND, OP_RENAME };

struct file {
	char name[32];
	unsigned char *data;
	size_t len;
	bool live;
};

struct op {
	enum op_kind kind;
	size_t file;		/* index in the file table */
	size_t off, len;	/* create/overwrite/append: the bytes written */
	char old_name[32];	/* rename */
	uint64_t content;	/* seed of the bytes written */
};

struct model {
	struct file *files;
	size_t nfiles;
	struct op *ops;		/* ops[1..nops] */
	size_t nops;
};

static uint64_t next_rand(uint64_t *s)
{
	/* splitmix64: a fixed, portable sequence for a given seed */
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void fill(unsigned char *p, size_t n, uint64_t seed)
{
	uint64_t s = seed, r = 0;

	for (size_t i = 0; i < n; i++) {
		if (i % 8 == 0)
			r = next_rand(&s);
		p[i] = (unsigned char)(r >> (8 * (i % 8)));
	}
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		perror("crash-workload");
		exit(2);
	}
	return p;
}

/* Applies op k to the model (the file table), as the workload does to DIR. */
static void apply(struct model *m, size_t k)
{
	struct op *o = &m->ops[k];
	struct file *f = &m->files[o->file];

	switch (o->kind) {
	case OP_CREATE:
	case OP_OVERWRITE:
	case OP_APPEND:
		if (o->off + o->len > f->len) {
			f->data = xrealloc(f->data, o->off + o->len);
			f->len = o->off + o->len;
		}
		fill(f->data + o->off, o->len, o->content);
		f->live = true;
		break;
	case OP_RENAME:
		snprintf(f->name, sizeof(f->name), "r%zu-%zu", o->file, k);
		break;
	}
}

/*
 * Chooses op k from the state after k-1 (the state must be the one after
 * op k-1 when called). Sizes avoid 4 KiB multiples so that tails and
 * partial blocks are exercised.
 */
static void choose(struct model *m, size_t k, uint64_t *rs)
{
	struct op *o = &m->ops[k];
	uint64_t r = next_rand(rs);
	unsigned int pick = (unsigned int)(r % 100);

	memset(o, 0, sizeof(*o));
	o->content = next_rand(rs);
	if (m->nfiles < 3 || pick < 40) {
		struct file *f;

		m->files = xrealloc(m->files, (m->nfiles + 1) * sizeof(*m->files));
		f = &m->files[m->nfiles];
		memset(f, 0, sizeof(*f));
		snprintf(f->name, sizeof(f->name), "f%zu", m->nfiles);
		o->kind = OP_CREATE;
		o->file = m->nfiles++;
		o->len = 1 + next_rand(rs) % (48 * 1024);
		return;
	}
	o->file = next_rand(rs) % m->nfiles;
	struct file *f = &m->files[o->file];
	if (pick < 65) {
		o->kind = OP_OVERWRITE;
		o->off = next_rand(rs) % f->len;
		o->len = 1 + next_rand(rs) % (f->len - o->off);
	} else if (pick < 85) {
		o->kind = OP_APPEND;
		o->off = f->len;
		o->len = 1 + next_rand(rs) % (16 * 1024);
	} else {
		o->kind = OP_RENAME;
		memcpy(o->old_name, f->name, sizeof(o->old_name));
	}
}

/*
 * The model after op `upto`. Each op is chosen from the state after the
 * one before it, so all of them are chosen and applied first (the same
 * sequence whatever `upto` is), then the file table starts over and ops
 * 1..upto are applied again.
 */
static void build(struct model *m, uint64_t seed, size_t nops, size_t upto)
{
	uint64_t rs = seed;

	memset(m, 0, sizeof(*m));
	m->nops = nops;
	m->ops = xrealloc(NULL, (nops + 2) * sizeof(*m->ops));
	for (size_t k = 1; k <= nops; k++) {
		choose(m, k, &rs);
		apply(m, k);
	}
	for (size_t i = 0; i < m->nfiles; i++) {
		struct file *f = &m->files[i];

		free(f->data);
		f->data = NULL;
		f->len = 0;
		f->live = false;
		snprintf(f->name, sizeof(f->name), "f%zu", i);
	}
	for (size_t k = 1; k <= upto; k++)
		apply(m, k);
}

static void die(const char *what, const char *name)
{
	fprintf(stderr, "crash-workload: %s %s: %s\n", what, name, strerror(errno));
	exit(2);
}

static void mark(char **cmd, size_t k)
{
	char name[32];
	size_t n = 0;
	pid_t pid;
	int st;

	while (cmd[n])
		n++;
	char **argv = xrealloc(NULL, (n + 2) * sizeof(*argv));
	memcpy(argv, cmd, n * sizeof(*argv));
	snprintf(name, sizeof(name), "op-%zu", k);
	argv[n] = name;
	argv[n + 1] = NULL;
	pid = fork();
	if (pid < 0)
		die("fork for", cmd[0]);
	if (pid == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "crash-workload: the mark command %s failed for %s\n", cmd[0], name);
		exit(2);
	}
	free(argv);
}

static void fsync_path(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fsync(fd) || close(fd))
		die("fsync", name);
}

static int do_run(const char *dir, uint64_t seed, size_t nops, bool early, char **cmd)
{
	struct model m;
	int dfd;

	build(&m, seed, nops, 0);
	if (mkdir(dir, 0755) && errno != EEXIST)
		die("mkdir", dir);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || fsync(dfd))
		die("open", dir);
	{
		/* the directory's own entry in its parent */
		char *parent = strdup(dir), *slash = strrchr(parent, '/');

		if (slash)
			*slash = '\0';
		fsync_path(AT_FDCWD, slash && *parent ? parent : ".");
		free(parent);
	}
	mark(cmd, 0);
	for (size_t k = 1; k <= nops; k++) {
		struct op *o = &m.ops[k];
		struct file *f = &m.files[o->file];
		int fd = -1;

		apply(&m, k);
		if (early)
			mark(cmd, k);
		switch (o->kind) {
		case OP_CREATE:
		case OP_OVERWRITE:
		case OP_APPEND:
			fd = openat(dfd, f->name, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
			if (fd < 0)
				die("open", f->name);
			for (size_t done = 0; done < o->len;) {
				ssize_t w = pwrite(fd, f->data + o->off + done, o->len - done,
						   (off_t)(o->off + done));
				if (w <= 0)
					die("write", f->name);
				done += (size_t)w;
			}
			if (fsync(fd) || close(fd))
				die("fsync", f->name);
			break;
		case OP_RENAME:
			if (renameat(dfd, o->old_name, dfd, f->name))
				die("rename", o->old_name);
			break;
		}
		/* a new name (create, rename) is durable once the directory is */
		if (fsync(dfd))
			die("fsync", dir);
		if (!early)
			mark(cmd, k);
	}
	close(dfd);
	return 0;
}

static bool same(const char *path, const struct file *f, size_t *bad_off)
{
	unsigned char buf[65536];
	size_t pos = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	*bad_off = 0;
	if (fd < 0)
		return false;
	while ((r = read(fd, buf, sizeof(buf))) > 0) {
		size_t n = (size_t)r;

		if (pos + n > f->len || memcmp(buf, f->data + pos, n)) {
			for (size_t i = 0; i < n && pos + i < f->len; i++)
				if (buf[i] != f->data[pos + i]) {
					*bad_off = pos + i;
					break;
				}
			if (!*bad_off)
				*bad_off = f->len;
			close(fd);
			return false;
		}
		pos += n;
	}
	close(fd);
	*bad_off = pos;
	return r == 0 && pos == f->len;
}

static int do_verify(const char *dir, uint64_t seed, size_t nops, size_t k)
{
	struct model m;
	const struct op *next;
	const char *inflight_new = NULL, *inflight_old = NULL;
	size_t inflight = SIZE_MAX, verified = 0, findings = 0;
	char path[4096];
	DIR *d;
	struct dirent *e;

	if (k > nops) {
		fprintf(stderr, "crash-workload: op-%zu is past the last operation %zu\n", k, nops);
		return 2;
	}
	build(&m, seed, nops, k);
	next = k < nops ? &m.ops[k + 1] : NULL;
	if (next) {
		inflight = next->file;
		if (next->kind == OP_RENAME) {
			/* the name it will have: the model's rule in apply() */
			static char nn[32];

			snprintf(nn, sizeof(nn), "r%zu-%zu", next->file, k + 1);
			inflight_new = nn;
			inflight_old = next->old_name;
		} else if (next->kind == OP_CREATE) {
			inflight_new = m.files[next->file].name;
		}
	}
	for (size_t i = 0; i < m.nfiles; i++) {
		const struct file *f = &m.files[i];
		size_t off;

		if (!f->live || i == inflight)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, f->name);
		if (same(path, f, &off)) {
			verified++;
			continue;
		}
		findings++;
		if (access(path, F_OK))
			printf("op-%zu: %s is missing (%zu bytes expected)\n", k, f->name, f->len);
		else
			printf("op-%zu: %s differs from byte %zu (%zu bytes expected)\n", k, f->name, off, f->len);
	}
	if (inflight != SIZE_MAX && m.files[inflight].live) {
		/* the in-flight file must still exist under one of its names */
		const struct file *f = &m.files[inflight];
		char p2[4096];

		snprintf(path, sizeof(path), "%s/%s", dir, f->name);
		snprintf(p2, sizeof(p2), "%s/%s", dir, inflight_new ? inflight_new : f->name);
		if (access(path, F_OK) && access(p2, F_OK)) {
			findings++;
			printf("op-%zu: %s (operation %zu in flight) is missing\n", k, f->name, k + 1);
		}
	}
	d = opendir(dir);
	if (!d) {
		printf("op-%zu: %s: %s\n", k, dir, strerror(errno));
		return 1;
	}
	while ((e = readdir(d))) {
		bool known = false;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		for (size_t i = 0; i < m.nfiles && !known; i++)
			known = m.files[i].live && !strcmp(m.files[i].name, e->d_name);
		known = known || (inflight_new && !strcmp(e->d_name, inflight_new)) ||
			(inflight_old && !strcmp(e->d_name, inflight_old));
		if (!known) {
			findings++;
			printf("op-%zu: unexpected file %s\n", k, e->d_name);
		}
	}
	closedir(d);
	if (findings)
		return 1;
	printf("verified %zu files\n", verified);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: crash-workload run DIR SEED OPS [--mark-before-fsync] -- MARKCMD...\n"
			"       crash-workload verify DIR SEED OPS K\n");
	return 2;
}

static bool number(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return !errno && *s && !*end && *s != '-';
}

int main(int argc, char **argv)
{
	uint64_t seed, nops, k;

	if (argc < 5 || !number(argv[3], &seed) || !number(argv[4], &nops) || nops > 100000)
		return usage();
	if (!strcmp(argv[1], "verify")) {
		if (argc != 6 || !number(argv[5], &k))
			return usage();
		return do_verify(argv[2], seed, nops, k);
	}
	if (strcmp(argv[1], "run"))
		return usage();
	int i = 5;
	bool early = false;

	if (i < argc && !strcmp(argv[i], "--mark-before-fsync")) {
		early = true;
		i++;
	}
	if (i + 1 >= argc || strcmp(argv[i], "--"))
		return usage();
	return do_run(argv[2], seed, nops, early, argv + i + 1);
}
