// SPDX-License-Identifier: GPL-2.0
#include "mirror/mirror.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdmirror.h>

#include "lib/config.h"
#include "lib/errors.h"
#include "lib/journal.h"
#include "lib/json.h"
#include "lib/proc.h"
#include "lib/seams.h"
#include "lib/size.h"
#include "lib/sysfs.h"
#include "lib/util.h"
#include "md/md_ops.h"
#include "mirror/rd_prepare.h"
#include "rd/control.h"

#define MAX_ARGS	24
#define NODE_WAIT_MS	3000
#define POLL_MS		100

void strv_add(char ***v, size_t *n, const char *s)
{
	*v = xrealloc(*v, *n + 1, sizeof(**v));
	(*v)[(*n)++] = xstrdup(s);
}

void mirror_run_init(struct mirror_run *r, const char *verb, const char *array, bool dry_run, bool json)
{
	memset(r, 0, sizeof(*r));
	r->verb = verb;
	r->array = xstrdup(array);
	r->dry_run = dry_run;
	r->json = json;
	r->mdadm_conf_listed = -1;
	if (dry_run && !json)
		printf("dry run: the plan for %s (nothing is changed; rdN stands for the disk to be attached):\n", array);
}

void mirror_run_free(struct mirror_run *r)
{
	free(r->array);
	free(r->uuid);
	free(r->rd);
	free(r->member);
	free_names(r->members, r->nmembers);
	free_names(r->wm, r->nwm);
	free(r->config_path);
	free(r->config_line);
	free(r->mdadm_conf_line);
	free(r->sync);
	free_names(r->notes, r->nnotes);
	for (size_t i = 0; i < r->nsteps; i++)
		free(r->steps[i].command);
	free(r->steps);
	memset(r, 0, sizeof(*r));
}

void mirror_note(struct mirror_run *r, char *text)
{
	strv_add(&r->notes, &r->nnotes, text);
	free(text);
}

/*
 * For the interruption tests only: RDCTL_TEST_STOP_AFTER=K kills rdctl
 * (SIGKILL, as a kill -9 or a power cut would stop it) once K steps are
 * done, before step K+1 starts or the report is printed.
 */
static void test_stop_point(const struct mirror_run *r)
{
	const char *s = seam("RDCTL_TEST_STOP_AFTER");
	uint64_t k;

	if (r->dry_run || !s || !parse_u64(s, &k) || k != r->nsteps)
		return;
	fflush(NULL);
	kill(getpid(), SIGKILL);
}

struct mirror_step *mirror_step(struct mirror_run *r, bool undo, char *command)
{
	struct mirror_step *s;

	test_stop_point(r);
	r->steps = xrealloc(r->steps, r->nsteps + 1, sizeof(*r->steps));
	s = &r->steps[r->nsteps++];
	s->command = command;
	s->status = r->dry_run ? "planned" : "done";
	s->undo = undo;
	/* Printed before it runs: a step that hangs or fails is on screen. */
	if (!r->json) {
		printf("%s%s%s\n", r->dry_run ? "  " : "", undo ? "undo: " : "", command);
		fflush(stdout);
	}
	return s;
}

int mirror_mdadmv(struct mirror_run *r, bool undo, const char *const args[])
{
	const char *argv[MAX_ARGS + 2];
	struct mirror_step *s;
	char *msg = NULL;
	size_t n = 0;
	int rc;

	argv[n++] = "mdadm";
	for (size_t i = 0; args[i] && n < MAX_ARGS + 1; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	s = mirror_step(r, undo, command_line(argv));
	if (r->dry_run)
		return 0;
	rc = mdadm_callv(NULL, &msg, args);
	if (rc == 0)
		return 0;
	s->status = "failed";
	rc = fail_errno(-rc, "%s", msg);
	free(msg);
	return rc;
}

int mirror_mdadm(struct mirror_run *r, bool undo, const char *arg, ...)
{
	const char *args[MAX_ARGS + 1];
	size_t n = 0;
	va_list ap;

	va_start(ap, arg);
	for (const char *a = arg; a && n < MAX_ARGS; a = va_arg(ap, const char *))
		args[n++] = a;
	va_end(ap);
	args[n] = NULL;
	return mirror_mdadmv(r, undo, args);
}

int mirror_sysfs(struct mirror_run *r, bool undo, const char *path, const char *value)
{
	struct mirror_step *s = mirror_step(r, undo, xasprintf("echo %s > %s", value, path));
	int e;

	if (r->dry_run)
		return 0;
	e = journal_sysfs_write(path, value);
	if (e == 0)
		return 0;
	s->status = "failed";
	return fail_errno(-e, "echo %s > %s failed: %s", value, path, strerror(-e));
}

char *size_arg_str(uint64_t bytes)
{
	if (bytes % (1ULL << 20) == 0)
		return xasprintf("%lluM", (unsigned long long)(bytes >> 20));
	return xasprintf("%lluB", (unsigned long long)bytes);
}

char *attach_error(int e, uint64_t size, const char *prealloc, unsigned comp)
{
	char *sz = size_mib_str(size), *why;

	/* the module refuses a flag it does not know with EINVAL; rdctl checked the rest of the request */
	if (e == EINVAL && comp)
		why = xasprintf("the loaded rdmirror module cannot make compressed disks (it refused a %s disk compressed with %s: EINVAL): load an rdmirror module built with compression, or leave compression out",
				sz, config_comp_name(comp));
	else if (e == ENOMEM)
		why = xasprintf("not enough memory for a %s RAM disk%s%s%s", sz, prealloc ? " (" : "",
				prealloc ? prealloc : "", prealloc ? " needs all of it free now)" : "");
	else
		why = xasprintf("attaching a %s RAM disk failed: %s", sz, strerror(e));
	free(sz);
	return why;
}

/* "1024M", "1024M --prealloc", "1024M --compress=zstd": --attach's words for the disk r attaches. */
static char *attach_words(const struct mirror_run *r, uint64_t size, bool prealloc)
{
	char *sz = size_arg_str(size), *w;

	if (r->comp)
		w = xasprintf("%s --compress=%s", sz, config_comp_name(r->comp));
	else
		w = xasprintf("%s%s", sz, prealloc ? " --prealloc" : "");
	free(sz);
	return w;
}

int mirror_attach(struct mirror_run *r, uint64_t size, bool prealloc)
{
	char *sz = attach_words(r, size, prealloc), *path;
	struct mirror_step *s = mirror_step(r, false, xasprintf("rdctl --attach %s", sz));
	struct rd_spec spec = { .size = size, .prealloc = prealloc, .comp = r->comp, .mem_limit = r->mem_limit };
	unsigned index;
	int fd, e, rc;

	free(sz);
	r->has_size = true;
	r->size = size;
	r->prealloc = prealloc;
	if (r->dry_run)
		return 0;
	s->status = "failed";
	rc = control_open(true, &fd);
	if (rc)
		return rc;
	e = ctl_add(fd, &spec, &index);
	if (close(fd) < 0 && e == 0)
		e = -errno;
	if (e < 0) {
		sz = attach_error(-e, size, prealloc ? "--prealloc" : NULL, r->comp);
		rc = fail_errno(-e, "%s", sz);
		free(sz);
		return rc;
	}
	r->rd = xasprintf("%s%u", RDMIRROR_DISK_PREFIX, index);
	free(s->command);
	sz = attach_words(r, size, prealloc);
	s->command = xasprintf("rdctl --attach %s   # %s", sz, r->rd);
	free(sz);
	/* udev makes /dev/rdN; mdadm needs it. */
	path = md_dev_path(r->rd);
	for (int waited = 0; !path_exists(path) && waited < NODE_WAIT_MS; waited += POLL_MS)
		util_sleep_ms(POLL_MS);
	e = path_exists(path);
	free(path);
	if (!e) {
		rc = fail_errno(ENODEV, "%s/%s did not appear within 3 s: is udev running?", dev_root(), r->rd);
		return rc;
	}
	rd_prepare_count_io(index);
	s->status = "done";
	return 0;
}

int mirror_detach(struct mirror_run *r, bool undo)
{
	unsigned index = 0;
	struct mirror_step *s;
	int fd, e, rc;

	/* a member disk is the user's: its data stays, there is nothing to detach */
	if (r->member)
		return 0;
	s = mirror_step(r, undo, xasprintf("rdctl --detach %s", r->rd ? r->rd : "rdN"));
	if (r->dry_run)
		return 0;
	if (!r->rd || !rd_parse_name(r->rd, &index))
		return 0;
	rc = control_open(false, &fd);
	if (rc) {
		s->status = "failed";
		return rc;
	}
	e = ctl_remove(fd, index);
	if (close(fd) < 0 && e == 0)
		e = -errno;
	if (e < 0) {
		char *busy = e == -EBUSY ? busy_message(index) : NULL;

		s->status = "failed";
		rc = fail_errno(-e, "rdctl --detach %s failed: %s", r->rd, busy ? busy : strerror(-e));
		free(busy);
		return rc;
	}
	return 0;
}

int mirror_failed(char *state)
{
	const char *code = error_code(), *msg = error_message();
	char *c = xstrdup(code ? code : "EIO");
	char *m = xstrdup(msg ? msg : "failed");
	int rc;

	error_reset();
	rc = fail(EXIT_RUNTIME, c, "%s; %s", m, state);
	free(c);
	free(m);
	free(state);
	return rc;
}

static json_t *jstrv(char **v, size_t n)
{
	json_t *a = json_array();

	if (!a)
		oom();
	for (size_t i = 0; i < n; i++)
		if (json_array_append_new(a, json_string(v[i])) < 0)
			oom();
	return a;
}

static int emit_json(struct mirror_run *r)
{
	json_t *root = jobj(), *o = jobj(), *steps = json_array(), *cfg = jobj(), *mc = jobj();

	if (!steps)
		oom();
	jset(o, "array", json_string(r->array));
	jset(o, "dry_run", json_boolean(r->dry_run));
	jset(o, "uuid", jstr_or_null(r->uuid));
	jset(o, "rd", jstr_or_null(r->rd));
	jset(o, "member_disk", jstr_or_null(r->member));
	jset(o, "size", r->has_size ? ju64(r->size) : json_null());
	jset(o, "preallocated", json_boolean(r->prealloc));
	if (r->comp) {
		jset(o, "compress", json_string(config_comp_name(r->comp)));
		jset(o, "mem_limit", ju64(r->mem_limit));
	}
	jset(o, "members", jstrv(r->members, r->nmembers));
	jset(o, "write_mostly_changed", jstrv(r->wm, r->nwm));
	jset(o, "bitmap", jstr_or_null(r->bitmap));
	jset(cfg, "path", jstr_or_null(r->config_path));
	jset(cfg, "line", jstr_or_null(r->config_line));
	jset(cfg, "changed", json_boolean(r->config_changed));
	jset(o, "config", cfg);
	jset(mc, "listed", r->mdadm_conf_listed < 0 ? json_null() : json_boolean(r->mdadm_conf_listed));
	jset(mc, "line", jstr_or_null(r->mdadm_conf_line));
	jset(o, "mdadm_conf", mc);
	jset(o, "sync", jstr_or_null(r->sync));
	for (size_t i = 0; i < r->nsteps; i++) {
		json_t *s = jobj();

		jset(s, "command", json_string(r->steps[i].command));
		jset(s, "status", json_string(r->steps[i].status));
		jset(s, "undo", json_boolean(r->steps[i].undo));
		if (json_array_append_new(steps, s) < 0)
			oom();
	}
	jset(o, "steps", steps);
	jset(o, "notes", jstrv(r->notes, r->nnotes));
	jset(root, r->verb, o);
	return json_emit(root);
}

int mirror_emit(struct mirror_run *r)
{
	test_stop_point(r);
	if (r->json)
		return emit_json(r);
	for (size_t i = 0; i < r->nnotes; i++)
		fprintf(stderr, "rdctl: warning: %s\n", r->notes[i]);
	if (fflush(stdout) == EOF || ferror(stdout))
		return fail_errno(EIO, "cannot write to standard output");
	return 0;
}
