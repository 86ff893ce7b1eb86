/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Why a configured mirror runs without its fast member, and the command
 * that fixes it: found from its line of the configuration, the module's
 * state for the running kernel, the record of the last --restore and the
 * presence of its member disk (member=PATH). status.c puts the answer in
 * the mirror's reason, brief, fix and member finding.
 */
#ifndef RDCTL_STATUS_WHY_H
#define RDCTL_STATUS_WHY_H

#include "lib/config.h"
#include "rd/status_module.h"
#include "status/status_restore.h"
#include "status/warnings.h"

/* What is known of a mirror with no fast member in its array. */
struct why_input {
	const struct conf_mirror *m;	/* its configuration line, NULL: not configured */
	const char *uuid;		/* the array's UUID, NULL unknown */
	const struct restore_record *rec;
	enum module_state modstate;
	const char *config_path;
};

struct why {
	char *brief;		/* a few words, for the plugin line (allocated) */
	char *reason;		/* the sentence (allocated) */
	char *fix;		/* the command that fixes it (allocated) */
	/*
	 * A member disk's finding at severity: member_absent, member_foreign,
	 * or not_restored when it came back after a restore that found it
	 * absent; NULL for a RAM member (not_restored, said of a RAM member).
	 */
	const char *finding;
	enum severity severity;
};

/* Fill w (zeroed first) with why in's mirror has no fast member. */
void why_missing(const struct why_input *in, struct why *w);

#endif
