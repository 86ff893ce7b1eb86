// SPDX-License-Identifier: GPL-2.0
#include "md/md_ops.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/config.h"
#include "lib/journal.h"
#include "lib/proc.h"
#include "lib/seams.h"
#include "lib/sysfs.h"
#include "lib/util.h"
#include "md/md.h"
#include "md/md_super.h"

#define MAX_ARGS 24

/* A whole number of seconds from the environment (1 to a day), or def. */
static unsigned env_seconds(const char *var, unsigned def)
{
	const char *s = seam(var);
	uint64_t v;

	if (s && parse_u64(s, &v) && v >= 1 && v <= 86400)
		return (unsigned)v;
	return def;
}

/* The bound of one mdadm run: creating, growing and assembling write
 * superblocks and bitmaps, or scan every disk; the rest only asks or
 * changes one thing. */
static unsigned mdadm_timeout(const char *const args[])
{
	bool slow = args[0] && (!strcmp(args[0], "--create") || !strcmp(args[0], "--grow") ||
				!strcmp(args[0], "--assemble"));

	return env_seconds("RDCTL_MDADM_TIMEOUT", slow ? MDADM_TIMEOUT_LONG : MDADM_TIMEOUT);
}

/* mdadm ARGS only reads (journal.h: no line for those) */
static bool mdadm_reads(const char *const args[])
{
	static const char *const readers[] = { "--detail", "--examine", "--query", "--wait", "--monitor",
					       "--version", "-D", "-E", "-Q", "-X", "--examine-bitmap" };

	for (size_t i = 0; args[0] && i < sizeof(readers) / sizeof(readers[0]); i++)
		if (!strcmp(args[0], readers[i]))
			return true;
	return false;
}

int mdadm_callv(char **out, char **msg, const char *const args[])
{
	char *argv[MAX_ARGS + 2];
	const char *path = seam("RDCTL_MDADM");
	struct proc_result res;
	size_t n = 0;
	int rc = 0;

	argv[n++] = xstrdup("mdadm");
	for (size_t i = 0; args[i] && n < MAX_ARGS + 1; i++)
		argv[n++] = xstrdup(args[i]);
	argv[n] = NULL;
	if (out)
		*out = NULL;
	if (msg)
		*msg = NULL;
	proc_run_bounded(path && *path ? path : NULL, argv, mdadm_timeout(args), &res);
	if (res.status != 0) {
		char *line = last_line(res.err), *cmd = command_line((const char *const *)argv);

		if (msg) {
			if (res.timed_out)
				*msg = xasprintf("%s %s: see dmesg and cat /proc/mdstat", cmd, res.err);
			else if (res.status < 0)
				*msg = xasprintf("%s failed: %s", cmd, res.err);
			else
				*msg = xasprintf("%s failed (exit %d): %s", cmd, res.status,
						 line ? line : "no message");
		}
		free(line);
		free(cmd);
		/* the error code tells a hung mdadm from a refusal */
		rc = res.timed_out ? -ETIMEDOUT : -EIO;
	}
	if (!mdadm_reads(args)) {
		char *cmd = command_line((const char *const *)argv), *line = last_line(res.err);

		if (rc)
			journal(LOG_ERR, "%s failed: %s", cmd, line ? line : res.timed_out ? "timed out" : "no message");
		else
			journal(LOG_INFO, "%s", cmd);
		free(cmd);
		free(line);
	}
	if (out && rc == 0) {
		*out = res.out;
		res.out = NULL;
	}
	proc_result_clear(&res);
	for (size_t i = 0; i < n; i++)
		free(argv[i]);
	return rc;
}

int mdadm_call(char **out, char **msg, const char *arg, ...)
{
	const char *args[MAX_ARGS + 1];
	size_t n = 0;
	va_list ap;

	va_start(ap, arg);
	for (const char *a = arg; a && n < MAX_ARGS; a = va_arg(ap, const char *))
		args[n++] = a;
	va_end(ap);
	args[n] = NULL;
	return mdadm_callv(out, msg, args);
}

char *md_dev_path(const char *kname)
{
	char *p = xasprintf("%s/%s", dev_root(), kname);

	for (char *c = p + strlen(dev_root()) + 1; *c; c++)
		if (*c == '!')
			*c = '/';
	return p;
}

/* The value of KEY= in mdadm --export output, malloc'd, or NULL. */
static char *export_value(const char *text, const char *key)
{
	size_t kl = strlen(key);

	for (const char *l = text; l && *l; ) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);

		if (len > kl && !strncmp(l, key, kl) && l[kl] == '=')
			return xasprintf("%.*s", (int)(len - kl - 1), l + kl + 1);
		l = nl ? nl + 1 : NULL;
	}
	return NULL;
}

static char *lower(char *s)
{
	for (char *p = s; p && *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return s;
}

static char *first_member(const char *mdname)
{
	char *dir = xasprintf("%s/block/%s/md", sysfs_root(), mdname);
	char **names, *m = NULL;
	size_t n;

	if (list_dir(dir, &names, &n) == 0) {
		for (size_t i = 0; i < n && !m; i++)
			if (!strncmp(names[i], "dev-", 4) && names[i][4])
				m = xstrdup(names[i] + 4);
		free_names(names, n);
	}
	free(dir);
	return m;
}

bool md_uuid_hex(const char *s, char hex[33])
{
	size_t n = 0;

	for (; s && *s; s++) {
		if (strchr(":.- ", *s))
			continue;
		if (!isxdigit((unsigned char)*s) || n == 32)
			return false;
		hex[n++] = (char)tolower((unsigned char)*s);
	}
	hex[n] = '\0';
	return n == 32;
}

bool md_uuid_same(const char *a, const char *b)
{
	char ha[33], hb[33];

	return md_uuid_hex(a, ha) && md_uuid_hex(b, hb) && !strcmp(ha, hb);
}

/*
 * The UUID from /sys/block/mdX/md/uuid (md prints the 16 bytes as
 * 8-4-4-4-12, since Linux 5.9), in mdadm's form, or NULL. It needs no
 * mdadm run and no root, which is why it comes first. Only for metadata
 * 1.x: mdadm prints a 1.x UUID byte for byte, as md does, but a 0.90 one
 * as four host-endian words, which md shows byte for byte (each group
 * reversed on x86). An array that is assembled but not started may show
 * all zeros: not an answer either.
 */
static char *sysfs_uuid(const char *mdname)
{
	char *path = xasprintf("%s/block/%s/md/metadata_version", sysfs_root(), mdname);
	char *meta = NULL, *text = NULL, hex[33], *uuid = NULL;

	if (read_text_file(path, &meta) == 0 && !strncmp(meta, "1.", 2)) {
		free(path);
		path = xasprintf("%s/block/%s/md/uuid", sysfs_root(), mdname);
		if (read_text_file(path, &text) == 0 && md_uuid_hex(text, hex) &&
		    strspn(hex, "0") != 32)
			uuid = xasprintf("%.8s:%.8s:%.8s:%.8s", hex, hex + 8, hex + 16, hex + 24);
	}
	free(text);
	free(meta);
	free(path);
	return uuid;
}

char *md_uuid_of(const char *mdname)
{
	char *dev, *out = NULL, *uuid = sysfs_uuid(mdname), *member;

	if (uuid)
		return uuid;
	dev = md_dev_path(mdname);
	if (mdadm_call(&out, NULL, "--detail", "--export", dev, NULL) == 0)
		uuid = export_value(out, "MD_UUID");
	free(out);
	free(dev);
	if (uuid)
		return lower(uuid);
	member = first_member(mdname);
	if (!member)
		return NULL;
	dev = md_dev_path(member);
	if (mdadm_call(&out, NULL, "--examine", "--export", dev, NULL) == 0)
		uuid = export_value(out, "MD_UUID");
	free(out);
	free(dev);
	free(member);
	return lower(uuid);
}

long md_raid_disks_on_disk(const char *mdname)
{
	char *member = first_member(mdname), *dev, *out = NULL, *v = NULL, *end;
	long n = -1;

	if (!member)
		return -1;
	dev = md_dev_path(member);
	if (mdadm_call(&out, NULL, "--examine", "--export", dev, NULL) == 0)
		v = export_value(out, "MD_DEVICES");
	if (v) {
		errno = 0;
		n = strtol(v, &end, 10);
		if (errno || *end || end == v || n <= 0)
			n = -1;
	}
	free(v);
	free(out);
	free(dev);
	free(member);
	return n;
}

char *md_resolve_name(const char *name)
{
	char *link = xasprintf("%s/md/%s", dev_root(), name);
	char buf[256], *base;
	ssize_t n = readlink(link, buf, sizeof(buf) - 1);

	free(link);
	if (n <= 0 || (size_t)n >= sizeof(buf) - 1)
		return NULL;
	buf[n] = '\0';
	base = strrchr(buf, '/');
	base = base ? base + 1 : buf;
	if (strncmp(base, "md", 2) || !base[2])
		return NULL;
	return xstrdup(base);
}

bool md_has_members(const char *mdname)
{
	char *m = first_member(mdname);
	bool has = m != NULL;

	free(m);
	return has;
}

static int read_attr_u64(const char *dir, const char *attr, uint64_t *v)
{
	char *path = xasprintf("%s/%s", dir, attr);
	int r = read_u64_file(path, v);

	free(path);
	return r;
}

/* Size of a block device in sectors, from /sys/class/block (partitions too). */
static int dev_sectors(const char *kname, uint64_t *v)
{
	char *dir = xasprintf("%s/class/block/%s", sysfs_root(), kname);
	int r = read_attr_u64(dir, "size", v);

	free(dir);
	if (r == -ENOENT) {
		dir = xasprintf("%s/block/%s", sysfs_root(), kname);
		r = read_attr_u64(dir, "size", v);
		free(dir);
	}
	return r;
}

#define KiB 1024ULL
#define ROUND_UP(x, a) (((x) + (a) - 1) / (a) * (a))

/*
 * What a new member needs, from how mdadm lays out the metadata when it
 * adds a device (super1.c, write_init_super1 and avail_size1, mdadm 4.2:
 * the new device gets the data_offset of the member whose superblock
 * mdadm copies, and --add refuses a device whose available size is below
 * the array's component size):
 *   1.1, 1.2  superblock and bitmap before the data: data_offset + component_size;
 *             data_offset is /sys/block/mdX/md/dev-Y/offset (sectors), the
 *             largest over the persistent members.
 *   1.0       superblock (8-12 KiB before the end), bad-block log and bitmap
 *             after the data: component_size + the space a persistent member
 *             has after its data (device size - offset - dev-Y/size), or
 *             1 MiB when that cannot be read.
 *   0.90      superblock in the last 64 KiB-aligned 64 KiB:
 *             component_size rounded up to 64 KiB, + 64 KiB.
 * The result is rounded up to 4 KiB, the rd size granularity.
 */
int md_member_size(const char *mdname, uint64_t *bytes, char **msg)
{
	char *dir = xasprintf("%s/block/%s/md", sysfs_root(), mdname);
	char *meta = NULL, **names = NULL;
	uint64_t comp, offset = 0, tail = 0, need;
	size_t n = 0;
	bool any = false, tail_known = false;
	int r;

	*msg = NULL;
	r = read_attr_u64(dir, "component_size", &comp);
	if (r < 0 || comp == 0) {
		*msg = xasprintf("cannot read the component size of %s (%s/component_size): %s",
				 mdname, dir, r < 0 ? strerror(-r) : "it is 0 (array not running?)");
		r = r < 0 ? r : -EINVAL;
		goto out;
	}
	{
		char *path = xasprintf("%s/metadata_version", dir);

		r = read_text_file(path, &meta);
		free(path);
	}
	if (r < 0) {
		*msg = xasprintf("cannot read the metadata version of %s: %s", mdname, strerror(-r));
		goto out;
	}
	if (!strcmp(meta, "0.90")) {
		need = ROUND_UP(comp * KiB, 64 * KiB) + 64 * KiB;
		goto done;
	}
	if (strcmp(meta, "1.0") && strcmp(meta, "1.1") && strcmp(meta, "1.2")) {
		*msg = xasprintf("%s has metadata '%s': size auto knows 0.90, 1.0, 1.1 and 1.2; give a size", mdname, meta);
		r = -EOPNOTSUPP;
		goto out;
	}
	r = list_dir(dir, &names, &n);
	if (r < 0) {
		*msg = xasprintf("cannot list %s: %s", dir, strerror(-r));
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		char *mdir;
		uint64_t off, used, total;

		if (strncmp(names[i], "dev-", 4) || !names[i][4] || md_name_is_rd(names[i] + 4))
			continue;
		mdir = xasprintf("%s/%s", dir, names[i]);
		if (read_attr_u64(mdir, "offset", &off) == 0) {
			any = true;
			if (off > offset)
				offset = off;
			if (read_attr_u64(mdir, "size", &used) == 0 &&
			    dev_sectors(names[i] + 4, &total) == 0 &&
			    total * 512 > off * 512 + used * KiB) {
				uint64_t t = total * 512 - off * 512 - used * KiB;

				if (!tail_known || t > tail)
					tail = t;
				tail_known = true;
			}
		}
		free(mdir);
	}
	if (!any) {
		*msg = xasprintf("%s has no persistent member whose data offset can be read (%s/dev-*/offset): give a size",
				 mdname, dir);
		r = -ENODEV;
		goto out;
	}
	if (!strcmp(meta, "1.0"))
		need = comp * KiB + (tail_known ? tail : 1024 * KiB);
	else
		need = offset * 512 + comp * KiB;
done:
	*bytes = ROUND_UP(need, 4 * KiB);
	r = 0;
out:
	free_names(names, n);
	free(meta);
	free(dir);
	return r;
}

/* "recovery at 42.0%, ETA 3m12s" for the message of a wait that ran out */
static char *sync_where(const struct md_array *a, const char *act)
{
	double pct = md_sync_percent(a);
	char *eta, *s;

	if (pct < 0)
		return md_sync_running(a) ? xasprintf("%s started, no progress shown yet", act)
					  : xstrdup("no sync running (md has not started the recovery)");
	eta = eta_str(md_sync_eta(a));
	s = xasprintf("%s at %.1f%%, ETA %s", act, pct, eta);
	free(eta);
	return s;
}

/*
 * How long md may leave a member out of sync with no sync running before
 * a wait gives up: md starts a recovery within a second of an add; one
 * that has not begun in a minute waits for something no wait brings (the
 * sync frozen by hand, a read-only array, an error). Without this bound
 * `--wait` with no `--timeout` would wait for ever, saying nothing.
 */
#define MD_STALL_SECONDS	60

static unsigned stall_seconds(void)
{
	const char *s = seam("RDCTL_TEST_STALL_SECONDS");
	uint64_t v;

	if (s && parse_u64(s, &v) && v >= 1 && v <= 3600)
		return (unsigned)v;
	return MD_STALL_SECONDS;
}

int md_wait_in_sync(const char *mdname, const char *member, bool progress, unsigned timeout, char **msg)
{
	double start = mono_now(), idle_since = 0;
	unsigned stall = stall_seconds();
	bool shown = false;
	int rc = 0;

	*msg = NULL;
	for (;;) {
		struct md_array a;
		const struct md_member *m = NULL;
		const char *act;
		double left;
		int r = md_array_read(mdname, &a);

		if (r < 0) {
			*msg = xasprintf("cannot read %s: %s", mdname, strerror(-r));
			rc = r;
			break;
		}
		for (size_t i = 0; i < a.nmembers; i++)
			if (!strcmp(a.members[i].name, member))
				m = &a.members[i];
		/*
		 * Gone, or failed by md. A member md keeps with bad blocks
		 * from a failed write not yet in the superblock (out of memory
		 * in the RAM member) has not failed: read_member() in md.c
		 * tells the two apart.
		 */
		if (!m || m->faulty) {
			md_array_clear(&a);
			*msg = xasprintf("%s left %s during the recovery: see dmesg", member, mdname);
			rc = -EIO;
			break;
		}
		if (m->in_sync && !md_sync_running(&a)) {
			md_array_clear(&a);
			break;
		}
		if (md_sync_running(&a) || m->in_sync) {
			idle_since = 0;
		} else if (!idle_since) {
			idle_since = mono_now();
		} else if (mono_now() - idle_since >= stall) {
			*msg = xasprintf("md has left %s out of sync in %s for %u s with no recovery running (sync_action %s, array_state %s): see dmesg and %s's md/sync_action",
					 member, mdname, stall, a.sync_action ? a.sync_action : "unknown",
					 a.array_state ? a.array_state : "unknown", mdname);
			md_array_clear(&a);
			rc = -EIO;
			break;
		}
		act = !a.sync_action || !strcmp(a.sync_action, "recover") ? "recovery" : a.sync_action;
		left = timeout ? start + timeout - mono_now() : 1;
		if (left <= 0) {
			char *where = sync_where(&a, act);

			*msg = xasprintf("%s is not in sync after %u s: %s; md goes on with it in the background (rdctl --status shows how far)",
					 member, timeout, where);
			free(where);
			md_array_clear(&a);
			rc = -ETIMEDOUT;
			break;
		}
		if (progress) {
			double pct = md_sync_percent(&a);
			char *eta = eta_str(md_sync_eta(&a));

			fprintf(stderr, "\r%s: %s %s %5.1f%%, ETA %s   ", mdname, member, act, pct < 0 ? 0.0 : pct, eta);
			shown = true;
			free(eta);
		}
		md_array_clear(&a);
		util_sleep_ms(left < 1 ? (long)(left * 1000) + 1 : 1000);
	}
	if (shown)
		fputc('\n', stderr);
	return rc;
}

char *md_array_with_uuid(const char *uuid)
{
	char *path = xasprintf("%s/block", sysfs_root()), **names, *found = NULL;
	size_t n;

	if (list_dir(path, &names, &n) < 0)
		n = 0, names = NULL;
	free(path);
	for (size_t i = 0; i < n && !found; i++) {
		char *u;

		if (strncmp(names[i], "md", 2) || !md_has_members(names[i]))
			continue;
		u = md_uuid_of(names[i]);
		if (u && md_uuid_same(u, uuid))
			found = xstrdup(names[i]);
		free(u);
	}
	free_names(names, n);
	return found;
}

char *md_array_of_super(const char *name, uint64_t size)
{
	static const char *const vers[] = { "1.2", "1.1", "1.0" };
	char *path = md_dev_path(name), *found = NULL;

	for (size_t i = 0; i < sizeof(vers) / sizeof(vers[0]) && !found; i++) {
		struct md_super sb;
		char *why = NULL;

		/* (each version has its own place: one superblock answers at most) */
		if (md_super_read(path, vers[i], size, &sb, &why) == 0)
			found = md_array_with_uuid(sb.uuid);
		free(why);
	}
	free(path);
	return found;
}

char *md_array_of_config(const struct conf_mirror *m)
{
	char *name;

	switch (m->kind) {
	case CONF_DEVICE:
		return md_has_members(m->name) ? xstrdup(m->name) : NULL;
	case CONF_MDNAME:
		name = md_resolve_name(m->name);
		if (name && md_has_members(name))
			return name;
		free(name);
		return NULL;
	case CONF_UUID:
		return md_array_with_uuid(m->uuid);
	}
	return NULL;
}

int md_disks_write_mostly(const char *mdname, bool on, void (*changed)(const char *name, void *arg), void *arg,
			  char **msg)
{
	struct md_array a;
	int r = md_array_read(mdname, &a), first = 0, n = 0;

	*msg = NULL;
	if (r < 0) {
		*msg = xasprintf("cannot read %s: %s", mdname, strerror(-r));
		return r;
	}
	for (size_t i = 0; i < a.nmembers; i++) {
		const struct md_member *m = &a.members[i];
		char *path;

		if (md_is_fast(m) || m->faulty || m->write_mostly == on)
			continue;
		path = xasprintf("%s/block/%s/md/dev-%s/state", sysfs_root(), mdname, m->name);
		r = journal_sysfs_write(path, on ? "writemostly" : "-writemostly");
		if (r < 0 && !first) {
			first = r;
			*msg = xasprintf("cannot make %s %swrite-mostly (%swritemostly > %s): %s", m->name,
					 on ? "" : "not ", on ? "" : "-", path, strerror(-r));
		} else if (r == 0) {
			n++;
			if (changed)
				changed(m->name, arg);
		}
		free(path);
	}
	md_array_clear(&a);
	return first < 0 ? first : n;
}
