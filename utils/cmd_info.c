// SPDX-License-Identifier: GPL-2.0
/* --list, --status, --version: the commands that only read. */
#include "commands.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errors.h"
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

	if (!arr) {
		fputs("rdctl: out of memory\n", stderr);
		exit(EXIT_RUNTIME);
	}
	for (size_t i = 0; i < n; i++)
		if (json_array_append_new(arr, json_disk(&disks[i], &views[i])) < 0) {
			fputs("rdctl: out of memory\n", stderr);
			exit(EXIT_RUNTIME);
		}
	return arr;
}

int cmd_list(const struct opts *o)
{
	struct rd_disk *disks;
	struct disk_view *views;
	size_t n;
	int rc = read_disks(&disks, &n, &views);

	if (rc)
		return rc;
	if (o->json) {
		json_t *root = jobj();

		jset(root, "disks", json_disks(disks, views, n));
		rc = json_emit(root);
	} else if (text_list(stdout, disks, views, n) < 0 || fflush(stdout) == EOF) {
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
	if (o->json) {
		json_t *root = jobj(), *ja = json_array(), *jw = json_array();

		if (!ja || !jw) {
			fputs("rdctl: out of memory\n", stderr);
			exit(EXIT_RUNTIME);
		}
		for (size_t i = 0; i < na; i++)
			if (json_array_append_new(ja, json_md_array(&arrays[i])) < 0)
				exit(EXIT_RUNTIME);
		for (size_t i = 0; i < w.n; i++)
			if (json_array_append_new(jw, json_warning(&w.v[i])) < 0)
				exit(EXIT_RUNTIME);
		jset(root, "module", json_module(&mod));
		jset(root, "memory", json_memory(&mi, disks, n));
		jset(root, "disks", json_disks(disks, views, n));
		jset(root, "arrays", ja);
		jset(root, "warnings", jw);
		rc = json_emit(root);
	} else if (text_status(stdout, &mod, &mi, disks, n, arrays, na, &w) < 0 || fflush(stdout) == EOF) {
		rc = fail_errno(EIO, "cannot write to standard output");
	}
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
