// SPDX-License-Identifier: GPL-2.0
/* --list, --status, --version: the commands that only read. */
#include "commands.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "list_table.h"
#include "md.h"
#include "meminfo.h"
#include "output_json.h"
#include "output_text.h"
#include "sysfs.h"
#include "util.h"
#include "view.h"
#include "warnings.h"

static int read_disks(struct rd_disk **disks, size_t *n, struct disk_view **views)
{
	int r = rd_disks_list(disks, n);

	*views = NULL;
	if (r < 0)
		return fail_errno(-r, "cannot read the rd disks in %s/block: %s", sysfs_root(), strerror(-r));
	*views = xcalloc(*n, sizeof(**views));
	for (size_t i = 0; i < *n; i++) {
		r = disk_view_read(&(*disks)[i], &(*views)[i]);
		if (r < 0) {
			int e = -r;

			fail_errno(e, "cannot read the md array holding %s in %s/block: %s",
				   (*disks)[i].name, sysfs_root(), strerror(e));
			for (size_t j = 0; j < i; j++)
				disk_view_clear(&(*views)[j]);
			free(*views);
			*views = NULL;
			rd_disks_free(*disks, *n);
			*disks = NULL;
			return EXIT_RUNTIME;
		}
	}
	return 0;
}

static void free_disks(struct rd_disk *disks, struct disk_view *views, size_t n)
{
	for (size_t i = 0; views && i < n; i++)
		disk_view_clear(&views[i]);
	free(views);
	rd_disks_free(disks, n);
}

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

		if (!rd_parse_name(names[i], &index)) {
			rc = fail(EXIT_USAGE, "USAGE", "invalid disk name '%s': expected rdN or /dev/rdN, for example rd0",
				  names[i]);
			break;
		}
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

int cmd_list(const struct opts *o, char *const names[], size_t nnames)
{
	struct rd_disk *disks;
	struct disk_view *views;
	size_t n, shown;
	int rc = read_disks(&disks, &n, &views);

	if (rc)
		return rc;
	shown = n;
	if (nnames) {
		rc = select_disks(disks, views, &n, names, nnames);
		if (rc) {
			free_disks(disks, views, n);
			return rc;
		}
		shown = nnames;
	}
	if (o->json) {
		json_t *root = jobj();

		jset(root, "disks", json_disks(disks, views, shown));
		rc = json_emit(root);
	} else if (list_print(stdout, &o->list, disks, views, shown) < 0 || fflush(stdout) == EOF) {
		rc = fail_errno(EIO, "cannot write to standard output");
	}
	free_disks(disks, views, n);
	return rc;
}

int cmd_status(const struct opts *o)
{
	struct module_info mod;
	struct meminfo mi;
	struct rd_disk *disks;
	struct disk_view *views;
	struct md_array *arrays = NULL;
	struct warnings w;
	size_t n, na = 0;
	int rc, r;

	r = meminfo_read(&mi);
	if (r < 0)
		return fail_errno(-r, "cannot read %s/meminfo: %s", proc_root(), strerror(-r));
	rc = read_disks(&disks, &n, &views);
	if (rc)
		return rc;
	r = md_arrays_with_rd(&arrays, &na);
	if (r < 0) {
		free_disks(disks, views, n);
		return fail_errno(-r, "cannot read the md arrays in %s/block: %s", sysfs_root(), strerror(-r));
	}
	module_info_read(&mod);
	warnings_compute(arrays, na, disks, n, &mi, &w);
	if (o->quiet) {
		/* only the exit status */
	} else if (o->json) {
		json_t *root = jobj(), *ja = json_array(), *jw = json_array();

		if (!ja || !jw)
			oom();
		for (size_t i = 0; i < na; i++)
			if (json_array_append_new(ja, json_md_array(&arrays[i])) < 0)
				oom();
		for (size_t i = 0; i < w.n; i++)
			if (json_array_append_new(jw, json_warning(&w.v[i])) < 0)
				oom();
		jset(root, "module", json_module(&mod));
		jset(root, "memory", json_memory(&mi, disks, n));
		jset(root, "disks", json_disks(disks, views, n));
		jset(root, "arrays", ja);
		jset(root, "warnings", jw);
		rc = json_emit(root);
	} else if (text_status(stdout, &mod, &mi, disks, n, arrays, na, &w) < 0 || fflush(stdout) == EOF) {
		rc = fail_errno(EIO, "cannot write to standard output");
	}
	/* a monitoring check reads the exit status: warnings are not success */
	if (!rc && w.n)
		rc = EXIT_WARNINGS;
	warnings_free(&w);
	module_info_clear(&mod);
	md_arrays_free(arrays, na);
	free_disks(disks, views, n);
	return rc;
}

int cmd_version(const struct opts *o)
{
	struct module_info mod;
	int rc = 0;

	module_info_read(&mod);
	if (o->json) {
		json_t *root = jobj(), *v = jobj();

		jset(v, "rdctl", json_string(RDCTL_VERSION));
		jset(v, "module", jstr_or_null(mod.version));
		jset(root, "version", v);
		rc = json_emit(root);
	} else if (printf("rdctl %s\n", RDCTL_VERSION) < 0 ||
		   (mod.version && printf("rdmirror module %s\n", mod.version) < 0) ||
		   fflush(stdout) == EOF) {
		rc = fail_errno(EIO, "cannot write to standard output");
	}
	module_info_clear(&mod);
	return rc;
}
