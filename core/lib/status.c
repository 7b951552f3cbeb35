#include "lib/status.h"

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
