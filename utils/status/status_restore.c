// SPDX-License-Identifier: GPL-2.0
#include "status/status_restore.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "lib/util.h"
#include "md/md_ops.h"

#define RECORD_NAME	"restore.json"
/* a record is a few lines a mirror: anything larger is not one */
#define RECORD_MAX	(1 << 20)

/* Where boot_report_save() (mirror/boot.c) writes it. */
static char *record_path(void)
{
	return xasprintf("%s/%s", run_dir(), RECORD_NAME);
}

static char *str_of(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s && *s ? xstrdup(s) : NULL;
}

static void read_item(json_t *o, struct restore_rec_item *it)
{
	json_t *err = json_object_get(o, "error"), *line = json_object_get(o, "line");

	memset(it, 0, sizeof(*it));
	it->array = str_of(o, "array");
	it->uuid = str_of(o, "uuid");
	it->rd = str_of(o, "rd");
	it->spec = str_of(o, "spec");
	it->action = str_of(o, "action");
	if (json_is_object(err)) {
		it->code = str_of(err, "code");
		it->message = str_of(err, "message");
	}
	if (json_is_integer(line) && json_integer_value(line) > 0 && json_integer_value(line) < INT32_MAX)
		it->line = (int)json_integer_value(line);
}

void restore_record_read(struct restore_record *r)
{
	json_t *root, *list, *x;
	json_error_t je;
	char *text = NULL;
	size_t i;
	int e;

	memset(r, 0, sizeof(*r));
	r->path = record_path();
	e = read_text_file(r->path, &text);
	r->present = e != -ENOENT;
	if (e < 0)
		return;
	root = strlen(text) < RECORD_MAX ? json_loads(text, 0, &je) : NULL;
	free(text);
	if (!root)
		return;
	list = json_object_get(root, "restore");
	if (json_is_array(list)) {
		r->valid = true;
		r->v = xcalloc(json_array_size(list) + 1, sizeof(*r->v));
		json_array_foreach(list, i, x)
			if (json_is_object(x))
				read_item(x, &r->v[r->n++]);
	}
	x = json_object_get(root, "time");
	if (json_is_integer(x) && json_integer_value(x) > 0)
		r->time = json_integer_value(x);
	r->kernel = str_of(root, "kernel");
	json_decref(root);
}

const struct restore_rec_item *restore_record_find(const struct restore_record *r,
						   const struct conf_mirror *m, const char *uuid)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].spec && !strcmp(r->v[i].spec, m->spec) && r->v[i].line == m->line)
			return &r->v[i];
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].spec && !strcmp(r->v[i].spec, m->spec))
			return &r->v[i];
	for (size_t i = 0; uuid && i < r->n; i++)
		if (r->v[i].uuid && md_uuid_same(r->v[i].uuid, uuid))
			return &r->v[i];
	return NULL;
}

void restore_record_free(struct restore_record *r)
{
	for (size_t i = 0; i < r->n; i++) {
		struct restore_rec_item *it = &r->v[i];

		free(it->array);
		free(it->uuid);
		free(it->rd);
		free(it->spec);
		free(it->action);
		free(it->code);
		free(it->message);
	}
	free(r->v);
	free(r->kernel);
	free(r->path);
	memset(r, 0, sizeof(*r));
}

char *restore_foreign_found(const char *message)
{
	size_t lead = strlen(RESTORE_FOREIGN_LEAD);

	if (!message)
		return xstrdup("no message recorded");
	if (strncmp(message, RESTORE_FOREIGN_LEAD, lead))
		return xstrdup(message);
	message += lead;
	return xasprintf("%.*s", (int)strcspn(message, ";"), message);
}
