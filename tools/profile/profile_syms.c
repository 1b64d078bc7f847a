// SPDX-License-Identifier: BSD-2-Clause
/*
 * Symbol tables for uprofile(1) and kprofile(1); see profile_syms.h.
 */
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile_syms.h"

void prof_symtab_init(struct prof_symtab *t)
{
	memset(t, 0, sizeof(*t));
}

void prof_symtab_free(struct prof_symtab *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->syms[i].name);
	free(t->syms);
	for (i = 0; i < t->nmods; i++)
		free(t->mods[i].unknown);
	free(t->mods);
	prof_symtab_init(t);
}

int prof_symtab_add(struct prof_symtab *t, uint64_t addr, uint64_t size,
		    const char *name, bool global)
{
	struct prof_sym *s;

	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;

		s = reallocarray(t->syms, cap, sizeof(*s));
		if (!s)
			return -1;
		t->syms = s;
		t->cap = cap;
	}
	s = &t->syms[t->n];
	s->name = strdup(name);
	if (!s->name)
		return -1;
	s->addr = addr;
	s->size = size;
	s->global = global;
	t->n++;
	t->sorted = false;
	return 0;
}

/*
 * Address; at one address the preferred symbol first: global, then with
 * the fewest leading underscores (memcpy before __memcpy), then by name.
 */
static int sym_cmp(const void *a, const void *b)
{
	const struct prof_sym *x = a, *y = b;
	size_t ux, uy;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->global != y->global)
		return x->global ? -1 : 1;
	ux = strspn(x->name, "_");
	uy = strspn(y->name, "_");
	if (ux != uy)
		return ux < uy ? -1 : 1;
	return strcmp(x->name, y->name);
}

void prof_symtab_sort(struct prof_symtab *t)
{
	size_t i, j;

	if (t->sorted)
		return;
	if (t->n)
		qsort(t->syms, t->n, sizeof(*t->syms), sym_cmp);
	/* Keep the first of each address; it keeps the largest size seen. */
	for (i = 0, j = 0; i < t->n; i++) {
		if (j && t->syms[j - 1].addr == t->syms[i].addr) {
			if (t->syms[i].size > t->syms[j - 1].size)
				t->syms[j - 1].size = t->syms[i].size;
			free(t->syms[i].name);
			continue;
		}
		t->syms[j++] = t->syms[i];
	}
	t->n = j;
	t->sorted = true;
}

const struct prof_sym *prof_symtab_lookup(struct prof_symtab *t, uint64_t addr)
{
	size_t lo = 0, hi, i;
	const struct prof_sym *s;

	prof_symtab_sort(t);
	hi = t->n;
	/* The last symbol at or below addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	i = lo - 1;
	s = &t->syms[i];
	if (s->size)
		return addr - s->addr < s->size ? s : NULL;
	return s;
}

int prof_symtab_add_module(struct prof_symtab *t, uint64_t start, uint64_t end,
			   const char *unknown)
{
	struct prof_module *m = reallocarray(t->mods, t->nmods + 1, sizeof(*m));

	if (!m)
		return -1;
	t->mods = m;
	m = &t->mods[t->nmods];
	m->unknown = strdup(unknown);
	if (!m->unknown)
		return -1;
	m->start = start;
	m->end = end;
	t->nmods++;
	return 0;
}

const struct prof_module *prof_symtab_module(const struct prof_symtab *t,
					     uint64_t addr)
{
	size_t i;

	for (i = 0; i < t->nmods; i++)
		if (addr >= t->mods[i].start && addr < t->mods[i].end)
			return &t->mods[i];
	return NULL;
}

/* What libdwfl reports an object as, for the profile: a base name, or [vdso]. */
static const char *object_label(const char *name)
{
	const char *slash;

	if (!strncmp(name, "[vdso", 5))
		return "[vdso]";
	slash = strrchr(name, '/');
	return slash ? slash + 1 : name;
}

/* The state of one symbol pass: the table, and how the names are made. */
struct add_ctx {
	struct prof_symtab *t;
	const char *exe;	/* the executable's path: its functions keep their names */
	int added;
	bool nomem;
};

/* Add the function symbols and the extent of one libdwfl module. */
static int add_module(Dwfl_Module *mod, void **userdata, const char *name,
		      Dwarf_Addr base, void *arg)
{
	struct add_ctx *c = arg;
	const char *label = object_label(name);
	bool main = c->exe && !strcmp(name, c->exe);
	Dwarf_Addr low, high;
	char buf[4352];
	int i, n;

	(void)userdata;
	(void)base;
	dwfl_module_info(mod, NULL, &low, &high, NULL, NULL, NULL, NULL);
	if (main)
		snprintf(buf, sizeof(buf), "%s", "(unknown)");
	else
		snprintf(buf, sizeof(buf), "(unknown in %s)", label);
	if (prof_symtab_add_module(c->t, low, high, buf))
		goto nomem;
	/* .symtab of the file or of its debug file, else .dynsym (libdwfl's choice). */
	n = dwfl_module_getsymtab(mod);
	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *sname;
		int type;

		sname = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, NULL, NULL);
		if (!sname || !*sname)
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		if (main)
			snprintf(buf, sizeof(buf), "%s", sname);
		else
			snprintf(buf, sizeof(buf), "%s (%s)", sname, label);
		if (prof_symtab_add(c->t, addr, sym.st_size, buf,
				    GELF_ST_BIND(sym.st_info) != STB_LOCAL))
			goto nomem;
		c->added++;
	}
	return DWARF_CB_OK;
nomem:
	c->nomem = true;
	return DWARF_CB_ABORT;
}

static char *standard_debuginfo_path;	/* NULL: libdwfl's default */

static Dwfl *dwfl_open(const Dwfl_Callbacks *cb, char *err, size_t errlen)
{
	Dwfl *d = dwfl_begin(cb);

	if (!d)
		snprintf(err, errlen, "libdwfl: %s", dwfl_errmsg(-1));
	return d;
}

int prof_syms_add_proc(struct prof_symtab *t, int pid, const char *exe,
		       char *err, size_t errlen)
{
	static const Dwfl_Callbacks cb = {
		.find_elf = dwfl_linux_proc_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.debuginfo_path = &standard_debuginfo_path,
	};
	struct add_ctx c = { .t = t, .exe = exe };
	size_t nmods = t->nmods;
	Dwfl *d;
	int e;

	d = dwfl_open(&cb, err, errlen);
	if (!d)
		return -1;
	dwfl_report_begin(d);
	e = dwfl_linux_proc_report(d, pid);
	if (dwfl_report_end(d, NULL, NULL) || e) {
		snprintf(err, errlen, "/proc/%d/maps: %s", pid,
			 e > 0 ? strerror(e) : dwfl_errmsg(-1));
		dwfl_end(d);
		return -1;
	}
	dwfl_getmodules(d, add_module, &c, 0);
	dwfl_end(d);
	if (c.nomem) {
		snprintf(err, errlen, "symbols of process %d: %s", pid, strerror(ENOMEM));
		return -1;
	}
	return (int)(t->nmods - nmods);
}

int prof_syms_add_file(struct prof_symtab *t, const char *path, uint64_t base,
		       bool main, const char *debuginfo_path, char *err,
		       size_t errlen)
{
	char *dpath = debuginfo_path ? strdup(debuginfo_path) : NULL;
	const Dwfl_Callbacks cb = {
		.find_elf = dwfl_linux_proc_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.debuginfo_path = debuginfo_path ? &dpath : &standard_debuginfo_path,
	};
	struct add_ctx c = { .t = t, .exe = main ? path : NULL };
	Dwfl *d;

	if (debuginfo_path && !dpath) {
		snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
		return -1;
	}
	d = dwfl_open(&cb, err, errlen);
	if (!d) {
		free(dpath);
		return -1;
	}
	dwfl_report_begin(d);
	if (!dwfl_report_elf(d, path, path, -1, base, false) ||
	    dwfl_report_end(d, NULL, NULL)) {
		snprintf(err, errlen, "%s: %s", path, dwfl_errmsg(-1));
		dwfl_end(d);
		free(dpath);
		return -1;
	}
	dwfl_getmodules(d, add_module, &c, 0);
	dwfl_end(d);
	free(dpath);
	if (c.nomem) {
		snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
		return -1;
	}
	return c.added;
}

int prof_syms_add_kallsyms(struct prof_symtab *t, FILE *f, uint64_t *stext,
			   uint64_t *etext)
{
	char line[512], name[256], type;
	unsigned long long addr;
	int n = 0;

	*stext = *etext = 0;
	while (fgets(line, sizeof(line), f)) {
		/* Module symbols ("name\t[module]") are outside the kernel's text. */
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 ||
		    strchr(line, '['))
			continue;
		if (!strcmp(name, "_stext"))
			*stext = addr;
		else if (!strcmp(name, "_etext"))
			*etext = addr;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (prof_symtab_add(t, addr, 0, name, type == 'T' || type == 'W'))
			return -1;
		n++;
	}
	return ferror(f) ? -1 : n;
}

int prof_parse_maps_line(const char *line, struct prof_map *m)
{
	unsigned long long start, end, off;
	char perms[8];
	int pos = 0;

	if (sscanf(line, "%llx-%llx %7s %llx %*s %*s%n", &start, &end, perms,
		   &off, &pos) != 4 || !pos)
		return -1;
	m->start = start;
	m->end = end;
	m->off = off;
	m->exec = strchr(perms, 'x') != NULL;
	line += pos;
	line += strspn(line, " \t");
	snprintf(m->path, sizeof(m->path), "%s", line);
	m->path[strcspn(m->path, "\n")] = '\0';
	return 0;
}

/* A mapping whose samples a user profile can hold: a file's text or the vDSO. */
static bool user_text(const struct prof_map *m)
{
	return m->exec && (m->path[0] == '/' || !strcmp(m->path, "[vdso]"));
}

static int map_cmp(const void *a, const void *b)
{
	const struct prof_map *x = *(const struct prof_map *const *)a;
	const struct prof_map *y = *(const struct prof_map *const *)b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int prof_pick_ranges(const struct prof_map *m, size_t n, const char *exe,
		     uint64_t max_span, struct prof_range *out, size_t max_out,
		     size_t *left)
{
	const struct prof_map **v;
	struct prof_range *r;
	size_t i, nv = 0, nr = 0, first = SIZE_MAX, k;
	int ret = -1;

	*left = 0;
	v = calloc(n + 1, sizeof(*v));
	r = calloc(n + 1, sizeof(*r));
	if (!v || !r)
		goto out;
	for (i = 0; i < n; i++)
		if (user_text(&m[i]))
			v[nv++] = &m[i];
	if (nv)
		qsort(v, nv, sizeof(*v), map_cmp);
	/* Group in address order while the span allows. */
	for (i = 0; i < nv; i++) {
		if (nr && v[i]->end - r[nr - 1].start <= max_span &&
		    v[i]->start >= r[nr - 1].start) {
			if (v[i]->end > r[nr - 1].end)
				r[nr - 1].end = v[i]->end;
		} else {
			r[nr].start = v[i]->start;
			r[nr].end = v[i]->end;
			nr++;
		}
		if (!strcmp(v[i]->path, exe) && first == SIZE_MAX)
			first = nr - 1;
	}
	if (first == SIZE_MAX)
		goto out;
	/* The executable's range first, then the others in address order. */
	out[0] = r[first];
	k = 1;
	for (i = 0; i < nr; i++) {
		if (i == first)
			continue;
		if (k < max_out)
			out[k++] = r[i];
		else
			(*left)++;
	}
	ret = (int)(max_out ? k : 0);
out:
	free(v);
	free(r);
	return ret;
}
