// SPDX-License-Identifier: GPL-2.0
#include "mirror/checks.h"

#include <errno.h>
#include <stdlib.h>

#include "lib/errors.h"
#include "lib/meminfo.h"
#include "lib/size.h"
#include "status/kernel_bugs.h"

/* Refuse needing more than MemAvailable unless --ignore-memory. */
int check_memory(const struct opts *o, uint64_t need, const char *what)
{
	struct meminfo mi;
	char *n, *a;
	int r;

	if (o->ignore_memory || need == 0)
		return 0;
	r = meminfo_read(&mi);
	if (r < 0 || !mi.has_available)
		return fail_errno(r < 0 ? -r : ENOENT,
				  "cannot read MemAvailable from %s/meminfo to check the size: use --ignore-memory to go ahead anyway",
				  proc_root());
	if (need <= mi.available)
		return 0;
	n = size_mib_str(need);
	a = size_mib_str(mi.available / 1048576 * 1048576);
	r = fail_errno(ENOMEM, "%s needs %s, more than the available memory (%s): use a smaller size, or --ignore-memory",
		       what, n, a);
	free(n);
	free(a);
	return r;
}

/* Refuse on a kernel whose md is known to lose a RAM mirror's data. */
int check_kernel_bug(const struct opts *o, const char *verb)
{
	const char *bug = kernel_md_bug(NULL);

	if (!bug || o->ignore_kernel_bug)
		return 0;
	return fail_errno(EOPNOTSUPP, "refusing --%s on this kernel: %s; upgrade the kernel, or give --ignore-kernel-bug to run anyway",
			  verb, bug);
}
