// SPDX-License-Identifier: GPL-2.0
#include "lib/json.h"

#include <errno.h>
#include <stdio.h>

#include "lib/errors.h"

void *jcheck(void *p)
{
	if (!p)
		oom();
	return p;
}

json_t *jobj(void)
{
	return jcheck(json_object());
}

void jset(json_t *obj, const char *key, json_t *value)
{
	jcheck(value);
	if (json_object_set_new(obj, key, value) < 0)
		jcheck(NULL);
}

void jappend(json_t *arr, json_t *value)
{
	jcheck(value);
	if (json_array_append_new(arr, value) < 0)
		jcheck(NULL);
}

json_t *jstr_or_null(const char *s)
{
	return jcheck(s ? json_string(s) : json_null());
}

json_t *ju64(uint64_t v)
{
	return jcheck(json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v));
}

json_t *jtri(int v)
{
	return jcheck(v < 0 ? json_null() : json_boolean(v));
}

int json_emit(json_t *root)
{
	int r = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

	json_decref(root);
	if (r < 0 || fputc('\n', stdout) == EOF || fflush(stdout) == EOF)
		return fail_errno(errno ? errno : EIO, "cannot write the JSON document to standard output");
	return 0;
}
