// SPDX-License-Identifier: GPL-2.0
/*
 * What rdctl reads of /proc: mount_point_of() (utils/lib/mounts.c) on
 * <proc>/self/mountinfo, whose mount points anybody who can mount (a
 * FUSE or udisks user) names, mountinfo_unescape() on any text, and
 * meminfo_read() (utils/lib/meminfo.c) on <proc>/meminfo. Both files are the
 * input: RDCTL_PROC_ROOT names a directory in $TMPDIR whose self/mountinfo
 * and meminfo link to a memfd holding it.
 *
 * Invariants: mount_point_of returns 1 with a mount point no longer than
 * the input, or 0 with none; it finds the device of the first line when
 * that line has five fields; mountinfo_unescape decodes \ooo (000 to 377)
 * and nothing else; meminfo_read returns 0 and whole KiB, only for the
 * fields the text names.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>

#include "fuzz.h"
#include "lib/meminfo.h"
#include "lib/mounts.h"

static int fd = -1;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static char root[PATH_MAX];
	char path[64], link[PATH_MAX + 32];
	const char *tmp = getenv("TMPDIR");

	(void)argc;
	(void)argv;
	fd = fuzz_memfd(path, sizeof(path));
	snprintf(root, sizeof(root), "%s/rdctl-fuzz-proc.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(root)) {
		perror("fuzz: mkdtemp");
		abort();
	}
	snprintf(link, sizeof(link), "%s/self", root);
	if (mkdir(link, 0700) < 0) {
		perror("fuzz: mkdir");
		abort();
	}
	snprintf(link, sizeof(link), "%s/self/mountinfo", root);
	if (symlink(path, link) < 0) {
		perror("fuzz: symlink");
		abort();
	}
	snprintf(link, sizeof(link), "%s/meminfo", root);
	if (symlink(path, link) < 0) {
		perror("fuzz: symlink");
		abort();
	}
	setenv("RDCTL_PROC_ROOT", root, 1);
	return 0;
}

static void unescape_reference(char *s)
{
	char *w = s;

	for (size_t i = 0; s[i]; ) {
		if (s[i] == '\\' && s[i + 1] >= '0' && s[i + 1] <= '3' && s[i + 2] >= '0' && s[i + 2] <= '7' &&
		    s[i + 3] >= '0' && s[i + 3] <= '7') {
			*w++ = (char)((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
			i += 4;
		} else {
			*w++ = s[i++];
		}
	}
	*w = '\0';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size), *copy, *ref, *where = (char *)1;
	char *line, *save = NULL, *save2 = NULL, *f[5];
	unsigned maj = 8, min = 1;
	bool first = false;
	size_t len = strlen(text), reflen;
	struct meminfo mi;
	int r, nf = 0;

	/* the first line (strtok's: empty lines do not count) with five fields */
	copy = strdup(text);
	if (!copy)
		abort();
	line = strtok_r(copy, "\n", &save);
	for (char *tok = line ? strtok_r(line, " ", &save2) : NULL; tok && nf < 5; tok = strtok_r(NULL, " ", &save2))
		f[nf++] = tok;
	if (nf == 5 && sscanf(f[2], "%u:%u", &maj, &min) == 2) {
		char want[32];

		snprintf(want, sizeof(want), "%u:%u", maj, min);
		first = !strcmp(f[2], want);
		mountinfo_unescape(f[4]);
	}
	fuzz_memfd_set(fd, data, size);
	r = mount_point_of(maj, min, &where);
	FUZZ_CHECK(r == 0 || r == 1, "mount_point_of = %d", r);
	if (r == 1)
		FUZZ_CHECK(where && strlen(where) <= len, "mount point of %u:%u: %s", maj, min, where ? where : "NULL");
	else
		FUZZ_CHECK(where == NULL, "no mount of %u:%u but a mount point", maj, min);
	if (first)
		FUZZ_CHECK(r == 1 && !strcmp(where, f[4]), "the first line mounts %u:%u on '%s', found %s",
			   maj, min, f[4], r == 1 ? where : "nothing");
	free(where);
	free(copy);

	copy = strdup(text);
	ref = strdup(text);
	if (!copy || !ref)
		abort();
	mountinfo_unescape(copy);
	unescape_reference(ref);
	reflen = strlen(ref);
	FUZZ_CHECK(strlen(copy) == reflen && !memcmp(copy, ref, reflen), "mountinfo_unescape('%s') = '%s'", text, copy);
	free(copy);
	free(ref);

	r = meminfo_read(&mi);
	FUZZ_CHECK(r == 0, "meminfo_read = %d", r);
	FUZZ_CHECK(!mi.has_total || (strstr(text, "MemTotal:") && mi.total % 1024 == 0), "MemTotal %llu",
		   (unsigned long long)mi.total);
	FUZZ_CHECK(!mi.has_available || (strstr(text, "MemAvailable:") && mi.available % 1024 == 0),
		   "MemAvailable %llu", (unsigned long long)mi.available);
	FUZZ_CHECK(mi.has_total || !mi.total, "MemTotal %llu without has_total", (unsigned long long)mi.total);
	free(text);
	return 0;
}
