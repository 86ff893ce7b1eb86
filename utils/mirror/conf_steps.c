// SPDX-License-Identifier: GPL-2.0
#include "mirror/conf_steps.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/config.h"
#include "lib/config_edit.h"
#include "lib/errors.h"
#include "lib/journal.h"
#include "lib/proc.h"
#include "lib/util.h"
#include "md/md_ops.h"
#include "md/mdadm_conf.h"

/* Does config entry m name the array kname (uuid may be NULL)? */
static bool conf_names(const struct conf_mirror *m, const char *kname, const char *uuid)
{
	char *k;
	bool same;

	switch (m->kind) {
	case CONF_UUID:
		return uuid && md_uuid_same(m->uuid, uuid);
	case CONF_DEVICE:
		return !strcmp(m->name, kname);
	case CONF_MDNAME:
		k = md_resolve_name(m->name);
		same = k && !strcmp(k, kname);
		free(k);
		return same;
	}
	return false;
}

void conf_file_init(struct conf_file *f, const char *given, bool json)
{
	f->path = config_path(given);
	f->text = NULL;
	f->json = json;
}

void conf_file_free(struct conf_file *f)
{
	free(f->text);
	f->text = NULL;
}

/* The text, read at the first call. 0, or -errno with *msg set. */
static int conf_file_text(struct conf_file *f, char **msg)
{
	return f->text ? 0 : config_file_load(f->path, &f->text, msg);
}

int conf_file_parse(struct conf_file *f, struct config *c)
{
	char *msg = NULL;
	int e = conf_file_text(f, &msg);

	config_parse_text(f->path, f->text ? f->text : "", c);
	if (e < 0) {
		e = fail_errno(-e, "%s", msg);
		free(msg);
	}
	return e;
}

/*
 * Replace the configuration with next (taken): the text from then on.
 * what: the journal's words. 0, or -errno with *msg set (the text as it
 * was). Past the rename (syncing the directory failed) the new text is in
 * place, it only may not survive a crash yet: 1, with *msg saying so.
 */
static int conf_file_store(struct conf_file *f, char *next, const char *what, char **msg)
{
	char *now = NULL, *ignored = NULL;
	int e = journal_conf_write(f->path, next, what, msg);

	if (e < 0 && config_file_load(f->path, &now, &ignored) == 0 && !strcmp(now, next))
		e = 1;
	free(now);
	free(ignored);
	if (e < 0) {
		free(next);
		return e;
	}
	free(f->text);
	f->text = next;
	return e;
}

/* The configuration becomes next (taken); the last step is this edit. */
static int config_store(struct mirror_run *r, struct conf_file *f, char *next)
{
	char *msg = NULL;
	int e = conf_file_store(f, next, r->steps[r->nsteps - 1].command + 2, &msg);

	if (e > 0) {
		mirror_note(r, msg);
		msg = NULL;
	}
	if (e < 0) {
		r->steps[r->nsteps - 1].status = "failed";
		e = fail_errno(-e, "%s", msg);
		free(msg);
		return e;
	}
	r->config_changed = true;
	return 0;
}

/* Add the array's line to the configuration unless a line names it already. */
/* A disk fast member's line names it: "... auto member=PATH"; a compressed one's its compressor. */
static void with_member(struct mirror_run *r)
{
	char *l;

	if (!r->member && !r->comp)
		return;
	if (r->member)
		l = xasprintf("%s member=%s", r->config_line, r->member);
	else
		l = xasprintf("%s compress=%s", r->config_line, config_comp_name(r->comp));
	free(r->config_line);
	r->config_line = l;
}

int conf_add_line(struct mirror_run *r, struct conf_file *f, const char *kname, bool auto_size)
{
	struct config c;
	int rc;

	r->config_path = xstrdup(f->path);
	if (r->dry_run) {
		r->config_line = r->uuid ? config_line_for(r->uuid, auto_size, r->size, r->prealloc)
					 : xasprintf("UUID=<the new array's UUID> %s%s", auto_size ? "auto" : "SIZE",
						     r->prealloc ? " prealloc" : "");
		with_member(r);
		mirror_step(r, false, xasprintf("# add to %s: %s", r->config_path, r->config_line));
		return 0;
	}
	if (!r->uuid)
		return fail_errno(EIO, "cannot find the UUID of %s (mdadm --detail --export): add its line to %s by hand",
				  kname, r->config_path);
	r->config_line = config_line_for(r->uuid, auto_size, r->size, r->prealloc);
	with_member(r);
	rc = conf_file_parse(f, &c);
	if (rc) {
		config_free(&c);
		return rc;
	}
	for (size_t i = 0; i < c.n; i++) {
		if (!conf_names(&c.v[i], kname, r->uuid))
			continue;
		mirror_note(r, xasprintf("%s names %s already on line %d (%s): left as it is",
					 r->config_path, kname, c.v[i].line, c.v[i].spec));
		config_free(&c);
		return 0;
	}
	config_free(&c);
	mirror_step(r, false, xasprintf("# add to %s: %s", r->config_path, r->config_line));
	return config_store(r, f, config_text_append(f->text, r->config_line));
}

/* Remove every line that names the array. */
int conf_remove_lines(struct mirror_run *r, struct conf_file *f, const char *kname)
{
	struct config c;
	int *lines = NULL, rc;
	size_t n = 0;

	r->config_path = xstrdup(f->path);
	rc = conf_file_parse(f, &c);
	if (rc) {
		config_free(&c);
		return rc;
	}
	for (size_t i = 0; i < c.n; i++) {
		if (!conf_names(&c.v[i], kname, r->uuid))
			continue;
		lines = xrealloc(lines, n + 1, sizeof(*lines));
		lines[n++] = c.v[i].line;
		mirror_step(r, false, xasprintf("# remove line %d of %s: %s", c.v[i].line, r->config_path, c.v[i].spec));
	}
	config_free(&c);
	if (n == 0)
		mirror_note(r, xasprintf("%s has no line for %s: nothing to remove", r->config_path, kname));
	else if (!r->dry_run)
		rc = config_store(r, f, config_text_drop_lines(f->text, lines, n));
	free(lines);
	return rc;
}

/* Take back the line conf_add_line() added (an undo step). */
void conf_undo_line(struct mirror_run *r, struct conf_file *f)
{
	char *msg = NULL;
	struct config c;

	if (!r->config_changed)
		return;
	config_parse_text(f->path, f->text, &c);
	for (size_t i = c.n; i-- > 0; ) {
		int line = c.v[i].line;
		char *next;

		if (!c.v[i].uuid || !r->uuid || !md_uuid_same(c.v[i].uuid, r->uuid))
			continue;
		mirror_step(r, true, xasprintf("# remove line %d of %s: %s", line, r->config_path, c.v[i].spec));
		next = config_text_drop_lines(f->text, &line, 1);
		if (conf_file_store(f, next, r->steps[r->nsteps - 1].command + 2, &msg) < 0)
			r->steps[r->nsteps - 1].status = "failed";
		else
			r->config_changed = false;
		free(msg);
		break;
	}
	config_free(&c);
}

/*
 * Will the array assemble at boot under its name? udev assembles any array
 * it finds from the superblocks; mdadm.conf (and the initramfs copy of it)
 * gives it a fixed name. An array the file does not list is not added to
 * it here (which name it gets is the administrator's call): tell them the
 * line.
 */
void mdadm_conf_check_listed(struct mirror_run *r, const char *mdpath)
{
	const char *path = mdadm_conf_path();
	char *out = NULL, *text = NULL, *msg = NULL;

	if (r->dry_run || !r->uuid)
		return;
	/* the file mdadm reads and mdadm_conf_update() edits, read as mdadm
	 * reads it (continuation lines, any case, abbreviated keywords) */
	r->mdadm_conf_listed = path && config_file_load(path, &text, &msg) == 0 &&
			       mdadm_conf_lookup(text, r->uuid, NULL, NULL) > 0;
	free(text);
	free(msg);
	if (r->mdadm_conf_listed)
		return;
	if (mdadm_call(&out, NULL, "--detail", "--brief", mdpath, NULL) == 0) {
		char *line = last_line(out), *save = NULL, *kept = NULL;

		/* The RAM member shows as a spare while md recovers it: no
		 * "spares=1" for mdadm.conf. */
		for (char *w = line ? strtok_r(line, " ", &save) : NULL; w; w = strtok_r(NULL, " ", &save)) {
			char *t;

			if (!strncmp(w, "spares=", 7))
				continue;
			t = xasprintf("%s%s%s", kept ? kept : "", kept ? " " : "", w);
			free(kept);
			kept = t;
		}
		free(line);
		r->mdadm_conf_line = kept;
	}
	free(out);
	mirror_note(r, xasprintf("%s is not in mdadm.conf: udev still assembles it at boot (rdctl --restore finds it by UUID), but to keep its name add this line to /etc/mdadm/mdadm.conf and run update-initramfs -u: %s",
				 r->array, r->mdadm_conf_line ? r->mdadm_conf_line : "(see mdadm --detail --brief)"));
}

/*
 * One change of the array's mdadm.conf entry (n: num-devices=n, or
 * MDADM_CONF_DROP), as a step, then the initramfs made again. Nothing
 * when no entry names the array with a count. 0 or an exit code.
 */
static int mdadm_conf_step(struct mirror_run *r, int n)
{
	const char *path = mdadm_conf_path();
	struct mirror_step *st;
	bool changed = false;
	char *msg = NULL, *cmd = NULL;
	int e;

	if (!path || !r->uuid)
		return 0;
	e = mdadm_conf_update(path, r->uuid, n, -1, true, &changed, &msg);
	if (e < 0) {
		mirror_note(r, xasprintf("cannot check %s: %s", path, msg));
		return 0;
	}
	if (!changed)
		return 0;
	st = mirror_step(r, false, n == MDADM_CONF_DROP ?
			 xasprintf("# %s: drop num-devices= from the ARRAY line of UUID %s (it then fits the array before and after the change)",
				   path, r->uuid) :
			 xasprintf("# %s: num-devices=%d in the ARRAY line of UUID %s", path, n, r->uuid));
	if (!r->dry_run) {
		e = mdadm_conf_update(path, r->uuid, n, -1, false, &changed, &msg);
		if (e < 0) {
			st->status = "failed";
			e = fail_errno(-e, "%s", msg);
			free(msg);
			return e;
		}
	}
	if (initramfs_refresh(true, &cmd, &msg) < 0 || !cmd) {
		free(cmd);
		free(msg);
		return 0;
	}
	free(msg);
	msg = NULL;
	st = mirror_step(r, false, cmd);
	cmd = NULL;
	if (r->dry_run)
		return 0;
	e = initramfs_refresh(false, &cmd, &msg);
	if (e > 0) {
		st->status = "planned";
		mirror_note(r, xasprintf("the initramfs may carry the old %s: run %s", path, cmd));
	} else if (e < 0) {
		st->status = "failed";
		mirror_note(r, msg);
		msg = NULL;
	}
	free(cmd);
	free(msg);
	return 0;
}

/* Does a line of the configuration name the array kname? */
bool conf_names_array(struct conf_file *f, const char *kname)
{
	struct config c;
	char *uuid = NULL;
	bool named = false;

	if (conf_file_parse(f, &c)) {
		error_reset();
		config_free(&c);
		return false;
	}
	for (size_t i = 0; i < c.n && !named; i++) {
		if (c.v[i].kind == CONF_UUID && !uuid)
			uuid = md_uuid_of(kname);
		named = conf_names(&c.v[i], kname, uuid);
	}
	free(uuid);
	config_free(&c);
	return named;
}

/*
 * Before the array's device count changes: an mdadm.conf entry that names
 * it with num-devices= (older installs have them) loses that word, and the
 * initramfs copy is made again. Dropped, not rewritten: the entry then fits
 * the array before and after the change (a reboot at any moment assembles
 * it), and after any later change too; mdadm.conf(5) makes the word
 * optional, and mdadm takes the count from the superblocks.
 */
int mdadm_conf_fit_step(struct mirror_run *r)
{
	return mdadm_conf_step(r, MDADM_CONF_DROP);
}

/* Add the line of the array kname to the configuration (auto size). */
void conf_adopt_line(struct conf_file *f, const char *kname, bool prealloc)
{
	char *uuid = md_uuid_of(kname), *msg = NULL, *line;

	if (!uuid)
		return;
	line = config_line_for(uuid, true, 0, prealloc);
	if (conf_file_text(f, &msg) == 0) {
		char *what = xasprintf("add to %s: %s", f->path, line);

		if (conf_file_store(f, config_text_append(f->text, line), what, &msg) == 0 && !f->json)
			printf("# %s\n", what);
		free(what);
	}
	free(msg);
	free(line);
	free(uuid);
}
