// SPDX-License-Identifier: GPL-2.0
/*
 * fakepmu inject-command parser (see inject_parse.h).  Built into the test
 * PMU module and into the host unit tests.
 */
#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/string.h>
#else
#include <errno.h>
#include <string.h>
#endif

#include "inject_parse.h"

enum {
	KEY_CPU, KEY_EVENT, KEY_COUNT, KEY_MODE, KEY_IP, KEY_CTX, KEY_TID, KEY_CALLER,
	KEY_REPEAT, KEY_ASYNC, NKEYS
};

static const char *const key_names[NKEYS] = {
	[KEY_CPU] = "cpu",
	[KEY_EVENT] = "event",
	[KEY_COUNT] = "count",
	[KEY_MODE] = "mode",
	[KEY_IP] = "ip",
	[KEY_CTX] = "ctx",
	[KEY_TID] = "tid",
	[KEY_CALLER] = "caller",
	[KEY_REPEAT] = "repeat",
	[KEY_ASYNC] = "async",
};

/* "user" (0) or "kernel" (1) in [s, e); -EINVAL otherwise. */
static int parse_mode(const char *s, const char *e)
{
	if (e - s == 4 && !memcmp(s, "user", 4))
		return 0;
	if (e - s == 6 && !memcmp(s, "kernel", 6))
		return 1;
	return -EINVAL;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* Parse [s, e) as an unsigned 64-bit decimal or 0x-hex number. */
static int parse_u64(const char *s, const char *e, unsigned long long *val)
{
	unsigned long long v = 0;
	unsigned int base = 10, digit;

	if (e - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (s == e)
		return -EINVAL;
	for (; s < e; s++) {
		if (*s >= '0' && *s <= '9')
			digit = *s - '0';
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			digit = *s - 'a' + 10;
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			digit = *s - 'A' + 10;
		else
			return -EINVAL;
		if (v > (~0ULL - digit) / base)
			return -EINVAL;
		v = v * base + digit;
	}
	*val = v;
	return 0;
}

static int match_key(const char *s, const char *e)
{
	int k;

	for (k = 0; k < NKEYS; k++)
		if ((size_t)(e - s) == strlen(key_names[k]) &&
		    !memcmp(s, key_names[k], e - s))
			return k;
	return -1;
}

int fakepmu_parse_inject(const char *buf, size_t len, struct fakepmu_inject *out)
{
	struct fakepmu_inject r = { 0 };
	unsigned int seen = 0;
	const char *p = buf, *end = buf + len;
	unsigned long long v;

	if (len > FAKEPMU_INJECT_MAX_LEN)
		return -EINVAL;
	if (len && end[-1] == '\n')
		end--;

	while (p < end) {
		const char *key, *eq, *val;
		int k;

		while (p < end && is_space(*p))
			p++;
		if (p == end)
			break;
		key = p;
		while (p < end && *p != '=' && !is_space(*p))
			p++;
		if (p == end || *p != '=')
			return -EINVAL;
		eq = p++;
		val = p;
		while (p < end && !is_space(*p))
			p++;
		k = match_key(key, eq);
		if (k < 0 || (seen & (1u << k)) || val == p)
			return -EINVAL;
		seen |= 1u << k;

		if (k == KEY_MODE || k == KEY_CTX) {
			int m = parse_mode(val, p);

			if (m < 0)
				return m;
			if (k == KEY_MODE)
				r.kernel = m;
			else
				r.ctx_kernel = m;
			continue;
		}
		if (parse_u64(val, p, &v))
			return -EINVAL;
		switch (k) {
		case KEY_CPU:
			if (v > 0xffffffu)
				return -EINVAL;
			r.cpu = (unsigned int)v;
			break;
		case KEY_EVENT:
			if (v > 0xfffffu)
				return -EINVAL;
			r.event = (unsigned int)v;
			break;
		case KEY_COUNT:
			r.count = v;
			break;
		case KEY_IP:
			r.ip = v;
			break;
		case KEY_TID:
			if (!v || v > 0x3fffffffu)
				return -EINVAL;
			r.tid = (int)v;
			break;
		case KEY_CALLER:
			r.caller = v;
			break;
		case KEY_REPEAT:
			if (!v || v > FAKEPMU_INJECT_MAX_REPEAT)
				return -EINVAL;
			r.repeat = (unsigned int)v;
			break;
		case KEY_ASYNC:
			if (v > 1)
				return -EINVAL;
			r.async = (int)v;
			break;
		}
	}

	if ((seen & ((1u << KEY_CPU) | (1u << KEY_EVENT) | (1u << KEY_COUNT))) !=
	    ((1u << KEY_CPU) | (1u << KEY_EVENT) | (1u << KEY_COUNT)))
		return -EINVAL;
	if (!(seen & (1u << KEY_CTX)))
		r.ctx_kernel = r.kernel;
	if (!(seen & (1u << KEY_REPEAT)))
		r.repeat = 1;
	*out = r;
	return 0;
}
