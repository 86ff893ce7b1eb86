// SPDX-License-Identifier: GPL-2.0
#include "status/status_why.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/util.h"
#include "rd/module_help.h"

static void set_why(struct why *w, char *brief, char *reason, char *fix)
{
	w->brief = brief;
	w->reason = reason;
	w->fix = fix;
}

static char *ago(int64_t t)
{
	time_t now = time(NULL);
	char *s, *d;

	if (t <= 0 || now == (time_t)-1)
		return xstrdup("at an unknown time");
	d = eta_str(now >= t ? (int64_t)now - t : 0);
	s = xasprintf("%s ago", d);
	free(d);
	return s;
}

/* head followed by tail; frees tail. */
static char *prefixed(const char *head, char *tail)
{
	char *s = xasprintf("%s%s", head, tail);

	free(tail);
	return s;
}

/* fix, then "; then rdctl --restore"; frees fix. */
static char *with_restore(char *fix)
{
	char *s = xasprintf("%s; then rdctl --restore", fix);

	free(fix);
	return s;
}

/* The restore error of a line, as a reason and the command that fixes it. */
static void why_failed(struct why *x, const struct restore_rec_item *it, const char *path)
{
	const char *c = it->code ? it->code : "", *msg = it->message ? it->message : "no message recorded";

	if (!strcmp(c, "ENOMEM"))
		set_why(x, xstrdup("too little memory"),
			xasprintf("restore found too little memory for its RAM member: %s", msg),
			xasprintf("free memory, or give it a smaller size (or no prealloc) in %s; then rdctl --restore", path));
	else if (!strcmp(c, "ENOKEY") || !strcmp(c, "EKEYREJECTED"))
		/* (msg holds the same cause and fix: not repeated) */
		set_why(x, xstrdup("module refused (signature)"),
			prefixed("the kernel refused the rdmirror module's signature: ", module_signature_cause()),
			with_restore(module_signature_fix()));
	else if (!strcmp(c, "ENOENT") && strstr(msg, "module"))
		set_why(x, xstrdup("module missing"),
			xasprintf("the rdmirror module is not installed for the running kernel %s", running_kernel()),
			with_restore(module_missing_fix(running_kernel())));
	else if (!strcmp(c, "ENOEXEC"))
		set_why(x, xstrdup("module missing"),
			xasprintf("the rdmirror module installed does not fit the running kernel %s", running_kernel()),
			with_restore(module_mismatch_fix(running_kernel())));
	else if (!strcmp(c, "ENODEV"))
		set_why(x, xstrdup("array late"),
			xasprintf("the array was not there when restore ran: %s", msg),
			xstrdup("rdctl --restore"));
	else if (it->action && !strcmp(it->action, "refused"))
		set_why(x, xstrdup("restore refused"), xasprintf("restore refused it: %s", msg),
			xstrdup("see the message; then rdctl --restore"));
	else if (!it->code && !it->message && it->action)
		/* an action this rdctl does not know, with no error: say what was recorded, not a failure */
		set_why(x, xstrdup("not restored"),
			xasprintf("the last restore recorded \"%s\" for it, with no error, and left no fast member in it",
				  it->action),
			xstrdup("rdctl --restore (see journalctl -b -u rdmirror-restore.service)"));
	else
		set_why(x, xstrdup("restore failed"), xasprintf("restore failed: %s%s%s", c, *c ? ": " : "", msg),
			xstrdup("rdctl --restore (see journalctl -b -u rdmirror-restore.service)"));
}

/*
 * A member disk that is not in its array: absent now (WARNING), or found
 * holding something else by the last restore, which never wrote it
 * (CRITICAL). true when one of them said why.
 */
static bool why_disk_missing(const struct why_input *in, struct why *x)
{
	const struct conf_mirror *m = in->m;
	const struct restore_rec_item *it;
	char *when, *found;

	if (!path_exists(m->member)) {
		x->finding = "member_absent";
		x->severity = SEV_WARNING;
		set_why(x, xstrdup("member disk absent"),
			xasprintf("its member disk %s is absent: the array runs from its persistent disks", m->member),
			xasprintf("put a disk at %s, then rdctl --restore: it fills a blank one, never one holding other data",
				  m->member));
		return true;
	}
	it = in->rec->valid ? restore_record_find(in->rec, m, in->uuid) : NULL;
	if (it && it->action && !strcmp(it->action, "absent")) {
		/* (the record of an absent disk holds no error: the restore went on without it) */
		when = ago(in->rec->time);
		x->finding = "not_restored";
		x->severity = SEV_WARNING;
		set_why(x, xstrdup("member disk back, not restored"),
			xasprintf("its member disk %s was absent when the last restore ran (%s) and is there now: no restore has taken it in since",
				  m->member, when),
			xstrdup("rdctl --restore: it re-adds a disk that kept this array's data, fills a blank one, never writes one holding other data"));
		free(when);
		return true;
	}
	if (!it || !it->action || strcmp(it->action, "foreign"))
		return false;
	when = ago(in->rec->time);
	found = restore_foreign_found(it->message);
	x->finding = "member_foreign";
	x->severity = SEV_CRITICAL;
	set_why(x, xstrdup("member disk holds other data"),
		xasprintf("its member disk holds other data, which rdctl will not write to: the last restore (%s) found %s",
			  when, found),
		xasprintf("only if that data is unwanted: wipefs -a %s, then rdctl --restore; else name another disk in %s",
			  m->member, in->config_path));
	free(found);
	free(when);
	return true;
}

/* Why does a configured array run without a RAM member? */
void why_missing(const struct why_input *in, struct why *x)
{
	const struct conf_mirror *m = in->m;
	const struct restore_rec_item *it;
	const char *k = running_kernel();
	char *when;

	memset(x, 0, sizeof(*x));
	if (!m) {	/* not configured: no restore is meant to add one */
		set_why(x, xstrdup("no RAM member"), xstrdup("it has no RAM member and is not configured"),
			xasprintf("add it to %s, then rdctl --restore", in->config_path));
		return;
	}
	if (m->member && why_disk_missing(in, x))
		return;
	if (in->modstate == MODULE_NOT_INSTALLED && !m->member) {
		set_why(x, xasprintf("module missing for %s", k),
			xasprintf("the rdmirror module is not installed for the running kernel %s", k),
			with_restore(module_missing_fix(k)));
		return;
	}
	if (!in->rec->present) {
		set_why(x, xstrdup("restore has not run"), xstrdup("restore has not run since boot"),
			xstrdup("rdctl --restore (systemctl start rdmirror-restore.service; enable it to run at boot)"));
		return;
	}
	if (!in->rec->valid) {
		set_why(x, xstrdup("restore record unreadable"),
			xasprintf("what the last restore did is unknown: %s is not its record", in->rec->path),
			xstrdup("rdctl --restore"));
		return;
	}
	it = restore_record_find(in->rec, m, in->uuid);
	when = ago(in->rec->time);
	if (!it)
		set_why(x, xstrdup("not restored"),
			xasprintf("the last restore (%s) did not do this line: the configuration changed since?", when),
			xstrdup("rdctl --restore"));
	else if (it->action && !strcmp(it->action, "warming"))
		set_why(x, xstrdup("warm-up stopped"),
			xasprintf("the warm-up copy the last restore (%s) started into %s stopped before md took the disk back (journalctl -t rdctl says why)",
				  when, it->rd ? it->rd : "a RAM disk"),
			xstrdup("rdctl --restore"));
	else if (it->action && (!strcmp(it->action, "added") || !strcmp(it->action, "already") ||
				!strcmp(it->action, "re-added")))
		set_why(x, xstrdup("member failed"),
			xasprintf("the last restore (%s) left %s %s in it, which has failed or been removed since",
				  when, m->member ? "member disk" : "RAM member", it->rd ? it->rd : "(unknown)"),
			xstrdup("see dmesg; then rdctl --restore"));
	else
		why_failed(x, it, in->config_path);
	free(when);
}
