#include "lib/number.h"

#include "lib/status.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The shortest of %.15g, %.16g and %.17g that reads back to d (%.17g always does) into buf;
 * returns 1 when that is %.15g, which cJSON prints itself. */
static int number_text(double d, char *buf, size_t size)
{
    int digits;

    for (digits = 15; digits < 17; digits++) {
        snprintf(buf, size, "%1.*g", digits, d);
        if (strtod(buf, NULL) == d)
            break;
    }
    if (digits == 17)
        snprintf(buf, size, "%1.17g", d);
    return digits == 15;
}

/* Whether cJSON would print this number exactly. */
static int number_is_exact(const cJSON *node)
{
    char buf[40];

    return !isfinite(node->valuedouble) || number_text(node->valuedouble, buf, sizeof(buf));
}

/* Whether some number of tree would lose digits. */
static int number_any_inexact(const cJSON *tree)
{
    if (cJSON_IsNumber(tree))
        return !number_is_exact(tree);
    for (const cJSON *child = tree->child; child != NULL; child = child->next) {
        if (number_any_inexact(child))
            return 1;
    }
    return 0;
}

static int number_fix(cJSON *node)
{
    char buf[40];
    char *raw;

    /* A non-finite number prints as null (JSON has none); an exact one as it is. */
    if (!isfinite(node->valuedouble) || number_text(node->valuedouble, buf, sizeof(buf)))
        return STATUS_OK;
    raw = strdup(buf);
    if (raw == NULL)
        return STATUS_NOMEM;
    node->type = cJSON_Raw | (node->type & cJSON_StringIsConst);
    node->valuestring = raw;
    return STATUS_OK;
}

int number_exact(cJSON *tree)
{
    int status = STATUS_OK;

    if (tree == NULL)
        return STATUS_OK;
    if (cJSON_IsNumber(tree))
        return number_fix(tree);
    for (cJSON *child = tree->child; child != NULL && status == STATUS_OK; child = child->next)
        status = number_exact(child);
    return status;
}

char *number_print(const cJSON *item)
{
    cJSON *copy;
    char *text = NULL;

    if (item == NULL || !number_any_inexact(item))
        return cJSON_PrintUnformatted(item);
    copy = cJSON_Duplicate(item, 1);
    if (copy != NULL && number_exact(copy) == STATUS_OK)
        text = cJSON_PrintUnformatted(copy);
    cJSON_Delete(copy);
    return text;
}
