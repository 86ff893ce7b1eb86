/* SPDX-License-Identifier: GPL-2.0 */
/* JSON documents (schema: rdctl.schema.json). */
#ifndef RDCTL_OUTPUT_JSON_H
#define RDCTL_OUTPUT_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "md/md.h"
#include "lib/meminfo.h"
#include "status/status.h"
#include "lib/sysfs.h"
#include "status/view.h"
#include "status/warnings.h"

/* Builders; they never return NULL (out of memory exits). */
json_t *jobj(void);
void jset(json_t *obj, const char *key, json_t *value);
json_t *jstr_or_null(const char *s);
json_t *ju64(uint64_t v);

json_t *json_disk(const struct rd_disk *d, const struct disk_view *v);
json_t *json_md_array(const struct md_array *a);
json_t *json_warning(const struct warning *w);
json_t *json_mirror(const struct mirror *x);
json_t *json_module(const struct module_info *m);
json_t *json_memory(const struct meminfo *mi, const struct rd_disk *disks, size_t n);

/* Print root (one document and a newline) on stdout and free it.
 * 0 or an exit code with the error recorded. */
int json_emit(json_t *root);

#endif
