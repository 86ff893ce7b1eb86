// SPDX-License-Identifier: GPL-2.0
/*
 * What rdctl reads of mdadm's output: KEY=VALUE lines of
 * "mdadm --detail --export" and "mdadm --examine --export" (MD_UUID,
 * MD_DEVICES), UUIDs in any printed form (md_uuid_same), and mdadm's last
 * line on stderr for the error messages (last_line, utils/lib/proc.c).
 *
 * export_value() is static in utils/md/md_ops.c: this
 * harness includes md_ops.c itself to reach it (md_ops.o of the library
 * is then not linked: every symbol of it is defined here).
 *
 * Invariants: export_value is the value of the first line "KEY=..." (no
 * newline in it); md_uuid_same is symmetric, holds between a UUID and
 * itself in any case and with '-' for ':', and only between UUIDs of 32 hex
 * digits; last_line is NULL only for blank text, else a non-empty piece of
 * the text without a newline or a trailing blank.
 */
#include "md/md_ops.c"	/* utils/md/md_ops.c, by -I */

#include "lib/config.h"
#include "fuzz.h"
#include "lib/proc.h"

/* The value of the first line "key=...", another way: malloc'd or NULL. */
static char *reference(const char *text, const char *key)
{
	size_t kl = strlen(key);
	const char *l = text;

	while (*l) {
		size_t len = strcspn(l, "\n");

		if (len > kl && !memcmp(l, key, kl) && l[kl] == '=')
			return strndup(l + kl + 1, len - kl - 1);
		if (!l[len])
			break;
		l += len + 1;
	}
	return NULL;
}

static void check_uuid(const char *a, const char *b)
{
	char hex[33], *v;
	bool valid;

	FUZZ_CHECK(md_uuid_same(a, b) == md_uuid_same(b, a), "md_uuid_same('%s', '%s') not symmetric", a, b);
	valid = md_uuid_hex(a, hex);
	FUZZ_CHECK(md_uuid_same(a, a) == valid, "md_uuid_same('%s', itself) = %d", a, !valid);
	if (config_uuid_valid(a))
		FUZZ_CHECK(valid, "config_uuid_valid('%s') but md_uuid_same refuses it", a);
	if (!valid)
		return;
	FUZZ_CHECK(strlen(hex) == 32 && strspn(hex, "0123456789abcdef") == 32, "md_uuid_hex('%s') = '%s'", a, hex);
	v = xstrdup(a);
	for (char *p = v; *p; p++)
		*p = *p == ':' ? '-' : (char)toupper((unsigned char)*p);
	FUZZ_CHECK(md_uuid_same(a, v), "'%s' and '%s' differ", a, v);
	free(v);
}

static void check_key(const char *text, const char *key, char **out)
{
	char *got = export_value(text, key), *want = reference(text, key);

	FUZZ_CHECK(!got == !want, "export_value(%s) = %s, expected %s", key, got ? got : "NULL", want ? want : "NULL");
	if (got) {
		FUZZ_CHECK(!strcmp(got, want), "export_value(%s) = '%s', expected '%s'", key, got, want);
		FUZZ_CHECK(!strchr(got, '\n'), "export_value(%s) = '%s' holds a newline", key, got);
		lower(got);
		for (const char *p = got; *p; p++)
			FUZZ_CHECK(!isupper((unsigned char)*p), "lower() left '%c'", *p);
	}
	free(want);
	*out = got;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size), *uuid, *dev_uuid, *devices, *last;
	const char *t = text;

	check_key(text, "MD_UUID", &uuid);
	check_key(text, "MD_DEV_UUID", &dev_uuid);
	check_key(text, "MD_DEVICES", &devices);
	check_uuid(uuid ? uuid : text, dev_uuid ? dev_uuid : "");
	free(uuid);
	free(dev_uuid);
	free(devices);

	last = last_line(text);
	if (!last) {
		FUZZ_CHECK(strspn(t, "\n \t") == strlen(t), "last_line of non-blank text is NULL");
	} else {
		size_t n = strlen(last);

		FUZZ_CHECK(n > 0 && !strchr(last, '\n'), "last_line = '%s'", last);
		FUZZ_CHECK(last[n - 1] != ' ' && last[n - 1] != '\t', "last_line = '%s' ends in a blank", last);
		FUZZ_CHECK(strstr(text, last) != NULL, "last_line = '%s' is not in the text", last);
		free(last);
	}
	free(text);
	return 0;
}
