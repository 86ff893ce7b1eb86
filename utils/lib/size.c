// SPDX-License-Identifier: GPL-2.0
#include "lib/size.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/util.h"

#define SIZE_ALIGN	4096ULL
#define FRAC_DIGITS	9	/* 10^9 * 1024 still fits in 64 bits */

/*
 * A size read exactly: whole bytes plus frac/den of a byte, den = 10^ndig.
 * A decimal fraction times 1024^n or 1000^n is again a decimal fraction
 * with no more digits, so integers carry it without a rounding error.
 */
struct exact {
	uint64_t whole, frac, den;
	int ndig;
};

static int bad(char **err, char *msg)
{
	*err = msg;
	return -1;
}

/* v *= base; false when the whole part passes UINT64_MAX */
static bool exact_mul(struct exact *v, unsigned base)
{
	uint64_t f = v->frac * base, carry = f / v->den;

	if (v->whole > UINT64_MAX / base)
		return false;
	v->whole *= base;
	v->frac = f % v->den;
	if (v->whole > UINT64_MAX - carry)
		return false;
	v->whole += carry;
	return true;
}

/*
 * The unit after the number, as util-linux's strtosize() reads it: K, M,
 * G, T, P, E alone or with "iB" are powers of 1024, with "B" powers of
 * 1000 (any case). rdctl's own: nothing is MiB, "B" alone is bytes.
 */
static bool parse_unit(const char *u, unsigned *base, int *power)
{
	static const char letters[] = "KMGTPE";
	const char *l = *u ? strchr(letters, toupper((unsigned char)*u)) : NULL;

	if (!*u) {
		*base = 1024;
		*power = 2;
		return true;
	}
	if (!strcasecmp(u, "B")) {
		*base = 1;
		*power = 0;
		return true;
	}
	if (!l)
		return false;
	*power = (int)(l - letters) + 1;
	if (!u[1] || !strcasecmp(u + 1, "iB"))
		*base = 1024;
	else if (!strcasecmp(u + 1, "B"))
		*base = 1000;
	else
		return false;
	return true;
}

/* "1024.1024": the exact value, no trailing zeros; malloc'd */
static char *exact_str(const struct exact *v)
{
	char *s;
	size_t n;

	if (!v->frac)
		return xasprintf("%llu", (unsigned long long)v->whole);
	s = xasprintf("%llu.%0*llu", (unsigned long long)v->whole, v->ndig, (unsigned long long)v->frac);
	for (n = strlen(s); s[n - 1] == '0'; n--)
		s[n - 1] = '\0';
	return s;
}

/* Not a multiple of 4096: say so, and offer the valid sizes either side. */
static int not_aligned(const char *s, const struct exact *v, char **err)
{
	uint64_t lo = v->whole / SIZE_ALIGN * SIZE_ALIGN, hi = lo + SIZE_ALIGN;
	bool has_hi = lo <= UINT64_MAX - SIZE_ALIGN;	/* 16 EiB does not fit */
	char *amount = exact_str(v), *los = size_mib_str(lo), *his = size_mib_str(hi), *near;

	if (lo && has_hi)
		near = xasprintf("the nearest valid sizes are %llu (%s) and %llu (%s)",
				 (unsigned long long)lo, los, (unsigned long long)hi, his);
	else if (lo)
		near = xasprintf("the nearest valid size is %llu (%s)", (unsigned long long)lo, los);
	else
		near = xasprintf("the nearest valid size is %llu (%s)", (unsigned long long)hi, his);
	bad(err, xasprintf("invalid size '%s': %s bytes is not a multiple of 4 KiB (4096 bytes); %s",
			   s, amount, near));
	free(amount);
	free(los);
	free(his);
	free(near);
	return -1;
}

/* The digits of the number into v; p moves past them. NULL or the error. */
static char *parse_number(const char *s, const char **pp, struct exact *v)
{
	const char *p = *pp;

	for (; isdigit((unsigned char)*p); p++) {
		unsigned d = (unsigned)(*p - '0');

		if (v->whole > (UINT64_MAX - d) / 10)
			return xasprintf("invalid size '%s': too large (a size is less than 16 EiB)", s);
		v->whole = v->whole * 10 + d;
	}
	if (*p == ',')	/* never the locale's: a config file is read at boot */
		return xasprintf("invalid size '%s': the decimal point is '.', not ','", s);
	if (*p == '.') {
		if (!isdigit((unsigned char)*++p))
			return xasprintf("invalid size '%s': a decimal point must be followed by a digit", s);
		for (; isdigit((unsigned char)*p); p++) {
			if (v->ndig == FRAC_DIGITS)
				return xasprintf("invalid size '%s': at most %d digits after the decimal point",
						 s, FRAC_DIGITS);
			v->frac = v->frac * 10 + (unsigned)(*p - '0');
			v->den *= 10;
			v->ndig++;
		}
	}
	*pp = p;
	return NULL;
}

int size_parse(const char *s, uint64_t *bytes, char **err)
{
	struct exact v = { .den = 1 };
	const char *p = s;
	unsigned base;
	int power;
	char *msg;

	*err = NULL;
	if (!s || !*s)
		return bad(err, xstrdup("empty size: give a size such as 2048 (MiB) or 2G"));
	if (*s == '-')
		return bad(err, xasprintf("invalid size '%s': a size cannot be negative", s));
	if (*s == '.')
		return bad(err, xasprintf("invalid size '%s': a size starts with a digit (write 0%s)", s, s));
	if (!isdigit((unsigned char)*s))
		return bad(err, xasprintf("invalid size '%s': a size starts with a digit, for example 2048 (MiB) or 2G", s));
	msg = parse_number(s, &p, &v);
	if (msg)
		return bad(err, msg);
	if (!parse_unit(p, &base, &power))
		return bad(err, xasprintf("invalid size '%s': unknown unit '%s' (K, M, G, T, P, E or KiB, MiB, ...: "
					  "powers of 1024; KB, MB, ...: powers of 1000; B: bytes; none: MiB)", s, p));
	for (int i = 0; i < power; i++)
		if (!exact_mul(&v, base))
			return bad(err, xasprintf("invalid size '%s': too large (a size is less than 16 EiB)", s));
	if (!v.whole && !v.frac)
		return bad(err, xasprintf("invalid size '%s': the size must be larger than 0", s));
	if (v.frac || v.whole % SIZE_ALIGN)
		return not_aligned(s, &v, err);
	*bytes = v.whole;
	return 0;
}

char *size_mib_str(uint64_t bytes)
{
	if (bytes % (1ULL << 20) == 0)
		return xasprintf("%llu MiB", (unsigned long long)(bytes >> 20));
	if (bytes % 1024 == 0)
		return xasprintf("%llu KiB", (unsigned long long)(bytes >> 10));
	return xasprintf("%llu B", (unsigned long long)bytes);
}

char *size_human(uint64_t bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	unsigned u = 0;
	uint64_t whole = bytes, rem = 0;

	while (whole >= 1024 && u < 6) {
		rem = whole % 1024;
		whole /= 1024;
		u++;
	}
	if (u == 0)
		return xasprintf("%llu B", (unsigned long long)bytes);
	if (rem == 0 && bytes % (1ULL << (10 * u)) == 0)
		return xasprintf("%llu %s", (unsigned long long)whole, units[u]);
	{
		/* one decimal, rounded to nearest */
		unsigned tenth = (unsigned)((rem * 10 + 512) / 1024);

		if (tenth >= 10) {
			whole++;
			tenth -= 10;
		}
		return xasprintf("%llu.%u %s", (unsigned long long)whole, tenth, units[u]);
	}
}
