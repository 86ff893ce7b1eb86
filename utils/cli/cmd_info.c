// SPDX-License-Identifier: GPL-2.0
/* --list, --status, --version: the commands that only read. */
#include "cli/commands.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/build_id.h"
#include "lib/errors.h"
#include "lib/meminfo.h"
#include "lib/sysfs.h"
#include "lib/util.h"
#include "md/md.h"
#include "status/list_table.h"
#include "status/output_json.h"
#include "status/output_text.h"
#include "status/status.h"
#include "status/status_nagios.h"
#include "status/status_prom.h"
#include "status/view.h"
#include "status/warnings.h"

static json_t *json_disks(const struct rd_disk *disks, const struct disk_view *views, size_t n)
{
	json_t *arr = json_array();

	if (!arr)
		oom();
	for (size_t i = 0; i < n; i++)
		if (json_array_append_new(arr, json_disk(&disks[i], &views[i])) < 0)
			oom();
	return arr;
}

/*
 * Keep only the disks named on the command line, in the order given; a
 * name that is no rd disk fails the command before anything is printed.
 */
static int select_disks(struct rd_disk *disks, struct disk_view *views, size_t *n,
			char *const names[], size_t nnames)
{
	struct rd_disk *d = xcalloc(nnames, sizeof(*d));
	struct disk_view *v = xcalloc(nnames, sizeof(*v));
	bool *taken = xcalloc(*n, sizeof(*taken));
	int rc = 0;

	for (size_t i = 0; i < nnames && !rc; i++) {
		unsigned index;
		size_t j;

		if ((rc = disk_arg(names[i], &index)))
			break;
		for (j = 0; j < *n && disks[j].index != index; j++)
			;
		if (j == *n)
			rc = fail_errno(ENODEV, "%s: no such rd disk (see rdctl --list)", names[i]);
		else if (taken[j])
			rc = fail(EXIT_USAGE, "USAGE", "%s given twice", names[i]);
		else
			taken[j] = true;
	}
	if (!rc) {
		/* move the chosen ones to the front, in the order asked */
		for (size_t i = 0; i < nnames; i++) {
			unsigned index;
			size_t j = 0;

			rd_parse_name(names[i], &index);
			while (disks[j].index != index)
				j++;
			d[i] = disks[j];
			v[i] = views[j];
		}
		for (size_t j = 0, k = 0; j < *n; j++) {
			if (taken[j])
				continue;
			disks[nnames + k] = disks[j];
			views[nnames + k] = views[j];
			k++;
		}
		memcpy(disks, d, nnames * sizeof(*d));
		memcpy(views, v, nnames * sizeof(*v));
	}
	free(d);
	free(v);
	free(taken);
	return rc;
}

int cmd_list(const struct cli_opts *o, char *const names[], size_t nnames)
{
	struct rd_disk *disks;
	struct disk_view *views;
	size_t n, shown;
	int r, rc = status_read_disks(&disks, &n, &views);

	if (rc)
		return rc;
	/* a mirror's member disk is its fast member as an rd disk is: listed too, unless disks are named */
	if (!nnames && (r = list_member_disks(o->m.config, &disks, &views, &n)) < 0) {
		status_free_disks(disks, views, n);
		return fail_errno(-r, "cannot read a member disk in %s/class/block: %s", sysfs_root(), strerror(-r));
	}
	shown = n;
	if (nnames) {
		rc = select_disks(disks, views, &n, names, nnames);
		if (rc) {
			status_free_disks(disks, views, n);
			return rc;
		}
		shown = nnames;
	}
	if (o->m.json) {
		json_t *root = jobj();

		jset(root, "disks", json_disks(disks, views, shown));
		rc = json_emit(root);
	} else if (list_print(stdout, &o->list, disks, views, shown) < 0 || fflush(stdout) == EOF) {
		rc = fail_errno(EIO, "cannot write to standard output");
	}
	status_free_disks(disks, views, n);
	return rc;
}

static int status_json(const struct status *st)
{
	json_t *root = jobj(), *ja = json_array(), *jm = json_array(), *jw = json_array();

	if (!ja || !jm || !jw)
		oom();
	for (size_t i = 0; i < st->narrays; i++)
		if (json_array_append_new(ja, json_md_array(&st->arrays[i])) < 0)
			oom();
	for (size_t i = 0; i < st->nmirrors; i++)
		if (json_array_append_new(jm, json_mirror(&st->mirrors[i])) < 0)
			oom();
	for (size_t i = 0; i < st->w.n; i++)
		if (json_array_append_new(jw, json_warning(&st->w.v[i])) < 0)
			oom();
	jset(root, "module", json_module(&st->mod));
	jset(root, "memory", json_memory(&st->mi, st->disks, st->ndisks));
	jset(root, "disks", json_disks(st->disks, st->views, st->ndisks));
	jset(root, "arrays", ja);
	jset(root, "mirrors", jm);
	jset(root, "warnings", jw);
	jset(root, "status", json_string(severity_name(warnings_worst(&st->w))));
	return json_emit(root);
}

/*
 * The status could not be read: a monitoring system must see UNKNOWN
 * (the plugin line, rdmirror_status 3), not only an error on stderr.
 */
static int status_unreadable(const struct cli_opts *o, int rc)
{
	if (o->nagios) {
		int r = nagios_unknown(stdout, error_message());

		error_reset();	/* the line says it; nothing more on stderr */
		return r < 0 || fflush(stdout) == EOF ? EXIT_RUNTIME : r;
	}
	/* the error stays on stderr and in the exit status; the metrics say UNKNOWN */
	if (o->prometheus && (prom_print_unknown(stdout) < 0 || fflush(stdout) == EOF))
		return EXIT_RUNTIME;
	return rc;
}

int cmd_status(const struct cli_opts *o)
{
	struct status st;
	enum severity worst;
	int rc = status_collect(o->m.config, &st), r;

	if (rc)
		return status_unreadable(o, rc);
	worst = warnings_worst(&st.w);
	if (o->nagios) {
		/* the plugin's exit status is the severity itself */
		r = nagios_print(stdout, &st);
		rc = r < 0 || fflush(stdout) == EOF ? fail_errno(EIO, "cannot write to standard output") : r;
		status_free(&st);
		return rc;
	}
	if (o->quiet) {
		/* only the exit status */
	} else if (o->prometheus) {
		/* the metrics carry the severity: printing them is the success */
		if (prom_print(stdout, &st) < 0 || fflush(stdout) == EOF)
			rc = fail_errno(EIO, "cannot write to standard output");
		status_free(&st);
		return rc;
	} else if (o->m.json) {
		rc = status_json(&st);
	} else if (text_status(stdout, &st) < 0 || fflush(stdout) == EOF) {
		rc = fail_errno(EIO, "cannot write to standard output");
	}
	/* a monitoring check reads the exit status: warnings are not success; a warm-up (OK) is */
	if (!rc && worst > SEV_OK)
		rc = EXIT_WARNINGS;
	status_free(&st);
	return rc;
}

int cmd_version(const struct cli_opts *o)
{
	struct module_info mod;
	int rc = 0;

	module_info_read(&mod);
	if (o->m.json) {
		json_t *root = jobj(), *v = jobj();

		jset(v, "rdctl", json_string(rdctl_build_id()));
		jset(v, "module", jstr_or_null(mod.version));
		jset(root, "version", v);
		rc = json_emit(root);
	} else if (printf("rdctl %s\n", rdctl_build_id()) < 0 ||
		   (mod.version && printf("rdmirror module %s\n", mod.version) < 0) ||
		   fflush(stdout) == EOF) {
		rc = fail_errno(EIO, "cannot write to standard output");
	}
	module_info_clear(&mod);
	return rc;
}
