// SPDX-License-Identifier: GPL-2.0
#include "mirror/boot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>

#include "lib/config_edit.h"
#include "lib/errors.h"
#include "lib/json.h"
#include "lib/sysfs.h"
#include "lib/util.h"

struct boot_item *boot_item_new(struct boot_report *r, const char *array)
{
	struct boot_item *it;

	r->v = xrealloc(r->v, r->n + 1, sizeof(*r->v));
	it = &r->v[r->n++];
	memset(it, 0, sizeof(*it));
	it->array = xstrdup(array);
	return it;
}

int boot_item_fail(struct boot_item *it, const char *code, char *message)
{
	it->action = "failed";
	if (it->message) {
		free(message);
		return -1;
	}
	it->code = xstrdup(code);
	it->message = message;
	return -1;
}

int boot_item_take_error(struct boot_item *it)
{
	const char *code = error_code(), *msg = error_message();

	boot_item_fail(it, code ? code : "EIO", xstrdup(msg ? msg : "unknown error"));
	error_reset();
	return -1;
}

void boot_report_free(struct boot_report *r)
{
	for (size_t i = 0; i < r->n; i++) {
		struct boot_item *it = &r->v[i];

		free(it->array);
		free(it->spec);
		free(it->uuid);
		free(it->rd);
		free_names(it->wm, it->nwm);
		free(it->code);
		free(it->message);
		free(it->summary);
	}
	free(r->v);
	memset(r, 0, sizeof(*r));
}

static json_t *json_item(const struct boot_item *it)
{
	json_t *o = jobj(), *wm = json_array();

	if (!wm)
		oom();
	jset(o, "array", json_string(it->array));
	if (it->spec) {
		jset(o, "spec", json_string(it->spec));
		jset(o, "line", json_integer(it->line));
	}
	jset(o, "uuid", jstr_or_null(it->uuid));
	jset(o, "rd", jstr_or_null(it->rd));
	jset(o, "size", it->has_size ? ju64(it->size) : json_null());
	jset(o, "action", json_string(it->action ? it->action : "failed"));
	for (size_t i = 0; i < it->nwm; i++)
		if (json_array_append_new(wm, json_string(it->wm[i])) < 0)
			oom();
	jset(o, "write_mostly_set", wm);
	if (it->message) {
		json_t *e = jobj();

		jset(e, "code", json_string(it->code));
		jset(e, "message", json_string(it->message));
		jset(o, "error", e);
	} else {
		jset(o, "error", json_null());
	}
	return o;
}

json_t *boot_report_json(const struct boot_report *r, const char *key, const struct config *cfg)
{
	json_t *root = jobj(), *arr = json_array(), *errs = json_array();

	if (!arr || !errs)
		oom();
	for (size_t i = 0; i < r->n; i++)
		if (json_array_append_new(arr, json_item(&r->v[i])) < 0)
			oom();
	jset(root, key, arr);
	if (cfg) {
		for (size_t i = 0; i < cfg->nerrs; i++) {
			json_t *e = jobj();

			jset(e, "file", json_string(cfg->path));
			jset(e, "line", json_integer(cfg->errs[i].line));
			jset(e, "message", json_string(cfg->errs[i].message));
			if (json_array_append_new(errs, e) < 0)
				oom();
		}
		jset(root, "config_errors", errs);
	} else {
		json_decref(errs);
	}
	return root;
}

int boot_report_save(const struct boot_report *r, const struct config *cfg)
{
	json_t *root = boot_report_json(r, "restore", cfg);
	struct utsname u;
	char *text, *path, *msg = NULL;
	int e = 0;

	jset(root, "time", json_integer((json_int_t)time(NULL)));
	jset(root, "kernel", uname(&u) == 0 ? json_string(u.release) : json_null());
	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	if (!text)
		oom();
	if (mkdir(run_dir(), 0755) < 0 && errno != EEXIST)
		e = -errno;
	path = xasprintf("%s/restore.json", run_dir());
	if (!e)
		e = config_write_atomic(path, text, &msg);
	if (e < 0)
		fprintf(stderr, "rdctl: warning: cannot record the restore in %s (rdctl --status reads it): %s\n", path,
			msg ? msg : strerror(-e));
	free(msg);
	free(path);
	free(text);
	return e;
}

int boot_report_emit(const struct boot_report *r, const char *key, const struct config *cfg, bool json)
{
	bool bad = cfg && cfg->nerrs;
	int rc = 0;

	for (size_t i = 0; cfg && i < cfg->nerrs; i++) {
		if (cfg->errs[i].line)
			fprintf(stderr, "rdctl: %s:%d: %s\n", cfg->path, cfg->errs[i].line, cfg->errs[i].message);
		else
			fprintf(stderr, "rdctl: %s: %s\n", cfg->path, cfg->errs[i].message);
	}
	for (size_t i = 0; i < r->n; i++) {
		const struct boot_item *it = &r->v[i];

		if (it->message) {
			bad = true;
			fprintf(stderr, "rdctl: %s: %s\n", it->array, it->message);
		} else if (!json && it->summary && printf("%s: %s\n", it->array, it->summary) < 0) {
			rc = fail_errno(EIO, "cannot write to standard output");
		}
	}
	if (json) {
		rc = json_emit(boot_report_json(r, key, cfg));
	} else if (fflush(stdout) == EOF && !rc) {
		rc = fail_errno(EIO, "cannot write to standard output");
	}
	if (rc)
		return rc;
	return bad ? EXIT_RUNTIME : 0;
}
