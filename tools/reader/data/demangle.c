/* See demangle.h. C++ names are decoded by libstdc++'s __cxa_demangle, the
 * demangler of the compiler's own runtime (GCC's libiberty code): the
 * reader links libstdc++.so.6 by its file name, which every system with
 * gcc has (gcc depends on the runtime), so the build needs no C++ package.
 * Rust's legacy names are C++ names whose last component is "h" and 16
 * hex digits (a hash of the crate) and whose identifiers spell characters
 * C++ does not allow as "$LT$", "$u20$", ".." (for "::"): the hash is
 * dropped and the escapes written out, as rustfilt shows them. */
#include "demangle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libstdc++'s (the C++ ABI's abi::__cxa_demangle, C linkage). */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* Rust's legacy escapes, each "$NAME$". */
static const struct {
	const char *esc, *text;
} escapes[] = {
	{ "$SP$", "@" }, { "$BP$", "*" }, { "$RF$", "&" }, { "$LT$", "<" }, { "$GT$", ">" },
	{ "$LP$", "(" }, { "$RP$", ")" }, { "$C$", "," },
};

static bool is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strchr("0123456789abcdef", s[i]) || !s[i])
			return false;
	return true;
}

/* The mangled name ends in a Rust hash component: "17h" 16 hex digits "E". */
static bool rust_hash(const char *mangled, size_t len)
{
	return len > 20 && memcmp(mangled + len - 20, "17h", 3) == 0 &&
	       is_hex(mangled + len - 17, 16) && mangled[len - 1] == 'E';
}

/* One "$uXX$" escape at s (an ASCII character by its hex code): its
 * length, the character in *c; 0 when s is none. */
static size_t unicode_escape(const char *s, char *c)
{
	char *end;
	unsigned long v;

	if (strncmp(s, "$u", 2) != 0)
		return 0;
	v = strtoul(s + 2, &end, 16);
	if (*end != '$' || end == s + 2 || v < 0x20 || v > 0x7e)
		return 0;
	*c = (char)v;
	return (size_t)(end + 1 - s);
}

/* Rust's escapes in d (demangled, hash already cut) written out, in place:
 * the text only shrinks. */
static void rust_unescape(char *d)
{
	char *o = d;

	for (const char *s = d; *s;) {
		size_t n = 0;
		char c;

		/* an identifier that began with '$' was given a '_' before it */
		if (s[0] == '_' && s[1] == '$' && (s == d || s[-1] == ':' || s[-1] == '.')) {
			s++;
			continue;
		}
		for (size_t i = 0; !n && i < sizeof(escapes) / sizeof(escapes[0]); i++)
			if (strncmp(s, escapes[i].esc, strlen(escapes[i].esc)) == 0) {
				n = strlen(escapes[i].esc);
				*o++ = escapes[i].text[0];
			}
		if (!n && (n = unicode_escape(s, &c)))
			*o++ = c;
		if (!n && s[0] == '.' && s[1] == '.')
			n = 2, *o++ = ':', *o++ = ':';
		if (!n)
			n = 1, *o++ = *s;
		s += n;
	}
	*o = '\0';
}

bool demangle(const char *name, char *out, size_t outlen)
{
	const char *version = name ? strchr(name, '@') : NULL;
	size_t len = name ? (version ? (size_t)(version - name) : strlen(name)) : 0;
	char *sym, *d;
	int status = -1;

	/* "_Z..." (and "__Z...", as some targets add an underscore); the
	 * version "@@GLIBCXX_3.4" is the linker's, not the compiler's */
	if (!out || !outlen || len < 3 ||
	    !(strncmp(name, "_Z", 2) == 0 || strncmp(name, "__Z", 3) == 0) ||
	    !(sym = strndup(name, len)))
		return false;
	d = __cxa_demangle(sym[1] == '_' ? sym + 1 : sym, NULL, NULL, &status);
	if (!d || status != 0) {
		free(d);
		free(sym);
		return false;
	}
	if (rust_hash(sym, len)) {
		char *cut = strrchr(d, ':');

		if (cut && cut > d && cut[-1] == ':' && cut[1] == 'h')
			cut[-1] = '\0';
		rust_unescape(d);
	}
	free(sym);
	snprintf(out, outlen, "%s%s", d, version ? version : "");
	free(d);
	return true;
}

const char *demangled(const char *name, char *buf, size_t buflen)
{
	return demangle(name, buf, buflen) ? buf : name;
}
