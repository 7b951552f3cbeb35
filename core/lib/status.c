#include "lib/status.h"

#include "plugin-api.h"

#include <stddef.h>

static const struct {
    int code;
    const char *text;
} status_table[] = {
#define STATUS_ROW(name, value, msg) {.code = value, .text = msg},
    STATUS_LIST(STATUS_ROW)
#undef STATUS_ROW
        {0},
};

const char *status_str(int status)
{
    for (size_t i = 0; status_table[i].text != NULL; i++) {
        if (status_table[i].code == status)
            return status_table[i].text;
    }
    return "unknown status";
}

/* The codes with a peer in the ABI; the others map to MCPH_ERR one way, STATUS_PLUGIN the
 * other. Not ended with {0}: that is the first row (success is 0 in both). */
static const struct {
    int status;
    int mcph;
} status_mcph[] = {
    {.status = STATUS_OK, .mcph = MCPH_OK},
    {.status = STATUS_NOMEM, .mcph = MCPH_ERR_NOMEM},
    {.status = STATUS_INVALID, .mcph = MCPH_ERR_INVALID},
    {.status = STATUS_LIMIT, .mcph = MCPH_ERR_LIMIT},
    {.status = STATUS_NOT_FOUND, .mcph = MCPH_ERR_NOT_FOUND},
    {.status = STATUS_AGAIN, .mcph = MCPH_ERR_AGAIN},
};

int status_to_mcph(int status)
{
    for (size_t i = 0; i < sizeof(status_mcph) / sizeof(status_mcph[0]); i++) {
        if (status_mcph[i].status == status)
            return status_mcph[i].mcph;
    }
    return MCPH_ERR;
}

int status_from_mcph(int mcph)
{
    for (size_t i = 0; i < sizeof(status_mcph) / sizeof(status_mcph[0]); i++) {
        if (status_mcph[i].mcph == mcph)
            return status_mcph[i].status;
    }
    return STATUS_PLUGIN;
}
