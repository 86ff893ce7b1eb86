// SPDX-License-Identifier: GPL-2.0
/*
 * Key shapes of the JSON documents built from the fake tree. The full
 * documents are also validated against rdctl.schema.json by run-checks.sh.
 */
#include <stdlib.h>

#include "md/md.h"
#include "status/output_json.h"
#include "unit.h"

static bool is(json_t *o, const char *key, json_type type)
{
	json_t *v = json_object_get(o, key);

	if (!v || json_typeof(v) != type) {
		fprintf(stderr, "  key %s: missing or of the wrong type\n", key);
		return false;
	}
	return true;
}

void test_json(const char *root)
{
	struct rd_disk d;
	struct disk_view v;
	struct md_array a;
	struct module_info m;
	struct meminfo mi;
	json_t *o, *sync, *mem0;

	(void)root;
	CHECK(rd_disk_read(0, &d) == 0);
	CHECK(disk_view_read(&d, &v) == 0);
	o = json_disk(&d, &v);
	CHECK(is(o, "name", JSON_STRING) && !strcmp(json_string_value(json_object_get(o, "name")), "rd0"));
	CHECK(is(o, "size", JSON_INTEGER) && json_integer_value(json_object_get(o, "size")) == 2LL << 30);
	CHECK(is(o, "allocated", JSON_INTEGER));
	CHECK(is(o, "preallocated", JSON_FALSE));
	CHECK(is(o, "mirror", JSON_STRING));
	CHECK(is(o, "role", JSON_STRING));
	CHECK(is(o, "array_state", JSON_STRING));
	CHECK(is(o, "mountpoint", JSON_NULL));
	CHECK(is(o, "holders", JSON_ARRAY) && json_array_size(json_object_get(o, "holders")) == 1);
	/* the mirror's resync shows on its members, as in the text table */
	CHECK(is(o, "sync_action", JSON_STRING) &&
	      !strcmp(json_string_value(json_object_get(o, "sync_action")), "resync"));
	CHECK(is(o, "sync_percent", JSON_REAL) && json_real_value(json_object_get(o, "sync_percent")) == 25.0);
	CHECK(is(o, "memory_errors", JSON_INTEGER) && json_integer_value(json_object_get(o, "memory_errors")) == 2);
	CHECK(is(o, "replaced_pages", JSON_INTEGER) && json_integer_value(json_object_get(o, "replaced_pages")) == 1);
	CHECK(is(o, "refused_writes", JSON_NULL));
	/* an uncompressed rd disk: kind ram, compressed null */
	CHECK(is(o, "kind", JSON_STRING) && !strcmp(json_string_value(json_object_get(o, "kind")), "ram"));
	CHECK(is(o, "compressed", JSON_NULL));
	CHECK(json_object_size(o) == 16);
	json_decref(o);
	disk_view_clear(&v);
	rd_disk_clear(&d);

	/* unknown attributes are null, not 0 or false */
	CHECK(rd_disk_read(2, &d) == 0);
	CHECK(disk_view_read(&d, &v) == 0);
	o = json_disk(&d, &v);
	CHECK(is(o, "allocated", JSON_NULL));
	CHECK(is(o, "preallocated", JSON_NULL));
	CHECK(is(o, "memory_errors", JSON_NULL));
	CHECK(is(o, "replaced_pages", JSON_NULL));
	CHECK(is(o, "mirror", JSON_NULL));
	CHECK(is(o, "sync_action", JSON_NULL));
	CHECK(is(o, "sync_percent", JSON_NULL));
	json_decref(o);
	disk_view_clear(&v);
	rd_disk_clear(&d);

	CHECK(md_array_read("md0", &a) == 0);
	o = json_md_array(&a);
	CHECK(is(o, "name", JSON_STRING));
	CHECK(is(o, "level", JSON_STRING));
	CHECK(is(o, "state", JSON_STRING));
	CHECK(is(o, "raid_disks", JSON_INTEGER));
	CHECK(is(o, "degraded", JSON_INTEGER));
	CHECK(is(o, "sync", JSON_OBJECT));
	sync = json_object_get(o, "sync");
	CHECK(is(sync, "action", JSON_STRING));
	CHECK(is(sync, "running", JSON_TRUE));
	CHECK(is(sync, "progress_percent", JSON_REAL));
	CHECK(is(sync, "eta_seconds", JSON_INTEGER) && json_integer_value(json_object_get(sync, "eta_seconds")) == 15);
	CHECK(is(sync, "speed_bytes_per_second", JSON_INTEGER) &&
	      json_integer_value(json_object_get(sync, "speed_bytes_per_second")) == 102400 * 1024);
	CHECK(is(o, "members", JSON_ARRAY) && json_array_size(json_object_get(o, "members")) == 3);
	mem0 = json_array_get(json_object_get(o, "members"), 1);
	CHECK(is(mem0, "name", JSON_STRING));
	CHECK(is(mem0, "kind", JSON_STRING) && !strcmp(json_string_value(json_object_get(mem0, "kind")), "persistent"));
	CHECK(is(mem0, "write_mostly", JSON_TRUE));
	CHECK(is(mem0, "in_sync", JSON_TRUE));
	CHECK(is(mem0, "role", JSON_STRING));
	CHECK(is(mem0, "state", JSON_STRING));
	CHECK(is(mem0, "slot", JSON_INTEGER));
	json_decref(o);
	md_array_clear(&a);

	module_info_read(&m);
	o = json_module(&m);
	CHECK(is(o, "loaded", JSON_TRUE));
	CHECK(is(o, "version", JSON_STRING));
	CHECK(is(o, "control_device", JSON_FALSE));
	json_decref(o);
	module_info_clear(&m);

	CHECK(meminfo_read(&mi) == 0);
	o = json_memory(&mi, NULL, 0);
	CHECK(is(o, "total", JSON_INTEGER) && json_integer_value(json_object_get(o, "total")) == 16LL << 30);
	CHECK(is(o, "available", JSON_INTEGER));
	CHECK(is(o, "rd_allocated", JSON_INTEGER));
	CHECK(is(o, "rd_size", JSON_INTEGER));
	CHECK(is(o, "rd_disks", JSON_INTEGER));
	json_decref(o);
	o = json_memory(NULL, NULL, 0);
	CHECK(is(o, "total", JSON_NULL) && is(o, "available", JSON_NULL));
	json_decref(o);
}
