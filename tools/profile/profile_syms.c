// SPDX-License-Identifier: BSD-2-Clause
/*
 * Symbol tables for uprofile(1) and kprofile(1); see profile_syms.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
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

static void set_err(char *err, size_t errlen, const char *path, const char *what)
{
	snprintf(err, errlen, "%s: %s", path, what);
}

/* elf_begin() on path; NULL with a message. */
static Elf *elf_open(const char *path, int *fdp, char *err, size_t errlen)
{
	Elf *e;
	int fd;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		set_err(err, errlen, path, elf_errmsg(-1));
		return NULL;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		set_err(err, errlen, path, strerror(errno));
		return NULL;
	}
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		set_err(err, errlen, path, e ? "not an ELF file" : elf_errmsg(-1));
		if (e)
			elf_end(e);
		close(fd);
		return NULL;
	}
	*fdp = fd;
	return e;
}

static void elf_close(Elf *e, int fd)
{
	elf_end(e);
	close(fd);
}

/* The symbols of one symbol table section; the number added or -1. */
static int add_symtab_section(struct prof_symtab *t, Elf *e, Elf_Scn *scn,
			      const GElf_Shdr *sh, int64_t bias)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t i, n;
	int added = 0;

	if (!d || !sh->sh_entsize)
		return 0;
	n = sh->sh_size / sh->sh_entsize;
	for (i = 0; i < n; i++) {
		GElf_Sym sym;
		const char *name;
		int type;

		if (!gelf_getsym(d, i, &sym))
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		name = elf_strptr(e, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		if (prof_symtab_add(t, sym.st_value + bias, sym.st_size, name,
				    GELF_ST_BIND(sym.st_info) != STB_LOCAL))
			return -1;
		added++;
	}
	return added;
}

int prof_syms_add_elf(struct prof_symtab *t, const char *path, int64_t bias,
		      char *err, size_t errlen)
{
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	GElf_Shdr sh, ssh, dsh;
	int fd, n;
	Elf *e;

	e = elf_open(path, &fd, err, errlen);
	if (!e)
		return -1;
	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB && !symtab) {
			symtab = scn;
			ssh = sh;
		} else if (sh.sh_type == SHT_DYNSYM && !dynsym) {
			dynsym = scn;
			dsh = sh;
		}
	}
	if (symtab)
		n = add_symtab_section(t, e, symtab, &ssh, bias);
	else if (dynsym)
		n = add_symtab_section(t, e, dynsym, &dsh, bias);
	else
		n = 0;
	if (n < 0)
		set_err(err, errlen, path, strerror(ENOMEM));
	elf_close(e, fd);
	return n;
}

int prof_elf_bias(const char *path, uint64_t map_start, uint64_t map_off,
		  int64_t *bias, char *err, size_t errlen)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t i, nph;
	int fd, ret = -1;
	Elf *e;

	e = elf_open(path, &fd, err, errlen);
	if (!e)
		return -1;
	if (elf_getphdrnum(e, &nph)) {
		set_err(err, errlen, path, elf_errmsg(-1));
		goto out;
	}
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		/* The segment whose first page is the mapping's. */
		if ((ph.p_offset & ~(uint64_t)(page - 1)) != map_off)
			continue;
		*bias = (int64_t)(map_start - (ph.p_vaddr - (ph.p_offset - map_off)));
		ret = 0;
		goto out;
	}
	snprintf(err, errlen, "%s: no loadable segment at file offset 0x%" PRIx64,
		 path, map_off);
out:
	elf_close(e, fd);
	return ret;
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

static bool text_of_file(const struct prof_map *m)
{
	return m->exec && m->path[0] == '/';
}

int prof_pick_text(const struct prof_map *m, size_t n, const char *exe,
		   uint64_t max_span, uint64_t *start, uint64_t *end,
		   bool *in_range)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		in_range[i] = false;
		if (!text_of_file(&m[i]) || strcmp(m[i].path, exe))
			continue;
		if (m[i].start < lo)
			lo = m[i].start;
		if (m[i].end > hi)
			hi = m[i].end;
	}
	if (lo >= hi)
		return -1;
	/* Add the nearest other text while the span allows. */
	for (;;) {
		uint64_t best_lo = 0, best_hi = 0, best_span = UINT64_MAX;

		for (i = 0; i < n; i++) {
			uint64_t l, h;

			if (!text_of_file(&m[i]) || (m[i].start >= lo && m[i].end <= hi))
				continue;
			l = m[i].start < lo ? m[i].start : lo;
			h = m[i].end > hi ? m[i].end : hi;
			if (h - l <= max_span && h - l < best_span) {
				best_span = h - l;
				best_lo = l;
				best_hi = h;
			}
		}
		if (best_span == UINT64_MAX)
			break;
		lo = best_lo;
		hi = best_hi;
	}
	for (i = 0; i < n; i++)
		in_range[i] = text_of_file(&m[i]) && m[i].start >= lo && m[i].end <= hi;
	*start = lo;
	*end = hi;
	return 0;
}
