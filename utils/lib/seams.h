/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tests' seams: stand-in roots for /sys, /proc and /dev, a fake
 * mdadm, a stand-in kernel release, shorter timeouts, a stop after a given
 * step. What must hold: the rdctl a package installs honours none of them.
 * Every RDCTL_* variable is read through seam(), and seam() reads the
 * environment only in the test build (lib/seams.c compiled with
 * RDCTL_TEST_SEAMS into build/test-bin/rdctl, the unit tests and the
 * fuzzers); in rdctl itself it answers NULL, as if the variable were unset.
 * test/lint checks that nothing else in utils/ calls getenv().
 */
#ifndef RDCTL_SEAMS_H
#define RDCTL_SEAMS_H

/* The value of the environment variable name (an RDCTL_* seam), or NULL. */
const char *seam(const char *name);

/*
 * An environment variable a user may set (rdctl(8), ENVIRONMENT: only
 * RDCTL_RESTORE_TIMEOUT): read in every build.
 */
const char *user_env(const char *name);

#endif
