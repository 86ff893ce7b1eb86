// SPDX-License-Identifier: GPL-2.0
/*
 * config_read() (utils/lib/config.c) on a file holding exactly the input: every
 * byte counts, NULs, CR, no final newline. The file is a memfd, read through
 * /proc/self/fd/N. Invariants: config_check.h; config_read() returns 0;
 * and when the input holds no NUL, the result is config_parse_text()'s.
 */
#include "lib/config.h"
#include "config_check.h"
#include "fuzz.h"

static void same_result(const struct config *a, const struct config *b)
{
	FUZZ_CHECK(a->n == b->n && a->nerrs == b->nerrs, "config_read: %zu mirrors, %zu errors; text: %zu, %zu",
		   a->n, a->nerrs, b->n, b->nerrs);
	for (size_t i = 0; i < a->n; i++) {
		const struct conf_mirror *x = &a->v[i], *y = &b->v[i];

		FUZZ_CHECK(x->line == y->line && x->kind == y->kind && !strcmp(x->spec, y->spec) &&
			   x->auto_size == y->auto_size && x->size == y->size && x->prealloc == y->prealloc,
			   "mirror %zu differs (line %d / %d)", i, x->line, y->line);
	}
	for (size_t i = 0; i < a->nerrs; i++)
		FUZZ_CHECK(a->errs[i].line == b->errs[i].line && !strcmp(a->errs[i].message, b->errs[i].message),
			   "error %zu differs: line %d '%s' / line %d '%s'", i, a->errs[i].line,
			   a->errs[i].message, b->errs[i].line, b->errs[i].message);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	struct config c;
	int r;

	if (fd < 0)
		fd = fuzz_memfd(path, sizeof(path));
	fuzz_memfd_set(fd, data, size);
	r = config_read(path, &c);
	FUZZ_CHECK(r == 0, "config_read(%s) = %d", path, r);
	config_check(&c, (const char *)data, size);
	if (!memchr(data, '\0', size)) {
		char *text = fuzz_cstr(data, size);
		struct config t;

		config_parse_text(path, text, &t);
		same_result(&c, &t);
		config_free(&t);
		free(text);
	}
	config_check_drop(&c);
	config_free(&c);
	return 0;
}
