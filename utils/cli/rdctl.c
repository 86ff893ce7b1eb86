// SPDX-License-Identifier: GPL-2.0
/* rdctl: the control tool of rdmirror. Option parsing and dispatch. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "lib/config.h"
#include "lib/errors.h"
#include "lib/size.h"
#include "lib/sysfs.h"
#include "lib/util.h"
#include "mirror/release.h"
#include "mirror/restore.h"
#include "mirror/verb.h"
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
       OPT_RAW, OPT_TIMEOUT, OPT_DETACH, OPT_FLUSH, OPT_REFRESH, OPT_IGNORE_MEMORY, OPT_IGNORE_KERNEL_BUG,
       OPT_MEMBER, OPT_COMPRESS };

/* the output forms of --status for monitoring systems */
enum { OPT_NAGIOS = 512, OPT_PROMETHEUS };

/* getopt_long()'s short options (the leading ':' reports a missing argument apart) */
#define SHORT_OPTS ":a:r:lsjJhVo:nbq"

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
"      --compress[=lz4|zstd]\n"
"                          with --attach, --create, --convert: the RAM disk\n"
"                          stores its pages compressed (default lz4), under a\n"
"                          memory limit; it may be larger than RAM\n"
"      --member PATH       with --create, --convert: the fast member is the\n"
"                          local disk at PATH (a stable name such as\n"
"                          /dev/disk/by-id/nvme-...), not RAM\n"
"      --bitmap internal|none\n"
"                          with --create: md's write-intent bitmap (default\n"
"                          internal, 128 MiB chunks)\n"
"      --dry-run           with --create, --convert, --revert, --refresh,\n"
"                          --release, --restore: print the plan (the\n"
"                          commands) and change nothing\n"
"      --force             with --create, or --member: use disks that hold a\n"
"                          signature (a file system, a partition table),\n"
"                          destroying it\n"
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
"a WARNING or CRITICAL finding (--nagios: 0 OK, 1 WARNING, 2 CRITICAL).\n";

/*
 * Every option: its getopt_long() entry, the command it names (a command
 * option) or the commands it goes with, and whether it must be written in
 * full. The one place that says which option goes with which command: the
 * checks after parsing, the refusal of abbreviations and --help's list of
 * what must be written in full all read it.
 */
struct opt_def {
	const char *name;
	int has_arg, val;
	enum command cmd;		/* the command it names, or CMD_NONE */
	enum command with[7];		/* the commands it goes with (CMD_NONE ends; none: any) */
	bool full;			/* makes, changes or takes apart mirrors, drops data, or overrides a refusal */
	const char *hint;		/* said after "goes with ... only" */
};

#define W(...) { __VA_ARGS__, CMD_NONE }

static const struct opt_def opt_defs[] = {
	{ "attach", required_argument, 'a', CMD_ATTACH, W(CMD_NONE), false, NULL },
	{ "detach", required_argument, OPT_DETACH, CMD_DETACH, W(CMD_NONE), true, NULL },
	{ "resize", required_argument, 'r', CMD_RESIZE, W(CMD_NONE), false, NULL },
	{ "flush", required_argument, OPT_FLUSH, CMD_FLUSH, W(CMD_NONE), true, NULL },
	{ "list", no_argument, 'l', CMD_LIST, W(CMD_NONE), false, NULL },
	{ "status", no_argument, 's', CMD_STATUS, W(CMD_NONE), false, NULL },
	{ "json", no_argument, 'j', CMD_NONE, W(CMD_NONE), false, NULL },
	{ "help", no_argument, 'h', CMD_HELP, W(CMD_NONE), false, NULL },
	{ "version", no_argument, 'V', CMD_VERSION, W(CMD_NONE), false, NULL },
	{ "prealloc", no_argument, OPT_PREALLOC, CMD_NONE, W(CMD_ATTACH, CMD_CREATE, CMD_CONVERT), false, NULL },
	{ "force", no_argument, OPT_FORCE, CMD_NONE, W(CMD_CREATE, CMD_CONVERT), true,
	  ": past the memory check give --ignore-memory, past a known md bug --ignore-kernel-bug" },
	{ "ignore-memory", no_argument, OPT_IGNORE_MEMORY, CMD_NONE,
	  W(CMD_ATTACH, CMD_RESIZE, CMD_CREATE, CMD_CONVERT, CMD_RESTORE), true, NULL },
	{ "ignore-kernel-bug", no_argument, OPT_IGNORE_KERNEL_BUG, CMD_NONE,
	  W(CMD_CREATE, CMD_CONVERT, CMD_RESTORE, CMD_REFRESH), true, NULL },
	{ "restore", no_argument, OPT_RESTORE, CMD_RESTORE, W(CMD_NONE), true, NULL },
	{ "release", no_argument, OPT_RELEASE, CMD_RELEASE, W(CMD_NONE), true, NULL },
	{ "wait", no_argument, OPT_WAIT, CMD_NONE, W(CMD_RESTORE, CMD_CREATE, CMD_CONVERT, CMD_REFRESH), false, NULL },
	{ "config", required_argument, OPT_CONFIG, CMD_NONE,
	  W(CMD_STATUS, CMD_RESTORE, CMD_CREATE, CMD_CONVERT, CMD_REVERT, CMD_REFRESH), false, NULL },
	{ "create", required_argument, OPT_CREATE, CMD_CREATE, W(CMD_NONE), true, NULL },
	{ "convert", required_argument, OPT_CONVERT, CMD_CONVERT, W(CMD_NONE), true, NULL },
	{ "revert", required_argument, OPT_REVERT, CMD_REVERT, W(CMD_NONE), true, NULL },
	{ "refresh", required_argument, OPT_REFRESH, CMD_REFRESH, W(CMD_NONE), true, NULL },
	{ "size", required_argument, OPT_SIZE, CMD_NONE, W(CMD_CREATE, CMD_CONVERT), false,
	  " (--attach and --resize take the size itself)" },
	{ "member", required_argument, OPT_MEMBER, CMD_NONE, W(CMD_CREATE, CMD_CONVERT), true, NULL },
	{ "compress", optional_argument, OPT_COMPRESS, CMD_NONE, W(CMD_ATTACH, CMD_CREATE, CMD_CONVERT), false, NULL },
	{ "bitmap", required_argument, OPT_BITMAP, CMD_NONE, W(CMD_CREATE), false, NULL },
	{ "dry-run", no_argument, OPT_DRY_RUN, CMD_NONE,
	  W(CMD_CREATE, CMD_CONVERT, CMD_REVERT, CMD_REFRESH, CMD_RELEASE, CMD_RESTORE), false, NULL },
	{ "output", required_argument, 'o', CMD_NONE, W(CMD_LIST), false, NULL },
	{ "output-all", no_argument, OPT_OUTPUT_ALL, CMD_NONE, W(CMD_LIST), false, NULL },
	{ "noheadings", no_argument, 'n', CMD_NONE, W(CMD_LIST), false, NULL },
	{ "raw", no_argument, OPT_RAW, CMD_NONE, W(CMD_LIST), false, NULL },
	{ "bytes", no_argument, 'b', CMD_NONE, W(CMD_LIST), false, NULL },
	{ "quiet", no_argument, 'q', CMD_NONE, W(CMD_STATUS), false, NULL },
	{ "nagios", no_argument, OPT_NAGIOS, CMD_NONE, W(CMD_STATUS), false, NULL },
	{ "prometheus", no_argument, OPT_PROMETHEUS, CMD_NONE, W(CMD_STATUS), false, NULL },
	{ "timeout", required_argument, OPT_TIMEOUT, CMD_NONE, W(CMD_NONE), false, NULL },
};
#define NOPTS (sizeof(opt_defs) / sizeof(opt_defs[0]))

/* getopt_long()'s view of opt_defs[], filled by parse_args(). */
static struct option long_opts[NOPTS + 1];

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

/* Refuse an abbreviation of an option written in full only (opt_defs[li].full). */
static int check_full_spelling(char **argv, int li)
{
	const char *word = long_word(argv), *name = opt_defs[li].name;
	int len = (int)strcspn(word, "=");

	if (strncmp(word, "--", 2) || strcspn(word + 2, "=") == strlen(name) || !opt_defs[li].full)
		return 0;
	if (opt_defs[li].cmd == CMD_NONE)
		return usage_error("'%.*s' would give --%s: write it in full, it overrides a refusal", len, word, name);
	return usage_error("'%.*s' would run --%s: write it in full, it changes arrays or drops data", len, word, name);
}

/* Does the word w name an option ("--dry-run", "--pre", "-l")? */
static bool names_option(const char *w)
{
	size_t n;

	if (!strncmp(w, "--", 2) && w[2])
		return long_option_of(w, &n) || n > 1;
	return w[0] == '-' && w[1] && strchr(SHORT_OPTS + 1, w[1]) && w[1] != ':';
}

/*
 * An option's argument is missing when getopt_long() gave it the next
 * word and that word is an option ("--revert --dry-run"): say so, not
 * that "--dry-run" is a bad array. ("-a -5" is a negative size.)
 */
static int check_swallowed(char **argv, int c)
{
	const char *word;

	if (!optarg || optind < 2 || argv[optind - 1] != optarg || !names_option(optarg) || c == ':' || c == '?')
		return 0;
	word = argv[optind - 2];
	return usage_error("option %.*s needs an argument: '%s' is an option (see rdctl --help)",
			   (int)strcspn(word, "="), word, optarg);
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

/* What the command line gave, as parsed, before the checks across options. */
struct parsed {
	enum command cmd;
	const char *arg;	/* the command option's argument */
	const char *size_arg, *bitmap_arg, *timeout_arg;
	const char *compress_arg;	/* --compress's compressor, "lz4" when none was given */
	bool given[NOPTS];	/* by opt_defs[] index */
};

static size_t def_of(int val)
{
	size_t i = 0;

	while (i < NOPTS && opt_defs[i].val != (val == 'J' ? 'j' : val))
		i++;
	return i;
}

static bool goes_with(const struct opt_def *d, enum command cmd)
{
	if (d->with[0] == CMD_NONE)
		return true;
	for (const enum command *w = d->with; *w != CMD_NONE; w++)
		if (*w == cmd)
			return true;
	return false;
}

/* "--a, --b or --c": the commands d goes with (malloc'd). */
static char *with_list(const struct opt_def *d)
{
	size_t n = 0;
	char *s = xstrdup(""), *t;

	while (d->with[n] != CMD_NONE)
		n++;
	for (size_t i = 0; i < n; i++) {
		t = xasprintf("%s%s%s", s, i == 0 ? "" : i + 1 == n ? " or " : ", ", cmd_names[d->with[i]]);
		free(s);
		s = t;
	}
	return s;
}

/* The options written in full only, as --help lists them: lines of at most 78 columns (malloc'd). */
static char *full_list(void)
{
	char *s = xstrdup("  "), *t;
	size_t n = 0, k = 0, col = 2;

	for (size_t i = 0; i < NOPTS; i++)
		n += opt_defs[i].full;
	for (size_t i = 0; i < NOPTS; i++) {
		const char *sep = k == 0 ? "" : k + 1 == n ? " and" : ",";
		size_t len = strlen(opt_defs[i].name) + 2;

		if (!opt_defs[i].full)
			continue;
		k++;
		if (col + strlen(sep) + 1 + len + 1 > 78) {
			t = xasprintf("%s%s\n  --%s", s, sep, opt_defs[i].name);
			col = 2 + len;
		} else {
			t = xasprintf("%s%s%s--%s", s, sep, k == 1 ? "" : " ", opt_defs[i].name);
			col += strlen(sep) + (k == 1 ? 0 : 1) + len;
		}
		free(s);
		s = t;
	}
	return s;
}

/* A command option: one command a command line. */
static int take_command(struct parsed *p, enum command next)
{
	if (p->cmd != CMD_NONE && p->cmd != next)
		return usage_error("%s and %s cannot be used together: give one command", cmd_names[p->cmd],
				   cmd_names[next]);
	if (p->cmd == next && optarg)
		return usage_error("%s given twice: give one disk or size", cmd_names[next]);
	p->cmd = next;
	if (optarg)
		p->arg = optarg;
	return 0;
}

/* An option that is no command: its flag or its argument. */
static int take_option(struct cli_opts *o, struct parsed *p, int c)
{
	char *msg;
	int rc = 0;

	switch (c) {
	case 'j':
	case 'J': o->m.json = true; break;
	case OPT_PREALLOC: o->m.prealloc = true; break;
	case OPT_FORCE: o->m.force = true; break;
	case OPT_IGNORE_MEMORY: o->m.ignore_memory = true; break;
	case OPT_IGNORE_KERNEL_BUG: o->m.ignore_kernel_bug = true; break;
	case OPT_WAIT: o->m.wait = true; break;
	case OPT_DRY_RUN: o->m.dry_run = true; break;
	case 'n': o->list.noheadings = true; break;
	case 'b': o->list.bytes = true; break;
	case OPT_RAW: o->list.raw = true; break;
	case 'q': o->quiet = true; break;
	case OPT_NAGIOS: o->nagios = true; break;
	case OPT_PROMETHEUS: o->prometheus = true; break;
	case OPT_OUTPUT_ALL: list_format_all(&o->list); break;
	case 'o':
		if (list_format_parse(&o->list, optarg, &msg) < 0) {
			rc = usage_error("%s", msg);
			free(msg);
		}
		break;
	case OPT_TIMEOUT: p->timeout_arg = optarg; break;
	case OPT_SIZE: p->size_arg = optarg; break;
	case OPT_BITMAP: p->bitmap_arg = optarg; break;
	case OPT_CONFIG: o->m.config = optarg; break;
	case OPT_MEMBER: o->m.member = optarg; break;
	case OPT_COMPRESS: p->compress_arg = optarg ? optarg : "lz4"; break;
	default: break;
	}
	return rc;
}

/* getopt_long() over argv: the first error, or 0 with p filled. */
static int parse_args(int argc, char **argv, struct cli_opts *o, struct parsed *p)
{
	int c, li = -1, rc = 0;
	size_t d;

	for (size_t i = 0; i < NOPTS; i++)
		long_opts[i] = (struct option){ opt_defs[i].name, opt_defs[i].has_arg, NULL, opt_defs[i].val };
	opterr = 0;
	while ((c = getopt_long(argc, argv, SHORT_OPTS, long_opts, &li)) != -1) {
		if (li >= 0 && c != '?' && c != ':' && !rc)
			rc = check_full_spelling(argv, li);
		li = -1;
		if (!rc)
			rc = check_swallowed(argv, c);
		if (c == ':' || c == '?') {
			if (!rc)
				rc = option_error(argv, c == ':');
			continue;
		}
		d = def_of(c);
		if (d == NOPTS)
			continue;
		/* --compress zstd as well as --compress=zstd: the next word, when it names a compressor */
		if (c == OPT_COMPRESS && !optarg && optind < argc && config_comp_parse(argv[optind]))
			optarg = argv[optind++];
		if (!rc && p->given[d] && opt_defs[d].cmd == CMD_NONE && opt_defs[d].has_arg == required_argument &&
		    c != 'o')
			rc = usage_error("--%s given twice: give one", opt_defs[d].name);
		p->given[d] = true;
		if (!rc)
			rc = opt_defs[d].cmd == CMD_NONE ? take_option(o, p, c) : take_command(p, opt_defs[d].cmd);
	}
	return rc;
}

static int print_help(void)
{
	char *cols = list_columns_help(), *full = full_list();
	int rc;

	rc = fputs(usage_text, stdout) == EOF ||
	     printf("Written in full only (an abbreviation is refused), with no one-letter form:\n%s.\nSee rdctl(8).\n",
		    full) < 0 ||
	     fputs("\nColumns of --list (-o, --output):\n", stdout) == EOF ||
	     fputs(cols, stdout) == EOF || fflush(stdout) == EOF;
	free(cols);
	free(full);
	return rc ? fail(EXIT_RUNTIME, "EIO", "cannot write to standard output") : 0;
}

/* The words after the options: what the command takes. */
static int check_operands(int argc, char **argv, enum command cmd)
{
	int extra = argc;	/* the first word the command does not take */

	if (cmd == CMD_RESIZE && optind >= argc)
		return usage_error("--resize needs a disk and a size, for example rdctl --resize rd0 4G");
	if (cmd == CMD_CREATE && optind >= argc)
		return usage_error("--create needs an array and at least one disk, for example rdctl --create /dev/md0 /dev/sdb /dev/sdc");
	if (cmd == CMD_RESIZE)
		extra = optind + 1;
	else if (cmd != CMD_CREATE && cmd != CMD_LIST && cmd != CMD_RELEASE)
		extra = optind;
	if (extra < argc)
		return usage_error("unexpected argument '%s': see rdctl --help", argv[extra]);
	return 0;
}

/* Each option given against the commands it goes with (opt_defs[]). */
static int check_goes_with(const struct parsed *p)
{
	for (size_t i = 0; i < NOPTS; i++) {
		const struct opt_def *d = &opt_defs[i];
		char *list;
		int rc;

		if (!p->given[i] || goes_with(d, p->cmd))
			continue;
		list = with_list(d);
		rc = usage_error("--%s goes with %s only%s", d->name, list, d->hint ? d->hint : "");
		free(list);
		return rc;
	}
	return 0;
}

/* --member: a disk is its own size, and prealloc is for RAM. */
static int check_member_options(const struct cli_opts *o, const struct parsed *p)
{
	if (!*o->m.member)
		return usage_error("--member needs a path, for example --member /dev/disk/by-id/nvme-...");
	if (p->size_arg && strcmp(p->size_arg, "auto"))
		return usage_error("--size and --member cannot be used together: a member disk is used whole");
	if (o->m.prealloc)
		return usage_error("--prealloc and --member cannot be used together: --prealloc is for a RAM member");
	return 0;
}

/* --compress: a known compressor, for a RAM disk that is not preallocated. */
static int check_compress_options(struct cli_opts *o, const struct parsed *p)
{
	o->m.compress = config_comp_parse(p->compress_arg);
	if (!o->m.compress)
		return usage_error("unknown compressor '%s' for --compress: expected lz4 or zstd", p->compress_arg);
	if (o->m.member)
		return usage_error("--compress and --member cannot be used together: --compress is for a RAM member, a member disk stores its data as it is");
	if (o->m.prealloc)
		return usage_error("--compress and --prealloc cannot be used together: a compressed disk takes memory as its data comes, compressed");
	return 0;
}

/* The checks across options, and the values of --timeout, --size and --bitmap. */
static int check_options(struct cli_opts *o, const struct parsed *p)
{
	const char *table_opt = NULL;
	int rc;

	for (size_t i = 0; i < NOPTS && !table_opt; i++)
		if (p->given[i] && opt_defs[i].with[0] == CMD_LIST && opt_defs[i].with[1] == CMD_NONE)
			table_opt = opt_defs[i].name;
	if (table_opt && o->m.json)
		return usage_error("--%s and --json cannot be used together: the JSON document has every field",
				   table_opt);
	if (o->nagios + o->prometheus + o->m.json + o->quiet > 1)
		return usage_error("--nagios, --prometheus, --json and --quiet cannot be used together: give one output form");
	if (p->timeout_arg && !o->m.wait)
		return usage_error("--timeout goes with --wait only");
	if (p->timeout_arg && (rc = parse_timeout(p->timeout_arg, &o->m.timeout)))
		return rc;
	if (o->m.config && !*o->m.config)
		return usage_error("--config needs a file name");
	if (o->m.dry_run && o->m.wait)
		return usage_error("--dry-run and --wait cannot be used together: a dry run starts nothing to wait for");
	if (p->compress_arg && (rc = check_compress_options(o, p)))
		return rc;
	if (o->m.member && (rc = check_member_options(o, p)))
		return rc;
	if (o->m.force && p->cmd == CMD_CONVERT && !o->m.member)
		return usage_error("--force goes with --convert only with --member: it uses a member disk that holds a signature");
	o->m.auto_size = !p->size_arg || !strcmp(p->size_arg, "auto");
	if (!o->m.auto_size && (rc = parse_size_arg(p->size_arg, &o->m.size)))
		return rc;
	if (p->bitmap_arg && strcmp(p->bitmap_arg, "internal") && strcmp(p->bitmap_arg, "none"))
		return usage_error("invalid --bitmap '%s': expected internal or none", p->bitmap_arg);
	o->m.bitmap_none = p->bitmap_arg && !strcmp(p->bitmap_arg, "none");
	return 0;
}

static int dispatch(int argc, char **argv, const struct cli_opts *o, const struct parsed *p)
{
	uint64_t size = 0;
	unsigned index = 0;
	int rc;

	switch (p->cmd) {
	case CMD_ATTACH:
		rc = parse_size_arg(p->arg, &size);
		return rc ? rc : cmd_attach(o, size);
	case CMD_DETACH:
		rc = disk_arg(p->arg, &index);
		return rc ? rc : cmd_detach(o, index);
	case CMD_RESIZE:
		rc = disk_arg(p->arg, &index);
		if (!rc)
			rc = parse_size_arg(argv[optind], &size);
		return rc ? rc : cmd_resize(o, index, size);
	case CMD_FLUSH:
		rc = disk_arg(p->arg, &index);
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
		return cmd_create(&o->m, p->arg, argv + optind, (size_t)(argc - optind));
	case CMD_CONVERT:
		return cmd_convert(&o->m, p->arg);
	case CMD_REVERT:
		return cmd_revert(&o->m, p->arg);
	case CMD_REFRESH:
		return cmd_refresh(&o->m, p->arg);
	default:	/* none, --help: run() answered them */
		return EXIT_USAGE;
	}
}

static int run(int argc, char **argv, struct cli_opts *o)
{
	struct parsed p = { 0 };
	int rc = parse_args(argc, argv, o, &p);

	if (rc)
		return rc;
	if (p.cmd == CMD_HELP)
		return print_help();
	if (p.cmd == CMD_NONE)
		return usage_error("no command given: see rdctl --help");
	if ((rc = check_operands(argc, argv, p.cmd)) || (rc = check_goes_with(&p)) || (rc = check_options(o, &p)))
		return rc;
	return dispatch(argc, argv, o, &p);
}

int main(int argc, char **argv)
{
	struct cli_opts o = { 0 };
	int rc = run(argc, argv, &o);

	if (rc)
		error_report(o.m.json);
	return rc;
}
