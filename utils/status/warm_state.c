// SPDX-License-Identifier: GPL-2.0
#include "status/warm_state.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/config_edit.h"
#include "lib/sysfs.h"
#include "lib/util.h"

static char *state_path(const char *mdname)
{
	return xasprintf("%s/warmup-%s.state", run_dir(), mdname);
}

int warm_state_write(const char *mdname, const struct warmup *w)
{
	char *path = state_path(mdname), *msg = NULL;
	char *text = xasprintf("pid %ld\nrd %s\ndone %llu\ntotal %llu\nstarted %lld\nphase %s\n", (long)w->pid,
			       w->rd, (unsigned long long)w->done, (unsigned long long)w->total,
			       (long long)w->started,
			       w->full ? "full" : w->recovering ? "recover" : "copy");
	int r;

	if (w->min_was && w->max_was) {
		char *t = xasprintf("%sspeed_min_was %s\nspeed_max_was %s\n", text, w->min_was, w->max_was);

		free(text);
		text = t;
	}
	if (w->depth_was) {
		char *t = xasprintf("%sio_depth_was %s\n", text, w->depth_was);

		free(text);
		text = t;
	}
	r = config_write_atomic(path, text, &msg);

	free(msg);
	free(text);
	free(path);
	return r;
}

void warm_state_remove(const char *mdname)
{
	char *path = state_path(mdname);

	unlink(path);
	free(path);
}

/*
 * Is pid still the daemon? A state file left by one that died (killed, or
 * out of memory) may name a PID the kernel has given to another process
 * since: that one is not ours to signal. The daemon is a fork of rdctl,
 * so its command name is rdctl's.
 */
bool warmup_is_daemon(pid_t pid)
{
	char *path = xasprintf("%s/%ld/comm", proc_root(), (long)pid), *comm = NULL;
	bool ours = read_text_file(path, &comm) == 0 && !strncmp(comm, "rdctl", 5) &&
		    (comm[5] == '\0' || !strcmp(comm + 5, "\n"));

	free(comm);
	free(path);
	return ours;
}

double warmup_percent(const struct warmup *w)
{
	return w->total ? 100.0 * (double)w->done / (double)w->total : 0.0;
}

void warmup_clear(struct warmup *w)
{
	free(w->rd);
	free(w->min_was);
	free(w->max_was);
	free(w->depth_was);
	memset(w, 0, sizeof(*w));
}

int warmup_read(const char *mdname, struct warmup *w)
{
	char *path = state_path(mdname), *text = NULL, *save = NULL;
	int r = read_text_file(path, &text);

	memset(w, 0, sizeof(*w));
	free(path);
	if (r < 0)
		return r;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *v = strchr(line, ' ');
		uint64_t n = 0;

		if (!v)
			continue;
		*v++ = '\0';
		if (!strcmp(line, "rd")) {
			free(w->rd);
			w->rd = xstrdup(v);
		} else if (!strcmp(line, "phase")) {
			w->full = !strcmp(v, "full");
			w->recovering = w->full || !strcmp(v, "recover");
		} else if (!strcmp(line, "speed_min_was")) {
			free(w->min_was);
			w->min_was = xstrdup(v);
		} else if (!strcmp(line, "speed_max_was")) {
			free(w->max_was);
			w->max_was = xstrdup(v);
		} else if (!strcmp(line, "io_depth_was")) {
			free(w->depth_was);
			w->depth_was = xstrdup(v);
		} else if (parse_u64(v, &n)) {
			if (!strcmp(line, "pid"))
				w->pid = (pid_t)n;
			else if (!strcmp(line, "done"))
				w->done = n;
			else if (!strcmp(line, "total"))
				w->total = n;
			else if (!strcmp(line, "started"))
				w->started = (int64_t)n;
		}
	}
	free(text);
	if (!w->rd || w->pid <= 0) {
		warmup_clear(w);
		return -EINVAL;
	}
	w->alive = warmup_is_daemon(w->pid);
	return 0;
}

char **warmup_arrays(void)
{
	char **names = NULL, **out;
	size_t n = 0, k = 0;

	if (list_dir(run_dir(), &names, &n) < 0)
		n = 0;
	out = xcalloc(n + 1, sizeof(*out));
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(names[i]);

		if (!strncmp(names[i], "warmup-", 7) && len > 13 && !strcmp(names[i] + len - 6, ".state"))
			out[k++] = xasprintf("%.*s", (int)(len - 13), names[i] + 7);
		free(names[i]);
	}
	free(names);
	return out;
}
