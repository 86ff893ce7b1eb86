// SPDX-License-Identifier: GPL-2.0
#include "lib/mounts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

void mountinfo_unescape(char *s)
{
	char *w = s;

	for (const char *r = s; *r; ) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)(((r[1] - '0') << 6) | ((r[2] - '0') << 3) | (r[3] - '0'));
			r += 4;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
}

int mount_point_of(unsigned major, unsigned minor, char **where)
{
	char *path = xasprintf("%s/self/mountinfo", proc_root());
	char *want = xasprintf("%u:%u", major, minor);
	char *text, *line, *save = NULL;
	int r = read_text_file(path, &text), found = 0;

	free(path);
	*where = NULL;
	if (r < 0) {
		free(want);
		return r;
	}
	for (line = strtok_r(text, "\n", &save); line && !found; line = strtok_r(NULL, "\n", &save)) {
		/* id parent major:minor root mountpoint options ... */
		char *f[5], *s2 = NULL, *tok = strtok_r(line, " ", &s2);
		int n = 0;

		while (tok && n < 5) {
			f[n++] = tok;
			tok = strtok_r(NULL, " ", &s2);
		}
		if (n == 5 && !strcmp(f[2], want)) {
			mountinfo_unescape(f[4]);
			*where = xstrdup(f[4]);
			found = 1;
		}
	}
	free(text);
	free(want);
	return found;
}
