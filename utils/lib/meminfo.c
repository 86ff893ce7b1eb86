// SPDX-License-Identifier: GPL-2.0
#include "lib/meminfo.h"

#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

/* "MemTotal:       16314428 kB" -> bytes */
static bool parse_kb_line(const char *line, const char *key, uint64_t *out)
{
	size_t klen = strlen(key);
	const char *p;
	uint64_t v = 0;

	if (strncmp(line, key, klen) || line[klen] != ':')
		return false;
	p = line + klen + 1;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX / 1024 - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (strcmp(p, " kB"))
		return false;
	*out = v * 1024;
	return true;
}

int meminfo_read(struct meminfo *mi)
{
	char *path = xasprintf("%s/meminfo", proc_root());
	char *text, *line, *save = NULL;
	int r = read_text_file(path, &text);

	free(path);
	memset(mi, 0, sizeof(*mi));
	if (r < 0)
		return r;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (parse_kb_line(line, "MemTotal", &mi->total))
			mi->has_total = true;
		else if (parse_kb_line(line, "MemAvailable", &mi->available))
			mi->has_available = true;
	}
	free(text);
	return 0;
}
