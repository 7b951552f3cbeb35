/*
 * canon.c: canonical JSON, its hash and the diff of two values (the rules are in canon.h and
 * docs/trust.md).
 */
#include "lib/canon.h"

#include "lib/sha256.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How many characters of each side a diff line shows. */
#define CANON_CUT 60
/* 2^53: the integers a double holds exactly, all of them. */
#define CANON_EXACT 9007199254740992.0

/* A member and its place in its object, so that sorting keeps equal keys in order. */
struct canon_member {
    const cJSON *item;
    size_t at;
};

static int canon_member_cmp(const void *a, const void *b)
{
    const struct canon_member *x = a, *y = b;
    int c = strcmp(x->item->string, y->item->string);

    if (c != 0)
        return c;
    return x->at < y->at ? -1 : x->at > y->at;
}

/* The members of obj sorted by key; *out owned by the caller (NULL when empty). */
static int canon_sorted(const cJSON *obj, struct canon_member **out, size_t *n)
{
    size_t count = 0;
    const cJSON *c;

    *out = NULL;
    *n = 0;
    cJSON_ArrayForEach(c, obj)
    {
        if (c->string == NULL)
            return STATUS_INVALID;
        count++;
    }
    if (count == 0)
        return STATUS_OK;
    *out = malloc(count * sizeof(**out));
    if (*out == NULL)
        return STATUS_NOMEM;
    cJSON_ArrayForEach(c, obj)
    {
        (*out)[*n] = (struct canon_member){c, *n};
        (*n)++;
    }
    qsort(*out, count, sizeof(**out), canon_member_cmp);
    return STATUS_OK;
}

int canon_append_string(struct strbuf *sb, const char *s)
{
    static const char hex[] = "0123456789abcdef";

    (void)strbuf_addch(sb, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
        const char *esc = NULL;

        switch (*p) {
        case '"':
            esc = "\\\"";
            break;
        case '\\':
            esc = "\\\\";
            break;
        case '\b':
            esc = "\\b";
            break;
        case '\f':
            esc = "\\f";
            break;
        case '\n':
            esc = "\\n";
            break;
        case '\r':
            esc = "\\r";
            break;
        case '\t':
            esc = "\\t";
            break;
        default:
            break;
        }
        if (esc != NULL)
            (void)strbuf_addstr(sb, esc);
        else if (*p < 0x20)
            (void)strbuf_addf(sb, "\\u00%c%c", hex[*p >> 4], hex[*p & 15]);
        else
            (void)strbuf_addch(sb, (char)*p);
    }
    (void)strbuf_addch(sb, '"');
    return sb->nomem ? STATUS_NOMEM : STATUS_OK;
}

static void canon_number(struct strbuf *sb, double d)
{
    char text[40];

    if (d != d || d > 1.7976931348623157e308 || d < -1.7976931348623157e308) {
        (void)strbuf_addstr(sb, "null");
        return;
    }
    if (d >= -CANON_EXACT && d <= CANON_EXACT && d == (double)(long long)d) {
        (void)strbuf_addf(sb, "%lld", (long long)d);
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(text, sizeof(text), "%.*g", prec, d);
        if (strtod(text, NULL) == d)
            break;
    }
    (void)strbuf_addstr(sb, text);
}

static int canon_object(struct strbuf *sb, const cJSON *obj)
{
    struct canon_member *m;
    size_t n;
    int status = canon_sorted(obj, &m, &n);

    (void)strbuf_addch(sb, '{');
    for (size_t i = 0; i < n && status == STATUS_OK; i++) {
        if (i > 0)
            (void)strbuf_addch(sb, ',');
        status = canon_append_string(sb, m[i].item->string);
        (void)strbuf_addch(sb, ':');
        if (status == STATUS_OK)
            status = canon_append(sb, m[i].item);
    }
    (void)strbuf_addch(sb, '}');
    free(m);
    return status != STATUS_OK ? status : sb->nomem ? STATUS_NOMEM : STATUS_OK;
}

int canon_append(struct strbuf *sb, const cJSON *item)
{
    const cJSON *c;
    int status = STATUS_OK;

    if (item == NULL)
        return STATUS_INVALID;
    switch (item->type & 0xff) {
    case cJSON_NULL:
        (void)strbuf_addstr(sb, "null");
        break;
    case cJSON_True:
        (void)strbuf_addstr(sb, "true");
        break;
    case cJSON_False:
        (void)strbuf_addstr(sb, "false");
        break;
    case cJSON_Number:
        canon_number(sb, item->valuedouble);
        break;
    case cJSON_String:
        return item->valuestring == NULL ? STATUS_INVALID
                                         : canon_append_string(sb, item->valuestring);
    case cJSON_Array:
        (void)strbuf_addch(sb, '[');
        cJSON_ArrayForEach(c, item)
        {
            if (c != item->child)
                (void)strbuf_addch(sb, ',');
            status = canon_append(sb, c);
            if (status != STATUS_OK)
                return status;
        }
        (void)strbuf_addch(sb, ']');
        break;
    case cJSON_Object:
        return canon_object(sb, item);
    default:
        return STATUS_INVALID;
    }
    return sb->nomem ? STATUS_NOMEM : STATUS_OK;
}

int canon_hash(const cJSON *item, char hex[CANON_HEX_BYTES])
{
    struct strbuf sb = STRBUF_INIT;
    unsigned char digest[SHA256_BYTES];
    struct sha256 c;
    int status = canon_append(&sb, item);

    if (status == STATUS_OK) {
        sha256_init(&c);
        sha256_update(&c, sb.buf, sb.len);
        sha256_final(&c, digest);
        sha256_hex(digest, SHA256_BYTES, hex);
    }
    strbuf_release(&sb);
    return status;
}

int canon_equal(const cJSON *a, const cJSON *b)
{
    struct strbuf x = STRBUF_INIT, y = STRBUF_INIT;
    int same = canon_append(&x, a) == STATUS_OK && canon_append(&y, b) == STATUS_OK &&
               x.len == y.len && memcmp(x.buf, y.buf, x.len) == 0;

    strbuf_release(&x);
    strbuf_release(&y);
    return same;
}

/* --- Diff. --- */

struct canon_diff_run {
    struct strbuf *sb;
    struct strbuf path; /* the path of the member being compared */
    int max;
    int count;
};

/* One side's canonical text, cut to CANON_CUT characters (never inside a UTF-8 sequence). */
static void canon_side(struct strbuf *sb, const cJSON *item)
{
    struct strbuf text = STRBUF_INIT;
    size_t cut;

    if (canon_append(&text, item) != STATUS_OK) {
        (void)strbuf_addstr(sb, "(?)");
        strbuf_release(&text);
        return;
    }
    cut = text.len;
    if (cut > CANON_CUT) {
        cut = CANON_CUT;
        while (cut > 0 && ((unsigned char)text.buf[cut] & 0xc0) == 0x80)
            cut--;
    }
    (void)strbuf_add(sb, text.buf, cut);
    if (cut < text.len)
        (void)strbuf_addstr(sb, "...");
    strbuf_release(&text);
}

static void canon_line(struct canon_diff_run *r, const cJSON *was, const cJSON *now)
{
    if (++r->count > r->max)
        return;
    (void)strbuf_addstr(r->sb, r->path.len > 0 ? r->path.buf : "(the whole value)");
    if (now == NULL) {
        (void)strbuf_addstr(r->sb, ": removed\n");
        return;
    }
    if (was == NULL) {
        (void)strbuf_addstr(r->sb, ": added\n");
        return;
    }
    (void)strbuf_addstr(r->sb, ": ");
    canon_side(r->sb, was);
    (void)strbuf_addstr(r->sb, " -> ");
    canon_side(r->sb, now);
    (void)strbuf_addch(r->sb, '\n');
}

static int canon_diff_at(struct canon_diff_run *r, const cJSON *was, const cJSON *now);

/* Compare the member of each side under key (either may be NULL). */
static int canon_diff_member(struct canon_diff_run *r, const char *key, const cJSON *was,
                             const cJSON *now)
{
    size_t len = r->path.len;
    int status = STATUS_OK;

    if (len > 0)
        (void)strbuf_addch(&r->path, '.');
    (void)strbuf_addstr(&r->path, key);
    if (r->path.nomem)
        return STATUS_NOMEM;
    if (was == NULL || now == NULL)
        canon_line(r, was, now);
    else
        status = canon_diff_at(r, was, now);
    r->path.len = len;
    r->path.buf[len] = '\0';
    return status;
}

/* Two objects, member by member in key order. */
static int canon_diff_objects(struct canon_diff_run *r, const cJSON *was, const cJSON *now)
{
    struct canon_member *a = NULL, *b = NULL;
    size_t na = 0, nb = 0, i = 0, j = 0;
    int status = canon_sorted(was, &a, &na);

    if (status == STATUS_OK)
        status = canon_sorted(now, &b, &nb);
    while (status == STATUS_OK && (i < na || j < nb)) {
        int c = i == na ? 1 : j == nb ? -1 : strcmp(a[i].item->string, b[j].item->string);

        if (c < 0) {
            status = canon_diff_member(r, a[i].item->string, a[i].item, NULL);
            i++;
        } else if (c > 0) {
            status = canon_diff_member(r, b[j].item->string, NULL, b[j].item);
            j++;
        } else {
            status = canon_diff_member(r, a[i].item->string, a[i].item, b[j].item);
            i++;
            j++;
        }
    }
    free(a);
    free(b);
    return status;
}

static int canon_diff_at(struct canon_diff_run *r, const cJSON *was, const cJSON *now)
{
    if (cJSON_IsObject(was) && cJSON_IsObject(now))
        return canon_diff_objects(r, was, now);
    if (!canon_equal(was, now))
        canon_line(r, was, now);
    return STATUS_OK;
}

int canon_diff(struct strbuf *sb, const cJSON *was, const cJSON *now, int max_lines)
{
    struct canon_diff_run r = {.sb = sb, .path = STRBUF_INIT, .max = max_lines};
    int status = canon_diff_at(&r, was, now);

    strbuf_release(&r.path);
    if (status == STATUS_OK && r.count > r.max)
        (void)strbuf_addf(sb, "... and %d more\n", r.count - r.max);
    if (status == STATUS_OK && sb->nomem)
        status = STATUS_NOMEM;
    return status == STATUS_OK ? r.count : status;
}
