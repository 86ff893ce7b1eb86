// SPDX-License-Identifier: GPL-2.0
/* rdctl: the control tool of rdmirror. Option parsing and dispatch. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "lib/errors.h"
#include "lib/size.h"
#include "lib/sysfs.h"
#include "mirror/release.h"
#include "mirror/restore.h"
#include "status/list_table.h"

enum command { CMD_NONE, CMD_ATTACH, CMD_DETACH, CMD_RESIZE, CMD_FLUSH,
	       CMD_LIST, CMD_STATUS, CMD_RESTORE, CMD_RELEASE, CMD_HELP, CMD_VERSION,
	       CMD_CREATE, CMD_CONVERT, CMD_REVERT, CMD_REFRESH };

static const char *const cmd_names[] = {
	"", "--attach", "--detach", "--resize", "--flush", "--list", "--status", "--restore", "--release",
	"--help", "--version", "--create", "--convert", "--revert", "--refresh",
};

enum { OPT_PREALLOC = 256, OPT_FORCE, OPT_RESTORE, OPT_RELEASE, OPT_WAIT, OPT_CONFIG,
       OPT_CREATE, OPT_CONVERT, OPT_REVERT, OPT_SIZE, OPT_BITMAP, OPT_DRY_RUN, OPT_OUTPUT_ALL,
       OPT_RAW, OPT_TIMEOUT, OPT_DETACH, OPT_FLUSH, OPT_REFRESH, OPT_IGNORE_MEMORY, OPT_IGNORE_KERNEL_BUG };

/* the output forms of --status for monitoring systems */
enum { OPT_NAGIOS = 512, OPT_PROMETHEUS };

/*
 * Long options that make, change or take apart mirrors or drop data, and
 * the one that overrides refusals: GNU getopt would run them from any
 * unique prefix ("--rel", "--cr", "--fo"), so they must be spelled in full.
 */
static const char *const full_only[] = {
	"release", "revert", "detach", "flush", "refresh", "create", "convert", "force",
	"ignore-memory", "ignore-kernel-bug",
};

static const char usage_text[] =
"Usage: rdctl COMMAND [OPTIONS]\n"
"Manage rdmirror RAM disks, the RAM read members of md RAID1 mirrors.\n"
"\n"
"Commands:\n"
"  -a, --attach SIZE       create a RAM disk /dev/rdN of SIZE\n"
"      --detach rdN        remove a disk (refused while it is in use)\n"
"  -r, --resize rdN SIZE   change the size of a disk (grow; shrink only when unused)\n"
"      --flush rdN         free all pages of a disk (only when unused)\n"
"  -l, --list [rdN...]     list the rd disks (all, or those named)\n"
"  -s, --status            module, memory, every configured mirror and every md\n"
"                          array with an rd member, findings with a severity\n"
"      --restore           bring back the RAM member of every mirror in\n"
"                          /etc/rdmirror.conf (at boot)\n"
"      --release [ARRAY...]\n"
"                          take every RAM member (or those of the arrays\n"
"                          named) out of its array and detach it (at shutdown)\n"
"      --create ARRAY DISK...\n"
"                          a new RAM mirror on blank disks: the array is made\n"
"                          from the disks (write-mostly), then rdctl copies it\n"
"                          into the RAM disk: disk -> RAM, never RAM -> disk\n"
"      --convert ARRAY     give a running, in-sync RAID1 a RAM member, live\n"
"      --revert ARRAY      take the RAM member out for good, live\n"
"      --refresh ARRAY     copy the RAM member afresh from the disks, live, into\n"
"                          the highest slot (after a memory error, or to move\n"
"                          it above the disks)\n"
"  -h, --help              show this help\n"
"  -V, --version           show the version\n"
"\n"
"Options:\n"
"  -j, -J, --json          print one JSON document on standard output\n"
"  -o, --output LIST       with --list: the columns to print, comma-separated\n"
"                          (+LIST adds to the default ones)\n"
"      --output-all        with --list: print every column\n"
"  -n, --noheadings        with --list: no header line\n"
"      --raw               with --list: raw output, cells separated by one\n"
"                          space, unsafe characters escaped as \\x<hex>\n"
"  -b, --bytes             with --list: sizes in bytes\n"
"  -q, --quiet             with --status: print nothing, only the exit status\n"
"      --nagios            with --status: one line and the exit status of a\n"
"                          monitoring plugin (0 OK, 1 WARNING, 2 CRITICAL,\n"
"                          3 UNKNOWN), for Nagios, Icinga\n"
"      --prometheus        with --status: Prometheus metrics (text format)\n"
"      --prealloc          with --attach, --create, --convert: allocate all the\n"
"                          memory at once\n"
"      --size auto|SIZE    with --create, --convert: the RAM member's size\n"
"                          (default auto: what the array needs of a member)\n"
"      --bitmap internal|none\n"
"                          with --create: md's write-intent bitmap (default\n"
"                          internal, 128 MiB chunks)\n"
"      --dry-run           with --create, --convert, --revert, --refresh,\n"
"                          --release, --restore: print the plan (the\n"
"                          commands) and change nothing\n"
"      --force             with --create: use disks that hold a signature (a\n"
"                          file system, a partition table), destroying it\n"
"      --ignore-memory     with --attach, --resize, --create, --convert,\n"
"                          --restore: allow a size above the available memory\n"
"                          (--restore: past its reserve)\n"
"      --ignore-kernel-bug with --create, --convert, --restore, --refresh: run\n"
"                          on a kernel with a known md bug\n"
"      --wait              with --restore, --create, --convert, --refresh: wait\n"
"                          until the RAM members are in sync\n"
"      --timeout SEC       with --wait: give up after SEC seconds (exit 1)\n"
"      --config FILE       with --status, --restore, --create, --convert,\n"
"                          --revert, --refresh: use FILE instead of\n"
"                          /etc/rdmirror.conf\n"
"\n"
"SIZE is a number of MiB (2048, 1.5) or a number with a unit, in any case:\n"
"K, M, G, T, P, E alone or with iB are powers of 1024 (512K, 2.5G, 1TiB), with\n"
"B powers of 1000 (4096KB, 8GB); B alone is bytes. Up to 9 digits may follow\n"
"a '.'. It must be a multiple of 4 KiB. rdN may also be written /dev/rdN.\n"
"ARRAY is /dev/mdN, mdN or /dev/md/NAME; for an existing array also\n"
"UUID=... (the array UUID, as mdadm prints it).\n"
"\n"
"Exit status: 0 success, 1 failure, 2 usage error, 3 --status shown with\n"
"a WARNING or CRITICAL finding (--nagios: 0 OK, 1 WARNING, 2 CRITICAL).\n"
"--release, --revert, --refresh, --detach and --flush must be spelled\n"
"in full, and have no one-letter form.\n"
"See rdctl(8).\n";

static const struct option long_opts[] = {
	{ "attach",   required_argument, NULL, 'a' },
	{ "detach",   required_argument, NULL, OPT_DETACH },
	{ "resize",   required_argument, NULL, 'r' },
	{ "flush",    required_argument, NULL, OPT_FLUSH },
	{ "list",     no_argument,       NULL, 'l' },
	{ "status",   no_argument,       NULL, 's' },
	{ "json",     no_argument,       NULL, 'j' },
	{ "help",     no_argument,       NULL, 'h' },
	{ "version",  no_argument,       NULL, 'V' },
	{ "prealloc", no_argument,       NULL, OPT_PREALLOC },
	{ "force",    no_argument,       NULL, OPT_FORCE },
	{ "ignore-memory", no_argument,  NULL, OPT_IGNORE_MEMORY },
	{ "ignore-kernel-bug", no_argument, NULL, OPT_IGNORE_KERNEL_BUG },
	{ "restore",  no_argument,       NULL, OPT_RESTORE },
	{ "release",  no_argument,       NULL, OPT_RELEASE },
	{ "wait",     no_argument,       NULL, OPT_WAIT },
	{ "config",   required_argument, NULL, OPT_CONFIG },
	{ "create",   required_argument, NULL, OPT_CREATE },
	{ "convert",  required_argument, NULL, OPT_CONVERT },
	{ "revert",   required_argument, NULL, OPT_REVERT },
	{ "refresh",  required_argument, NULL, OPT_REFRESH },
	{ "size",     required_argument, NULL, OPT_SIZE },
	{ "bitmap",   required_argument, NULL, OPT_BITMAP },
	{ "dry-run",  no_argument,       NULL, OPT_DRY_RUN },
	{ "output",   required_argument, NULL, 'o' },
	{ "output-all", no_argument,     NULL, OPT_OUTPUT_ALL },
	{ "noheadings", no_argument,     NULL, 'n' },
	{ "raw",      no_argument,       NULL, OPT_RAW },
	{ "bytes",    no_argument,       NULL, 'b' },
	{ "quiet",    no_argument,       NULL, 'q' },
	{ "nagios",   no_argument,       NULL, OPT_NAGIOS },
	{ "prometheus", no_argument,     NULL, OPT_PROMETHEUS },
	{ "timeout",  required_argument, NULL, OPT_TIMEOUT },
	{ NULL, 0, NULL, 0 },
};

static int usage_error(const char *fmt, ...) RDCTL_PRINTF(1, 2);
static int usage_error(const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vfail(EXIT_USAGE, "USAGE", fmt, ap);
	va_end(ap);
	return rc;
}

/* The long option a "--name[=value]" word names: exact, or its unique prefix. */
static const struct option *long_option_of(const char *word, size_t *nmatch)
{
	const char *name = word + 2;
	size_t len = strcspn(name, "=");
	const struct option *hit = NULL;

	*nmatch = 0;
	for (const struct option *lo = long_opts; lo->name; lo++) {
		if (strncmp(lo->name, name, len))
			continue;
		if (strlen(lo->name) == len) {
			*nmatch = 1;
			return lo;
		}
		hit = lo;
		(*nmatch)++;
	}
	return *nmatch == 1 ? hit : NULL;
}

static char *ambiguous_list(const char *word)
{
	const char *name = word + 2;
	size_t len = strcspn(name, "=");
	char *s = NULL, *t;

	for (const struct option *lo = long_opts; lo->name; lo++) {
		if (strncmp(lo->name, name, len))
			continue;
		t = xasprintf("%s%s--%s", s ? s : "", s ? ", " : "", lo->name);
		free(s);
		s = t;
	}
	return s;
}

/*
 * getopt_long() refused the word before argv[optind]: say what it
 * really was (opterr is off, and its optopt alone misleads: "--list=x"
 * comes back as an error of "-l").
 */
static int option_error(char **argv, int missing_arg)
{
	const char *word = argv[optind - 1];
	const struct option *lo = NULL;
	size_t nmatch = 0;

	if (!strncmp(word, "--", 2) && word[2])
		lo = long_option_of(word, &nmatch);
	if (missing_arg)
		return usage_error("option %s needs an argument: see rdctl --help",
				   lo ? word : argv[optind - 1]);
	if (lo && strchr(word, '=') && lo->has_arg == no_argument && (!optopt || optopt == lo->val))
		return usage_error("option --%s takes no argument (in '%s')", lo->name, word);
	if (!optopt && nmatch > 1) {
		char *all = ambiguous_list(word);
		int rc = usage_error("ambiguous option '%.*s': it could be %s", (int)strcspn(word, "="),
				     word, all);

		free(all);
		return rc;
	}
	if (!optopt)
		return usage_error("unknown option '%.*s': see rdctl --help", (int)strcspn(word, "="), word);
	if (optopt > 0 && optopt < 128)
		return usage_error("unknown option '-%c': see rdctl --help", optopt);
	return usage_error("unknown option '%s': see rdctl --help", word);
}

/*
 * The word a long option came from: the one before optind, or the one
 * before that when its argument was the next word ("--detach rd0").
 */
static const char *long_word(char **argv)
{
	if (optarg && optind >= 2 && argv[optind - 1] == optarg)
		return argv[optind - 2];
	return argv[optind - 1];
}

/* Refuse an abbreviation of a name in full_only[]. */
static int check_full_spelling(char **argv, int li)
{
	const char *word = long_word(argv), *name = long_opts[li].name;

	if (strncmp(word, "--", 2) || strcspn(word + 2, "=") == strlen(name))
		return 0;
	for (size_t i = 0; i < sizeof(full_only) / sizeof(full_only[0]); i++)
		if (strcmp(name, full_only[i]))
			continue;
		else if (!strcmp(name, "force") || !strncmp(name, "ignore-", 7))
			return usage_error("'%.*s' would give --%s: write it in full, it overrides a refusal",
					   (int)strcspn(word, "="), word, name);
		else
			return usage_error("'%.*s' would run --%s: write it in full, it changes arrays or drops data",
					   (int)strcspn(word, "="), word, name);
	return 0;
}

static int parse_disk(const char *arg, unsigned *index)
{
	if (rd_parse_name(arg, index))
		return 0;
	return fail(EXIT_USAGE, "USAGE", "invalid disk name '%s': expected rdN or /dev/rdN, for example rd0", arg);
}

static int parse_size_arg(const char *arg, uint64_t *size)
{
	char *msg;
	int rc = 0;

	if (size_parse(arg, size, &msg) < 0) {
		rc = fail(EXIT_USAGE, "USAGE", "%s", msg);
		free(msg);
	}
	return rc;
}

/* --timeout SEC: whole seconds, 1 to a day. */
static int parse_timeout(const char *arg, unsigned *sec)
{
	uint64_t v;

	if (!parse_u64(arg, &v) || v == 0 || v > 86400)
		return usage_error("invalid --timeout '%s': expected whole seconds from 1 to 86400", arg);
	*sec = (unsigned)v;
	return 0;
}

static bool is_mirror_cmd(enum command c)
{
	return c == CMD_CREATE || c == CMD_CONVERT || c == CMD_REVERT || c == CMD_REFRESH;
}

static int run(int argc, char **argv, struct cli_opts *o)
{
	enum command cmd = CMD_NONE;
	const char *arg = NULL, *size_arg = NULL, *bitmap_arg = NULL, *timeout_arg = NULL;
	const char *table_opt = NULL;
	uint64_t size = 0;
	unsigned index = 0;
	int c, li = -1, rc = 0;
	char *msg;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":a:r:lsjJhVo:nbq", long_opts, &li)) != -1) {
		enum command next = CMD_NONE;

		if (li >= 0 && c != '?' && c != ':' && !rc)
			rc = check_full_spelling(argv, li);
		li = -1;
		switch (c) {
		case 'a': next = CMD_ATTACH; break;
		case OPT_DETACH: next = CMD_DETACH; break;
		case 'r': next = CMD_RESIZE; break;
		case OPT_FLUSH: next = CMD_FLUSH; break;
		case 'l': next = CMD_LIST; break;
		case 's': next = CMD_STATUS; break;
		case 'h': next = CMD_HELP; break;
		case 'V': next = CMD_VERSION; break;
		case 'j':
		case 'J': o->m.json = true; break;
		case OPT_PREALLOC: o->m.prealloc = true; break;
		case OPT_FORCE: o->m.force = true; break;
		case OPT_IGNORE_MEMORY: o->m.ignore_memory = true; break;
		case OPT_IGNORE_KERNEL_BUG: o->m.ignore_kernel_bug = true; break;
		case OPT_RESTORE: next = CMD_RESTORE; break;
		case OPT_RELEASE: next = CMD_RELEASE; break;
		case OPT_WAIT: o->m.wait = true; break;
		case OPT_CREATE: next = CMD_CREATE; break;
		case OPT_CONVERT: next = CMD_CONVERT; break;
		case OPT_REVERT: next = CMD_REVERT; break;
		case OPT_REFRESH: next = CMD_REFRESH; break;
		case OPT_DRY_RUN: o->m.dry_run = true; break;
		case 'n': o->list.noheadings = true; table_opt = "--noheadings"; break;
		case 'b': o->list.bytes = true; table_opt = "--bytes"; break;
		case OPT_RAW: o->list.raw = true; table_opt = "--raw"; break;
		case 'q': o->quiet = true; break;
		case OPT_NAGIOS: o->nagios = true; break;
		case OPT_PROMETHEUS: o->prometheus = true; break;
		case OPT_OUTPUT_ALL:
			list_format_all(&o->list);
			table_opt = "--output-all";
			break;
		case 'o':
			table_opt = "--output";
			if (!rc && list_format_parse(&o->list, optarg, &msg) < 0) {
				rc = usage_error("%s", msg);
				free(msg);
			}
			break;
		case OPT_TIMEOUT:
			if (!rc && timeout_arg)
				rc = usage_error("--timeout given twice: give one");
			timeout_arg = optarg;
			break;
		case OPT_SIZE:
			if (!rc && size_arg)
				rc = usage_error("--size given twice: give one size");
			size_arg = optarg;
			break;
		case OPT_BITMAP:
			if (!rc && bitmap_arg)
				rc = usage_error("--bitmap given twice: give one");
			bitmap_arg = optarg;
			break;
		case OPT_CONFIG:
			if (!rc && o->m.config)
				rc = usage_error("--config given twice: give one file");
			o->m.config = optarg;
			break;
		case ':':
			if (!rc)
				rc = option_error(argv, 1);
			break;
		default:
			if (!rc)
				rc = option_error(argv, 0);
			break;
		}
		if (next == CMD_NONE)
			continue;
		if (cmd != CMD_NONE && cmd != next && !rc)
			rc = usage_error("%s and %s cannot be used together: give one command", cmd_names[cmd],
					 cmd_names[next]);
		else if (cmd == next && !rc && optarg)
			rc = usage_error("%s given twice: give one disk or size", cmd_names[cmd]);
		cmd = next;
		if (optarg)
			arg = optarg;
	}
	if (rc)
		return rc;
	if (cmd == CMD_HELP) {
		char *cols = list_columns_help();

		rc = fputs(usage_text, stdout) == EOF ||
		     fputs("\nColumns of --list (-o, --output):\n", stdout) == EOF ||
		     fputs(cols, stdout) == EOF || fflush(stdout) == EOF;
		free(cols);
		return rc ? fail(EXIT_RUNTIME, "EIO", "cannot write to standard output") : 0;
	}
	if (cmd == CMD_NONE)
		return usage_error("no command given: see rdctl --help");
	if (cmd == CMD_RESIZE) {
		if (optind >= argc)
			return usage_error("--resize needs a disk and a size, for example rdctl --resize rd0 4G");
		if (optind + 1 < argc)
			return usage_error("unexpected argument '%s': see rdctl --help", argv[optind + 1]);
	} else if (cmd == CMD_CREATE) {
		if (optind >= argc)
			return usage_error("--create needs an array and at least one disk, for example rdctl --create /dev/md0 /dev/sdb /dev/sdc");
	} else if (optind < argc && cmd != CMD_LIST && cmd != CMD_RELEASE) {
		return usage_error("unexpected argument '%s': see rdctl --help", argv[optind]);
	}
	if (table_opt && cmd != CMD_LIST)
		return usage_error("%s goes with --list only", table_opt);
	if (table_opt && o->m.json)
		return usage_error("%s and --json cannot be used together: the JSON document has every field",
				   table_opt);
	if (o->quiet && cmd != CMD_STATUS)
		return usage_error("--quiet goes with --status only");
	if ((o->nagios || o->prometheus) && cmd != CMD_STATUS)
		return usage_error("%s goes with --status only", o->nagios ? "--nagios" : "--prometheus");
	if (o->nagios + o->prometheus + o->m.json + o->quiet > 1)
		return usage_error("--nagios, --prometheus, --json and --quiet cannot be used together: give one output form");
	if (timeout_arg && !o->m.wait)
		return usage_error("--timeout goes with --wait only");
	if (timeout_arg && (rc = parse_timeout(timeout_arg, &o->m.timeout)))
		return rc;
	if (o->m.prealloc && cmd != CMD_ATTACH && cmd != CMD_CREATE && cmd != CMD_CONVERT)
		return usage_error("--prealloc goes with --attach, --create or --convert only");
	if (o->m.force && cmd != CMD_CREATE)
		return usage_error("--force goes with --create only: past the memory check give --ignore-memory, past a known md bug --ignore-kernel-bug");
	if (o->m.ignore_memory && cmd != CMD_ATTACH && cmd != CMD_RESIZE && cmd != CMD_CREATE && cmd != CMD_CONVERT &&
	    cmd != CMD_RESTORE)
		return usage_error("--ignore-memory goes with --attach, --resize, --create, --convert or --restore only");
	if (o->m.ignore_kernel_bug && cmd != CMD_CREATE && cmd != CMD_CONVERT && cmd != CMD_RESTORE && cmd != CMD_REFRESH)
		return usage_error("--ignore-kernel-bug goes with --create, --convert, --restore or --refresh only");
	if (o->m.wait && cmd != CMD_RESTORE && cmd != CMD_CREATE && cmd != CMD_CONVERT && cmd != CMD_REFRESH)
		return usage_error("--wait goes with --restore, --create, --convert or --refresh only");
	if (o->m.config && cmd != CMD_RESTORE && cmd != CMD_STATUS && !is_mirror_cmd(cmd))
		return usage_error("--config goes with --status, --restore, --create, --convert, --revert or --refresh only");
	if (o->m.config && !*o->m.config)
		return usage_error("--config needs a file name");
	if (size_arg && cmd != CMD_CREATE && cmd != CMD_CONVERT)
		return usage_error("--size goes with --create or --convert only (--attach and --resize take the size itself)");
	if (bitmap_arg && cmd != CMD_CREATE)
		return usage_error("--bitmap goes with --create only");
	if (o->m.dry_run && !is_mirror_cmd(cmd) && cmd != CMD_RELEASE && cmd != CMD_RESTORE)
		return usage_error("--dry-run goes with --create, --convert, --revert, --refresh, --release or --restore only");
	if (o->m.dry_run && o->m.wait)
		return usage_error("--dry-run and --wait cannot be used together: a dry run starts nothing to wait for");
	o->m.auto_size = !size_arg || !strcmp(size_arg, "auto");
	if (!o->m.auto_size && (rc = parse_size_arg(size_arg, &o->m.size)))
		return rc;
	if (bitmap_arg && strcmp(bitmap_arg, "internal") && strcmp(bitmap_arg, "none"))
		return usage_error("invalid --bitmap '%s': expected internal or none", bitmap_arg);
	o->m.bitmap_none = bitmap_arg && !strcmp(bitmap_arg, "none");

	switch (cmd) {
	case CMD_ATTACH:
		rc = parse_size_arg(arg, &size);
		return rc ? rc : cmd_attach(o, size);
	case CMD_DETACH:
		rc = parse_disk(arg, &index);
		return rc ? rc : cmd_detach(o, index);
	case CMD_RESIZE:
		rc = parse_disk(arg, &index);
		if (!rc)
			rc = parse_size_arg(argv[optind], &size);
		return rc ? rc : cmd_resize(o, index, size);
	case CMD_FLUSH:
		rc = parse_disk(arg, &index);
		return rc ? rc : cmd_flush(o, index);
	case CMD_LIST:
		return cmd_list(o, argv + optind, (size_t)(argc - optind));
	case CMD_STATUS:
		return cmd_status(o);
	case CMD_VERSION:
		return cmd_version(o);
	case CMD_RESTORE:
		return cmd_restore(&o->m);
	case CMD_RELEASE:
		return cmd_release(&o->m, argv + optind, (size_t)(argc - optind));
	case CMD_CREATE:
		return cmd_create(&o->m, arg, argv + optind, (size_t)(argc - optind));
	case CMD_CONVERT:
		return cmd_convert(&o->m, arg);
	case CMD_REVERT:
		return cmd_revert(&o->m, arg);
	case CMD_REFRESH:
		return cmd_refresh(&o->m, arg);
	default:
		return usage_error("no command given: see rdctl --help");
	}
}

int main(int argc, char **argv)
{
	struct cli_opts o = { 0 };
	int rc = run(argc, argv, &o);

	if (rc)
		error_report(o.m.json);
	return rc;
}
