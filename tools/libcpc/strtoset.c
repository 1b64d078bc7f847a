// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * cpc_strtoset(): the event specifications of cpustat(8) and cputrack(1),
 * which illumos keeps in its commands (strtoset.c) and pmcompat exports.
 * In an object of its own, so that a program carrying illumos' strtoset.c
 * links against the static libcpc.a too.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcpc_impl.h"

#define STS_MAX_ATTRS	16

struct sts_attr {
	char name[CPC_MAX_ATTR_LEN];
	uint64_t val;
	int pic;			/* -1: every counter */
};

struct sts_pic {
	const char *event;		/* into the copy of the spec; NULL: unused */
	int nouser, sys;
};

/* A parse error, through the handler (subcode 0) or on stderr. */
static void sts_err(cpc_t *cpc, const char *fmt, ...)
{
	cpc_errhndlr_t *errfn = __cpc_errhndlr(cpc);
	va_list ap;

	va_start(ap, fmt);
	if (errfn) {
		errfn("cpc_strtoset", 0, fmt, ap);
	} else {
		fprintf(stderr, "libcpc: cpc_strtoset: ");
		vfprintf(stderr, fmt, ap);
	}
	va_end(ap);
}

/* An event a counter can count: a name, or a non-zero raw code. */
static int sts_event_ok(cpc_t *cpc, const char *event)
{
	char *end;
	long code;

	if (!*event || strlen(event) >= CPC_MAX_EVENT_LEN ||
	    !__cpc_event_known(cpc, event))
		return 0;
	errno = 0;
	code = strtol(event, &end, 0);
	if (!errno && *end == '\0' && code == 0)
		return 0;
	return 1;
}

/* "name" followed by a decimal counter number: the number, else -1. */
static int sts_suffix(const char *tok, const char *name)
{
	size_t n = strlen(name);
	const char *p = tok + n;
	char *end;
	long v;

	if (strncmp(tok, name, n) || !*p || *p < '0' || *p > '9')
		return -1;
	errno = 0;
	v = strtol(p, &end, 10);
	if (errno || *end || v > INT32_MAX)
		return -1;
	return (int)v;
}

/* An attribute name with an optional counter number: the name's length, pic. */
static int sts_attr_name(cpc_t *cpc, const char *tok, size_t *len, int *pic)
{
	char name[CPC_MAX_ATTR_LEN];
	size_t n = strlen(tok), k = n;

	if (!n || n >= sizeof(name))
		return 0;
	while (k > 0 && tok[k - 1] >= '0' && tok[k - 1] <= '9')
		k--;
	memcpy(name, tok, k);
	name[k] = '\0';
	if (!k || !strcmp(name, "picnum") || !__cpc_attr_known(cpc, name))
		return 0;
	*len = k;
	*pic = k == n ? -1 : atoi(tok + k);
	return 1;
}

CPC_EXPORT cpc_set_t *cpc_strtoset(cpc_t *cpc, const char *spec, int smt)
{
	struct sts_attr attrs[STS_MAX_ATTRS];
	struct sts_pic pics[64];
	int npic, highest = -1, nattrs = 0, nouser = 0, sys = 0, i, n;
	cpc_set_t *set = NULL;
	char *copy, *tok, *save = NULL;

	(void)smt;	/* Linux shares no counters between SMT siblings */
	if (!cpc || !spec) {
		errno = EINVAL;
		return NULL;
	}
	npic = (int)(cpc_npic(cpc) < 64 ? cpc_npic(cpc) : 64);
	memset(pics, 0, sizeof(pics));
	copy = strdup(spec);
	if (!copy)
		return NULL;
	if (!*copy) {
		sts_err(cpc, "bad token '%s'\n", spec);
		goto fail;
	}
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *val = strchr(tok, '=');
		size_t alen;
		int pic;

		if (val)
			*val++ = '\0';
		pic = sts_suffix(tok, "pic");
		if (pic >= 0) {
			if (pic >= npic) {
				sts_err(cpc, "bad token '%s'\n", tok);
				goto fail;
			}
			if (!val || !*val) {
				sts_err(cpc, "missing 'pic%d' value\n", pic);
				goto fail;
			}
			if (pics[pic].event) {
				sts_err(cpc, "repeated 'pic%d' token\n", pic);
				goto fail;
			}
			if (!sts_event_ok(cpc, val) || !__cpc_pic_counts(cpc, pic, val)) {
				sts_err(cpc, "pic%d cannot measure event '%s' on this cpu\n",
					pic, val);
				goto fail;
			}
			pics[pic].event = val;
			if (pic > highest)
				highest = pic;
			continue;
		}
		if (!val && !strcmp(tok, "nouser")) {
			nouser = 1;
			continue;
		}
		if (!val && !strcmp(tok, "sys")) {
			sys = 1;
			continue;
		}
		pic = sts_suffix(tok, "nouser");
		if (!val && pic >= 0 && pic < npic) {
			pics[pic].nouser = 1;
			continue;
		}
		pic = sts_suffix(tok, "sys");
		if (!val && pic >= 0 && pic < npic) {
			pics[pic].sys = 1;
			continue;
		}
		if (sts_attr_name(cpc, tok, &alen, &pic)) {
			long long v = 1;
			char *end;

			if (pic >= npic || nattrs >= STS_MAX_ATTRS) {
				sts_err(cpc, "bad token '%s'\n", tok);
				goto fail;
			}
			if (val) {
				errno = 0;
				v = strtoll(val, &end, 0);
				if (!*val || *end || errno) {
					tok[alen] = '\0';
					sts_err(cpc, "invalid value '%s' for attribute '%s'\n",
						val, tok);
					goto fail;
				}
			}
			memcpy(attrs[nattrs].name, tok, alen);
			attrs[nattrs].name[alen] = '\0';
			attrs[nattrs].val = (uint64_t)v;
			attrs[nattrs].pic = pic;
			nattrs++;
			continue;
		}
		/*
		 * A bare event: the first counter after the highest one
		 * assigned that can count it.
		 */
		if (!val && sts_event_ok(cpc, tok)) {
			for (pic = highest + 1; pic < npic; pic++)
				if (__cpc_pic_counts(cpc, pic, tok))
					break;
			if (pic < npic) {
				pics[pic].event = tok;
				highest = pic;
				continue;
			}
		}
		if (val)
			val[-1] = '=';
		sts_err(cpc, "bad token '%s'\n", tok);
		goto fail;
	}

	set = cpc_set_create(cpc);
	if (!set)
		goto fail;
	for (i = 0, n = 0; i < npic; i++) {
		cpc_attr_t ra[STS_MAX_ATTRS + 1];
		uint_t flags = 0, nra = 0;
		int j, k;

		if (!pics[i].event)
			continue;
		if (!nouser && !pics[i].nouser)
			flags |= CPC_COUNT_USER;
		if (sys || pics[i].sys)
			flags |= CPC_COUNT_SYSTEM;
		ra[nra].ca_name = "picnum";
		ra[nra++].ca_val = (uint64_t)i;
		/* The last value given for a name wins; numbered over plain. */
		for (j = 0; j < nattrs; j++) {
			if (attrs[j].pic != -1 && attrs[j].pic != i)
				continue;
			for (k = 1; k < (int)nra; k++)
				if (!strcmp(ra[k].ca_name, attrs[j].name))
					break;
			if (k < (int)nra && attrs[j].pic == -1 && ra[k].ca_val != attrs[j].val) {
				/* A plain one does not override a numbered one. */
				int numbered = 0, m;

				for (m = 0; m < j; m++)
					if (attrs[m].pic == i && !strcmp(attrs[m].name, attrs[j].name))
						numbered = 1;
				if (numbered)
					continue;
			}
			ra[k].ca_name = attrs[j].name;
			ra[k].ca_val = attrs[j].val;
			if (k == (int)nra)
				nra++;
		}
		if (cpc_set_add_request(cpc, set, pics[i].event, 0, flags, nra, ra) < 0)
			goto fail;
		n++;
	}
	if (!n) {
		sts_err(cpc, "bad token '%s'\n", spec);
		goto fail;
	}
	free(copy);
	return set;
fail:
	if (set)
		cpc_set_destroy(cpc, set);
	free(copy);
	errno = EINVAL;
	return NULL;
}
