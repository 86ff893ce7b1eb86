// SPDX-License-Identifier: GPL-2.0
/*
 * config_parse_text() (utils/lib/config.c) on any text: the parser of
 * /etc/rdmirror.conf, then config_drop_same_arrays() on what it kept.
 * config_parse_text() takes a C string, so the input counts up to its first
 * NUL byte (the config_read target gives whole files, NULs and all).
 * Invariants: config_check.h.
 */
#include "lib/config.h"
#include "config_check.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	struct config c;

	config_parse_text("/etc/rdmirror.conf", text, &c);
	config_check(&c, text, strlen(text));
	config_check_drop(&c);
	config_free(&c);
	free(text);
	return 0;
}
