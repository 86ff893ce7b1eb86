/* SPDX-License-Identifier: GPL-2.0 */
/* JSON documents (schema: rdctl.schema.json). */
#ifndef RDCTL_OUTPUT_JSON_H
#define RDCTL_OUTPUT_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "lib/json.h"
#include "lib/meminfo.h"
#include "lib/sysfs.h"
#include "md/md.h"
#include "status/status.h"
#include "status/view.h"
#include "status/warnings.h"

json_t *json_disk(const struct rd_disk *d, const struct disk_view *v);
json_t *json_md_array(const struct md_array *a);
json_t *json_warning(const struct warning *w);
json_t *json_mirror(const struct mirror *x);
json_t *json_module(const struct module_info *m);
json_t *json_memory(const struct meminfo *mi, const struct rd_disk *disks, size_t n);

#endif
